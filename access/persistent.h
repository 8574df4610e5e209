/* persistent.h — the persistent kernels of iterated runs (docs/persistent.md): one
 * cooperative launch runs every step of a run, a grid-wide barrier between two steps. Each block
 * owns one contiguous range of inner cells (persist_range) for the whole run and computes all
 * levels of them every step, reading one array of the state and writing the other with the fold
 * fused (stencils/registry.h), so the state equals the CPU iteration's bit for bit. Kernels for
 * the stencils with staged kernels (registry.h: laplap, hdiff, lap): one state field `in` and
 * fixed inputs read at the cell only (persistent.cu); and for the graph stencils with K-step
 * kernels (graphlap: one state field on neighbour lists, radius 2; persistent_graph.cu).
 * Launched by src/plan/persist_gpu.c. */
#ifndef PILLAR_PERSISTENT_H
#define PILLAR_PERSISTENT_H

#include "launch.h"

/* Threads per block at most, and the blocks of that many an SM must hold (the kernels' launch
 * bounds): 65536 registers / (2 x 512) = 64 registers a thread at most, so four blocks of 256
 * or eight of 128 fit an SM as far as registers go (the kernel of 128 registers held two of 256:
 * too few warps to cover the loads' latency, docs/persistent.md). */
#define PERSIST_MAX_THREADS 512
#define PERSIST_MIN_BLOCKS 2

/* What a persistent kernel is given: P as for a one-step kernel (fields, table, zs, zend, c0,
 * n, fold = 1); the state field fin and the output field fout are the arrays `state` and
 * `other` at even steps, the other way round at odd ones (step t reads `state` at even t, so
 * after an odd number of steps the result is in `other`); both hold the initial state at the
 * points no step writes (halo cells). */
typedef struct {
    kparams P;
    void *state, *other;
    int steps;
    int fin, fout;
    /* State caching (docs/persistent.md): levels 0..levels-1 of the block's own cells stay in
     * shared memory across the steps (levels = 0: none). Per cached level a region of 2M + H
     * values at state_at: own cells at [0, M) at even steps and [M + H, 2M + H) at odd ones (the
     * other half takes the new values), the halo at [M, M + H), loaded from the state array
     * every step. slots (persist_lists.h, relation-major over the inner cells: entry 0 the
     * export flag, 1 + r the local slot of relation r) are copied into shared memory at slots_at
     * (words + 1 entries per cell, relation-major over the block's cells); the offsets (where
     * levels are streamed) at offs_at, relation-major (entry j of local cell l at j * m + l, m
     * the block's own cells), gathered from the table once before the first step. A cell's new
     * value is written to global memory only where it is an export cell; at the end the cached
     * levels of every own cell are written to the array that holds the result.
     * Graph kernels cache no levels (levels = 0); their cells' neighbour lists (persist_graph_
     * kernel with lists = 1) are at offs_at: row 0 the degree, row 1 + j neighbour j (plane
     * cells, from the ELL table P.g_deg, P.g_nb), relation-major over the block's cells. */
    int levels;
    int M, H;
    unsigned offs_at, slots_at;
    const int32_t *hstart, *halo, *slots;
    /* Out of core (src/plan/ooc_gpu.c: one launch runs a chunk's steps on its shrinking region):
     * active[m] is the first cell (0-based in the arrays, as c0) that the step after which m
     * steps remain computes, up to c0 + n (the part's first[], src/plan/ooc_plan.h); step t
     * computes the cells of its block from active[steps - 1 - t] on (persist_step_from). NULL:
     * every cell at every step (in core). Not with cached levels (levels = 0: the cached state
     * of a cell a step skips would be stale). */
    const int32_t *active;
} persist_params;

/* kernel[stencil][precision][chasing * 2 + compressed]: host stubs for
 * cudaLaunchCooperativeKernel(args = {&persist_params}); NULL for stencils without one. */
typedef const void *persist_kernel_table[ST_QUAD_COUNT][2][4];

#ifdef __CUDACC__
#define PERSIST_FN __host__ __device__ __forceinline__
#else
#define PERSIST_FN static inline
#endif

/* The cells [lo, hi) of block b of nblocks over n cells (0-based, relative to the first inner
 * cell): floor(b·n / nblocks) to floor((b+1)·n / nblocks), so sizes differ by one at most. The
 * host's plan and the kernels use this one formula. */
PERSIST_FN void persist_range(long n, int nblocks, int b, long *lo, long *hi)
{
    *lo = (long)b * n / nblocks;
    *hi = (long)(b + 1) * n / nblocks;
}

/* The first of a block's `mine` cells (0-based in its range, which starts at cell `first`)
 * that step t of `steps` computes: 0 where active is NULL (every cell at every step), else from
 * cell active[steps - 1 - t] on (persist_params.active). The kernels and the host's emulation of
 * their schedule (tests/test_persist_ooc.c) use this one formula. */
PERSIST_FN int persist_step_from(const int32_t *active, int steps, int t, int first, int mine)
{
    if (!active)
        return 0;
    int a = active[steps - 1 - t] - first;
    return a < 0 ? 0 : a > mine ? mine : a;
}

#ifdef __cplusplus
extern "C" {
#endif
extern persist_kernel_table persist_kernels; /* access/persistent.cu (CUDA backend) */
/* The host stub of graph stencil s's persistent kernel in precision prec (PREC_DOUBLE,
 * PREC_FLOAT): lists 1, its cells' neighbour lists copied into shared memory once; 0, read from
 * the ELL table where the body uses them. NULL for a stencil without one (only the graph
 * stencils with K-step kernels have: registry.h ksteps 2). access/persistent_graph.cu (CUDA). */
const void *persist_graph_kernel(stencil_t s, int prec, int lists);
#ifdef __cplusplus
}
#endif

#endif
