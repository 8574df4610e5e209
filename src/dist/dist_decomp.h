/* dist_decomp.h — a model's own decomposition (include/pillar.h, pillar_set_decomposition;
 * docs/distributed.md): on each rank of a communicator the model gives its local cells, the
 * first nown owned, the rest halo cells owned by other ranks, their global ids, and the
 * neighbour table in local numbers (-1: no cell, or a cell the rank does not hold). Each rank
 * runs its local grid on its own; before a pass of F steps and after the last one the halo cells
 * get their owners' values.
 *
 * The exchange pattern comes from the global ids through a distributed directory (no rank holds
 * more than its own cells and O(its cells) of records):
 *   1. every rank registers its owned ids at rank (id mod P), which finds an id owned twice;
 *   2. every rank asks the directory for the owner of each of its halo ids (none: refused);
 *   3. every rank sends each owner its halo cells' rows, in global ids, by (owner, id); the owner
 *      compares them with its own rows (tables that disagree, a halo too thin for the stencil's
 *      radius x F) and keeps the requests, in that order, as its send list.
 * Every refusal is agreed by all ranks (dist_agree): each returns the same status and message,
 * naming the cell (local index, global id) and the rank(s). No function here includes mpi.h; the
 * collectives are dist_mpi.c's. */
#ifndef PILLAR_DIST_DECOMP_H
#define PILLAR_DIST_DECOMP_H

#include "dist_plan.h"
#include "grids/mesh.h"
#include "stencils/stencil.h"

#include <stddef.h>

typedef struct {
    int comm, rank, nranks;
    int ncells, nown; /* local cells, the first nown owned */
    int *gid;         /* ncells: global id of each local cell (the model's numbering) */
    int *owner;       /* ncells: its owner (this rank for the owned cells) */
    /* receiving: the halo cells by owner (rpeer ascending), each owner's by ascending global id;
     * local cells in the model's numbering until dist_decomp_renumber */
    int nrecv, *rpeer, *rstart, *rcell;
    /* sending: owned cells by the rank that holds them as halo cells, in the order it lists them */
    int nsend, *speer, *sstart, *scell;
} dist_decomp;

/* Statuses of dist_decomp_make's refusals (the caller maps them to its own). */
enum { DECOMP_OK = 0, DECOMP_ERR_ARG = 1, DECOMP_ERR_GRID = 2 };

/* Rank's decomposition over communicator comm (a Fortran handle that dist_comm_info accepted):
 * local table m (quad or general; m->ncells local cells), nown owned cells, gid[m->ncells]
 * global ids, reach = radius x F (rows of halo cells closer than reach to an owned cell must be
 * complete: equal to the owner's). Collective: every rank of comm calls it. m = NULL joins the
 * agreement with this rank's own refusal already in msg (status st_in, the caller's argument
 * checks). Returns DECOMP_OK, or on every rank the same status and message (msg, n bytes) of the
 * lowest rank that refused: a rank with no owned cell, an id below 0 or given twice, tables of
 * another kind, width or levels than another rank's, an id owned by two ranks, a halo cell
 * owned by no rank, a halo row that disagrees with its owner's or lacks a neighbour within reach.
 * d is empty unless DECOMP_OK; free with dist_decomp_free. */
int dist_decomp_make(dist_decomp *d, int comm, const mesh *m, int nown, const int *gid, int reach,
                     int st_in, char *msg, size_t n);

/* Replaces the model's local cells in the lists by cell[c] (the engine's cell of the model's
 * cell c), once, so that the exchange addresses the engine's fields. */
void dist_decomp_renumber(dist_decomp *d, const int *cell);

/* One exchange, collective: for each of the nf fields (arrays of precision p, the value of cell c
 * at level z at index z * zstride + c, nz levels) the owners' values of every halo cell. Returns
 * 0, or -1 after a message (on every rank). */
int dist_decomp_exchange(const dist_decomp *d, precision_t p, void *const *fields, int nf, int nz,
                         long zstride);

/* How an exchange reads and writes fields held elsewhere (a handle's, on the device): field f's
 * values at cells cell[0..n) of every level, level after level (buf[z * n + j], host memory),
 * copied out of the field (pack) or into it. */
typedef void (*dist_cells_fn)(void *user, int f, const int *cell, int n, void *buf, int pack);

/* dist_decomp_exchange of nf fields of nz levels that cells(user, ...) reads and writes: the
 * same messages, the same result. */
int dist_decomp_exchange_cells(const dist_decomp *d, precision_t p, int nf, int nz,
                               dist_cells_fn cells, void *user);

void dist_decomp_free(dist_decomp *d);

/* ---- passes on the rank's share (dist_decomp_steps.c) ----
 *
 * The decomposition as a rank's share of a distributed run (src/dist/dist_plan.h), built from its
 * rows (dist_local.h) as the whole-grid path's share is: so a pass computes the ring's trapezoid
 * only, and step 1's interior while the ring's messages fly (its passes: dist_part_open,
 * src/dist/dist_mpi.h). */

/* Rank d's share r for stencil s in precision p, table storage (chasing, compressed), F steps
 * between exchanges, on g, the local grid as the engine numbers it (cell[c]: the engine's cell of
 * the model's cell c; d already renumbered by dist_decomp_renumber). Its dist_local: the owned
 * cells the stencil computes (inner cells of g), then every other held cell, owned elsewhere
 * (d->owner) or, where its owner's grid never computes it (a halo cell there: the owners' flags
 * are exchanged), -1; rows from g. r's pt.gcell are g's cells, its coefficients (a stencil
 * with some) coef's at them: g's, made with the minima over every rank's piece
 * (problem_make_piece). The send lists made. Collective;
 * returns 0 on every rank, or -1 on every rank (a rank that could not make its share: one that
 * owns no cell the stencil computes) after a message. */
int dist_decomp_share(dist_rank *r, const dist_decomp *d, const ugrid *g, const coef_set *coef,
                      const int *cell, stencil_t s, precision_t p, int chasing, int compressed,
                      int F);

#endif
