/* onchip_tile.cuh — what the regular twin's on-chip kernels (onchip_regular.cu,
 * onchip_slabs.cu) share: a block's tile of the grid and the loads of what other blocks wrote. */
#ifndef PILLAR_ONCHIP_TILE_CUH
#define PILLAR_ONCHIP_TILE_CUH

#include "onchip_regular.h"

/* What another block wrote before the grid barrier (the export buffers, the streamed levels):
 * read around L1, which is not coherent (ld.global.cg). */
template <typename T> __device__ __forceinline__ T reg_fresh(const T *p) { return __ldcg(p); }

/* Block b's tile: its first inner cell (X0, Y0), extents tw x th (0 for a block past the grid,
 * which still meets every barrier), its first cell's place in a level. */
struct reg_tile {
    int tw, th, own, base;
    __device__ reg_tile(const onchip_reg_params &p, int b)
    {
        const int X0 = p.x0 + (b % p.tiles_x) * p.tx, Y0 = p.x0 + (b / p.tiles_x) * p.ty;
        const int xe = p.x0 + p.nxi, ye = p.x0 + p.nyi;
        tw = X0 < xe ? min(p.tx, xe - X0) : 0;
        th = Y0 < ye ? min(p.ty, ye - Y0) : 0;
        own = tw * th;
        base = p.a + X0 + Y0 * p.ys;
    }
};

#endif
