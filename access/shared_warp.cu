/* shared_warp.cu — as shared, but the offsets travel by warp shuffle: with m = bx*by cells per
 * level and m dividing 32, a warp holds 32/m levels of the same m cells; lane (lane mod m) looks
 * them up and the others read them with __shfl_sync. The runner checks the block shape. */
#define KERNEL_BOUNDS 1024 /* see kernels.cuh */
#include "graph_kernels.cuh"

#define STRATEGY_UNS(ST)                                                                          \
    const int m = blockDim.x * blockDim.y;                                                        \
    const int lane = (threadIdx.z * m + threadIdx.y * blockDim.x + threadIdx.x) & 31;             \
    const int src = m < 32 ? lane % m : lane;                                                     \
    const int cell = UNS_CELL(), k = THREAD_Z();                                                  \
    const int p = P.c0 + (cell < P.n ? cell : 0);                                                 \
    int32_t o[1 + NREL2];                                                                                \
    _Pragma("unroll") for (int r = 0; r < 1 + NREL2; r++) o[r] = 0;                                      \
    if (lane == src && cell < P.n)                                                                \
        nb_gather(nbv, CHASING, COMPRESSED, ST##_RELS, p, o);                                     \
    _Pragma("unroll") for (int r = 0; r < NREL2; r++) if ((ST##_RELS >> r) & 1u)                 \
        o[1 + r] = __shfl_sync(0xffffffffu, o[1 + r], src);                                       \
    UNS_SHARED_POINT(ST)
#define STRATEGY_REG(ST) REG_PER_CELL(ST)

#define NB(R) GATHERED_NB(R)
INSTANTIATE_UNS()
INSTANTIATE_REG()
TABULATE(shared_warp_kernels)

/* graph stencils: lane src gathers the cell's degree, row and ring; the others get them by
 * shuffle (D of the ring's words: P.gt_D is the same for the whole warp) */
#define STRATEGY_GRAPH(ST)                                                                        \
    const int m = blockDim.x * blockDim.y;                                                        \
    const int lane = (threadIdx.z * m + threadIdx.y * blockDim.x + threadIdx.x) & 31;             \
    const int src = m < 32 ? lane % m : lane;                                                     \
    const int cell = UNS_CELL(), k = THREAD_Z();                                                  \
    const int p = P.c0 + (cell < P.n ? cell : 0);                                                 \
    GRING_DECL                                                                                    \
    _Pragma("unroll") for (int j = 0; j < MESH_MAXDEG; j++) goff[j] = 0;                          \
    if (lane == src && cell < P.n)                                                                \
        GRING_GATHER(p);                                                                          \
    gdeg = __shfl_sync(0xffffffffu, gdeg, src);                                                   \
    grow = __shfl_sync(0xffffffffu, grow, src);                                                   \
    _Pragma("unroll") for (int j = 0; j < MESH_MAXDEG; j++) if (j < P.gt_D)                       \
        goff[j] = __shfl_sync(0xffffffffu, goff[j], src);                                         \
    if (cell >= P.n || k >= P.zend)                                                               \
        return;                                                                                   \
    gcell = p; /* the ring above is p's */                                                        \
    const long lev = (long)k * P.zs;                                                              \
    ST##_BODY(p);
#define GRAPH_ACC GRAPH_ACC_RING
#include "graph_acc.cuh"
INSTANTIATE_GRAPH_UNS()
#include "graph_twin_per_cell.cuh"
GTABULATE(shared_warp_gkernels)
