/* mesh_grid.h — what the CPU tests of general-mesh storage share: the grid of a generated mesh
 * in one of its cell orders, with the halo of a radius-2 graph stencil. */
#ifndef PILLAR_TEST_MESH_GRID_H
#define PILLAR_TEST_MESH_GRID_H

#include "check.h"
#include "base/common.h"
#include "grids/mesh.h"

/* g: mesh m's cells in order o (mesh_order_t), halo of radius 2, m's levels. Returns 0, or -1
 * (a failed check) when the order cannot be made. */
static int mesh_grid_in_order(const mesh *m, int o, ugrid *g)
{
    int *order, parts;
    if (mesh_order_make(m, (mesh_order_t)o, 16, "mesh", &order, &parts, NULL) != 0) {
        CHECK(0, "order %d", o);
        return -1;
    }
    unsigned char *halo = xalloc((size_t)m->ncells);
    mesh_graph_halo(m, 2, halo);
    ugrid_from_mesh_halo(g, m, halo, 2, m->nlevels, order);
    xfree(halo);
    xfree(order);
    return 0;
}

#endif
