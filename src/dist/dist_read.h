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
 *   1. block rows: rank q reads rows [q·N/P, (q+1)·N/P) of the neighbour table and /partition;
 *   2. rows to owners: each block row goes to the rank its partition names (all-to-all);
 *   3. the ring, radius·F rounds: each round asks the block holders for the rows of the cells
 *      the held rows reach and the rank does not hold yet (two all-to-alls a round).
 * L gets: own cells in ascending file index, then the others by round (distance), each round in
 * the order reached; gid = the cell's index in the file; owner from /partition; nbr (quad mesh:
 * the file's W/E/S/N rows) and adj (both kinds: the row's cells in order, missing ones left out,
 * as ugrid_from_mesh lists them), in local numbers, -1 where not held; nz = h->nlevels.
 * Only closed meshes (every row complete: no halo cell) are read this way: returns 1 on every rank
 * when some row has a missing neighbour (the caller takes the whole-grid path), 0, or -1 after a
 * message on the rank that failed (every rank returns -1 then). */
int dist_read_local(int comm, int nranks, int rank, const char *path, const mesh_header *h,
                    stencil_t s, int F, dist_local *L);

#endif
