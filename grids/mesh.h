/* mesh.h — a quad mesh as a user brings it (docs/mesh-format.md): per cell its W/E/S/N
 * neighbours or -1, optional coordinates, optional position in a regular patch, optional
 * partition. Checking it, the halo a stencil of radius 1 or 2 needs, and the unstructured grid
 * built from it (halo cells first, inner cells after). */
#ifndef PILLAR_MESH_H
#define PILLAR_MESH_H

#include "grid.h"

#include <stddef.h>

#define MESH_FORMAT_VERSION 1

typedef struct {
    int ncells;
    int nlevels;    /* vertical levels of the fields placed on it */
    int *nbr;       /* nbr[4*c + r], r = W, E, S, N: a cell index or -1 (the file's layout) */
    int ncoord;     /* 0 (no coordinates), 2 or 3 */
    double *coord;  /* coord[ncoord*c + k] or NULL */
    int nx, ny;     /* a regular patch: its extent, else 0 */
    int *xy;        /* xy[2c], xy[2c+1]: the cell's (x, y) in the patch, or NULL */
    int nparts;     /* 0 when there is no partition */
    int *part;      /* part[c] in 0..nparts-1, or NULL */
    char kind[128]; /* what made the mesh (informative) */
} mesh;

void mesh_free(mesh *m);

/* Checks indices, symmetry (if W(c) = d then c is one of d's 4 neighbours), the patch positions
 * and the partition. Returns 0, or -1 with a message naming the dataset and the first bad cell
 * written into err. */
int mesh_check(const mesh *m, char *err, size_t n);

/* Neighbours of each cell: hist[k] counts the cells with k of 4 relations present. */
void mesh_histogram(const mesh *m, long hist[5]);

/* Triangles of the neighbour graph (three cells that are pairwise neighbours): vertices where
 * 3 cells meet instead of 4, as at the 8 corners of the cubed sphere. 0 on a regular patch. */
int mesh_corners(const mesh *m);

/* Marks halo[c] = 1 for the cells that lack a relation a stencil of this radius reads: the 4
 * direct ones (radius 1) or all 12 up to depth 2 (radius 2, compositions as in grid.h).
 * Returns the number of halo cells. */
int mesh_halo(const mesh *m, int radius, unsigned char *halo);

/* The unstructured grid of the mesh with nz levels: cells in the given order (a permutation of
 * the mesh's cells, NULL = the file's order), halo cells first, both groups keeping that order.
 * For a regular patch cx/cy/cell_at are filled (nx, ny, halo = radius), else they are NULL. */
void ugrid_from_mesh(ugrid *g, const mesh *m, int radius, int nz, const int *order);

/* ---- generators (grids/mesh_gen.c, grids/cubed_sphere.c); each returns 0 or -1 + message ---- */
typedef enum {
    MESH_REGULAR,
    MESH_CUBED_SPHERE,
    MESH_SHUFFLED,
    MESH_ROTATED,
    MESH_KIND_COUNT
} mesh_kind;
extern const char *const mesh_kind_name[MESH_KIND_COUNT];

typedef struct {
    mesh_kind kind;
    int nx, ny; /* regular, shuffled, rotated */
    int n;      /* cubed-sphere panel edge */
    int nlevels;
    int window; /* shuffled: cells permuted within windows of this many; rotated: square edge */
    uint64_t seed;
} mesh_gen_spec;

int mesh_generate(mesh *m, const mesh_gen_spec *s);
int mesh_gen_cubed_sphere(mesh *m, int n, int nlevels);

/* ---- METIS (grids/metis_order.c) ---- */
/* A k-way partition of the cells; returns 0 or -1 with a message. */
int mesh_partition(const mesh *m, int nparts, int *part);
/* A locality order of the cells from a partition: parts chained so that consecutive parts are
 * neighbours where possible, cells of a part in breadth-first order. order gets ncells entries. */
void mesh_order_from_parts(const mesh *m, const int *part, int nparts, int *order);
/* `--layout metis`: the order from the mesh's stored partition, or else from a new one with parts
 * of about w cells. Returns the number of parts, or -1 with a message. */
int mesh_locality_order(const mesh *m, int w, int *order);

#endif
