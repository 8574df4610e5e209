/* tiles.h — per-block balls for kernels that run K time steps per launch with on-chip reuse
 * (--kernel-steps K, SO2DR's k_on).
 *
 * The cells [from, ncells) of a grid (those a launch may have to write) are cut into blocks of B
 * cells, consecutive in the order of a key (an out-of-core chunk's global cell numbers: the
 * chunk's ring cells lie in thin bands of the local order, and blocks along a band would have
 * balls several times their size), or of the cells themselves; blocks are listed by their
 * largest cell, so that the blocks holding a cell >= c form a suffix. Cells below base (halo
 * cells of the grid) are read, never updated. A
 * block's ball is its cells and every cell within graph distance depth = radius·K of them
 * (through W/E/S/N), listed by layer: the block's own cells first (layer 0, in order), then the
 * cells at distance 1, 2, ..., depth. A block stages its ball in shared memory one level at a
 * time and runs K steps there: step i (of k <= K) updates the ball cells of layer <= radius·(k-i),
 * so the last step leaves its own cells advanced by k steps, and only those go back to memory.
 * Cells of the ball that lie nearer the edge of a chunk than the chunk's valid region get
 * meaningless intermediate values; no valid cell ever reads them.
 *
 * Within a ball every cell has a slot (its position in the list); nb[4*e + r] is the slot of
 * relation r (W, E, S, N) of entry e, or e itself where that neighbour is not in the ball, so
 * that every read stays inside the ball.
 *
 * On a grid with neighbour lists (g->adj: graph stencils) the balls grow through the lists and
 * each entry has a row of `width` slots (1 + the list width, rounded up to even): nb[width*e] is
 * its degree (its list's length), nb[width*e + 1 + j] the slot of its neighbour j in its own
 * list order (e itself outside the ball), then padding (e). Such balls are never lattice-like.
 *
 * The balls are "lattice-like" when around every entry that a step may update (a cell >= base
 * within layer radius·(K-1)) the grid's relations compose as on a square lattice: going one way
 * and back returns (E(W e) = W(E e) = N(S e) = S(N e) = e) and the diagonal neighbours do not
 * depend on the order (W(S e) = S(W e), E(S e) = S(E e), W(N e) = N(W e), E(N e) = N(E e)).
 * With radius >= 2 all these cells are in the ball, so its slots compose likewise; then the
 * Laplacian that laplap's body computes at a neighbour of e is the Laplacian of that neighbour's
 * own slots, the same whichever cell reads it, and a K-step kernel may compute it once per entry
 * and step (access/tiles_run.h). Not so across the seams of a cubed sphere, where the relation
 * leading back is generally not the opposite one. */
#ifndef PILLAR_TILES_H
#define PILLAR_TILES_H

#include "../grids/grid.h"

#include <stdint.h>

/* The largest ball a block may have: slots are 16-bit. */
#define TILES_MAX_BALL 65535

typedef struct {
    int B;          /* cells per block */
    int K;          /* steps per launch at most */
    int depth;      /* radius·K */
    int base;       /* first computable cell */
    int from;       /* first cell of block 0 (>= base) */
    int ncells;     /* cells of the grid */
    int nblocks;
    int maxball;    /* the largest ball */
    int lattice;    /* 1: every ball is lattice-like (above) */
    int graph;      /* 1: built from neighbour lists (g->adj): rows of degree and slots */
    int width;      /* slots per entry: 4 (W/E/S/N), or the even 1 + list width (graph) */
    size_t nentries;
    int32_t *start; /* nblocks + 1: block b's ball is entries start[b] .. start[b+1]) */
    int32_t *bmax;  /* nblocks: the largest cell of each block, ascending */
    int32_t *layer; /* nblocks * (depth + 1): entries of block b within distance d, at b*(depth+1)+d */
    int32_t *cell;  /* nentries: the cell of each entry */
    uint16_t *nb;   /* width * nentries: W/E/S/N slots, or degree and list slots (above) */
} tiles;

/* Builds the balls of blocks of B cells over the cells [from, nxy) of g (g->nbr gives the
 * neighbours; -1 for none; cells below base are never updated) for K steps of a stencil of
 * horizontal radius `radius`; blocks follow key[c] (NULL: the cell order). Returns 0, or -1
 * with a message when a ball exceeds TILES_MAX_BALL cells. */
int tiles_build(tiles *t, const ugrid *g, int base, int from, int B, int K, int radius,
                const int *key);
/* The same through the grid's neighbour lists g->adj (graph stencils: rows of degree and
 * slots, above). Returns 0, or -1 with a message (also for a grid without lists). */
int tiles_build_lists(tiles *t, const ugrid *g, int base, int from, int B, int K, int radius,
                      const int *key);
void tiles_free(tiles *t);

/* Bytes of the arrays a device needs (start, layer, cell, nb). */
size_t tiles_bytes(const tiles *t);

/* The first block holding a cell >= c (blocks before it have nothing to write). */
static inline int tiles_block_of(const tiles *t, int c)
{
    int lo = 0, hi = t->nblocks; /* the first block whose largest cell is >= c */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (t->bmax[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#endif
