/* fold.cu — the second half of an iterated time step on the GPU (src/iterate.h): the state takes
 * the stencil's output at the points just computed. Same arithmetic as iterate.c's FOLD, so the
 * device state equals the CPU state bit for bit (both built without contraction). */
#include "grid_stride.cuh"

#include <cuda_runtime.h>

/* state <- state - out/64 (damp, laplap) or state <- out, at cells [c0, c0+n) of levels
 * [0, nlev), levels zs elements apart. */
#define FOLD_KERNEL(TY)                                                                           \
    static __global__ void fold_##TY(TY *__restrict__ state, const TY *__restrict__ out, int c0,  \
                                     int n, int nlev, long zs, int damp)                          \
    {                                                                                             \
        long total = (long)n * nlev;                                                              \
        for (long t = blockIdx.x * (long)blockDim.x + threadIdx.x; t < total;                     \
             t += (long)gridDim.x * blockDim.x) {                                                 \
            long k = t / n, i = c0 + (t - k * n) + k * zs;                                        \
            state[i] = damp ? state[i] - out[i] / (TY)64 : out[i];                                \
        }                                                                                         \
    }
FOLD_KERNEL(double)
FOLD_KERNEL(float)

extern "C" int fold_launch(void *state, const void *out, int c0, int n, int nlev, long zs,
                           int is_float, int damp, void *stream)
{
    long total = (long)n * nlev;
    if (total <= 0)
        return 0;
    unsigned blocks = grid_stride_blocks(total);
    cudaStream_t s = (cudaStream_t)stream;
    if (is_float)
        fold_float<<<blocks, GRID_STRIDE_THREADS, 0, s>>>((float *)state, (const float *)out, c0, n,
                                                          nlev, zs, damp);
    else
        fold_double<<<blocks, GRID_STRIDE_THREADS, 0, s>>>((double *)state, (const double *)out, c0,
                                                           n, nlev, zs, damp);
    return (int)cudaGetLastError();
}
