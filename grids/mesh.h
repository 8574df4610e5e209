/* mesh.h — a mesh as a user brings it (docs/mesh-format.md). A quad mesh gives per cell its
 * W/E/S/N neighbours or -1; a general (polygon) mesh gives per cell the cells across its edges,
 * any number up to MESH_MAXDEG. Both have optional coordinates and partition; a quad mesh may be
 * a regular patch. Checking it, the halo a stencil of radius 1 or 2 needs, and the unstructured
 * grid built from it (halo cells first, inner cells after). */
#ifndef PILLAR_MESH_H
#define PILLAR_MESH_H

#include "grid.h"

#include <stddef.h>

#define MESH_FORMAT_VERSION 3 /* written (netCDF-4 with named dimensions and a UGRID view);
                                * versions 1 (quad meshes only) and 2 (HDF5) are still read */
#define MESH_MAXDEG 16          /* most edges a cell of a general mesh may have */

typedef struct mesh {
    int ncells;
    int nlevels;    /* vertical levels of the fields placed on it */
    int *nbr;       /* quad mesh: nbr[4*c + r], r = W, E, S, N: a cell index or -1 (the file's
                     * layout); NULL for a general mesh */
    int maxdeg;     /* general mesh: columns of adj, 1..MESH_MAXDEG; 0 for a quad mesh */
    int *adj;       /* general mesh: adj[maxdeg*c + j], the cell across edge j of c or -1 */
    int *sides;     /* general mesh: edges of each cell, 1..maxdeg (columns past it hold -1);
                     * NULL when every cell has maxdeg edges */
    int ncoord;     /* 0 (no coordinates), 2 or 3 */
    double *coord;  /* coord[ncoord*c + k] or NULL */
    int nx, ny;     /* a regular patch: its extent, else 0 */
    int *xy;        /* xy[2c], xy[2c+1]: the cell's (x, y) in the patch, or NULL */
    int nparts;     /* 0 when there is no partition */
    int *part;      /* part[c] in 0..nparts-1, or NULL */
    char kind[128]; /* what made the mesh (informative) */
    /* optional nodes (the cells' corners: /node_coordinates, /cell_nodes), for drawing the cells
     * and for the UGRID view of written files; pillar does not compute with them */
    int nnodes;         /* 0: the mesh has no node data (node_coord, cell_nodes NULL) */
    int nnode_coord;    /* 2 or 3 */
    double *node_coord; /* node_coord[nnode_coord*v + k]: the position of node v */
    int node_width;     /* columns of cell_nodes: the most corners of a cell, 3..MESH_MAXDEG */
    int *cell_nodes;    /* cell_nodes[node_width*c + j]: corner j of cell c (0-based, in order
                         * around the cell), -1 in the columns past its corners */
} mesh;

void mesh_free(mesh *m);

/* Both kinds seen as a graph: row c of the neighbour table has mesh_width entries (4 for a quad
 * mesh), a cell index or -1; the first mesh_sides(c) of them are the cell's edges. A cell is
 * complete when no edge lacks a neighbour (an edge with -1 lies on the mesh's boundary). */
static inline int mesh_width(const mesh *m) { return m->adj ? m->maxdeg : 4; }
static inline const int *mesh_row(const mesh *m, int c)
{
    return m->adj ? m->adj + (size_t)m->maxdeg * (size_t)c : m->nbr + 4 * (size_t)c;
}
static inline int mesh_sides(const mesh *m, int c)
{
    return m->adj && m->sides ? m->sides[c] : mesh_width(m);
}
/* Name of the neighbour dataset of this mesh's kind, for messages. */
static inline const char *mesh_nbr_name(const mesh *m)
{
    return m->adj ? "/cell_neighbours" : "/neighbours";
}
int mesh_complete(const mesh *m, int c);

/* Checks indices, symmetry (if W(c) = d then c is one of d's 4 neighbours), the patch positions
 * and the partition. Returns 0, or -1 with a message naming the dataset and the first bad cell
 * written into err. */
int mesh_check(const mesh *m, char *err, size_t n);

/* The node data, when the mesh has some (called by mesh_check): node_coord and cell_nodes come
 * together, 2 or 3 coordinates, every corner a node index, at least 3 corners per cell, none
 * twice, -1 only past the last one. Returns 0, or -1 with a message naming the dataset and the
 * first bad cell in err (grids/mesh_nodes.c). */
int mesh_check_nodes(const mesh *m, char *err, size_t n);

/* Gives a regular patch (m->xy, nx x ny) its nodes: the (nx+1) x (ny+1) lattice points, node
 * j*(nx+1) + i at (i, j), so that cell (x, y), centred at (x + 1/2, y + 1/2), has the corners
 * (x, y), (x+1, y), (x+1, y+1), (x, y+1) counter-clockwise. Replaces node data it may have. */
void mesh_patch_nodes(mesh *m);

/* Corners of a generated mesh's cells, for mesh_nodes_from_corners: corner j of cell c is
 * entry width*c + j; key[3 * entry] names its point by three integers (equal keys: one node,
 * whichever cell computes it), pos[ncomp * entry] gives its coordinates; a cell's corners come
 * first in its row, counted by count[c] (NULL: all width). */
typedef struct {
    int width, ncomp;
    long long *key;
    double *pos;
    int *count;
} mesh_corners_in;

/* Gives m its nodes from its cells' corners: one node per distinct key, at the position of its
 * first corner (in cell order), numbered in the order the keys first appear; cell_nodes from
 * the corners, -1 past a cell's count. Replaces node data m may have. O(n log n) in the
 * corners. */
void mesh_nodes_from_corners(mesh *m, const mesh_corners_in *in);

/* Neighbours from shared edges (grids/mesh_edges.c): from m->cell_nodes (corners in order
 * around each cell, -1 padding at the end of a row), sets m->maxdeg = m->node_width, m->adj
 * (column j: the cell across the edge from corner j to corner j+1, the last corner joining the
 * first) and m->sides (each cell's corners; NULL when every cell has node_width). An edge of
 * one cell lies on the boundary. Returns 0, or -1 with a message in err (n bytes) that names
 * `dataset` and the first cell, in file order, that has fewer than 3 corners, a corner twice in
 * a row, or an edge shared by three or more cells. */
int mesh_adj_from_nodes(mesh *m, const char *dataset, char *err, size_t n);

/* Neighbours of each cell: hist[k] counts the cells with k neighbours present (k <= 4 for a quad
 * mesh, <= maxdeg for a general one). */
void mesh_histogram(const mesh *m, long hist[MESH_MAXDEG + 1]);

/* Triangles of the neighbour graph (three cells that are pairwise neighbours): vertices where
 * 3 cells meet instead of 4, as at the 8 corners of the cubed sphere. 0 on a regular patch. */
int mesh_corners(const mesh *m);

/* Cells of a quad mesh where the lattice identities fail: going one way and back does not
 * return (E(W(c)) != c where W(c) exists; likewise W(E c), N(S c), S(N c)), or the diagonal
 * neighbour depends on the order (S(W(c)) != W(S(c)) where W(c) and S(c) exist; likewise SE,
 * NW, NE). That is where W/E/S/N labels turn (cubed-sphere seams, `rotated`, unstructured quads)
 * or where vertices are not of valence 4. Returns the count; *first = the first such cell or
 * -1, and why (n bytes) names the identity that fails there. */
int mesh_lattice_breaks(const mesh *m, int *first, char *why, size_t n);
/* Whether those identities fail at cell c (1, the first failing one named in why when why is not
 * NULL) or all hold (0). */
int mesh_lattice_breaks_at(const mesh *m, int c, char *why, size_t n);

/* Vertices of a quad mesh, found by walking around each corner of each cell (corner j between
 * edges E, N, W, S counter-clockwise, the convention of pillar's generators and the Gmsh
 * import): *interior counts the vertices all of whose cells are present (the walk closes),
 * *irregular those of them where not 4 cells meet (3 at the cube corners of the cubed sphere),
 * *open the vertices on the boundary (counted once per boundary run of cells around it) and
 * *unresolved the corners whose walk neither closes nor reaches the boundary (cells whose labels
 * run clockwise next to ones that run counter-clockwise). */
void mesh_vertex_valence(const mesh *m, long *interior, long *irregular, long *open,
                         long *unresolved);

/* Marks halo[c] = 1 for the cells that lack a relation a stencil of this radius reads: on a quad
 * mesh the 4 direct ones (radius 1) or all NREL2 up to depth 2 (radius 2, grid.h: every cell
 * within distance 1 complete);
 * on a general mesh see mesh_graph_halo. Returns the number of halo cells. */
int mesh_halo(const mesh *m, int radius, unsigned char *halo);

/* The halo of a graph stencil (graphlap) on either kind: a cell is a halo cell when a cell within
 * distance radius-1 of it (itself included) is not complete, i.e. when an edge within the reach
 * of the stencil has no cell across it. A closed mesh has none. Returns the count. */
int mesh_graph_halo(const mesh *m, int radius, unsigned char *halo);

/* The unstructured grid of the mesh with nz levels: cells in the given order (a permutation of
 * the mesh's cells, NULL = the file's order), halo cells first, both groups keeping that order.
 * For a regular patch cx/cy/cell_at are filled (nx, ny, halo = radius), else they are NULL; nbr
 * is filled for a quad mesh, NULL for a general one; adj, the neighbour lists, for both. */
void ugrid_from_mesh(ugrid *g, const mesh *m, int radius, int nz, const int *order);
/* The same with the halo cells given (halo[c] = 1), e.g. from mesh_graph_halo. */
void ugrid_from_mesh_halo(ugrid *g, const mesh *m, const unsigned char *halo, int radius, int nz,
                          const int *order);
/* Records on g (part_start) the runs of its inner cells that lie in one part, part[c] being the
 * part of the mesh's cell c: the METIS parts of a grid built in the order of mesh_locality_order,
 * which keeps each part's cells together. */
void ugrid_mark_parts(ugrid *g, const int *part);

/* ---- generators (grids/mesh_gen.c, cubed_sphere.c, polygons.c, refined.c); each returns 0 or
 * -1 + message ---- */
typedef enum {
    MESH_REGULAR,
    MESH_CUBED_SPHERE,
    MESH_SHUFFLED,
    MESH_ROTATED,
    MESH_TRIANGLES, /* general meshes (grids/polygons.c) */
    MESH_HEXAGONS,
    MESH_REFINED,   /* a patch with a square refined 2x2: hanging nodes (grids/refined.c) */
    MESH_KIND_COUNT
} mesh_kind;
extern const char *const mesh_kind_name[MESH_KIND_COUNT];

typedef struct {
    mesh_kind kind;
    int nx, ny; /* regular, shuffled, rotated, refined; triangles (squares, 2 triangles each),
                 * hexagons */
    int n;      /* cubed-sphere panel edge */
    int nlevels;
    int window; /* shuffled: cells permuted within windows of this many; rotated: square edge */
    uint64_t seed;
    int periodic; /* triangles, hexagons: wrap around in x and y (a torus: no boundary) */
    int refine;   /* refined: edge of the centred square split 2x2; 0 = a third of the patch */
} mesh_gen_spec;

int mesh_generate(mesh *m, const mesh_gen_spec *s);
int mesh_gen_cubed_sphere(mesh *m, int n, int nlevels);
int mesh_gen_polygons(mesh *m, const mesh_gen_spec *s);
int mesh_gen_refined(mesh *m, const mesh_gen_spec *s);

/* ---- METIS (grids/metis_order.c) ---- */
/* A k-way partition of the cells; returns 0 or -1 with a message. */
int mesh_partition(const mesh *m, int nparts, int *part);
/* A k-way partition of the inner cells of grid g (any grid: emulated or from a mesh) through
 * their W/E/S/N neighbours, or with graph set their neighbour lists (g->adj): part gets nxy
 * entries, -1 for the halo cells [0, nhalo), a part 0..nparts-1 for the others. Returns 0, or -1
 * with a message (nparts not within 1 .. the inner cells; no neighbours to follow). */
int ugrid_partition(const ugrid *g, int graph, int nparts, int *part);
/* A locality order of the cells from a partition: parts chained so that consecutive parts are
 * neighbours where possible, cells of a part in breadth-first order. order gets ncells entries. */
void mesh_order_from_parts(const mesh *m, const int *part, int nparts, int *order);
/* `--layout metis`: the order from the mesh's stored partition, or else from a new one with parts
 * of about w cells; the partition used goes to part (ncells entries) unless it is NULL. Returns
 * the number of parts, or -1 with a message. */
int mesh_locality_order(const mesh *m, int w, int *order, int *part);

/* ---- cell orders of `--layout` with a mesh file (grids/mesh_order.c) ---- */
typedef enum {
    MESH_ORDER_FILE,
    MESH_ORDER_METIS,
    MESH_ORDER_ZCURVE,
    MESH_ORDER_COUNT
} mesh_order_t;
extern const char *const mesh_order_name[MESH_ORDER_COUNT];
int mesh_order_parse(const char *s, mesh_order_t *out); /* 0 on success */
/* `--layout zcurve`: the cells along a Morton curve of their coordinates (face by face for a mesh
 * on a sphere around the origin), ties by file index. Returns 0, or -1 with a message naming
 * `file` when the mesh has no coordinates or one that is not finite. */
int mesh_zcurve_order(const mesh *m, const char *file, int *order);
/* Whether the mesh has 3 coordinates per cell, all at one distance (to 1e-6) from the origin. */
int mesh_on_sphere(const mesh *m);
/* The order of `--layout o`: *order = NULL for the file's order, else a new array of ncells
 * entries (xfree); *parts = the METIS parts, 0 for the other orders, and unless part is NULL
 * *part = each cell's METIS part (a new array; NULL for the other orders). `w`: cells per METIS
 * part when the file stores no partition. Returns 0, or -1 with a message. */
int mesh_order_make(const mesh *m, mesh_order_t o, int w, const char *file, int **order,
                    int *parts, int **part);

#endif
