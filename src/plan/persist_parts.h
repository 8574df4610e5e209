/* persist_parts.h — the parts of a persistent launch that keeps the state on chip (issue 35;
 * notes/issue35-design.md, section 4), numbered in local slots of 16 bits.
 *
 * Block b owns the inner cells persist_range(n, nblocks, b), a run of the cell order, or those a
 * partition gives it (persist_parts_build_from: e.g. METIS's, compact where the order is not).
 * Its ring 1
 * is the cells outside the run that an own cell reaches by a first-order relation (W, E, S, N);
 * its ring 2 the cells outside both that a ring-1 cell reaches so (depth 2; at depth 1 there is
 * no ring 2). Grid halo cells count in the rings (their values are fixed). A stencil of radius
 * 1 (lap) reads its own cells and ring 1 through the own cells' rows. A two-pass body of radius
 * 2 (laplap) reads nothing else than depth 2 gives: pass 1 computes a
 * Laplacian at every own and ring-1 entry from that entry's own first-order row (so the second
 * ring is each neighbour's own row, as the frame-free relations R_XY are: grids/grid.h), pass 2
 * the stencil at the own cells from those Laplacians.
 *
 * With neighbour lists (graph stencils) a ring follows the lists instead of W/E/S/N, and a row
 * holds the list in its order.
 *
 * Local slots: own cells 0 .. own-1 ascending by plane index, then ring 1, then ring 2, each ring
 * ascending by plane index. The table gives the W, E, S, N slots of every own entry and, at
 * depth 2, every ring-1 entry (PERSIST_NO_SLOT where the relation is missing). A block's exports are its own cells that
 * another block's ring 1 or ring 2 holds: the cells it writes to global memory each step. */
#ifndef PILLAR_PERSIST_PARTS_H
#define PILLAR_PERSIST_PARTS_H

#include "grids/grid.h"

#include <stdint.h>

#define PERSIST_NO_SLOT 0xffffu
#define PERSIST_MAX_SLOTS 0xffff /* slots 0 .. 65534: one short of PERSIST_NO_SLOT */

typedef struct {
    int nblocks;
    int depth;         /* 1: ring 1 alone (radius-1 stencils); 2: rings 1 and 2 */
    long n;            /* inner cells */
    int32_t *own0;     /* nblocks + 1: block b owns the cells own[own0[b] .. own0[b+1]) */
    int32_t *own;      /* n: the own cells' plane indices, block by block, ascending in each */
    int contiguous;    /* own[k] = g->nhalo + k: each block a run of the storage order */
    int32_t *r1start;  /* nblocks + 1: block b's ring 1 is ring1[r1start[b] .. r1start[b+1]) */
    int32_t *ring1;    /* plane indices, ascending within a block */
    int32_t *r2start, *ring2; /* the same for ring 2 */
    int32_t *xstart, *exports; /* the same for the exports (plane indices of own cells) */
    int32_t *tstart;   /* nblocks + 1: block b's table rows are tab[4 tstart[b] ..], one row per
                        * own entry and, at depth 2, ring-1 entry, in slot order */
    int width;         /* slots a table row: 4 (W, E, S, N) or the grid's list columns (adjw) */
    uint16_t *tab;     /* `width` slots a row: W, E, S, N, or the row's neighbour list in its
                        * order (PERSIST_NO_SLOT past its degree) */
    unsigned char *deg; /* a row's degree (lists); NULL for W/E/S/N */
    int own_max, r1_max, r2_max, x_max; /* the largest of a block's own cells, rings, exports */
    int slots_max;     /* the most slots of a block: own + ring 1 + ring 2 */
    int rows_max;      /* the most table rows of a block (tstart's largest step) */
    long ring_all, export_all; /* ring cells (1 and 2) and export cells over all blocks */
} persist_parts;

/* Builds the parts of nblocks blocks over g's inner cells, with rings to depth 1 or 2. Returns 0,
 * or -1 with a message naming the fault: no inner cells, nblocks outside 1..n, a depth other
 * than 1 or 2, a grid without W/E/S/N neighbours (g->nbr), or a block whose slots exceed PERSIST_MAX_SLOTS (its state would not fit on chip
 * anyway; the plan keeps the host loop). */
int persist_parts_build(persist_parts *P, const ugrid *g, int nblocks, int depth);
/* The same with block part[c] owning plane cell c (part: g->nxy entries, -1 at the grid halo's
 * cells, 0 .. nblocks-1 at the inner ones, as ugrid_partition gives; NULL: runs of the order),
 * and with lists set the rings and rows following the grid's neighbour lists (g->adj: graph
 * stencils) instead of W/E/S/N; a block may own no cell (it then holds no slot). Also -1 with a
 * message where an inner cell has no block, or lists are asked of a grid without them. */
int persist_parts_build_from(persist_parts *P, const ugrid *g, int nblocks, int depth,
                             const int *part, int lists);
void persist_parts_free(persist_parts *P);

/* The plane index of block b's slot s (s < own + ring 1 + ring 2 of b). */
int persist_parts_cell(const persist_parts *P, const ugrid *g, int b, int s);

/* Bytes of index data block b holds on chip: its table (2 B a slot, and a degree byte a row with
 * lists), its ring list (4 B an entry:
 * where to read each ring cell) and its export list (2 B an entry: an own slot). */
long persist_parts_index_bytes(const persist_parts *P, int b);

/* Bank conflicts of the gathers of a pass, for the model (notes/issue35-design.md, section 4):
 * the mean wavefronts of a half-warp's read of 8-byte values by 16 consecutive table rows (the
 * threads' order), 1 without conflict; a read's wavefronts are the most distinct slots on one
 * pair of the 32 four-byte banks (slot mod 16). Pass 1: every row reads its own value and its
 * four neighbours' (5 reads); pass 2: the own rows read the Laplacians at their neighbours (4). */
double persist_parts_conflicts(const persist_parts *P, int pass);

#endif
