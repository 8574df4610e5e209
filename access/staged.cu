/* staged.cu — a block's B cells and their halo live in shared memory, one level at a time.
 *
 * Unstructured: the block copies its own cells (contiguous) and its halo list (storage/staging.h,
 * built once on the host) for level k into shared memory, then each thread evaluates the stencil
 * from local slots held in registers; a block walks P.zslice levels. Each value leaves DRAM about
 * once and no neighbour table is read per level. Regular twin: the same with a (bx+4) x (by+4)
 * tile. Stencils whose field `in` carries the horizontal neighbourhood (laplap, hdiff); fastwaves
 * reads only E and N and has no kernel here (the runner says so). */
#include "kernels.cuh"

#define STAGE_R 2 /* radius staged: laplap and hdiff */

/* Reads of `in` come from the staged slots; every other field only at the cell itself. */
#undef LD
#define LD(f, R) STAGE_LD_##f(R)
#define STAGE_LD_in(R) sbuf[loc[RIDX_##R + 1]]
#define STAGE_LD_coeff(R) coeff[NB_##R]
#define NB(R) NB_##R
#define NB_C i

#define STAGED_LEVELS(ST, LOAD, INSIDE, INDEX)                                                    \
    const int k0 = blockIdx.z * P.zslice, k1 = min(k0 + P.zslice, P.zend);                        \
    for (int k = k0; k < k1; k++) {                                                               \
        const long zo = (long)k * P.zs;                                                           \
        LOAD                                                                                      \
        __syncthreads();                                                                          \
        if (INSIDE) {                                                                             \
            const long i = (INDEX) + zo;                                                          \
            ST##_BODY();                                                                          \
        }                                                                                         \
        __syncthreads();                                                                          \
    }

#define STRATEGY_UNS(ST)                                                                          \
    extern __shared__ __align__(16) unsigned char smem_raw[];                                     \
    T *sbuf = (T *)smem_raw;                                                                      \
    const int B = blockDim.x, t = threadIdx.x, b = blockIdx.x, j = b * B + t;                     \
    const int own = min(B, P.n - b * B), h0 = P.st_start[b], nh = P.st_start[b + 1] - h0;         \
    int loc[13];                                                                                  \
    loc[0] = t;                                                                                   \
    _Pragma("unroll") for (int r = 0; r < NREL2; r++)                                             \
        loc[1 + r] = (((ST##_RELS >> r) & 1u) && t < own) ? __ldg(P.st_loc + r * P.n + j) : 0;    \
    (void)nbv;                                                                                    \
    STAGED_LEVELS(ST,                                                                             \
                  if (t < own) sbuf[t] = in[P.c0 + j + zo];                                       \
                  for (int s = t; s < nh; s += B) sbuf[B + s] = in[__ldg(P.st_cells + h0 + s) + zo];, \
                  t < own, P.c0 + j)

#define STRATEGY_REG(ST)                                                                          \
    extern __shared__ __align__(16) unsigned char smem_raw[];                                     \
    T *sbuf = (T *)smem_raw;                                                                      \
    const int bx = blockDim.x, by = blockDim.y, W = bx + 2 * STAGE_R, H = by + 2 * STAGE_R;       \
    const int t = threadIdx.y * bx + threadIdx.x, nt = bx * by;                                   \
    const int gx0 = P.x0 + blockIdx.x * bx - STAGE_R, gy0 = P.x0 + blockIdx.y * by - STAGE_R;     \
    const int x = gx0 + STAGE_R + threadIdx.x, y = gy0 + STAGE_R + threadIdx.y;                   \
    const int xend = P.x0 + P.nxi + STAGE_R, yend = P.x0 + P.nyi + STAGE_R;                       \
    int loc[13];                                                                                  \
    {                                                                                             \
        const int dx[NREL2] = {-1, 1, 0, 0, -2, 2, 0, 0, -1, -1, 1, 1};                           \
        const int dy[NREL2] = {0, 0, -1, 1, 0, 0, -2, 2, -1, 1, -1, 1};                           \
        loc[0] = (threadIdx.x + STAGE_R) + (threadIdx.y + STAGE_R) * W;                           \
        _Pragma("unroll") for (int r = 0; r < NREL2; r++) loc[1 + r] = loc[0] + dx[r] + dy[r] * W; \
    }                                                                                             \
    long goff[8]; /* level-0 index of each tile slot this thread loads, -1 outside the grid */    \
    _Pragma("unroll") for (int q = 0; q < 8; q++) {                                               \
        const int s = t + q * nt, gx = gx0 + s % W, gy = gy0 + s / W;                             \
        goff[q] = (s < W * H && gx < xend && gy < yend) ? REG_INDEX(gx, gy, 0) : -1;              \
    }                                                                                             \
    STAGED_LEVELS(ST,                                                                             \
                  _Pragma("unroll") for (int q = 0; q < 8; q++) if (goff[q] >= 0)                 \
                      sbuf[t + q * nt] = in[goff[q] + zo];,                                       \
                  REG_INSIDE(x, y), REG_INDEX(x, y, 0))

UNS_KERNELS(LAPLAP, double) UNS_KERNELS(LAPLAP, float)
UNS_KERNELS(HDIFF, double) UNS_KERNELS(HDIFF, float)
REG_KERNEL(LAPLAP, double) REG_KERNEL(LAPLAP, float)
REG_KERNEL(HDIFF, double) REG_KERNEL(HDIFF, float)

extern "C" {
kernel_table staged_kernels = {{KERNEL_ROW(LAPLAP, double), KERNEL_ROW(LAPLAP, float)},
                               {KERNEL_ROW(HDIFF, double), KERNEL_ROW(HDIFF, float)},
                               {{0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}}};
}
