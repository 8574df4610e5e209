/* gstaging.h — per-block halo lists of the `staged` strategy for the graph stencils (cells with
 * any number of neighbours; storage/staging.h is the W/E/S/N form, whose struct this fills).
 *
 * The inner cells are cut into blocks of B consecutive cells; a block's halo is every cell within
 * graph distance `radius` (1 or 2) of its cells that is not one of them, ascending (so its loads
 * coalesce where the order allows). Slots: 0..B-1 the block's own cells, B.. its halo. Each inner
 * cell j (plane cell nhalo + j) gets a row of (1 + D)² entries (D = g->adjw), laid out as a
 * non-chasing table row (storage/gtable.h) but holding slots instead of offsets:
 *   entry 0            deg(c);            entry 1 + k: slot of c's neighbour k
 *   entry (1+k)(1+D)   deg of neighbour k; entry (1+k)(1+D) + 1 + i: slot of its neighbour i
 * (radius 1: only the first 1 + D entries are filled); loc[e*n + j]. */
#ifndef PILLAR_GSTAGING_H
#define PILLAR_GSTAGING_H

#include "staging.h"

void gstaging_build(staging *s, const ugrid *g, int B, int radius);

/* Shared memory that a block of B cells of the staged graph kernel gives its rows of slots
 * (access/staged.cu: (1 + D)² 16-bit entries per cell, copied once per block and slice of
 * levels, not read from global memory at every level), rounded up to 16 bytes; the values of
 * the block and its halo follow. */
static inline size_t gstaged_rows_bytes(int B, int D)
{
    return ((size_t)2 * (size_t)(1 + D) * (size_t)(1 + D) * (size_t)B + 15) / 16 * 16;
}

#endif
