/* plan_defaults.h — the built-in plan: the configuration a GPU run takes where no tuned plan is
 * found (no `pillar tune` yet, a stale plan, --plan off). Chosen from H100 measurements of every
 * kind of grid of issue 32's table (bench/results/2026-11-27-h100x4-tune-table/bench: the full
 * `pillar bench` matrix of each row), so that each stays within 1.25x of its best. One
 * function, every front door: `pillar run` (src/tools/plan_run.c), the library's `auto` options
 * (src/api/pillar.c) and the baseline of `pillar tune` (src/tune/tune.c). */
#ifndef PILLAR_PLAN_DEFAULTS_H
#define PILLAR_PLAN_DEFAULTS_H

#include "plan_file.h"

/* A horizontal grid of fewer cells than this is small: one block of 256 cells or a slice of 32
 * levels leaves most of the device idle (128 SMs' worth of blocks of 128 cells). */
#define PLAN_SMALL_GRID_CELLS (128 * 128)

/* The built-in configuration of stencil s (-1: not known: the run's own defaults) on pr's grid
 * of ncells cells per level (0: not known, taken as large); has_coords: the mesh has cell
 * coordinates (the z-curve order exists):
 *   graph stencils   graph-twopass, z-curve order where the mesh has coordinates (file order
 *                    else), blocks of 256 cells and slices of the whole column up to 64 levels,
 *                    of 32 beyond (small grids: 128, 16);
 *   hdiff            idxvar, blocks of 128 cells, the second ring listed (nonchasing,
 *                    compressed);
 *   W/E/S/N stencils zloop-sliced, blocks of 256 pillars, slices of 16 levels;
 * W/E/S/N stencils in the run's default order (z-curve-w for an emulated grid, the file's for a
 * mesh); chasing, uncompressed tables but for hdiff (the graph-twopass lists replace the offset
 * table). A strategy without kernels for s (a stencil file of its own kind) keeps the run's
 * defaults. */
void plan_config_builtin(const plan_problem *pr, int s, int has_coords, long ncells,
                         plan_config *c);

#endif
