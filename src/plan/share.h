/* share.h — copies of listed cells between two device arrays, bit for bit (src/plan/share.cu):
 * region sharing between chunks out of core, halo messages, a handle's halo cells. */
#ifndef PILLAR_SHARE_H
#define PILLAR_SHARE_H

#include <stddef.h>

/* to[k * to_zs + to_cell[j]] = from[k * from_zs + from_cell[j]] for cells j < n and levels
 * k < nlev, values of 4 bytes (is_float) or 8, launched on the CUDA stream `stream` without
 * waiting. Returns the launch's cudaError_t (0: cudaSuccess). */
int share_launch(void *to, const void *from, const int *to_cell, const int *from_cell, int n,
                 int nlev, long to_zs, long from_zs, int is_float, void *stream);

/* Cells listed on the host moved between device arrays and a host buffer, with the device lists
 * and buffer kept for the next call (grown, never shrunk): a halo's cells, exchanged each pass. */
typedef struct {
    int *cell, *ident; /* device: the cells, and 0, 1, .., cap - 1 */
    void *buf;         /* device: their values, every level */
    int cap;
    size_t bytes;      /* buf's size */
} share_cells;

/* The values at cells cell[0..n) of levels 0 .. nz - 1 (level z at z * zstride, 4-byte values
 * when is_float, else 8), level after level in the host buffer buf (buf[z * n + j]): gathered
 * from the device array at[0] (pack), or scattered into at[0] and, where not NULL, at[1]. On
 * CUDA stream `stream`; waits for it. */
void share_cells_move(share_cells *c, void *const at[2], long zstride, int nz, int is_float,
                      const int *cell, int n, void *buf, int pack, void *stream);
void share_cells_free(share_cells *c);

#endif
