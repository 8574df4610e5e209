/* regular_runs.h — iterated laplap, hdiff and lap on the regular twin of a grid (grids/grid.h's
 * rgrid: cells by arithmetic, no neighbour table), the two ways issue 35 compares first: the host
 * loop (one launch of a strategy's regular kernel a step) and the on-chip persistent launch
 * (access/onchip_regular.h). Each takes the host fields of the grid, puts them on the device,
 * runs, times the kernels with events and brings the state back; `pillar bench --iterated`
 * shows both beside the unstructured rows (src/tools/bench_iterated.c) and
 * tests/test_onchip_regular.c checks both against the CPU iteration of the grid's unstructured
 * twin. CUDA backend only. */
#ifndef PILLAR_REGULAR_RUNS_H
#define PILLAR_REGULAR_RUNS_H

#include "access/access.h"
#include "grids/grid.h"
#include "stencils/stencil.h"

typedef struct {
    int blocks, threads;  /* what ran (the host loop: blocks of its launches, threads a block) */
    int levels;           /* on chip: the cached levels; the host loop: 0 */
    int tx, ty;           /* on chip: a tile's extents */
    int prefetch;         /* on chip: values a thread loaded ahead (0: none) */
    int cols;             /* on chip: the column variant's rows a thread (0: not it) */
    int walk;             /* on chip: the walk variant's warps a strip (0: not it) */
    int strips;           /* on chip, the walk variant: strips a tile */
    size_t smem;          /* shared memory a block */
    double kernel_s;      /* the steps' kernels, timed with events */
} regular_timing;

/* What an on-chip launch of the regular twin is asked for. */
typedef struct {
    int levels;   /* cached levels; -1: as many as fit shared memory */
    int blocks;   /* tiles at most; 0: one a SM */
    int threads;  /* a block's; 0: ONCHIP_REG_THREADS */
    int prefetch; /* 1: the next level loaded while one computes (access/onchip_regular.h) */
    int cols;     /* 1: the column variant (a thread's column of cells in registers; threads:
                   * at most, the launch takes what its columns need) */
    int walk;     /* 1: laplap's walk variant (access/onchip_regular.h; threads: the launch
                   * takes what its tiles need) */
} regular_request;

/* Advances the state of f (host fields of grid rg, the stencil's inputs in its order: the state
 * `in`, then hdiff's `coeff`) by `steps` >= 1 steps of laplap, hdiff or lap in one cooperative
 * launch as r asks, at most one block a SM. Returns 0 with t filled, or -1 with a message,
 * nothing changed: another stencil, a halo narrower than the stencil's radius, a device without
 * cooperative launches, threads not a multiple of 32 up to ONCHIP_REG_THREADS, tiles or levels
 * that do not fit; the walk for another stencil than laplap, with the columns, or with more
 * strips than a block has warps. A failed CUDA call raises FAULT_DEVICE. */
int regular_onchip_run(stencil_t st, precision_t prec, const rgrid *rg, fieldset f, int steps,
                       const regular_request *r, regular_timing *t);

/* The same in three parts, for state arrays already on the device (the on-chip walk over an
 * unstructured grid's flat chart, src/plan/onchip_walk.c): regular_onchip_open checks r and
 * lays the launch out for grid rg, refusing as regular_onchip_run does (NULL after a message),
 * nothing on the device yet; regular_onchip_steps (its export buffers on the device from the
 * first call) advances the device array `state`
 * (rg's layout; `other` its twin, equal to it wherever no step writes; coeff: hdiff's, else NULL)
 * by `steps` >= 1 steps in one cooperative launch and waits: the new state is in `other` after an
 * odd number of steps, else in `state`; 0 with t filled, or -1 after a message. */
typedef struct regular_onchip regular_onchip;
regular_onchip *regular_onchip_open(stencil_t st, precision_t prec, const rgrid *rg,
                                    const regular_request *r);
int regular_onchip_steps(regular_onchip *h, void *state, void *other, const void *coeff,
                         int steps, regular_timing *t);
/* What the launch is (t's kernel_s 0), before it runs. */
void regular_onchip_shape(const regular_onchip *h, regular_timing *t);
void regular_onchip_close(regular_onchip *h);

/* The same as `steps` launches of strategy a's regular kernel, one a step, with blocks of
 * bx x by x bz threads (bx 0: the strategy's default shape); any stencil with iterated runs and
 * a regular kernel. Returns 0 with t filled, or -1 with a message, nothing changed. */
int regular_loop_run(stencil_t st, precision_t prec, const rgrid *rg, fieldset f, int steps,
                     access_t a, int bx, int by, int bz, regular_timing *t);

#endif
