/* ugrid_write.h — a mesh into an open netCDF-4 file: pillar's own datasets under their names of
 * docs/mesh-format.md, with named dimensions, and their UGRID view (a mesh topology variable
 * `mesh` with cf_role = "mesh_topology", its face and node coordinates, face-node and face-face
 * connectivity), so that xarray, uxarray and ParaView see the cells. Mesh files carry all of it;
 * field files carry the UGRID view of the mesh their fields lie on. */
#ifndef PILLAR_UGRID_WRITE_H
#define PILLAR_UGRID_WRITE_H

#include "grids/mesh.h"

#include <stddef.h>

/* Names shared by both kinds of file. */
#define UGRID_TOPOLOGY "mesh"  /* the mesh topology variable */
#define UGRID_CELLS "nCells"   /* the dimension of the cells (UGRID's faces) */

/* Defines and writes m into ncid: the neighbour table (/neighbours or /cell_neighbours, UGRID's
 * face_face_connectivity), /cell_nodes when m has nodes (face_node_connectivity), the UGRID
 * coordinate variables and the topology variable; with `full` (a mesh file) also /cell_sides,
 * /coordinates, /patch_xy, /partition and /node_coordinates. Returns a netCDF status
 * (NC_NOERR on success). */
int ugrid_write(int ncid, const mesh *m, int full);

/* The names of the cell-centre coordinate variables ugrid_write defines for m, separated by a
 * space ("mesh_face_lon mesh_face_lat"), for a data variable's CF `coordinates` attribute; ""
 * when m has no coordinates. */
void ugrid_face_coordinates(const mesh *m, char *buf, size_t n);

#endif
