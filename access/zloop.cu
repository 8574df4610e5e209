/* zloop.cu — one thread per pillar slice of P.zslice levels (zloop: the whole pillar; zloop-sliced:
 * m levels); the offsets are looked up once and the thread walks up the levels adding zstride.
 * (Unrolling the level loop by 4 was measured 15-30% slower on the H100: register pressure.) */
#include "graph_kernels.cuh"

#ifndef PILLAR_ZUNROLL
#define PILLAR_ZUNROLL 1
#endif
#define PRAGMA_(x) _Pragma(#x)
#define PRAGMA(x) PRAGMA_(x)
#define ZLOOP_LEVELS(ST)                                                                          \
    const int k0 = s * P.zslice, k1 = min(k0 + P.zslice, P.zend);                                 \
    PRAGMA(unroll PILLAR_ZUNROLL) for (int k = k0; k < k1; k++) {                                 \
        const long i = base + (long)k * P.zs;                                                     \
        ST##_BODY();                                                                              \
    }

#define STRATEGY_UNS(ST)                                                                          \
    const int cell = UNS_CELL(), s = THREAD_Z();                                                  \
    if (cell >= P.n || s * P.zslice >= P.zend)                                                    \
        return;                                                                                   \
    const int p = P.c0 + cell;                                                                    \
    const long base = p;                                                                          \
    int32_t o[1 + NREL2];                                                                                \
    nb_gather(nbv, CHASING, COMPRESSED, ST##_RELS, p, o);                                         \
    ZLOOP_LEVELS(ST)

#define STRATEGY_REG(ST)                                                                          \
    const int x = REG_X(), y = REG_Y(), s = THREAD_Z();                                           \
    if (!REG_INSIDE(x, y) || s * P.zslice >= P.zend)                                              \
        return;                                                                                   \
    const long base = REG_INDEX(x, y, 0);                                                         \
    int32_t o[1 + NREL2];                                                                                \
    reg_gather(P.ys, o);                                                                          \
    ZLOOP_LEVELS(ST)

#define NB(R) GATHERED_NB(R)
INSTANTIATE_UNS()
INSTANTIATE_REG()
TABULATE(zloop_kernels)

/* graph stencils: the cell's ring gathered once per pillar slice, then the levels */
#define STRATEGY_GRAPH(ST)                                                                        \
    const int cell = UNS_CELL(), s = THREAD_Z();                                                  \
    if (cell >= P.n || s * P.zslice >= P.zend)                                                    \
        return;                                                                                   \
    const int p = P.c0 + cell;                                                                    \
    GRING_DECL                                                                                    \
    GRING_GATHER(p);                                                                              \
    const int k0 = s * P.zslice, k1 = min(k0 + P.zslice, P.zend);                                 \
    for (int k = k0; k < k1; k++) {                                                               \
        const long lev = (long)k * P.zs;                                                          \
        ST##_BODY(p);                                                                             \
    }
#define STRATEGY_LATTICE(ST)                                                                      \
    const int x = REG_X(), y = REG_Y(), s = THREAD_Z();                                           \
    if (x >= P.lat_w || y >= P.lat_ny || s * P.zslice >= P.zend ||                                \
        !lattice_inner(LK, P.lat_nx, P.lat_ny, P.g_radius, x, y))                                 \
        return;                                                                                   \
    const int par = lattice_par(LK, x, y), LW = P.lat_w;                                          \
    const int k0 = s * P.zslice, k1 = min(k0 + P.zslice, P.zend);                                 \
    for (int k = k0; k < k1; k++) {                                                               \
        const long lev = (long)k * P.zs;                                                          \
        ST##_BODY(y * LW + x);                                                                    \
    }
#define GRAPH_ACC GRAPH_ACC_RING
#include "graph_acc.cuh"
INSTANTIATE_GRAPH_UNS()
#undef GRAPH_ACC
#define GRAPH_ACC GRAPH_ACC_LATTICE
#include "graph_acc.cuh"
INSTANTIATE_GRAPH_LAT()
GTABULATE(zloop_gkernels)
