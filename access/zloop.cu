/* zloop.cu — one thread per pillar slice of P.zslice levels (zloop: the whole pillar; zloop-sliced:
 * m levels); the offsets are looked up once and the thread walks up the levels adding zstride.
 * The level walk is ZLOOP_UNS / ZLOOP_REG of kernels.cuh (zloop_plain.cu shares it). */
#include "graph_kernels.cuh"

#define STRATEGY_UNS(ST) ZLOOP_UNS(ST)
#define STRATEGY_REG(ST) ZLOOP_REG(ST)

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
