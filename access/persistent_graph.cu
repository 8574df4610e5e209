/* persistent_graph.cu — persistent kernels of the graph stencils' in-core iterated runs
 * (access/persistent.h, docs/persistent.md "graphlap"): every step of a run in one cooperative
 * launch, a grid-wide barrier between two steps. A block owns the inner cells
 * persist_range(...) for the whole run, in the grid's cell order (file, METIS or z-curve: what
 * the mesh was read in); its threads take them one after the other (thread j: cells j, j +
 * blockDim, ...) and walk up all the levels of each. The body is the stencil's own
 * (stencils/graphlap.h: GRAPHLAP_BODY) with the fold fused, the ELL table's lists (storage/ell.h)
 * as in access/graph.cu, so a step computes what the host loop's kernel computes, bit for bit.
 *
 * Two forms: LISTS 1 copies the degree and the first ring of each of the block's cells into
 * shared memory once, before the first step (relation-major: consecutive threads, consecutive
 * words), and the body reads them from there at every level; a neighbour's own degree and ring
 * (the second ring) are read from the table, where they may belong to another block. LISTS 0
 * reads everything from the table where the body uses it (a grid whose lists do not fit the
 * SMs' shared memory at once). Lean as the W/E/S/N kernels: launch bounds of PERSIST_MIN_BLOCKS
 * blocks of PERSIST_MAX_THREADS (64 registers); the body keeps nothing per cell in registers
 * across the levels but the degree. */
#include "launch.h"
#include "persistent.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

/* A persistent launch is an iterated run: the body stores the fold of its result. */
#undef FOLDED
#define FOLDED(PREFIX, state, v) STENCIL_FOLD(PREFIX, state, v)

/* The state is written by the launch itself (other blocks, the step before): plain loads, not
 * the read-only path graphlap.h's GLD takes elsewhere, and no `restrict` on the bodies' fields
 * (persistent.cu says why). The table is never written: read through the read-only path. */
#undef GLD
#define GLD(f, q) ((f)[GAT(q)])
#undef RESTRICT
#define RESTRICT

/* The lists of the computed cell p (local cell l of the block's `mine`) from shared memory (sl)
 * where LISTS, else from the table; any other cell's from the table (graphlap names only the
 * computed cell's own lists through GDEG and GNB: the test folds away). */
#define PG_DEG(q) __ldg(P.g_deg + (q))
#define PG_NB(q, j) __ldg(P.g_nb + (long)(j) * P.g_stride + (q))
#define GDEG(q) (LISTS && (q) == p ? (int)sl[l] : PG_DEG(q))
#define GNB(q, j) (LISTS && (q) == p ? (int)sl[(long)(1 + (j)) * mine + l] : PG_NB(q, j))
#define GDEG2(c, k) PG_DEG(GNB(c, k))
#define GNB2(c, k, j) PG_NB(GNB(c, k), j)
#define GFOR(k, lo, d) GRAPH_FOR_PLAIN(k, lo, d)
#define GFOR2(k, lo, d) GRAPH_FOR_PLAIN(k, lo, d)
#define GAT(q) ((q) + lev)
#define GOUT(q) GAT(q)

#define PERSIST_GRAPH_KERNEL(ST, TY, LS)                                                          \
    static __global__ void __launch_bounds__(PERSIST_MAX_THREADS, PERSIST_MIN_BLOCKS)             \
        kpg_##ST##_##TY##_##LS(persist_params A)                                                  \
    {                                                                                             \
        typedef TY T;                                                                             \
        enum { LISTS = LS };                                                                      \
        extern __shared__ __align__(16) unsigned char persist_smem[];                             \
        int32_t *const sl = (int32_t *)(persist_smem + A.offs_at);                                \
        const kparams &P = A.P;                                                                   \
        cg::grid_group grid = cg::this_grid();                                                    \
        long lo_, hi_;                                                                            \
        persist_range(P.n, (int)gridDim.x, (int)blockIdx.x, &lo_, &hi_);                          \
        const int first = P.c0 + (int)lo_, mine = (int)(hi_ - lo_);                              \
        const int tid = (int)threadIdx.x, nt = (int)blockDim.x;                                   \
        if (LISTS) {                                                                              \
            for (int l = tid; l < mine; l += nt) {                                                \
                const int q = first + l, d = PG_DEG(q);                                           \
                sl[l] = d;                                                                        \
                for (int j = 0; j < d; j++)                                                       \
                    sl[(long)(1 + j) * mine + l] = PG_NB(q, j);                                   \
            }                                                                                     \
            __syncthreads();                                                                      \
        }                                                                                         \
        for (int t = 0; t < A.steps; t++) {                                                       \
            const fieldset F_ = persist_fields(A, t);                                             \
            ST##_BIND(F_);                                                                        \
            for (int l = tid; l < mine; l += nt) {                                                \
                const int p = first + l;                                                          \
                for (int k = 0; k < P.zend; k++) {                                                \
                    const long lev = (long)k * P.zs;                                              \
                    ST##_BODY(p);                                                                 \
                }                                                                                 \
            }                                                                                     \
            if (t + 1 < A.steps)                                                                  \
                grid.sync();                                                                      \
        }                                                                                         \
    }
#define PERSIST_GRAPH_KERNELS(ST, _)                                                              \
    PERSIST_GRAPH_KERNEL(ST, double, 0) PERSIST_GRAPH_KERNEL(ST, double, 1)                      \
    PERSIST_GRAPH_KERNEL(ST, float, 0) PERSIST_GRAPH_KERNEL(ST, float, 1)
FOR_EACH_GRAPH_KSTEPS_STENCIL(PERSIST_GRAPH_KERNELS, _)

#define PERSIST_GRAPH_CASE(ST, _)                                                                 \
    case ST_##ST:                                                                                 \
        return prec == PREC_FLOAT ? (lists ? (const void *)kpg_##ST##_float_1                     \
                                           : (const void *)kpg_##ST##_float_0)                    \
                                  : (lists ? (const void *)kpg_##ST##_double_1                    \
                                           : (const void *)kpg_##ST##_double_0);
extern "C" const void *persist_graph_kernel(stencil_t s, int prec, int lists)
{
    switch (s) {
        FOR_EACH_GRAPH_KSTEPS_STENCIL(PERSIST_GRAPH_CASE, _)
    default:
        return NULL;
    }
}
