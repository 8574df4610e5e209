/* share.cu — region sharing on the device (src/plan/ooc_plan.h): the inputs a chunk holds in common
 * with the chunk before it, copied from that chunk's buffer into its own, bit for bit (values moved
 * as unsigned words: no arithmetic touches them). */
#include "grid_stride.cuh"

#include <cuda_runtime.h>
#include <stdint.h>

/* to[k*to_zs + to_cell[j]] = from[k*from_zs + from_cell[j]] for cells j < n, levels k < nlev:
 * x over the cells, y over the levels, both grid-stride (no division: these kernels run beside a
 * distributed run's interior, whose SMs they share). */
#define SHARE_KERNEL(TY)                                                                          \
    static __global__ void share_##TY(TY *__restrict__ to, const TY *__restrict__ from,           \
                                      const int *__restrict__ to_cell,                            \
                                      const int *__restrict__ from_cell, int n, int nlev,         \
                                      long to_zs, long from_zs)                                   \
    {                                                                                             \
        for (int k = blockIdx.y; k < nlev; k += gridDim.y)                                        \
            for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n;                            \
                 j += gridDim.x * blockDim.x)                                                     \
                to[k * to_zs + to_cell[j]] = from[k * from_zs + from_cell[j]];                    \
    }
SHARE_KERNEL(uint64_t)
SHARE_KERNEL(uint32_t)

extern "C" int share_launch(void *to, const void *from, const int *to_cell, const int *from_cell,
                            int n, int nlev, long to_zs, long from_zs, int is_float, void *stream)
{
    if ((long)n * nlev <= 0)
        return 0;
    /* as many blocks as grid_stride_blocks gives the items, split into cells x levels */
    unsigned total = grid_stride_blocks((long)n * nlev);
    unsigned bx = grid_stride_blocks(n), by = total / bx;
    dim3 blocks(bx, by < 1 ? 1 : by > (unsigned)nlev ? (unsigned)nlev : by > 65535 ? 65535 : by);
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
