/* gtwopass.h — per-block lists of the graph two-pass strategy (access/graph_twopass.cu,
 * docs/access.md "graph-twopass"): for each block, the cells whose Laplacian it computes (its
 * own cells and their first ring) with their neighbour offsets, and for each own cell the slots
 * of its neighbours' Laplacians. Built once on the host for blocks of nt threads.
 *
 * Blocks: the inner cells, in the grid's order, are cut greedily into runs of consecutive cells
 * (a METIS part or a z-curve run stays together where the order keeps it together): a run grows
 * while its own cells plus their first ring (the neighbours outside the run) number at most nt.
 * With radius 1 (a stencil without the two-pass split) the ring is not needed: runs of nt cells.
 *
 * Entries of block b: entry e (0 <= e < nent_b <= nt) is
 *   e < own_b        own cell e: plane cell cell0_b + e (inner cell cell0_b - nhalo + e)
 *   e >= own_b       ring cell: a neighbour of an own cell outside the run, ascending
 * Entry arrays, struct of arrays over all blocks' entries (block b from start[b]):
 *   ent[0*nent + i]      plane cell of entry i
 *   ent[1*nent + i]      its degree d (its number of neighbours, <= D)
 *   ent[(2+j)*nent + i]  offset of its neighbour j (plane cell - cell, its own row order), j < d;
 *                        0 past d
 * Slots of the own cells (the inner cell index j over all blocks, struct of arrays):
 *   slot[r*n + j]        entries of neighbours 2r (low 16 bits) and 2r+1 (high 16 bits) of the
 *                        inner cell j within its block; 0 past its degree
 * blk: start[b] (nblocks + 1 values), then own_b (nblocks), then cell0_b (nblocks). */
#ifndef PILLAR_GTWOPASS_H
#define PILLAR_GTWOPASS_H

#include "../grids/grid.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int nt;         /* entries per block at most (threads per block) */
    int D;          /* the grid's list width: degrees <= D */
    int radius;     /* 2: own cells and their ring; 1: own cells only */
    int n;          /* inner cells */
    int nblocks;
    size_t nent;    /* entries of all blocks */
    int32_t *blk;   /* 3 * nblocks + 1 values (above) */
    int32_t *ent;   /* (2 + D) rows of nent */
    int32_t *slot;  /* (D + 1) / 2 rows of n */
    int emax;       /* the most entries of a block */
} gtwopass;

/* Builds the lists of g (a grid with neighbour lists g->adj) for blocks of nt threads (32 <= nt,
 * nt <= 65535) and a stencil of the given radius (1 or 2). Returns 0, or -1 with a message when
 * nt cannot hold one cell with its ring. */
int gtwopass_build(gtwopass *s, const ugrid *g, int nt, int radius);
/* The same with blocks also cut at the cells cuts[0 .. ncuts) (ascending; those outside the
 * inner cells are ignored): no run straddles a cut, so the blocks whose cells are >= a cut form
 * a suffix of the blocks (gtwopass_block_of). An iterated out-of-core part cuts at the first
 * cell of each shrinking region (src/plan/ooc_plan.h). */
int gtwopass_build_cut(gtwopass *s, const ugrid *g, int nt, int radius, const int *cuts,
                       int ncuts);
void gtwopass_free(gtwopass *s);

/* 32-bit words of the lists as a device image: blk, then ent ((2 + D) rows of nent, at least
 * one), then slot (slot rows of n, at least one). */
size_t gtwopass_words(const gtwopass *s);

/* The first block whose own cells start at or after cell c (nblocks when none does). */
int gtwopass_block_of(const gtwopass *s, int c);
/* The first cell of block b, or for b = nblocks the end of the last block's own cells (-1 when
 * there are no blocks): the cells [gtwopass_block_start(b0), gtwopass_block_start(b1)) are the
 * own cells of the blocks [b0, b1). */
int gtwopass_block_start(const gtwopass *s, int b);

/* Rows of slot: two neighbour slots per word. */
static inline int gtwopass_slot_rows(int D) { return (D + 1) / 2; }

/* Entries per inner cell (Laplacians computed per output of a two-pass block). */
double gtwopass_ratio(const gtwopass *s);

#endif
