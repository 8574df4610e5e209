/* mesh_import.h — general meshes from other tools' files: ICON grid files (netCDF-4, read as HDF5)
 * and Gmsh meshes (.msh, through the Gmsh C API where pillar was built with it). */
#ifndef PILLAR_MESH_IMPORT_H
#define PILLAR_MESH_IMPORT_H

#include "grids/mesh.h"

/* An ICON grid file: cells = the triangles, neighbours from neighbor_cell_index [3][ncells]
 * (1-based, <= 0: none), coordinates = (clon, clat) turned into points on the unit sphere.
 * Returns 0, or -1 after a message naming the dataset and the first bad index; m is then empty. */
int mesh_import_icon(const char *path, int nlevels, mesh *m);

/* A Gmsh mesh: cells = its 2D elements (triangles and quadrangles, any order), neighbours = the
 * elements sharing an edge with them, coordinates = the barycentres of their corner nodes.
 * Returns 0, or -1 after a message (also when pillar was built without Gmsh). */
int mesh_import_gmsh(const char *path, int nlevels, mesh *m);

/* Whether path may be handed to Gmsh: an existing, regular file named *.msh whose first line is
 * $MeshFormat and whose second an MSH 2 or 4 version line (never a Gmsh script, which could run
 * commands). On success *fd is the file opened read-only (the caller closes it). Returns 0, or
 * -1 after a message naming path and what is wrong; *fd is then -1. */
int gmsh_file_check(const char *path, int *fd);

/* Checks an imported mesh; on failure prints "path: what: message" and returns -1. */
int mesh_import_check(const char *path, const char *what, const mesh *m);

#endif
