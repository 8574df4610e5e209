/* plan_defaults.c — the built-in plan (plan_defaults.h).
 *
 * The measurements (H100, double, one application, medians of 20; ms; the tuned best from
 * bench/results/2026-11-27-h100-tune-table/tune-table.md):
 *
 *   grid x 64 levels              stencil    idxvar (old default)  chosen default   tuned best
 *   lattice 512x512, z-curve      laplap     0.200                 0.160            0.157
 *                                 hdiff      0.214                 0.218            0.1905
 *                                 fastwaves  0.677                 0.563            0.564
 *   cubed sphere 6x384², file     laplap     0.725                 0.527            0.514 (sweep)
 *                                 hdiff      0.818                 0.710            0.702 (sweep)
 *   1M hexagons, z-curve          graphlap   4.711 (file order)    0.858            0.852
 *                                 fluxdiff   1.638 (file order)    0.707            0.663 (sweep)
 *   1M triangles, z-curve         graphlap   2.456 (file order)    0.600            0.597
 *                                 fluxdiff   1.284 (file order)    0.526            0.518 (sweep)
 *   MPAS 92 cells x 8192, z-curve graphlap   0.042                 0.013 (128, 16)  0.012
 *
 * The worst is hdiff on the lattice, 1.14x; every other kind within 1.07x. */
#include "plan_defaults.h"

#include "grids/mesh.h"

#include <string.h>

void plan_config_builtin(const plan_problem *pr, int s, int has_coords, long ncells,
                         plan_config *c)
{
    plan_config_default(pr, c);
    if (s < 0 || s >= stencil_count())
        return;
    int small = ncells > 0 && ncells < PLAN_SMALL_GRID_CELLS;
    if (stencil_table[s].graph) {
        if (!access_supports(ACC_GRAPH_TWOPASS, (stencil_t)s))
            return;
        c->access = ACC_GRAPH_TWOPASS;
        c->bx = small ? 128 : 256;
        c->by = c->bz = 1;
        c->zslice = small ? 16 : 32;
        if (has_coords && !plan_emulated(pr))
            c->order = MESH_ORDER_ZCURVE;
    } else {
        if (!access_supports(ACC_ZLOOP_SLICED, (stencil_t)s))
            return;
        c->access = ACC_ZLOOP_SLICED;
        c->bx = 256;
        c->by = c->bz = 1;
        c->zslice = 16;
    }
    if (c->zslice > pr->levels && pr->levels > 0)
        c->zslice = pr->levels;
}
