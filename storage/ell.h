/* ell.h — the neighbour table of the graph stencils (graphlap), ELL style: every cell of an
 * unstructured grid built from a mesh lists the grid cells across its edges, padded to the
 * mesh's most edges per cell. Absolute plane-cell indices (not offsets): a level's value of
 * neighbour q of cell p at level k is field[q + k*zstride].
 *
 *   deg[p]          neighbours of grid cell p present
 *   nb[j*nxy + p]   grid cell of p's j-th neighbour (j < deg[p]), -1 past deg[p]
 *
 * Column-major (struct of arrays) like the W/E/S/N tables, so that threads of consecutive cells
 * read consecutive entries. Neighbours keep the order of the mesh's row (W, E, S, N for a quad
 * mesh), missing ones (boundary edges) left out. */
#ifndef PILLAR_ELL_H
#define PILLAR_ELL_H

#include "../grids/mesh.h"

typedef struct {
    int nxy;      /* cells per level */
    int maxdeg;   /* columns */
    int32_t *deg; /* deg[nxy] */
    int32_t *nb;  /* nb[maxdeg * nxy] */
} ell_table;

/* The table of grid g, built from its neighbour lists g->adj (a grid from a mesh file, or a
 * chunk's local grid: src/plan/ooc_plan.h). */
void ell_build(ell_table *t, const ugrid *g);
void ell_free(ell_table *t);

/* Device bytes of the table: degrees and columns. */
static inline size_t ell_bytes(const ell_table *t)
{
    return sizeof(int32_t) * (size_t)t->nxy * (size_t)(1 + t->maxdeg);
}

/* What executors read. */
typedef struct {
    const int32_t *deg;
    const int32_t *nb;
    int stride; /* nxy */
} ellview;

static inline ellview ell_view(const ell_table *t)
{
    ellview v = {t->deg, t->nb, t->nxy};
    return v;
}

#endif
