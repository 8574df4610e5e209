/* share.cu — region sharing on the device (src/plan/ooc_plan.h): the inputs a chunk holds in common
 * with the chunk before it, copied from that chunk's buffer into its own, bit for bit (values moved
 * as unsigned words: no arithmetic touches them). */
#include "grid_stride.cuh"

#include <cuda_runtime.h>
#include <stdint.h>

/* to[k*to_zs + to_cell[j]] = from[k*from_zs + from_cell[j]] for cells j < n, levels k < nlev. */
#define SHARE_KERNEL(TY)                                                                          \
    static __global__ void share_##TY(TY *__restrict__ to, const TY *__restrict__ from,           \
                                      const int *__restrict__ to_cell,                            \
                                      const int *__restrict__ from_cell, int n, int nlev,         \
                                      long to_zs, long from_zs)                                   \
    {                                                                                             \
        long total = (long)n * nlev;                                                              \
        for (long t = blockIdx.x * (long)blockDim.x + threadIdx.x; t < total;                     \
             t += (long)gridDim.x * blockDim.x) {                                                 \
            long k = t / n, j = t - k * n;                                                        \
            to[k * to_zs + to_cell[j]] = from[k * from_zs + from_cell[j]];                        \
        }                                                                                         \
    }
SHARE_KERNEL(uint64_t)
SHARE_KERNEL(uint32_t)

extern "C" int share_launch(void *to, const void *from, const int *to_cell, const int *from_cell,
                            int n, int nlev, long to_zs, long from_zs, int is_float, void *stream)
{
    if ((long)n * nlev <= 0)
        return 0;
    unsigned blocks = grid_stride_blocks((long)n * nlev);
    cudaStream_t s = (cudaStream_t)stream;
    if (is_float)
        share_uint32_t<<<blocks, GRID_STRIDE_THREADS, 0, s>>>((uint32_t *)to, (const uint32_t *)from,
                                                              to_cell, from_cell, n, nlev, to_zs,
                                                              from_zs);
    else
        share_uint64_t<<<blocks, GRID_STRIDE_THREADS, 0, s>>>((uint64_t *)to, (const uint64_t *)from,
                                                              to_cell, from_cell, n, nlev, to_zs,
                                                              from_zs);
    return (int)cudaGetLastError();
}
