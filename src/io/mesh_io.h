/* mesh_io.h — mesh files (HDF5, schema in docs/mesh-format.md). */
#ifndef PILLAR_MESH_IO_H
#define PILLAR_MESH_IO_H

#include "grids/mesh.h"

/* Reads and checks a pillar mesh file. Returns 0, or -1 after a message naming the file, the
 * dataset or attribute and the first bad cell; m is then empty. */
int mesh_read_pillar(const char *path, mesh *m);

/* How a grid file is read where a mesh is expected (`run --mesh`, `mesh info`,
 * pillar_grid_file): format, an importer's name (mesh_import.h; NULL: a pillar mesh file, or
 * else the importer its content shows), the levels (0: a pillar mesh file's own, 64 for a
 * grid file imported; else these) and how coincident nodes merge. Zeroed: the defaults. */
typedef struct {
    const char *format;
    int nlevels;
    double merge_tol; /* a grid file imported: mesh_import_opts.merge_tol (0: nodes at identical
                       * positions are one; < 0: none merged) */
} mesh_load_opts;

/* Reads and checks any grid file pillar reads: a pillar mesh file (mesh_read_pillar), or a file
 * of another tool's format, imported in memory as `pillar mesh import` would (o NULL: the
 * defaults). Returns 0, or -1 after a message naming the file and what is wrong (for a file
 * that is neither, both why it is not a mesh file and that no importer recognises it); m is then
 * empty. */
int mesh_load(const char *path, const mesh_load_opts *o, mesh *m);

/* mesh_load with the options mesh_read_options set (the defaults until then): how every mesh
 * path is read, by the engine (a run's --mesh) and the library (pillar_grid_file). */
int mesh_read(const char *path, mesh *m);

/* Sets the options mesh_read uses from now on, for the whole process (o NULL: the defaults
 * again): `pillar run --format/--levels`, set once after its command line is read, before any
 * mesh is. Not for a library, whose callers may read meshes in several threads. */
void mesh_read_options(const mesh_load_opts *o);

/* The same from an HDF5 file image of size bytes in memory (the fuzz tests); name stands for the
 * file in messages. */
int mesh_read_image(const void *image, size_t size, const char *name, mesh *m);

/* What a rank of a distributed run needs to know of a pillar mesh file before it reads its
 * share of the rows (mesh_read_block): nothing of it is read but attributes and extents. */
typedef struct {
    int ncells, nlevels; /* nlevels: the file's, or mesh_read_options' when it sets them */
    int quad;            /* 1: /neighbours (W/E/S/N), 0: /cell_neighbours (a general mesh) */
    int width;           /* columns of the neighbour table: 4, or the general mesh's maxdeg */
    int has_sides;       /* a general mesh with /cell_sides */
    int nparts;          /* /partition's attribute nparts; 0 when the file stores none */
    int patch;           /* /patch_xy is present (a regular patch) */
    int has_coords;      /* /coordinates is present (the cells' centres: a z-curve order exists) */
} mesh_header;

/* The header of the pillar mesh file at path. Returns 0, 1 when it is not a pillar mesh file or
 * mesh_read_options names a --format (no message: the caller reads it whole), or -1 after a
 * message (a pillar mesh file that is malformed). */
int mesh_read_header(const char *path, mesh_header *h);

/* Rows [row0, row0 + n) of the pillar mesh file at path (header h): the neighbour table (*nbr:
 * n x h->width, the file's layout: a quad mesh's W/E/S/N, a general mesh's edges in order, -1
 * for none), /cell_sides (*sides, NULL when h has none) and /partition (*part, NULL when h has
 * none), every value range-checked (a neighbour -1 or a cell, sides 1..width, a part below
 * nparts); with coord non-NULL also /coordinates (*coord: n x *ncoord, the file's values; NULL
 * and 0 when the file has none). The checks of mesh_check that need other rows (symmetry) are not
 * made. Returns 0, or -1 after a message naming the file, the dataset and the cell (then all are
 * NULL). */
int mesh_read_block(const char *path, const mesh_header *h, int row0, int n, int **nbr,
                    int **sides, int **part, double **coord, int *ncoord);

/* Writes a mesh: to a temporary file next to path, renamed over path only when complete.
 * Returns 0, or -1 after a message (no file is left behind). */
int mesh_write(const char *path, const mesh *m);

#endif
