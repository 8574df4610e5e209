/* onchip_chart.h — an unstructured quad grid whose inner cells form one flat chart, seen as a
 * regular grid (issue 35: the on-chip walk, access/onchip_walk.cu, on such a grid).
 *
 * A chart gives every inner cell and every cell its relations reach integer coordinates (x, y)
 * through the cell's own W, E, S and N labels: W(c) at (x - 1, y), E(c) at (x + 1, y), S(c) at
 * (x, y - 1), N(c) at (x, y + 1). The grid is one flat chart when that is consistent: the inner
 * cells are connected through W, E, S and N, every one of an inner cell's 20 relations
 * (grids/grid.h) lands where the lattice puts it (rel_dx, rel_dy), no two cells share a place,
 * and the inner cells fill a rectangle. A lattice in any cell order is one; the cubed sphere, a
 * rotated or a scrambled patch (labels that turn) and a mesh without a halo around its inner
 * cells are not. On a flat chart the grid's stencils read exactly the chart's neighbours, so a
 * kernel that walks the chart as a regular grid computes the grid's values bit for bit. */
#ifndef PILLAR_ONCHIP_CHART_H
#define PILLAR_ONCHIP_CHART_H

#include "grids/grid.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int nx, ny;     /* the chart's places: the inner rectangle and a halo of ONCHIP_CHART_HALO
                     * places on each side (the relations' reach) */
    int32_t *cells; /* cells[x + y * nx]: the grid's plane cell at place (x, y); a place no
                     * relation reaches (a corner of the halo) holds the first inner cell */
} onchip_chart;

#define ONCHIP_CHART_HALO 2

/* Builds g's chart into c. 0: g is one flat chart; 1: it is not, and why (n bytes) says where
 * (the cell and what fails); c is then empty. */
int onchip_chart_build(const ugrid *g, onchip_chart *c, char *why, size_t n);
void onchip_chart_free(onchip_chart *c);

#endif
