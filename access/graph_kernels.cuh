/* graph_kernels.cuh — the scaffolding of the access strategies for the graph stencils (cells with
 * any number of neighbours: stencils/graphlap.h's body interface), next to kernels.cuh's for the
 * W/E/S/N stencils. A strategy file that includes it defines
 *   STRATEGY_GRAPH(ST)    the body of a kernel on the offset tables of storage/gtable.h (CHASING,
 *                         COMPRESSED are compile-time constants inside)
 *   STRATEGY_LATTICE(ST)  the body of its regular twin: a generated hexagon or triangle lattice
 *                         addressed by arithmetic (grids/lattice.h; LK the lattice kind, a
 *                         compile-time constant)
 * and expands INSTANTIATE_GRAPH_UNS() and INSTANTIATE_GRAPH_LAT(), each after choosing the body's
 * accessors (GRAPH_ACC and graph_acc.cuh: the table read at every use, the cell's ring gathered
 * into registers, or the lattice), then GTABULATE(name) for its table name_gkernels. */
#ifndef PILLAR_GRAPH_KERNELS_CUH
#define PILLAR_GRAPH_KERNELS_CUH

#include "../grids/lattice.h"
#include "kernels.cuh"

/* ---- the offset table (storage/gtable.h): entry e of table row `row`; the row of cell q ---- */
#define GT_ROW(q) (COMPRESSED ? __ldg(P.gt_pat + (q)) : (q))
#define GT_E(e, row) __ldg(P.gt_tab + (long)(e) * P.gt_ntab + (row))
#define GT_W1 (1 + P.gt_D) /* entries of one block of a non-chasing row */

/* Naive: every entry read from the table where the body uses it. */
#define GN_DEG(q) GT_E(0, GT_ROW(q))
#define GN_NB(q, j) ((q) + GT_E(1 + (j), GT_ROW(q)))
#define GN_DEG2(c, k) (CHASING ? GN_DEG(GN_NB(c, k)) : GT_E((1 + (k)) * GT_W1, GT_ROW(c)))
#define GN_NB2(c, k, j)                                                                           \
    (CHASING ? GN_NB(GN_NB(c, k), j) : (c) + GT_E((1 + (k)) * GT_W1 + 1 + (j), GT_ROW(c)))

/* Gathered: the cell's degree, table row and first ring held in registers (gdeg, grow,
 * goff[MESH_MAXDEG]: the loop along c's ring is unrolled with a guard, so every goff index is a
 * constant); the second ring is read where used (each entry once): from c's own row
 * (non-chasing) or from the neighbour's row (chasing). A body may name the lists of another
 * cell than the gathered one (a stencil file's nested GNB(GNB(c, k), j)): those read the table
 * as naive does. The test against gcell costs nothing where the body names the gathered cell
 * itself (the built-in bodies): the compiler sees the same value on both sides. */
#define GRING_DECL                                                                                \
    int gdeg = 0, grow = 0, gcell = -1;                                                           \
    int32_t goff[MESH_MAXDEG];
#define GRING_GATHER(c)                                                                           \
    do {                                                                                          \
        gcell = (c);                                                                              \
        grow = GT_ROW(c);                                                                         \
        gdeg = GT_E(0, grow);                                                                     \
        _Pragma("unroll") for (int j_ = 0; j_ < MESH_MAXDEG; j_++)                                \
            goff[j_] = j_ < gdeg ? GT_E(1 + j_, grow) : 0;                                        \
    } while (0)
#define GG_DEG(q) ((q) == gcell ? gdeg : GN_DEG(q))
#define GG_NB(q, j) ((q) == gcell ? (q) + goff[j] : GN_NB(q, j))
#define GG_DEG2(c, k)                                                                             \
    ((c) == gcell ? (CHASING ? GN_DEG(GG_NB(c, k)) : GT_E((1 + (k)) * GT_W1, grow)) : GN_DEG2(c, k))
#define GG_NB2(c, k, j)                                                                           \
    ((c) == gcell ? (CHASING ? GN_NB(GG_NB(c, k), j) : (c) + GT_E((1 + (k)) * GT_W1 + 1 + (j), grow)) \
                  : GN_NB2(c, k, j))
#define GFOR_UNROLLED(k, lo, d)                                                                   \
    _Pragma("unroll") for (int k = (lo); k < MESH_MAXDEG; k++) if (k < (d))

/* Lattice: offsets by arithmetic from the cell's parity `par` and the row width `LW` in scope
 * (grids/lattice.h); degrees are constants, so the compiler unrolls both loops. */
#define GL_DEG(q) lattice_deg(LK)
#ifdef PILLAR_JIT_GRAPH /* a stencil file's GNB may name any cell's neighbour (src/jit/compose.c):
                         * q's own parity, the computed cell's where q is c */
#define GL_PAR(q) ((q) == c ? par : lattice_cell_par(LK, LW, (q)))
#else /* the built-in bodies name neighbours of the computed cell (GNB) or of its ring (GNB2) */
#define GL_PAR(q) par
#endif
#define GL_NB(q, j) ((q) + lattice_off(LK, LW, GL_PAR(q), j))
#define GL_NB2(c, k, j) (GL_NB(c, k) + lattice_off(LK, LW, lattice_npar(LK, GL_PAR(c), k), j))
#define GFOR_CONST(k, lo, d) for (int k = (lo); k < (d); k++)

/* Cell, level and field index of the thread-per-cell lattice kernels; returns outside. */
#define LAT_PER_CELL_INDEX()                                                                      \
    const int x = REG_X(), y = REG_Y(), k = THREAD_Z();                                           \
    if (x >= P.lat_w || y >= P.lat_ny || k >= P.zend ||                                           \
        !lattice_inner(LK, P.lat_nx, P.lat_ny, P.g_radius, x, y))                                 \
        return;                                                                                   \
    const int par = lattice_par(LK, x, y), LW = P.lat_w;                                          \
    const long lev = (long)k * P.zs;

/* The regular twin of every thread-per-cell strategy. */
#define LAT_PER_CELL(ST)                                                                          \
    LAT_PER_CELL_INDEX()                                                                          \
    ST##_BODY(y * LW + x);

/* Thread-per-cell coordinates on the table: plane cell p, level k; returns outside. */
#define GRAPH_PER_CELL_INDEX()                                                                    \
    const int cell = UNS_CELL(), k = THREAD_Z();                                                  \
    if (cell >= P.n || k >= P.zend)                                                               \
        return;                                                                                   \
    const int p = P.c0 + cell;                                                                    \
    const long lev = (long)k * P.zs;

/* ---- coefficients (stencils/coeffs.h) of the cell GCELL(c) names (graph_acc.cuh) ---- */
#define GCOEF(i, c) __ldg((const T *)P.coef[i] + GCELL(c))
#define GCOEFJ(i, c, j) __ldg((const T *)P.coef[i] + (long)(j) * P.coef_n + GCELL(c))

/* ---- accessor sets: a strategy file sets GRAPH_ACC to one of these and includes
 * graph_acc.cuh, which defines the body's names accordingly ---- */
#define GRAPH_ACC_NAIVE 1   /* GN_*: the table at every use */
#define GRAPH_ACC_RING 2    /* GG_*: the cell's ring gathered into registers (gdeg, goff) */
#define GRAPH_ACC_LATTICE 3 /* GL_*: the lattice twin */
#define GRAPH_ACC_STAGED 4  /* slots of a block's copy, rows of slots GS_E (access/staged.cu) */
#define GRAPH_ACC_STAGED_LATTICE 5 /* GL_* on slots of a lattice tile (access/staged.cu) */

/* ---- instantiation: kernels for every graph stencil, precision and storage, and the twins
 * (hexagons, triangles); launch bounds without an occupancy floor, so the nested neighbour
 * loops keep their registers (as access/graph.cu) ---- */
#define GRAPH_KERNEL(ST, TY, CH, CM)                                                              \
    PILLAR_KERNEL void __launch_bounds__(PILLAR_MAX_THREADS) kg_##ST##_##TY##_##CH##CM(kparams P) \
    {                                                                                             \
        typedef TY T;                                                                             \
        enum { CHASING = CH, COMPRESSED = CM };                                                   \
        ST##_BIND(P.f);                                                                           \
        STRATEGY_GRAPH(ST)                                                                        \
    }
#define GRAPH_KERNELS(ST, TY)                                                                     \
    GRAPH_KERNEL(ST, TY, 0, 0) GRAPH_KERNEL(ST, TY, 0, 1) GRAPH_KERNEL(ST, TY, 1, 0)             \
    GRAPH_KERNEL(ST, TY, 1, 1)
#define LATTICE_KERNEL(ST, TY, KIND, tag)                                                         \
    PILLAR_KERNEL void __launch_bounds__(PILLAR_MAX_THREADS) kg_##ST##_##TY##_##tag(kparams P) \
    {                                                                                             \
        typedef TY T;                                                                             \
        enum { LK = KIND };                                                                       \
        ST##_BIND(P.f);                                                                           \
        STRATEGY_LATTICE(ST)                                                                      \
    }
#define LATTICE_KERNELS(ST, TY)                                                                   \
    LATTICE_KERNEL(ST, TY, LATTICE_HEXAGONS, hex) LATTICE_KERNEL(ST, TY, LATTICE_TRIANGLES, tri)
#ifdef PILLAR_JIT_GRAPH /* a graph stencil file's module (src/jit/): its kernels, no table */
#define INSTANTIATE_GRAPH_UNS() GRAPH_KERNELS(USER, double) GRAPH_KERNELS(USER, float)
#define INSTANTIATE_GRAPH_LAT() LATTICE_KERNELS(USER, double) LATTICE_KERNELS(USER, float)
#elif defined(PILLAR_JIT) /* a W/E/S/N stencil file's module: no graph kernels, no table */
#define INSTANTIATE_GRAPH_UNS()
#define INSTANTIATE_GRAPH_LAT()
#else
#define INSTANTIATE_GRAPH_UNS()                                                                   \
    FOR_EACH_GRAPH_STENCIL(GRAPH_KERNELS, double) FOR_EACH_GRAPH_STENCIL(GRAPH_KERNELS, float)
#define INSTANTIATE_GRAPH_LAT()                                                                   \
    FOR_EACH_GRAPH_STENCIL(LATTICE_KERNELS, double) FOR_EACH_GRAPH_STENCIL(LATTICE_KERNELS, float)
#endif

#define GKERNEL_ROW(ST, TY)                                                                       \
    {(const void *)kg_##ST##_##TY##_00, (const void *)kg_##ST##_##TY##_01,                        \
     (const void *)kg_##ST##_##TY##_10, (const void *)kg_##ST##_##TY##_11,                        \
     (const void *)kg_##ST##_##TY##_hex, (const void *)kg_##ST##_##TY##_tri}
#define GKERNEL_STENCIL(ST, _) {GKERNEL_ROW(ST, double), GKERNEL_ROW(ST, float)},
#ifdef PILLAR_JIT
#define GTABULATE(name)
#else
#define GTABULATE(name)                                                                           \
    extern "C" {                                                                                  \
    gkernel_table name = {FOR_EACH_GRAPH_STENCIL(GKERNEL_STENCIL, _)};                            \
    }
#endif

#endif
