/* dist_read.h — a rank's rows read from a mesh file by the ranks together, no rank reading or
 * holding more than its block of the file and its own rows with their ring (docs/distributed.md,
 * "Each rank holds its part"). No MPI here: the collectives go through dist_mpi.h. */
#ifndef PILLAR_DIST_READ_H
#define PILLAR_DIST_READ_H

#include "dist_local.h"
#include "src/io/mesh_io.h"

/* Rank `rank` of comm's (nranks ranks) rows of the pillar mesh file `path` (header h, read by
 * the caller with mesh_read_header; its /partition has nparts == nranks: the owners) for stencil s
 * with F steps between exchanges (collective):
 *   1. block rows: rank q reads rows [q·N/P, (q+1)·N/P) of the neighbour table, /cell_sides and
 *      /partition, and of /coordinates for a stencil with coefficients (the centres then travel
 *      with the rows);
 *   2. rows to owners: each block row goes to the rank its partition names (all-to-all);
 *   3. the ring, radius·F rounds: each round asks the block holders for the rows of the cells
 *      the held rows reach and the rank does not hold yet (two all-to-alls a round); on a mesh
 *      with a boundary radius-1 rounds more;
 *   4. on a mesh with a boundary, the grid's halo cells (mesh_halo, or mesh_graph_halo for a
 *      graph stencil, as the run's grid marks them; from the held rows) and the places of the
 *      other cells in the checksum's order (the run's grid in file order: the halo cells first,
 *      then the inner ones, each in file order): each rank sends its partition cells' flags to
 *      their block holders, which number their rows after an exclusive scan of the counts of
 *      the lower blocks and answer.
 * L gets: own cells (its partition cells that are not halo cells) in ascending file index, then
 * the other cells within radius·F, by round (distance), each round in the order reached; gid =
 * the cell's index in the file; owner from /partition, -1 for the grid's halo cells; nbr (quad
 * mesh: the file's W/E/S/N rows) and adj (both kinds: the row's cells in order, missing ones left
 * out, as ugrid_from_mesh lists them), in local numbers, -1 where not held; nz = h->nlevels; hix
 * the own cells' places in the checksum's order (NULL on a closed mesh: there they are the
 * gids); for a stencil with coefficients ncoord, coord and (a file with /cell_sides) sides of the
 * cells held (dist_local_coeffs). Rank 0 gets the grid's halo cells' ids in file order in *fixed (*nfixed of them; the
 * checksum's first places; NULL, 0 on a closed mesh and on the other ranks: the caller frees).
 * Returns 0, or -1 after a message on the rank that failed (every rank returns -1 then). */
int dist_read_local(int comm, int nranks, int rank, const char *path, const mesh_header *h,
                    stencil_t s, int F, dist_local *L, int **fixed, int *nfixed);

#endif
