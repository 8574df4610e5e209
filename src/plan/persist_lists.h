/* persist_lists.h — what each block of a persistent launch exchanges through global memory when it
 * keeps the state of its cells on chip (docs/persistent.md, "State caching"). Block b owns the
 * inner cells persist_range(n, nblocks, b) for the whole run. Its halo is the set of cells outside
 * its range that its cells read through the stencil's relations (grid halo cells included): it
 * reads them from global memory every step. Its exports are the cells of its range that a cell of
 * another block reads: it writes them to global memory every step. Built once on the host from
 * the grid's relations (ugrid_follow), so the lists equal what the tables give the kernels. */
#ifndef PILLAR_PERSIST_LISTS_H
#define PILLAR_PERSIST_LISTS_H

#include "access/persistent.h"
#include "grids/grid.h"

#include <stdint.h>

typedef struct {
    int nblocks;
    long n;          /* inner cells */
    int M;           /* the most cells a block owns: local slots 0..M-1 are own cells */
    int hmax;        /* the largest halo of a block */
    int32_t *hstart; /* nblocks + 1: block b's halo is halo[hstart[b] .. hstart[b+1]) */
    int32_t *halo;   /* plane indices of halo cells, ascending within a block */
    /* slots[e * n + j] for inner cell j (0-based): e = 0, 1 if j is an export cell of its block,
     * else 0; e = 1 + r, the local slot of relation r of j: l < M, own cell l of the block
     * (inner cell lo + l), M + h, entry h of the block's halo; relations outside the mask and
     * missing ones: 0 */
    int32_t *slots;
    long nhalo_all;  /* entries of halo: the cells read from global memory per level and step */
    long nexport;    /* export cells in all: the cells written to global memory per level and step */
} persist_lists;

/* Builds the lists of nblocks blocks over g's inner cells for the relations in mask. Returns 0,
 * or -1 with a message (no cells, nblocks outside 1..n). */
int persist_lists_build(persist_lists *L, const ugrid *g, int nblocks, unsigned mask);
void persist_lists_free(persist_lists *L);

/* The sizes alone, without the lists (a pass with a per-cell stamp, no sorting): the largest
 * halo of a block, the halo entries in all and the export cells in all, for the model's
 * candidate shapes. Returns 0, or -1 with a message as persist_lists_build. */
int persist_lists_count(const ugrid *g, int nblocks, unsigned mask, int *hmax, long *nhalo_all,
                        long *nexport);

#endif
