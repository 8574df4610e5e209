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

/* ---- graph stencils: coefficients (storage/geometry.h) of cell q, from G ---- */
#define GAREA(q) CPU_GAREA(q)
#define GKAPPA(q, j) CPU_GKAPPA(q, j)

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
#define GROW(q) (COMPRESSED ? t->p.pat[q] : (q))
#define GE(e, q) t->p.tab[(long)(e) * t->p.ntab + GROW(q)]
#define GDEG(q) GE(0, q)
#define GNB(q, j) ((q) + GE(1 + (j), q))
#define GDEG2(c, k) (CHASING ? GDEG(GNB(c, k)) : GE((1 + (k)) * (1 + t->maxdeg), c))
#define GNB2(c, k, j) (CHASING ? GNB(GNB(c, k), j) : (c) + GE((1 + (k)) * (1 + t->maxdeg) + 1 + (j), c))
#define CPU_GTABLE(ST, TY, CH, CM)                                                                \
    static void cpu_gtable_##ST##_##TY##_##CH##CM(const gtable *t, cpu_block b, fieldset F)       \
    {                                                                                             \
        typedef TY T;                                                                             \
        enum { CHASING = CH, COMPRESSED = CM };                                                   \
        ST##_BIND(F);                                                                             \
        CPU_GRAPH_POINTS(ST)                                                                      \
    }
#define CPU_GTABLE_ALL(ST, TY)                                                                    \
    CPU_GTABLE(ST, TY, 0, 0) CPU_GTABLE(ST, TY, 0, 1) CPU_GTABLE(ST, TY, 1, 0) CPU_GTABLE(ST, TY, 1, 1)
#define CPU_GTABLE_BOTH(ST, _) CPU_GTABLE_ALL(ST, double) CPU_GTABLE_ALL(ST, float)
FOR_EACH_GRAPH_STENCIL(CPU_GTABLE_BOTH, _)
#undef GROW
#undef GE
#undef GDEG
#undef GNB
#undef GDEG2
#undef GNB2

/* ---- graph stencils on a lattice addressed by arithmetic (grids/lattice.h): the regular twin;
 * par is the parity of the cell being computed ---- */
#define GDEG(q) lattice_deg(L.kind)
#define GNB(q, j) ((q) + lattice_off(L.kind, W, par, j))
#define GDEG2(c, k) lattice_deg(L.kind)
#define GNB2(c, k, j) (GNB(c, k) + lattice_off(L.kind, W, lattice_npar(L.kind, par, k), j))
#define CPU_LATTICE(ST, TY)                                                                       \
    static void cpu_lattice_##ST##_##TY(lattice L, int radius, int nz, long zs, const geometry *G, \
                                        fieldset F)                                               \
    {                                                                                             \
        typedef TY T;                                                                             \
        ST##_BIND(F);                                                                             \
        (void)G;                                                                                  \
        const int W = lattice_w(L.kind, L.nx);                                                    \
        _Pragma("omp parallel for collapse(2) schedule(static)") for (int k = 0; k < nz; k++)     \
            for (int y = 0; y < L.ny; y++)                                                        \
                for (int x = 0; x < W; x++) {                                                     \
                    if (!lattice_inner(L.kind, L.nx, L.ny, radius, x, y))                          \
                        continue;                                                                 \
                    const long lev = k * zs;                                                      \
                    const int par = lattice_par(L.kind, x, y);                                    \
                    ST##_BODY(y * W + x);                                                         \
                }                                                                                 \
    }
#define CPU_LATTICE_BOTH(ST, _) CPU_LATTICE(ST, double) CPU_LATTICE(ST, float)
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

typedef void (*lattice_fn)(lattice, int, int, long, const geometry *, fieldset);
#define LATTICE_ROW(ST, _) {cpu_lattice_##ST##_double, cpu_lattice_##ST##_float},
static const lattice_fn lattice_table[ST_COUNT - ST_QUAD_COUNT][2] = {
    FOR_EACH_GRAPH_STENCIL(LATTICE_ROW, _)};

void cpu_run_gtable(const problem *pb, fieldset f)
{
    if (stencil_is_user(pb->s.stencil)) { /* no offset-table loops: its own list loop */
        cpu_run_unstructured(pb, f);
        return;
    }
    const gtable *t = &pb->gt;
    cpu_block b = cpu_block_inner(pb);
    b.geo = &pb->geo;
    gtable_table[pb->s.stencil - ST_QUAD_COUNT][pb->s.prec][t->chasing * 2 + t->compressed](t, b, f);
}

void cpu_run_regular(const problem *pb, fieldset f)
{
    const loaded_code *lc = loaded_get(pb->s.stencil);
    if (lc && !stencil_table[pb->s.stencil].graph) {
        lc->reg[pb->s.prec](&pb->rg, f);
        return;
    }
    if (stencil_table[pb->s.stencil].graph) {
        /* a loaded graph stencil has no lattice twin: problem_make refuses --grid regular */
        if (stencil_is_user(pb->s.stencil))
            return;
        lattice_table[pb->s.stencil - ST_QUAD_COUNT][pb->s.prec](
            pb->lat, stencil_table[pb->s.stencil].radius, stencil_zend(pb->s.stencil, pb->s.nz),
            pb->rg.zstride, &pb->geo_file, f);
        return;
    }
    reg_table[pb->s.stencil][pb->s.prec](&pb->rg, f);
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
    b.geo = &pb->geo;
    cpu_run_block(pb->s.stencil, pb->s.prec, &pb->nt, &pb->ell, b, f);
}
