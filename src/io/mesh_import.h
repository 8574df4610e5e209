/* mesh_import.h — meshes from other tools' files, one importer per format (docs/mesh-formats-in.md).
 *
 * The importers are listed once, in PILLAR_IMPORTERS below; everything else derives from it:
 * `pillar mesh import` picks the first importer whose detect function recognises the file's
 * content (or the one `--format NAME` names), its --help lists them, and the fuzz target covers
 * them. Adding a format is one file src/io/import_NAME.c (defining mesh_detect_NAME and
 * mesh_import_NAME, declared here by the list) plus one line of the list. */
#ifndef PILLAR_MESH_IMPORT_H
#define PILLAR_MESH_IMPORT_H

#include "grids/mesh.h"
#include "nc_read.h"

/* X(name, looks_for, summary): `name` is the --format name and the functions' suffix;
 * `looks_for` what its detect function recognises the format by (variables, attributes, a
 * header), listed when no importer recognises a file ("which format?"); `summary` one line for
 * --help. A file's format is found from its content only, never from its name. First match
 * wins: keep the formats with the most specific content first. */
#define PILLAR_IMPORTERS(X)                                                                       \
    X(ugrid, "a variable with cf_role = \"mesh_topology\"",                                      \
      "UGRID 2D mesh (netCDF): the cf_role = \"mesh_topology\" variable's faces")                \
    X(icon, "variable neighbor_cell_index, or vertex_of_cell with clon/clat",                   \
      "ICON grid file (netCDF): neighbor_cell_index, clon/clat, vertex_of_cell")                 \
    X(mpas, "variables cellsOnCell and nEdgesOnCell, or verticesOnCell and nEdgesOnCell",       \
      "MPAS mesh (netCDF): cellsOnCell, nEdgesOnCell, verticesOnCell")                           \
    X(scrip, "variables grid_corner_lat and grid_corner_lon",                                    \
      "SCRIP grid (netCDF): cells from grid_corner_lat/lon, shared corners")                     \
    X(esmf, "variables nodeCoords, elementConn and numElementConn",                              \
      "ESMF unstructured grid (netCDF): nodeCoords, elementConn, numElementConn")                \
    X(bounds, "a 1-D longitude and latitude, each with a bounds attribute",                      \
      "CF cell bounds (netCDF): 1-D lon/lat whose bounds give corners")                          \
    X(gmsh, "a first line $MeshFormat, then an MSH 2 or 4 version",                              \
      "Gmsh mesh (MSH 2 or 4): triangles and quadrangles")

/* What the detect functions look at: the file's first bytes, and the file opened with libnetcdf
 * when it is a netCDF file (nc.ncid < 0 otherwise). */
typedef struct {
    const char *path;
    unsigned char head[256];
    size_t nhead;
    nc_reader nc;
} mesh_probe;

/* What an import is asked for (the options of `pillar mesh import`), and what it reports back
 * for the caller to say (the library prints nothing of it). */
typedef struct {
    int nlevels;      /* vertical levels of the fields placed on the mesh */
    double merge_tol; /* importers that derive neighbours from nodes (mesh_merge_nodes): nodes
                       * at most this far apart are one node; 0 (the default): nodes at
                       * identical positions only; < 0: none merged */
    int merged;       /* set by the import: node ids merged into others (0: none) */
    int nodes;        /* set with merged: the nodes the file gives */
} mesh_import_opts;

/* Each importer: detect returns 1 when the file is of its format; import reads path into m with
 * o->nlevels levels and returns 0, or -1 after a message naming the file and the variable (or
 * element) and the first bad index; m is then empty. */
#define PILLAR_IMPORTER_DECL(name, looks_for, summary)                                            \
    int mesh_detect_##name(const mesh_probe *p);                                                  \
    int mesh_import_##name(const char *path, mesh_import_opts *o, mesh *m);
PILLAR_IMPORTERS(PILLAR_IMPORTER_DECL)

typedef struct {
    const char *name, *looks_for, *summary;
    int (*detect)(const mesh_probe *p);
    int (*import)(const char *path, mesh_import_opts *o, mesh *m);
} mesh_importer;

#define PILLAR_IMPORTER_COUNT_(name, looks_for, summary) +1
enum { MESH_IMPORTER_COUNT = 0 PILLAR_IMPORTERS(PILLAR_IMPORTER_COUNT_) };
extern const mesh_importer mesh_importers[MESH_IMPORTER_COUNT];

/* The importer called name, or -1. */
int mesh_importer_find(const char *name);

/* The importer of the file at path from its content: the first whose detect function
 * recognises it. -1 after a message naming the path when the file cannot be read, when it is
 * a netCDF file libnetcdf cannot open (truncated, ...: the reason), or when no importer
 * recognises it ("which format?", with what each looks for). */
int mesh_importer_detect(const char *path);

/* Imports path with importer `which` (an index of mesh_importers), or the one found from its
 * content when which < 0, as o asks (its report fields set). Returns 0, or -1 after a message;
 * m is then empty. */
int mesh_import(const char *path, int which, mesh_import_opts *o, mesh *m);

/* Coincident nodes made one (the nodes of m: node_coord, cell_nodes): nodes at most tol apart
 * (tol 0: at identical positions; tol < 0: none), transitively, become the node of the earliest
 * of them; nodes are renumbered in order of first appearance and keep that node's position. In
 * O(n log n): positions sorted by their cell in a grid of at least tol. Returns the number of
 * node ids merged into others. */
int mesh_merge_nodes(mesh *m, double tol);

/* The check every importer ends with: mesh_check (indices in range, no cell its own neighbour,
 * no neighbour twice, symmetric lists, nodes in range). On failure prints "path: what: message
 * (cells counted from 0)", `what` naming the file's variable the neighbours came from, and
 * returns -1. */
int mesh_import_check(const char *path, const char *what, const mesh *m);

/* How every netCDF importer ends: when rc is 0, sets m's levels and kind ("FORMAT: N CELLS from
 * PATH (variant)") and checks it (mesh_import_check, naming `what`); then, on any failure,
 * empties m. Returns 0 or -1. */
int mesh_import_finish(const char *path, const char *format, const char *cells, const char *what,
                       nc_kind kind, int nlevels, int rc, mesh *m);

/* A (rows, w) table of indices as a file stores them (counted from `start`; NC_READ_FILL for
 * its fill value) into out: 0-based, -1 for a fill value. Entries must lie in start..start+max-1.
 * With `corners` the rows are cells' corners, under the one padding rule of every reader: a
 * row is padded after its last corner with fill values or by repeating that corner (both
 * become -1); a corner after a fill value is refused. Returns 0, or -1 after a message "path:
 * variable NAME: ROW r, entry j = v ..." (ROW: "face", "cell", ...) naming the first bad
 * entry. */
int mesh_index_rows(const char *path, const char *name, const char *row_word, const int *in,
                    size_t rows, int w, long long start, int max, int corners, int *out);

/* Longitudes and latitudes (n of each; degrees when `degrees`, else radians) into points on the
 * unit sphere, xyz[3i..3i+2]. Returns 0, or -1 after a message "path: LON[i] = v is not a
 * longitude in radians" (a value that is not finite, or a latitude beyond a pole). */
int mesh_lonlat_points(const char *path, const char *lon_name, const char *lat_name,
                       const double *lon, const double *lat, size_t n, int degrees, double *xyz);

/* Reads the variables lon_name and lat_name (rank 1, n values each, n < 0: any, the same for
 * both) as points on the unit sphere into a new *xyz; *count = their number. Returns 0, 1 when
 * lon_name is absent and optional, -1 after a message. */
int mesh_read_lonlat(const nc_reader *rd, const char *lon_name, const char *lat_name, int optional,
                     long n, int degrees, double **xyz, int *count);

/* Points on the unit sphere of the variables lat_name and lon_name (rank 1 or 2, the same shape
 * s; xyz in a new array of their values' count), in degrees or radians by the `units` attribute
 * of the variables lat_units and lon_units (NULL: each its own; absent: degrees). -1 after a
 * message naming the variable and, for a value that is not a longitude or latitude, its
 * index. */
int mesh_read_sphere(const nc_reader *rd, const char *lat_name, const char *lon_name,
                     const char *lat_units, const char *lon_units, int rank, nc_shape *s,
                     double **xyz);

#define MESH_NODE_TOL 1e-9 /* corners closer than this on the unit sphere (about 6 mm on the
                            * Earth) are one node (mesh_cells_from_corners) */

/* Cells given by their corners, as SCRIP and CF cell bounds give them: corner[3 * (w*c + j)] is
 * corner j of cell c (ncells cells of w corners each, in order around the cell) as a point on
 * the unit sphere. Corners within MESH_NODE_TOL of each other (also through others, in chains)
 * become one node, numbered in order of first appearance; in each cell a corner repeated next to
 * itself (padding, a pole) counts once. Sets m's ncells, nodes (node_coord, cell_nodes) and
 * neighbours across shared edges (mesh_adj_from_nodes); time O(n log n) in the corners, however
 * many coincide. Returns 0, or -1 after a message "path: what: ..." naming the first bad cell. */
int mesh_cells_from_corners(const char *path, const char *what, const double *corner, int ncells,
                            int w, mesh *m);

/* Whether path may be handed to Gmsh: an existing, regular file named *.msh whose first line is
 * $MeshFormat and whose second an MSH 2 or 4 version line (never a Gmsh script, which could run
 * commands). On success *fd is the file opened read-only (the caller closes it). Returns 0, or
 * -1 after a message naming path and what is wrong; *fd is then -1. */
int gmsh_file_check(const char *path, int *fd);

#endif
