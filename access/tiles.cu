/* tiles.cu — K time steps per launch with on-chip reuse (tiles_run.h, storage/tiles.h), for
 * the W/E/S/N stencils (ksteps 1) and the graph stencils (ksteps 2: balls grown through the
 * neighbour lists, rows of degree and list slots, GTILE_UPDATE of access/tile_step.h).
 *
 * A block of B threads takes one ball: it copies the ball's slots and cells into shared memory
 * once, then for each of its levels stages the ball's state there, runs k steps on shrinking
 * layers and writes its own cells' state. Each value leaves DRAM once per launch instead of once
 * per step; the price is the redundant steps on the ball's outer layers.
 *
 * A step is one pass of TILE_UPDATE (access/tile_step.h) from one shared array into the other,
 * or, for laplap on lattice-like balls (tiles_two_pass), two passes: the Laplacian at every
 * entry into the second array, then the update in place. The one pass is bound by shared-memory
 * loads: 19 per updated cell (its cell, 5 slot quadruples, 13 values), and the 5 Laplacians it
 * computes are computed again by the neighbours. The two passes load 8 per updated cell (its
 * cell, its slots, its state, 5 Laplacians) and 6 per Laplacian (its slots, 5 values), which are
 * needed one layer further out than the updates. */
#include "tiles_run.h"

#include "tile_step.h"

#include <cuda_runtime.h>

/* The k steps of a level, on the entries within layer radius·(k-i) at step i, with the
 * arrays and indices of TILES_KERNEL. In one pass each: UPDATE (TILE_UPDATE, or GTILE_UPDATE
 * on the rows of balls built through neighbour lists) from sa into sb, then swap (on return sa
 * holds the state). */
#define TILES_ONE_PASS(ST)                                                                        \
    {                                                                                             \
        const tile_nb4 *nb4 = (const tile_nb4 *)rows_s;                                           \
        TILES_ONE_PASS_WITH(TILE_UPDATE, ST)                                                      \
    }
#define GTILES_ONE_PASS(ST)                                                                       \
    {                                                                                             \
        const uint16_t *nbw = (const uint16_t *)rows_s;                                           \
        TILES_ONE_PASS_WITH(GTILE_UPDATE, ST)                                                     \
    }
#define TILES_ONE_PASS_WITH(UPDATE, ST)                                                           \
    for (int i = 1; i <= a.k; i++) {                                                              \
        const int lim = __ldg(layer + radius * (a.k - i));                                        \
        for (int e = t; e < lim; e += nt)                                                         \
            if (cell[e] >= base)                                                                  \
                UPDATE(ST, e);                                                                    \
        __syncthreads();                                                                          \
        T *swap = sa;                                                                             \
        sa = sb;                                                                                  \
        sb = swap;                                                                                \
    }

/* laplap in two passes, sb holding the Laplacians: they are needed one layer further out,
 * radius·(k-i)+1 <= radius·(K-1)+1 <= depth, and read the state within layer radius·(k-i)+2 <=
 * radius·(k-i+1) (laplap's radius is 2), which the step before updated. */
#define TILES_TWO_PASS(ST)                                                                        \
    const tile_nb4 *nb4 = (const tile_nb4 *)rows_s;                                               \
    for (int i = 1; i <= a.k; i++) {                                                              \
        T *const lap = sb;                                                                        \
        const int lim = __ldg(layer + radius * (a.k - i));                                        \
        const int reach = __ldg(layer + radius * (a.k - i) + 1);                                  \
        for (int e = t; e < reach; e += nt)                                                       \
            TILE_LAP(e);                                                                          \
        __syncthreads();                                                                          \
        for (int e = t; e < lim; e += nt)                                                         \
            if (cell[e] >= base)                                                                  \
                TILE_LAPLAP_FROM_LAP(e);                                                          \
        __syncthreads();                                                                          \
    }

/* The kernel k_tiles_NAME_TY whose steps are STEPS(ST). Shared memory (tiles_smem): the rows
 * of slots (W_ 16-bit values an entry, W_ even: W/E/S/N as tile_nb4 nb4[e], or degree and list
 * slots nbw), rounded up to 16 bytes, then the two state arrays, then the cells. */
#define TILES_KERNEL(NAME, ST, TY, STEPS)                                                         \
    static __global__ void k_tiles_##NAME##_##TY(                                                 \
        const int32_t *__restrict__ start, const int32_t *__restrict__ layers,                    \
        const int32_t *__restrict__ cells, const uint32_t *__restrict__ rows, int maxball,        \
        int W_, int depth, int radius, int base, int b0, tiles_step_args a, int zslice)          \
    {                                                                                             \
        typedef TY T;                                                                             \
        extern __shared__ __align__(16) unsigned char smem_raw[];                                 \
        uint32_t *rows_s = (uint32_t *)smem_raw; /* as tile_nb4 or uint16_t: STEPS */           \
        T *sa = (T *)(smem_raw + tiles_rows_bytes(maxball, W_)), *sb = sa + maxball;             \
        int32_t *cell = (int32_t *)(sb + maxball);                                                \
        const int b = b0 + blockIdx.x, t = threadIdx.x, nt = blockDim.x;                          \
        const int e0 = __ldg(start + b), n = __ldg(start + b + 1) - e0;                           \
        const int32_t *layer = layers + (long)b * (depth + 1);                                    \
        const T *__restrict__ src = (const T *)a.src;                                             \
        T *__restrict__ dst = (T *)a.dst;                                                         \
        for (int e = t; e < n; e += nt)                                                           \
            cell[e] = __ldg(cells + e0 + e);                                                      \
        for (long i = t; i < (long)n * (W_ / 2); i += nt) /* the rows, a word at a time */       \
            rows_s[i] = __ldg(rows + (long)e0 * (W_ / 2) + i);                                    \
        __syncthreads();                                                                          \
        const int z0 = blockIdx.y * zslice, z1 = min(z0 + zslice, a.nlev), own = __ldg(layer);    \
        for (int z = z0; z < z1; z++) {                                                           \
            const long zo = (long)z * a.zs;                                                       \
            for (int e = t; e < n; e += nt) { /* the halo's state in both arrays (one pass) */  \
                const T v = __ldg(src + cell[e] + zo);                                            \
                sa[e] = v;                                                                        \
                if (cell[e] < base)                                                               \
                    sb[e] = v;                                                                    \
            }                                                                                     \
            __syncthreads();                                                                      \
            STEPS(ST)                                                                             \
            for (int e = t; e < own; e += nt)                                                     \
                if (cell[e] >= a.valid)                                                           \
                    dst[cell[e] + zo] = sa[e];                                                    \
            __syncthreads();                                                                      \
        }                                                                                         \
    }

#define TILE_COEFF(e) __ldg((const T *)a.coeff + cell[e] + zo)
#define TILES_ONE_PASS_BOTH(ST, _)                                                                \
    TILES_KERNEL(ST, ST, double, TILES_ONE_PASS) TILES_KERNEL(ST, ST, float, TILES_ONE_PASS)
FOR_EACH_KSTEPS_STENCIL(TILES_ONE_PASS_BOTH, _)
TILES_KERNEL(LAPLAP2, LAPLAP, double, TILES_TWO_PASS)
TILES_KERNEL(LAPLAP2, LAPLAP, float, TILES_TWO_PASS)
/* graph stencils (ksteps 2): GTILE_UPDATE on the rows of balls built through the lists */
#define GTILES_BOTH(ST, _)                                                                        \
    TILES_KERNEL(ST, ST, double, GTILES_ONE_PASS) TILES_KERNEL(ST, ST, float, GTILES_ONE_PASS)
FOR_EACH_GRAPH_KSTEPS_STENCIL(GTILES_BOTH, _)

/* one_pass[stencil][precision], W/E/S/N and graph stencils alike */
#define TILES_CASE(ST, _)                                                                         \
    case ST_##ST: return fl ? (const void *)k_tiles_##ST##_float : (const void *)k_tiles_##ST##_double;
static const void *one_pass(stencil_t s, int fl)
{
    switch (s) {
        FOR_EACH_KSTEPS_STENCIL(TILES_CASE, _)
        FOR_EACH_GRAPH_KSTEPS_STENCIL(TILES_CASE, _)
    default: return NULL;
    }
}

extern "C" int tiles_steps_gpu(const tiles *t, tiles_view v, const tiles_step_args *a, int zslice,
                               void *stream)
{
    const int b0 = tiles_block_of(t, a->valid), nblk = t->nblocks - b0;
    if (nblk <= 0 || a->nlev <= 0 || a->k <= 0)
        return 0;
    if (zslice <= 0) { /* enough blocks to fill the device several times over */
        long want = ((long)a->nlev * nblk + 8191) / 8192;
        zslice = (int)(want < 1 ? 1 : want > a->nlev ? a->nlev : want);
    }
    const int fl = a->prec == PREC_FLOAT;
    const void *fn = tiles_two_pass(t, a->stencil)
                         ? (fl ? (const void *)k_tiles_LAPLAP2_float : (const void *)k_tiles_LAPLAP2_double)
                         : one_pass(a->stencil, fl);
    if (!fn)
        return (int)cudaErrorInvalidDeviceFunction; /* no K-step kernel: tiles_supported */
    size_t smem = tiles_smem(t->maxball, t->width, a->prec);
    if (smem > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess)
            return (int)e;
    }
    int maxball = t->maxball, width = t->width, depth = t->depth, radius = t->depth / t->K;
    int base = t->base, zs = zslice;
    tiles_step_args args = *a;
    void *p[] = {(void *)&v.start, (void *)&v.layer, (void *)&v.cell, (void *)&v.nb, &maxball,
                 &width, &depth, &radius, &base, (void *)&b0, &args, &zs};
    dim3 grid((unsigned)nblk, (unsigned)((a->nlev + zslice - 1) / zslice)), block((unsigned)t->B);
    cudaError_t e = cudaLaunchKernel(fn, grid, block, p, smem, (cudaStream_t)stream);
    return (int)e;
}
