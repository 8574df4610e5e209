/* grid.h — the two grid kinds pillar computes on.
 *
 * Both are regular in Z. The regular grid addresses cells by arithmetic; the unstructured grid
 * numbers the cells of a level 0..nxy-1, halo cells first, and keeps each cell's W/E/S/N
 * neighbours explicitly. An unstructured grid "emulated" from a regular one keeps the cell <-> (x,y)
 * map, so results on both can be compared value by value. */
#ifndef PILLAR_GRID_H
#define PILLAR_GRID_H

#include <stddef.h>
#include <stdint.h>

/* Horizontal relations of a cell, in table order (docs/relations.md).
 *
 * First order: W, E, S, N, the cell's own four neighbours (columns of the mesh's /neighbours).
 * Second order: R_XY = X(Y(c)), for every first hop Y in {W, E, S, N} taken in c's frame and
 * every second hop X in {W, E, S, N} taken in the frame of Y(c), i.e. column X of Y(c)'s own
 * row. So relations 4Y+4 .. 4Y+7 are the row of Y(c) in its own order, which is what a
 * Laplacian at Y(c) reads; no relation is composed in c's frame, and none is assumed to be c.
 * On a square lattice R_EW = R_WE = R_NS = R_SN = c (displacement 0) and R_SW = R_WS etc.; on a
 * mesh whose labels turn (cubed-sphere seams, `rotated`, Gmsh quads) they need not be.
 * Non-chasing storage keeps all NREL2; chasing keeps the first NREL1 and reaches R_XY by two
 * look-ups, the second in Y(c)'s row. */
enum {
    R_W, R_E, R_S, R_N,
    R_WW, R_EW, R_SW, R_NW, /* row of W(c) */
    R_WE, R_EE, R_SE, R_NE, /* row of E(c) */
    R_WS, R_ES, R_SS, R_NS, /* row of S(c) */
    R_WN, R_EN, R_SN, R_NN, /* row of N(c) */
    NREL1 = 4, NREL2 = 20
};
#define REL_ALL ((1u << NREL2) - 1u) /* a mask of every relation */
/* The relations that meet another on a lattice (EW, WE, SN, NS: the cell; WS = SW, ES = SE,
 * WN = NW, EN = NE): a body that reads them has the GPU kernels' flat-warp copy
 * (access/kernels.cuh), which loads each of them once where a warp's cells are all flat. */
#define REL_FLAT ((1u << R_EW) | (1u << R_WE) | (1u << R_SN) | (1u << R_NS) | (1u << R_WS) |        \
                  (1u << R_ES) | (1u << R_WN) | (1u << R_EN))
extern const char *const rel_name[NREL2];
/* Displacement of each relation on the regular grid (the lattice): R_EW is (0, 0). */
#define REL_DX_INIT {-1, 1, 0, 0, -2, 0, -1, -1, 0, 2, 1, 1, -1, 1, 0, 0, -1, 1, 0, 0}
#define REL_DY_INIT {0, 0, -1, 1, 0, 0, -1, 1, 0, 0, -1, 1, -1, -1, -2, 0, 1, 1, 0, 2}
extern const int rel_dx[NREL2], rel_dy[NREL2];

/* First hop of a second-order relation r (in c's frame) and its second hop (in the first hop's
 * cell's own frame): R_SW -> R_W, then R_S. Compile-time foldable, usable on the GPU. */
#ifdef __CUDACC__
#define REL_HD __host__ __device__ __forceinline__
#else
#define REL_HD static inline
#endif
REL_HD int rel_hop1(int r) { return (r >> 2) - 1; }
REL_HD int rel_hop2(int r) { return r & 3; }

/* Whether a cell's relation offsets o[R_W .. R_NN] (0: the cell itself, as the neighbour tables
 * hold them) meet as on a lattice: each relation of REL_FLAT equals its partner. The kernels'
 * flat-warp test (access/kernels.cuh); on a mesh without missing neighbours it holds exactly at
 * the cells where mesh_lattice_breaks finds no broken identity (tests/test_quad.c). */
REL_HD int rel_offsets_flat(const int32_t *o)
{
    return o[R_EW] == 0 && o[R_WE] == 0 && o[R_SN] == 0 && o[R_NS] == 0 && o[R_WS] == o[R_SW] &&
           o[R_ES] == o[R_SE] && o[R_WN] == o[R_NW] && o[R_EN] == o[R_NE];
}

/* ---- regular grid ---- */
typedef struct {
    int nx, ny, nz; /* full extent, halo included */
    int halo;       /* cells on each horizontal side where no output is computed */
    int a;          /* x padding: the first inner cell of every row is 32-byte aligned */
    int ystride;    /* nx + b */
    long zstride;   /* ystride * ny + c */
    size_t len;     /* elements of one field */
} rgrid;

/* Paddings are chosen for elements of `elem` bytes. */
rgrid rgrid_make(int nx, int ny, int nz, int halo, size_t elem);

static inline long rgrid_index(const rgrid *g, int x, int y, int z)
{
    return (long)(x + g->a) + (long)y * g->ystride + (long)z * g->zstride;
}

/* ---- unstructured grid ---- */
typedef enum { LAYOUT_ROWMAJOR, LAYOUT_ZCURVE, LAYOUT_ZCURVE_W, LAYOUT_RANDOM, LAYOUT_COUNT } layout_t;
extern const char *const layout_name[LAYOUT_COUNT];
int layout_parse(const char *s, layout_t *out); /* 0 on success */

typedef struct ugrid {
    int nx, ny, nz, halo; /* the regular grid this one emulates */
    layout_t layout;
    int w;                /* zcurve-w run width */
    uint64_t seed;        /* random layout */
    int nxy;              /* cells per level */
    int nhalo;            /* halo cells: 0..nhalo-1; inner cells nhalo..nxy-1 */
    long zstride;         /* elements between levels (nxy rounded up) */
    size_t len;           /* elements of one field */
    int *cx, *cy;         /* cell -> (x, y) */
    int *cell_at;         /* y*nx + x -> cell */
    int *nbr;             /* nbr[r*nxy + c]: cell of relation r (W,E,S,N) of c, or -1 */
    int adjw;             /* columns of adj */
    int *adj;             /* grids from a mesh file: adj[j*nxy + c], the j-th neighbour of c
                           * present (the mesh row's order, missing ones left out), -1 past
                           * c's degree: the neighbour lists of the graph stencils; else NULL */
    int *mesh_cell;       /* grids from a mesh file: cell -> the file's cell index; else NULL.
                           * cx, cy, cell_at are NULL for a mesh that is not a regular patch. */
    int nparts;           /* a mesh in METIS order (--layout metis): runs of inner cells of one
                           * part, else 0 */
    int *part_start;      /* nparts + 1 entries: run j is [part_start[j], part_start[j+1]),
                           * from nhalo to nxy; NULL when nparts = 0 */
} ugrid;

/* Grids from a mesh file (adj): neighbour j of plane cell c (-1 past its degree), its degree. */
static inline int ugrid_nb(const ugrid *g, int c, int j) { return g->adj[(size_t)j * g->nxy + c]; }
static inline int ugrid_deg(const ugrid *g, int c)
{
    int d = 0;
    while (d < g->adjw && ugrid_nb(g, c, d) >= 0)
        d++;
    return d;
}

/* Builds the unstructured twin of an nx x ny x nz regular grid with the given halo width.
 * Returns 0, or -1 with a message if the layout parameters are invalid. */
int ugrid_emulate(ugrid *g, int nx, int ny, int nz, int halo, layout_t layout, int w, uint64_t seed);
void ugrid_free(ugrid *g);

/* Copies the values of elements of es bytes at every cell and level of field u (g's layout) to
 * their cells of field r (rg's layout: the regular grid g emulates, its cx, cy set), or (to_reg
 * 0) the other way. */
void ugrid_regular_copy(const ugrid *g, const rgrid *rg, size_t es, void *u, void *r, int to_reg);

/* Cell reached from c by relation r (any of the NREL2; a second-order one as column rel_hop2(r)
 * of the row of its first hop); -1 if none. */
int ugrid_follow(const ugrid *g, int c, int r);

#endif
