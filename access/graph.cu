/* graph.cu — the graph stencils' kernel of iterated and out-of-core runs (src/plan/ooc_gpu.c): one
 * thread per (cell, level), the cell's neighbour lists read from the ELL table (storage/ell.h)
 * through the read-only path. (Single applications run every access strategy on the offset
 * tables of storage/gtable.h: access/graph_kernels.cuh.) The body
 * (stencils/graphlap.h) recomputes the lap of each neighbour in registers: one kernel, no
 * temporary field; in iterated runs it stores the new state (the fold fused). Consecutive
 * threads take consecutive inner cells, so the table columns and the cell's own values are read
 * coalesced; neighbours' values come as the mesh's order allows.
 * Bounds: blocks of up to 512 threads with no occupancy floor, so that the nested neighbour loops
 * keep their registers (compiled for 1024 threads, the float kernel spilled). */
#include "launch.h"

/* Iterated runs fuse the fold (stencils/registry.h; graphlap: in - graphlap/1024) when P.fold is
 * set, as the W/E/S/N strategies do (access/kernels.cuh). */
#undef FOLDED
#define FOLDED(PREFIX, state, v) (P.fold ? STENCIL_FOLD(PREFIX, state, v) : (v))

/* extern "C" in a user stencil's module (src/jit/), so that it is found by name */
#ifdef PILLAR_JIT
#define GRAPH_LINKAGE extern "C" __global__
#else
#define GRAPH_LINKAGE static __global__
#endif

#define GDEG(q) __ldg(P.g_deg + (q))
#define GNB(q, j) __ldg(P.g_nb + (long)(j) * P.g_stride + (q))
#define GDEG2(c, k) GDEG(GNB(c, k))
#define GNB2(c, k, j) GNB(GNB(c, k), j)
#define GFOR(k, lo, d) GRAPH_FOR_PLAIN(k, lo, d)
#define GFOR2(k, lo, d) GRAPH_FOR_PLAIN(k, lo, d)
#define GAT(q) ((q) + lev)
#define GOUT(q) GAT(q)
#define GCOEF(i, q) __ldg((const T *)P.coef[i] + (q))
#define GCOEFJ(i, q, j) __ldg((const T *)P.coef[i] + (long)(j) * P.coef_n + (q))

#define GRAPH_KERNEL(ST, TY)                                                                      \
    GRAPH_LINKAGE void __launch_bounds__(PILLAR_MAX_THREADS) k_graph_##ST##_##TY(kparams P)   \
    {                                                                                             \
        typedef TY T;                                                                             \
        ST##_BIND(P.f);                                                                           \
        const int cell = (int)(blockIdx.x * (blockDim.x * blockDim.y) + threadIdx.y * blockDim.x + \
                               threadIdx.x);                                                      \
        const int k = (int)(blockIdx.z * blockDim.z + threadIdx.z);                               \
        if (cell >= P.n || k >= P.zend)                                                           \
            return;                                                                               \
        const long lev = (long)k * P.zs;                                                          \
        ST##_BODY(P.c0 + cell);                                                                   \
    }
#define GRAPH_KERNELS(ST, _) GRAPH_KERNEL(ST, double) GRAPH_KERNEL(ST, float)
#ifdef PILLAR_JIT /* a user stencil file composed at run time (src/jit/): its kernels only */
GRAPH_KERNELS(USER, _)
#else
FOR_EACH_GRAPH_STENCIL(GRAPH_KERNELS, _)

#define GRAPH_ROW(ST, _) {(const void *)k_graph_##ST##_double, (const void *)k_graph_##ST##_float},
extern "C" {
graph_kernel_table graph_kernels = {FOR_EACH_GRAPH_STENCIL(GRAPH_ROW, _)};
}
#endif
