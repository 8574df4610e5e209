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

/* ---- graph stencils: coefficients (stencils/coeffs.h) of cell q, from G ---- */
#define GCOEF(i, q) CPU_GCOEF(i, q)
#define GCOEFJ(i, q, j) CPU_GCOEFJ(i, q, j)

/* ---- graph stencils: neighbour lists of any length (storage/ell.h); the reference ---- */
#define GDEG(q) CPU_GDEG(q)
#define GNB(q, j) CPU_GNB(q, j)
#define GDEG2(c, k) CPU_GDEG2(c, k)
#define GNB2(c, k, j) CPU_GNB2(c, k, j)
#define GFOR(k, lo, d) CPU_GFOR(k, lo, d)
#define GFOR2(k, lo, d) CPU_GFOR(k, lo, d)
#define GAT(q) CPU_GAT(q)
#define GOUT(q) CPU_GOUT(q)
#define CPU_GRAPH_BOTH(ST, _) static CPU_GRAPH_LOOP(ST, double) static CPU_GRAPH_LOOP(ST, float)
FOR_EACH_GRAPH_STENCIL(CPU_GRAPH_BOTH, _)
#undef GDEG
#undef GNB
#undef GDEG2
#undef GNB2

/* ---- graph stencils through the offset tables (storage/gtable.h; CH chasing, CM compressed):
 * what the GPU strategies read, checked against the lists above ---- */
#define GDEG(q) CPU_GT_DEG(q)
#define GNB(q, j) CPU_GT_NB(q, j)
#define GDEG2(c, k) CPU_GT_DEG2(c, k)
#define GNB2(c, k, j) CPU_GT_NB2(c, k, j)
#define CPU_GTABLE_ALL(ST, TY)                                                                    \
    static CPU_GTABLE_LOOP(ST, TY, 0, 0) static CPU_GTABLE_LOOP(ST, TY, 0, 1)                     \
    static CPU_GTABLE_LOOP(ST, TY, 1, 0) static CPU_GTABLE_LOOP(ST, TY, 1, 1)
#define CPU_GTABLE_BOTH(ST, _) CPU_GTABLE_ALL(ST, double) CPU_GTABLE_ALL(ST, float)
FOR_EACH_GRAPH_STENCIL(CPU_GTABLE_BOTH, _)
#undef GDEG
#undef GNB
#undef GDEG2
#undef GNB2

/* ---- graph stencils on a lattice addressed by arithmetic (grids/lattice.h): the regular twin;
 * par is the parity of the cell being computed ---- */
#define GDEG(q) CPU_LAT_DEG(q)
#define GNB(q, j) CPU_LAT_NB(q, j)
#define GDEG2(c, k) CPU_LAT_DEG(c)
#define GNB2(c, k, j) CPU_LAT_NB2(c, k, j)
#define CPU_LATTICE_BOTH(ST, _) static CPU_LATTICE_LOOP(ST, double) static CPU_LATTICE_LOOP(ST, float)
FOR_EACH_GRAPH_STENCIL(CPU_LATTICE_BOTH, _)
#include "stencils/graph_undef.h"

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

typedef void (*gtable_fn)(const gtable *, cpu_block, fieldset);
#define GTABLE_ROW(ST, _)                                                                         \
    {{cpu_gtable_##ST##_double_00, cpu_gtable_##ST##_double_01, cpu_gtable_##ST##_double_10,      \
      cpu_gtable_##ST##_double_11},                                                               \
     {cpu_gtable_##ST##_float_00, cpu_gtable_##ST##_float_01, cpu_gtable_##ST##_float_10,         \
      cpu_gtable_##ST##_float_11}},
static const gtable_fn gtable_table[ST_COUNT - ST_QUAD_COUNT][2][4] = {
    FOR_EACH_GRAPH_STENCIL(GTABLE_ROW, _)};

typedef void (*lattice_fn)(lattice, int, int, long, const coef_set *, fieldset);
#define LATTICE_ROW(ST, _) {cpu_lattice_##ST##_double, cpu_lattice_##ST##_float},
static const lattice_fn lattice_table[ST_COUNT - ST_QUAD_COUNT][2] = {
    FOR_EACH_GRAPH_STENCIL(LATTICE_ROW, _)};

void cpu_run_gtable(const problem *pb, fieldset f)
{
    const loaded_code *lc = loaded_get(pb->s.stencil);
    const gtable *t = &pb->gt;
    int storage = t->chasing * 2 + t->compressed;
    if (lc && !lc->gtable[pb->s.prec][storage]) { /* the checked mode: it checks on the lists */
        cpu_run_unstructured(pb, f);
        return;
    }
    cpu_block b = cpu_block_inner(pb);
    b.coef = &pb->coef;
    if (lc)
        lc->gtable[pb->s.prec][storage](t, b, f);
    else
        gtable_table[pb->s.stencil - ST_QUAD_COUNT][pb->s.prec][storage](t, b, f);
}

void cpu_run_regular(const problem *pb, fieldset f)
{
    const loaded_code *lc = loaded_get(pb->s.stencil);
    if (stencil_table[pb->s.stencil].graph) { /* the lattice twin (problem_make made one) */
        lattice_fn fn = lc ? lc->lattice[pb->s.prec]
                           : lattice_table[pb->s.stencil - ST_QUAD_COUNT][pb->s.prec];
        fn(pb->twin->lat, stencil_table[pb->s.stencil].radius, stencil_zend(pb->s.stencil, pb->s.nz),
           pb->twin->rg.zstride, &pb->twin->coef_file, f);
        return;
    }
    if (lc) {
        lc->reg[pb->s.prec](&pb->twin->rg, f);
        return;
    }
    reg_table[pb->s.stencil][pb->s.prec](&pb->twin->rg, f);
}

cpu_block cpu_block_inner(const problem *pb)
{
    const ugrid *g = &pb->ug;
    cpu_block b = {g->nhalo, g->nxy, 0, stencil_zend(pb->s.stencil, g->nz), 0, g->zstride, NULL};
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
    cpu_block b = cpu_block_inner(pb);
    b.coef = &pb->coef;
    cpu_run_block(pb->s.stencil, pb->s.prec, &pb->nt, &pb->ell, b, f);
}
