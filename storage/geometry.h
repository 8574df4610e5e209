/* geometry.h — the coefficient fields of flux-form stencils on a general mesh (stencils/
 * fluxdiff.h, docs/stencils.md "fluxdiff"), from the cells' centre coordinates:
 *
 *   d(c, j) = |x(n_j) − x(c)|                 distance of the centres across edge j of c
 *   t(c)    = tan(π / sides(c))
 *   κ(c, j) = (t(c) + t(n_j)) / 2             ℓ/d of the edge: exact for regular polygons
 *                                             (ℓ = d·tan(π/k)), symmetric by construction
 *   A(c)    = Σ_j d(c, j)² · t(c) / 4         the cell's area: triangles from the centre to
 *                                             each edge, exact for regular polygons
 *   Δt      = ½ · min over complete cells of A(c) / Σ_j κ(c, j)
 *   r(c)    = Δt / A(c)
 *
 * so that r(c)·Σ_j κ(c, j) <= ½: each output is a convex combination of its inputs. Computed in
 * double, stored in the field precision; per cell of a grid (plane cells), or in the mesh file's
 * cell order (the lattice twin). Cells with a missing edge get r = 0 (never computed). */
#ifndef PILLAR_GEOMETRY_H
#define PILLAR_GEOMETRY_H

#include "../grids/mesh.h"
#include "field.h"

typedef struct {
    int n, width;  /* cells; edge columns (the grid's list width) */
    void *r;       /* r[c] */
    void *k;       /* k[j*n + c]: κ of c's j-th present neighbour */
    double dt;
} geometry;

/* Coefficients of grid g's cells (g->adj, g->mesh_cell) from mesh m's coordinates; file_order:
 * index them by the file's cell instead of the grid's. Returns 0, or -1 with a message naming
 * the file when m has no coordinates or two neighbours share a centre. */
int geometry_build(geometry *geo, const ugrid *g, const mesh *m, precision_t p, int file_order,
                   const char *file);
void geometry_free(geometry *geo);

/* Bytes of one cell's coefficients in precision p with lists `width` wide: r and a κ a column
 * (what device images, chunk budgets and the distributed model count). */
static inline size_t geometry_cell_bytes(precision_t p, int width)
{
    return prec_size(p) * (size_t)(1 + width);
}

#endif
