/* staging.h — per-block halo lists for the `staged` access strategy.
 *
 * The inner cells are cut into blocks of B consecutive cells. For each block the host lists, once,
 * the cells outside it that its cells reach through the stencil's relations (its halo), sorted so
 * their loads coalesce where they can. On the GPU a block copies its own cells and its halo into
 * shared memory level by level, and every neighbour becomes a small local slot:
 *   slot 0..B-1       the block's own cells (inner cell b*B + slot)
 *   slot B..B+h-1     the block's halo cells, in list order */
#ifndef PILLAR_STAGING_H
#define PILLAR_STAGING_H

#include "../grids/grid.h"

#include <stdint.h>

typedef struct {
    int B;          /* cells per block */
    int n;          /* inner cells */
    int nblocks;
    int hmax;       /* the largest halo of a block */
    int32_t *start; /* nblocks + 1: block b's halo is cells[start[b] .. start[b+1]) */
    int32_t *cells; /* halo cells (plane indices) */
    int32_t *loc;   /* loc[r*n + j]: slot of relation r of inner cell j (relations outside mask: 0) */
    size_t ncells;  /* entries of cells */
} staging;

/* Builds the lists for blocks of B cells over g's inner cells and the relations in mask. */
void staging_build(staging *s, const ugrid *g, int B, unsigned mask);
void staging_free(staging *s);

#endif
