/* dist_plan.h — one rank's share of a distributed iterated run (docs/distributed.md).
 *
 * The inner cells of the horizontal grid are cut into P parts (a METIS k-way partition,
 * ugrid_partition in grids/mesh.h); rank r owns part r at every level. It holds its own cells
 * plus the ring of every cell within radius·F of them (F steps between exchanges) and the grid's
 * halo cells it reaches, numbered as an out-of-core part (src/plan/ooc_plan.h, ooc_part_of_cells):
 *
 *   [0, nfixed)          halo cells of the grid: read, never computed, never exchanged
 *   [nfixed, first[0])   ring cells by band, farthest first: owned by other ranks, received
 *   [first[0], inner0)   own cells whose stencil reads a ring cell (the boundary), and the up
 *                        to 31 interior cells after them that put inner0 at a multiple of 32
 *   [inner0, ncells)     own cells whose stencil reads own and fixed cells only (the interior:
 *                        its launches start aligned)
 *
 * A pass of t <= F steps: the ring is received (the state of the carried fields at levels
 * [0, zend)), then step j computes the suffix [first[t - j], ncells) as an out-of-core chunk does
 * (trapezoids: ring cells are computed redundantly, with fewer steps each band). The first step's
 * interior needs nothing received, so it is computed while the messages fly.
 *
 * Lists are built once from global ids (gid): a rank lists the ring cells it needs by owner
 * (recv, each owner's in ascending global id); each owner gets those global ids and turns them
 * into its local cells (dist_rank_sends), in the same order, so a message is the values of the
 * listed cells, carried field by carried field, level by level [0, zend).
 *
 * A rank's share is built from its rows alone (dist_rank_make_local, from a dist_local:
 * dist_local.h); dist_rank_make is the whole-grid path, which restricts the grid to the rank's
 * rows first (dist_local_from_grid). */
#ifndef PILLAR_DIST_PLAN_H
#define PILLAR_DIST_PLAN_H

#include "dist_local.h"
#include "src/plan/ooc_plan.h"

typedef struct {
    int rank, nranks;
    stencil_t stencil;
    precision_t prec;
    int F;            /* steps between exchanges */
    int nz, zend;     /* levels; computed levels */
    ooc_part pt;      /* the local cells, grid and table (pt.own0 = pt.own1 = -1); pt.gcell:
                       * each local cell's cell of the dist_local it was made from
                       * (dist_rank_make_local), or of the whole grid (dist_rank_make); a
                       * stencil with coefficients: theirs (pt.coef, stencils/coeffs.h) */
    int *gid;         /* pt.ncells: the global id of each local cell (dist_rank_make: = pt.gcell,
                       * the grid's cell) */
    int nown;         /* own cells: [pt.first[0], pt.ncells) */
    int edge1;        /* first own cell whose stencil reads no ring cell */
    int inner0;       /* first interior own cell: edge1 rounded up to a multiple of 32 */
    /* receiving: ring cells by owner */
    int nrecv;        /* ranks it receives from */
    int *rpeer;       /* nrecv ranks, ascending */
    int *rstart;      /* nrecv + 1: ring cells from rpeer[j] are rcell[rstart[j] .. rstart[j+1]) */
    int *rcell;       /* local ring cells, every ring cell once */
    /* sending: own cells by the rank that needs them (dist_rank_sends) */
    int nsend;
    int *speer, *sstart, *scell;
} dist_rank;

/* Rank `rank`'s share (of nranks) from its rows L alone (dist_local.h: what L must hold for
 * stencil s and F) for stencil s in precision p, table storage (chasing, compressed) and F >= 1
 * steps between exchanges. Own cells keep L's order within the boundary and within the
 * interior; pt.gcell[l] is local cell l's cell in L, gid[l] = L->gid[pt.gcell[l]]; nz = L->nz.
 * The ring is received by owner (L->owner), each owner's cells in ascending global id. A stencil
 * that reads coefficients (fluxdiff) gets none here: give them with ooc_part_coeffs(&d->pt, s, p,
 * all, who), all numbered as pt.gcell. Send lists are empty until dist_rank_sends. Only O(L)
 * memory. Returns 0, or -1 with a message (L malformed: dist_local_check; F < 1). */
int dist_rank_make_local(dist_rank *d, const dist_local *L, int nranks, int rank, stencil_t s,
                         precision_t p, int chasing, int compressed, int F);

/* Rank `rank`'s share of the whole grid g: dist_local_from_grid then dist_rank_make_local, with
 * pt.gcell and gid the grid's cells; part[c] (nxy entries, -1 for halo cells) the owner of each
 * inner cell among nranks ranks. A stencil that reads coefficients (stencils/coeffs.h; fluxdiff)
 * gets its local cells' from coef (g's; ooc_part_coeffs into pt.coef); coef is not read for the
 * others and may be NULL. Returns 0, or -1 with a message (a rank that owns no cell, an owner out
 * of range, F < 1, a stencil with coefficients without them). */
int dist_rank_make(dist_rank *d, const ugrid *g, const coef_set *coef, const int *part,
                   int nranks, int rank, stencil_t s, precision_t p, int chasing, int compressed,
                   int F);

/* Rank d's lists of strategy a (access/hooks.h; graph-twopass's: d->pt.lists, ooc_part_lists)
 * for blocks of nt threads: cut at every first[m] and at inner0, so that each of a pass's
 * launches (step 1's interior [inner0, ncells) and boundary [first[t-1], inner0), step j's
 * [first[t-j], ncells), t <= F) covers whole blocks. A strategy without lists builds none.
 * Returns 0, or -1 with a message (not a graph stencil, a ring that does not fit nt). */
int dist_rank_lists(dist_rank *d, access_t a, int nt);

/* The send lists from what every rank wants: want[q] cells for rank q (nranks entries, want[rank]
 * = 0), their global ids concatenated in rank order in gcells, each q's in the order it
 * receives them. Returns 0, or -1 with a message naming a cell this rank does not own. */
int dist_rank_sends(dist_rank *d, const int *want, const int *gcells);

/* The global ids of the ring cells rank d receives, by owner as rcell lists them (rstart[nrecv]
 * entries into gcells). */
void dist_rank_wants(const dist_rank *d, int *gcells);

/* Values in one message of n cells: every carried field at every computed level. */
size_t dist_msg_values(const dist_rank *d, int n);

void dist_rank_free(dist_rank *d);

/* One line: cells owned, ring, interior share, peers, values sent per exchange. */
void dist_rank_describe(const dist_rank *d, char *buf, size_t n);

#endif
