/* cpu_loops.h — the CPU executor's loops around a stencil body: the regular grid (neighbours by
 * arithmetic), the unstructured grid (through the neighbour tables, any storage) and the graph
 * stencils (neighbour lists). cpu_exec.c expands them for every built-in stencil; the shared
 * objects of stencils loaded at run time (src/jit/) expand the same macros for theirs, so a body
 * runs in exactly the same loop either way. Expanding a loop needs NB defined (REG_NB or UNS_NB,
 * access/index.h; graph: the names of the graph body interface, stencils/graphlap.h, e.g. as the
 * CPU_G* forms below), ZS as zs and K as k (the level stride and level the loops keep), and the
 * body's PREFIX_BIND and PREFIX_BODY. */
#ifndef PILLAR_CPU_LOOPS_H
#define PILLAR_CPU_LOOPS_H

#include "access/index.h"
#include "storage/ell.h"
#include "grids/lattice.h"
#include "storage/coeffs.h"
#include "storage/gtable.h"

/* Points of an unstructured computation: plane cells [c0, c1) at global levels [k0, k1) of arrays
 * whose level 0 is global level kbase and whose levels lie zs elements apart. Bodies see the
 * global level (fastwaves switches at c_flat_limit). */
typedef struct {
    int c0, c1;
    int k0, k1;
    int kbase;
    long zs;
    const coef_set *coef; /* graph stencils that read coefficients (stencils/coeffs.h): those of
                           * the block's cells; NULL or empty for the others */
} cpu_block;

static inline long cpu_block_points(cpu_block b) { return (long)(b.k1 - b.k0) * (b.c1 - b.c0); }

/* cpu_reg_ST_TY(g, F): every inner point of the computed levels [0, zend) of regular grid g. */
#define CPU_REGULAR_LOOP(ST, TY, zend_of)                                                         \
    void cpu_reg_##ST##_##TY(const rgrid *g, fieldset F)                                          \
    {                                                                                             \
        typedef TY T;                                                                             \
        ST##_BIND(F);                                                                             \
        const long ys = g->ystride, zs = g->zstride;                                              \
        const int zend = zend_of(g->nz), y0 = g->halo, y1 = g->ny - g->halo;                      \
        const int x0 = g->halo, x1 = g->nx - g->halo;                                             \
        (void)zs;                                                                                 \
        (void)ys;                                                                                 \
        _Pragma("omp parallel for collapse(2) schedule(static)") for (int k = 0; k < zend; k++)   \
            for (int y = y0; y < y1; y++)                                                         \
                for (int x = x0; x < x1; x++) {                                                   \
                    const long i = rgrid_index(g, x, y, k);                                       \
                    ST##_BODY();                                                                  \
                }                                                                                 \
    }

/* cpu_uns_ST_TY_CHCM(nbv, b, F): the points of block b through table view nbv (CH: chasing,
 * CM: compressed). */
#define CPU_UNSTRUCTURED_LOOP(ST, TY, CH, CM)                                                     \
    void cpu_uns_##ST##_##TY##_##CH##CM(nbview nbv, cpu_block b, fieldset F)                      \
    {                                                                                             \
        typedef TY T;                                                                             \
        enum { CHASING = CH, COMPRESSED = CM };                                                   \
        ST##_BIND(F);                                                                             \
        const long zs = b.zs;                                                                     \
        (void)zs;                                                                                 \
        _Pragma("omp parallel for collapse(2) schedule(static) if(cpu_block_points(b) > 4096)")   \
        for (int k = b.k0; k < b.k1; k++)                                                         \
            for (int p = b.c0; p < b.c1; p++) {                                                   \
                const long i = p + (k - b.kbase) * zs;                                            \
                ST##_BODY();                                                                      \
            }                                                                                     \
    }

/* The graph stencils' neighbour lists (storage/ell.h: ev) and coefficients (stencils/coeffs.h:
 * G, array i at cell q, slot j), as the graph body interface names them (stencils/graphlap.h): the chasing
 * forms, plain loops. An expander defines GDEG as CPU_GDEG and so on, or its own forms. */
#define CPU_GDEG(q) ev.deg[q]
#define CPU_GNB(q, j) ev.nb[(long)(j) * ev.stride + (q)]
#define CPU_GDEG2(c, k) GDEG(GNB(c, k))
#define CPU_GNB2(c, k, j) GNB(GNB(c, k), j)
#define CPU_GFOR(k, lo, d) for (int k = (lo); k < (d); k++)
#define CPU_GAT(q) ((q) + lev)
#define CPU_GOUT(q) GAT(q)
#define CPU_GCOEF(i, q) ((const T *)G->a[i])[q]
#define CPU_GCOEFJ(i, q, j) ((const T *)G->a[i])[(long)(j) * G->n + (q)]

/* The points of block b (plane cell p at level k, lev the level's offset; G = b.coef), on
 * whatever the body's names read: the lists, the offset tables or anything else. */
#define CPU_GRAPH_POINTS(ST)                                                                      \
    const coef_set *G = b.coef;                                                                    \
    (void)G;                                                                                      \
    _Pragma("omp parallel for collapse(2) schedule(static) if(cpu_block_points(b) > 4096)")       \
    for (int k = b.k0; k < b.k1; k++)                                                             \
        for (int p = b.c0; p < b.c1; p++) {                                                       \
            const long lev = (k - b.kbase) * b.zs;                                                \
            ST##_BODY(p);                                                                         \
        }

/* cpu_graph_ST_TY(ev, b, F): the points of block b through neighbour lists ev. */
#define CPU_GRAPH_LOOP(ST, TY)                                                                    \
    void cpu_graph_##ST##_##TY(ellview ev, cpu_block b, fieldset F)                               \
    {                                                                                             \
        typedef TY T;                                                                             \
        ST##_BIND(F);                                                                             \
        CPU_GRAPH_POINTS(ST)                                                                      \
    }

/* The graph offset tables (storage/gtable.h, t; CHASING and COMPRESSED constants in the loop)
 * as the graph body's names: what the GPU strategies read, checked against the lists. */
#define CPU_GT_ROW(q) (COMPRESSED ? t->p.pat[q] : (q))
#define CPU_GT_E(e, q) t->p.tab[(long)(e) * t->p.ntab + CPU_GT_ROW(q)]
#define CPU_GT_DEG(q) CPU_GT_E(0, q)
#define CPU_GT_NB(q, j) ((q) + CPU_GT_E(1 + (j), q))
#define CPU_GT_DEG2(c, k)                                                                         \
    (CHASING ? CPU_GT_DEG(CPU_GT_NB(c, k)) : CPU_GT_E((1 + (k)) * (1 + t->maxdeg), c))
#define CPU_GT_NB2(c, k, j)                                                                       \
    (CHASING ? CPU_GT_NB(CPU_GT_NB(c, k), j)                                                      \
             : (c) + CPU_GT_E((1 + (k)) * (1 + t->maxdeg) + 1 + (j), c))

/* cpu_gtable_ST_TY_CHCM(t, b, F): the points of block b through offset table t (CH chasing, CM
 * compressed; the body's names as the CPU_GT_* forms, or an expander's own). */
#define CPU_GTABLE_LOOP(ST, TY, CH, CM)                                                           \
    void cpu_gtable_##ST##_##TY##_##CH##CM(const gtable *t, cpu_block b, fieldset F)              \
    {                                                                                             \
        typedef TY T;                                                                             \
        enum { CHASING = CH, COMPRESSED = CM };                                                   \
        ST##_BIND(F);                                                                             \
        CPU_GRAPH_POINTS(ST)                                                                      \
    }

/* The lattice twin (grids/lattice.h): LK the lattice kind, LW the row width, par the parity of
 * the cell being computed. CPU_LAT_NB is the built-in bodies' form (their GNB names a neighbour
 * of the computed cell only); stencil files get the general form (src/jit/compose.c). */
#define CPU_LAT_DEG(q) lattice_deg(LK)
#define CPU_LAT_NB(q, j) ((q) + lattice_off(LK, LW, par, j))
#define CPU_LAT_NB2(c, k, j) (CPU_LAT_NB(c, k) + lattice_off(LK, LW, lattice_npar(LK, par, k), j))

/* cpu_lattice_ST_TY(L, radius, nz, zs, G, F): every inner cell of lattice L (the regular twin of
 * a graph stencil: the mesh's cells in file order) at levels [0, nz). */
#define CPU_LATTICE_LOOP(ST, TY)                                                                  \
    void cpu_lattice_##ST##_##TY(lattice L, int radius, int nz, long zs, const coef_set *G,       \
                                 fieldset F)                                                      \
    {                                                                                             \
        typedef TY T;                                                                             \
        ST##_BIND(F);                                                                             \
        (void)G;                                                                                  \
        const int LK = L.kind, LW = lattice_w(L.kind, L.nx);                                      \
        _Pragma("omp parallel for collapse(2) schedule(static)") for (int k = 0; k < nz; k++)     \
            for (int y = 0; y < L.ny; y++)                                                        \
                for (int x = 0; x < LW; x++) {                                                    \
                    if (!lattice_inner(LK, L.nx, L.ny, radius, x, y))                             \
                        continue;                                                                 \
                    const long lev = k * zs;                                                      \
                    const int par = lattice_par(LK, x, y);                                        \
                    (void)par;                                                                    \
                    ST##_BODY(y * LW + x);                                                        \
                }                                                                                 \
    }

#endif
