/* cpu_exec.c — CPU executors, composed from the stencil bodies and the index macros. */
#include "cpu_exec.h"

#include "cpu_loops.h"
#include "loaded.h"

#define ZS zs
#define K k

/* stencil_zend_ST(nz): the levels stencil ST computes (stencils/stencil.h). */
#define ZEND_FN(ST, _)                                                                            \
    static inline int stencil_zend_##ST(int nz) { return stencil_zend(ST_##ST, nz); }
FOR_EACH_STENCIL(ZEND_FN, _)

/* ---- regular grid: neighbours by arithmetic ---- */
#define NB(R) REG_NB(R)
#define CPU_REGULAR(ST, TY) static CPU_REGULAR_LOOP(ST, TY, stencil_zend_##ST)
FOR_EACH_STENCIL(CPU_REGULAR, double)
FOR_EACH_STENCIL(CPU_REGULAR, float)
#undef NB

/* ---- unstructured grid: neighbours through the tables (CH: chasing, CM: compressed) ---- */
#define NB(R) UNS_NB(R)
#define CPU_UNSTRUCTURED_ALL(ST, TY)                                                              \
    static CPU_UNSTRUCTURED_LOOP(ST, TY, 0, 0) static CPU_UNSTRUCTURED_LOOP(ST, TY, 0, 1)         \
    static CPU_UNSTRUCTURED_LOOP(ST, TY, 1, 0) static CPU_UNSTRUCTURED_LOOP(ST, TY, 1, 1)
FOR_EACH_STENCIL(CPU_UNSTRUCTURED_ALL, double)
FOR_EACH_STENCIL(CPU_UNSTRUCTURED_ALL, float)
#undef NB

/* ---- graph stencils: neighbour lists of any length (storage/ell.h) ---- */
#define GDEG(q) CPU_GDEG(q)
#define GNB(q, j) CPU_GNB(q, j)
#define GAT(q) CPU_GAT(q)
#define CPU_GRAPH_BOTH(ST, _) static CPU_GRAPH_LOOP(ST, double) static CPU_GRAPH_LOOP(ST, float)
FOR_EACH_GRAPH_STENCIL(CPU_GRAPH_BOTH, _)
#undef GDEG
#undef GNB
#undef GAT

typedef void (*reg_fn)(const rgrid *, fieldset);
typedef void (*uns_fn)(nbview, cpu_block, fieldset);

#define REG_ROW(ST, _) {cpu_reg_##ST##_double, cpu_reg_##ST##_float},
static const reg_fn reg_table[ST_QUAD_COUNT][2] = {FOR_EACH_STENCIL(REG_ROW, _)};

#define UNS_ROW(ST, _)                                                                            \
    {{cpu_uns_##ST##_double_00, cpu_uns_##ST##_double_01, cpu_uns_##ST##_double_10,               \
      cpu_uns_##ST##_double_11},                                                                  \
     {cpu_uns_##ST##_float_00, cpu_uns_##ST##_float_01, cpu_uns_##ST##_float_10,                  \
      cpu_uns_##ST##_float_11}},
static const uns_fn uns_table[ST_QUAD_COUNT][2][4] = {FOR_EACH_STENCIL(UNS_ROW, _)};

typedef void (*graph_fn)(ellview, cpu_block, fieldset);
#define GRAPH_ROW(ST, _) {cpu_graph_##ST##_double, cpu_graph_##ST##_float},
static const graph_fn graph_table[ST_COUNT - ST_QUAD_COUNT][2] = {FOR_EACH_GRAPH_STENCIL(GRAPH_ROW, _)};

void cpu_run_regular(const problem *pb, fieldset f)
{
    const loaded_code *lc = loaded_get(pb->s.stencil);
    if (lc) {
        lc->reg[pb->s.prec](&pb->rg, f);
        return;
    }
    reg_table[pb->s.stencil][pb->s.prec](&pb->rg, f);
}

cpu_block cpu_block_inner(const problem *pb)
{
    const ugrid *g = &pb->ug;
    cpu_block b = {g->nhalo, g->nxy, 0, stencil_zend(pb->s.stencil, g->nz), 0, g->zstride};
    return b;
}

void cpu_run_block(stencil_t s, precision_t p, const nbtable *nt, const ell_table *ell,
                   cpu_block b, fieldset f)
{
    const loaded_code *lc = loaded_get(s);
    int storage = nt ? nt->chasing * 2 + nt->compressed : 0;
    if (lc && stencil_table[s].graph) {
        lc->graph[p](ell_view(ell), b, f);
        return;
    }
    if (lc) {
        lc->uns[p][storage](nbtable_view(nt), b, f);
        return;
    }
    if (stencil_table[s].graph) {
        graph_table[s - ST_QUAD_COUNT][p](ell_view(ell), b, f);
        return;
    }
    uns_table[s][p][storage](nbtable_view(nt), b, f);
}

void cpu_run_unstructured(const problem *pb, fieldset f)
{
    cpu_run_block(pb->s.stencil, pb->s.prec, &pb->nt, &pb->ell, cpu_block_inner(pb), f);
}
