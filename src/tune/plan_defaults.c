/* plan_defaults.c — the built-in plan (plan_defaults.h).
 *
 * The measurements: the full `pillar bench` matrix of issue 32's table (H100, double, one
 * application, medians of 10; bench/results/2026-11-27-h100x4-tune-table/bench), each default
 * against the best of its row's matrix:
 *
 *   grid x levels                     stencil    before (stop 19)        stop 27
 *   lattice 512x512 x 64              laplap     1.021 (z-curve)         1.006 (z-curve-w)
 *                                     hdiff      1.142 (zloop-sliced)    1.032 (idxvar 128,
 *                                                                        nonchasing compressed)
 *                                     fastwaves  1.007                   1.007
 *   cubed sphere 6x384² x 64, file    laplap     1.030                   1.030
 *                                     hdiff      1.101 (zloop-sliced)    1.000 (idxvar 128)
 *   1M hexagons x 64, z-curve         graphlap   1.069 (256, zslice 32)  1.046 (256, zslice 64)
 *                                     fluxdiff   1.100                   1.073
 *   1M triangles x 64, z-curve        graphlap   1.034                   1.000
 *                                     fluxdiff   1.035                   1.018
 *   MPAS 40962 cells x 512, z-curve   graphlap   1.223 (256, zslice 32)  1.223 (64 would be 1.349)
 *
 * graph-twopass's slice: the whole column up to 64 levels, else 32 (the MPAS row's 512 levels
 * ran slower in slices of 64). hdiff was fastest in idxvar (nonchasing, compressed) until the
 * zloop walk gained its flat-warp copy and its L2 prefetch (issue 36, access/kernels.cuh): since
 * then every W/E/S/N stencil runs zloop-sliced by default (H200, bench/results/
 * 2026-11-28-h200-flat-prefetch: hdiff zloop-sliced 0.147 ms against idxvar's 0.1675 on the
 * lattice, 0.508 against 0.563 on the sphere); the table's hdiff rows ("stop 27") predate that.
 * Where the body reads relations a flat warp loads once (REL_FLAT: laplap, hdiff) the same walk
 * with plain loads, zloop-plain, is faster again (same data, the plan's tables: laplap 118.3
 * against 131.0 µs, hdiff 143.5 against 155.4; lap equal, fastwaves 2.4% slower). Its tables:
 * nonchasing and compressed, 128 x 1 x 1, 8 levels a thread, against chasing uncompressed 256,
 * 16 (H200, `pillar run --runs 20`, bench/results/2026-11-28-h200-plan-storage): lattice z-curve-w
 * laplap 0.114 against 0.115 ms, hdiff 0.139 both; the lattice in random order 1.311 against
 * 1.573, 1.335 against 1.611; cubed sphere 6x384² x 64 in file order 0.397 against 0.400,
 * 0.479 against 0.488.
 *
 * Since pairs reads a lattice pair's values as aligned pairs (access/pairs.cu, issue 36) it is
 * faster again where the mesh is a lattice around most warps (H200, `pillar run --runs 20`, the
 * same tables, 8 levels a thread; bench/results/2026-11-29-h200-pairs), ms:
 *
 *                                  laplap: zloop-plain 128 / pairs 256   hdiff: / pairs 128
 *   lattice 512x512 x 64 row-major       0.113 / 0.104                   0.138 / 0.133
 *                        z-curve-w       0.115 / 0.101                   0.139 / 0.132
 *                        random          1.311 / 1.374                   1.335 / 1.421
 *   cubed sphere 6x384² x 64, file       0.399 / 0.382                   0.477 / 0.486
 *
 * So laplap runs pairs (256 threads), hdiff pairs (128) on lattices the plan orders itself and
 * zloop-plain on meshes. */
#include "plan_defaults.h"

#include "grids/mesh.h"


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
        c->zslice = small ? 16 : pr->levels > 0 && pr->levels <= 64 ? 64 : 32;
        if (has_coords && !plan_emulated(pr))
            c->order = MESH_ORDER_ZCURVE;
    } else {
        /* plain loads where the body reads the relations a flat warp loads once (REL_FLAT) */
        int flat = (stencil_table[s].rels & REL_FLAT) != 0;
        /* pairs where its lattice pairs won (above): laplap, and hdiff on emulated lattices */
        int pairs = flat && (s == ST_LAPLAP || (s == ST_HDIFF && plan_emulated(pr)));
        access_t a = pairs ? ACC_PAIRS : flat ? ACC_ZLOOP_PLAIN : ACC_ZLOOP_SLICED;
        if (!access_supports(a, (stencil_t)s))
            return;
        c->access = a;
        c->by = c->bz = 1;
        if (flat) { /* every relation's offset of its own: nonchasing, compressed */
            c->chasing = 0;
            c->compressed = 1;
            c->bx = s == ST_LAPLAP ? 256 : 128;
            c->zslice = 8;
        } else {
            c->bx = 256;
            c->zslice = 16;
        }
    }
    if (plan_emulated(pr))
        c->order = LAYOUT_ZCURVE_W;
    if (c->zslice > pr->levels && pr->levels > 0)
        c->zslice = pr->levels;
}
