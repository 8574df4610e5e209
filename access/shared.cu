/* shared.cu — the block's lowest-z thread of each plane cell looks up the cell's offsets and
 * writes them to shared memory (row stride odd, so coprime with the 32 banks); after a barrier
 * every thread of that cell reads them and adds its level. Dynamic shared memory: NREL2 rows of
 * (bx*by | 1) offsets. */
#define KERNEL_BOUNDS 1024 /* see kernels.cuh */
#include "graph_kernels.cuh"

#define STRATEGY_UNS(ST)                                                                          \
    extern __shared__ int32_t sh[];                                                               \
    const int txy = threadIdx.y * blockDim.x + threadIdx.x;                                       \
    const int stride = (blockDim.x * blockDim.y) | 1;                                             \
    const int cell = UNS_CELL(), k = THREAD_Z();                                                  \
    const int p = P.c0 + (cell < P.n ? cell : 0);                                                 \
    if (threadIdx.z == 0 && cell < P.n) {                                                         \
        int32_t g[1 + NREL2];                                                                            \
        nb_gather(nbv, CHASING, COMPRESSED, ST##_RELS, p, g);                                     \
        _Pragma("unroll") for (int r = 0; r < NREL2; r++) if ((ST##_RELS >> r) & 1u)              \
            sh[r * stride + txy] = g[1 + r];                                                      \
    }                                                                                             \
    __syncthreads();                                                                              \
    int32_t o[1 + NREL2];                                                                                \
    o[0] = 0;                                                                                     \
    _Pragma("unroll") for (int r = 0; r < NREL2; r++)                                             \
        o[1 + r] = ((ST##_RELS >> r) & 1u) ? sh[r * stride + txy] : 0;                           \
    UNS_SHARED_POINT(ST)
#define STRATEGY_REG(ST) REG_PER_CELL(ST)

#define NB(R) GATHERED_NB(R)
INSTANTIATE_UNS()
INSTANTIATE_REG()
TABULATE(shared_kernels)

/* graph stencils: the lowest-z thread of each plane cell puts the cell's degree, table row and
 * ring (2 + D rows of (bx*by | 1) words) in shared memory; every thread of the cell copies them
 * into registers */
#define STRATEGY_GRAPH(ST)                                                                        \
    extern __shared__ int32_t sh[];                                                               \
    const int txy = threadIdx.y * blockDim.x + threadIdx.x;                                       \
    const int stride = (blockDim.x * blockDim.y) | 1;                                             \
    const int cell = UNS_CELL(), k = THREAD_Z();                                                  \
    const int p = P.c0 + (cell < P.n ? cell : 0);                                                 \
    GRING_DECL                                                                                    \
    if (threadIdx.z == 0 && cell < P.n) {                                                         \
        GRING_GATHER(p);                                                                          \
        sh[txy] = gdeg;                                                                           \
        sh[stride + txy] = grow;                                                                  \
        for (int j = 0; j < gdeg; j++)                                                            \
            sh[(2 + j) * stride + txy] = goff[j];                                                 \
    }                                                                                             \
    __syncthreads();                                                                              \
    if (cell >= P.n || k >= P.zend)                                                               \
        return;                                                                                   \
    gdeg = sh[txy];                                                                               \
    grow = sh[stride + txy];                                                                      \
    _Pragma("unroll") for (int j = 0; j < MESH_MAXDEG; j++)                                       \
        goff[j] = j < gdeg ? sh[(2 + j) * stride + txy] : 0;                                      \
    gcell = p; /* the ring above is p's */                                                        \
    const long lev = (long)k * P.zs;                                                              \
    ST##_BODY(p);
#define GRAPH_ACC GRAPH_ACC_RING
#include "graph_acc.cuh"
INSTANTIATE_GRAPH_UNS()
#include "graph_twin_per_cell.cuh"
GTABULATE(shared_gkernels)
