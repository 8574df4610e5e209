/* grid_stride.cuh — the launch shape of the small grid-stride kernels of the out-of-core pipeline
 * (share.cu): blocks of GRID_STRIDE_THREADS threads, enough for `total` items but no more
 * than 32 per SM of an H100 (132 SMs); each thread then loops over the rest. */
#ifndef PILLAR_GRID_STRIDE_CUH
#define PILLAR_GRID_STRIDE_CUH

#define GRID_STRIDE_THREADS 256

static inline unsigned grid_stride_blocks(long total)
{
    long blocks = (total + GRID_STRIDE_THREADS - 1) / GRID_STRIDE_THREADS;
    return (unsigned)(blocks < 132 * 32 ? blocks : 132 * 32);
}

#endif
