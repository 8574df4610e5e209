/* dist_local.h — one rank's rows of the horizontal grid in local numbering, from which its share
 * of a distributed run is built (dist_rank_make_local, dist_plan.h). No MPI here.
 *
 * Whoever knows a rank's cells fills a dist_local: the whole-grid path restricts the grid to the
 * rank's ball (dist_local_from_grid), a per-part read fetches the rows from the mesh file, a model
 * gives its own decomposition. Local numbering:
 *
 *   [0, nown)        the cells this rank owns (computes and sends): inner cells of the grid,
 *                    owner == rank, in any order the caller likes (the bits do not depend on it)
 *   [nown, nlocal)   the other cells it holds: inner cells owned by another rank (owner ==
 *                    that rank: their values are received every exchange), and halo cells of the
 *                    grid (owner == -1: read, never computed, never exchanged; the caller fills
 *                    them as it fills every held cell's inputs), in any order
 *
 * Each cell carries its global id (gid >= 0, distinct within a rank; the same cell has the same
 * id on every rank that holds it: ids are how ranks name cells to each other) and its
 * neighbours as rows in local numbers, in the grid's row order (the order matters: a W/E/S/N
 * stencil reads relation r in column r, a graph stencil sums its list in row order). A neighbour
 * the rank does not hold is -1, as is a missing one.
 *
 * What dist_rank_make_local needs held, for stencil s (radius R = stencil_table[s].radius) with
 * F steps between exchanges: every cell within graph distance R·F of an owned cell (distance
 * through the rows the stencil walks: nbr's W/E/S/N for a W/E/S/N stencil, adj for a graph
 * stencil), with complete rows (every neighbour held) for the cells within R·F - 1 of an owned
 * cell; rows of the cells at distance R·F may be cut. Cells beyond are allowed and ignored. The
 * owner of every held cell within R·F must be right on every rank (that is what the exchange
 * lists are made from); it is not checked across ranks here. */
#ifndef PILLAR_DIST_LOCAL_H
#define PILLAR_DIST_LOCAL_H

#include "grids/grid.h"
#include "stencils/coeffs.h"
#include "stencils/stencil.h"

typedef struct {
    int nlocal;  /* cells held */
    int nown;    /* owned cells: [0, nown) */
    int nz;      /* levels of the grid */
    int *gid;    /* nlocal: global ids, >= 0, distinct */
    int *owner;  /* nlocal: owning rank; [0, nown): this rank; -1: a halo cell of the grid */
    int *nbr;    /* W/E/S/N stencils: NREL1 x nlocal, nbr[r*nlocal + l] = the local cell of
                  * relation r (grid.h: W, E, S, N) of l, -1 = none or not held; NULL when the
                  * grid has no W/E/S/N relations */
    int adjw;    /* columns of adj */
    int *adj;    /* graph stencils: adjw x nlocal, adj[j*nlocal + l] = the j-th neighbour of l
                  * in the grid's row order (ugrid.adj), -1 = past its degree or not held;
                  * NULL when the grid has no neighbour lists */
    int *hix;    /* NULL, or nown: each own cell's place in the grid's checksum order
                  * (iter_state_hash over the grid: dist_read_local's; NULL: its gid) */
    /* for a stencil with coefficients built from the rows alone (dist_local_coeffs): */
    int ncoord;    /* 0, 2 or 3 */
    double *coord; /* NULL, or ncoord x nlocal: coord[ncoord*l + k], the cell centres */
    int *sides;    /* NULL (every cell has adjw edges), or nlocal: the edges of each cell */
} dist_local;

/* Rank `rank`'s rows of the whole grid g (its part of part[], nxy entries, -1 for the halo
 * cells, an owner 0..nranks-1 for the others; ugrid_partition's) for stencil s with F steps
 * between exchanges: the cells within R·F of its own (the grid's distance, as above), numbered
 * own cells in ascending grid cell, then the others in ascending grid cell; gid = the grid cell;
 * nbr and adj copied where g has them, cut at the cells not held. Whole-grid temporaries: three
 * arrays of nxy ints. Returns 0, or -1 with a message (an owner out of range, a rank that owns
 * no cell). */
int dist_local_from_grid(dist_local *L, const ugrid *g, const int *part, int nranks, int rank,
                         stencil_t s, int F);

/* L's rows (nbr, adj and adjw, where g has them) from grid g for its held cells: hold[l] is the
 * grid cell of local cell l (L->nlocal of them), loc[c] the local cell of grid cell c or -1 where
 * not held (neighbours not held become -1). */
void dist_local_rows(dist_local *L, const ugrid *g, const int *hold, const int *loc);

/* Whether L is well formed for rank `rank` of nranks: counts, owners ([0, nown) this rank, the
 * others -1 or another rank in range), gids (>= 0, distinct), neighbours (-1 or a local cell),
 * a table for stencil s (nbr for W/E/S/N stencils, adj for graph stencils). Returns 0, or -1 with
 * a message naming the local cell and its global id. It cannot tell a cut row from a missing
 * neighbour: the depth contract above is the caller's. */
int dist_local_check(const dist_local *L, int nranks, int rank, stencil_t s);

/* Whether L's rows are symmetric where it can tell (a part-only read: the file's rows of the
 * cells L holds, entries to cells it does not hold -1): every own cell's held neighbours list it
 * among theirs, as mesh_check demands of a whole mesh. The rank that owns either end of an edge
 * sees both rows, so the ranks together check every edge. file and dataset name the mesh in the
 * message. Returns 0, or -1 with a message naming both cells by their global ids. */
int dist_local_symmetric(const dist_local *L, int rank, const char *file, const char *dataset);

/* The coefficients (stencils/coeffs.h) of stencil s in precision p of L's cells, numbered as L
 * (all: nlocal cells), from L's rows, sides and centres alone (the descriptor's build_part): a
 * minimum over the grid goes through min_all(u, x), which a distributed run makes the minimum
 * over the ranks (collective then: every rank calls it alike, even when it fails). Equal to the
 * whole grid's for the cells whose rows L holds whole (those within R·F - 1 of an own cell).
 * file names the mesh in messages. Returns 0, or -1 with a message (a stencil whose
 * coefficients need the whole grid, no coordinates). */
int dist_local_coeffs(const dist_local *L, stencil_t s, precision_t p, const char *file,
                      double (*min_all)(void *u, double x), void *u, coef_set *all);

void dist_local_free(dist_local *L);

#endif
