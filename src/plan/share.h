/* share.h — copies of listed cells between two device arrays, bit for bit (src/plan/share.cu):
 * region sharing between chunks out of core, halo messages, a handle's halo cells. */
#ifndef PILLAR_SHARE_H
#define PILLAR_SHARE_H

/* to[k * to_zs + to_cell[j]] = from[k * from_zs + from_cell[j]] for cells j < n and levels
 * k < nlev, values of 4 bytes (is_float) or 8, launched on the CUDA stream `stream` without
 * waiting. Returns the launch's cudaError_t (0: cudaSuccess). */
int share_launch(void *to, const void *from, const int *to_cell, const int *from_cell, int n,
                 int nlev, long to_zs, long from_zs, int is_float, void *stream);

#endif
