/* tiles_run.h — K time steps per launch on the balls of storage/tiles.h (--kernel-steps K), for
 * the stencils whose one state field is read across the horizontal neighbourhood (laplap,
 * hdiff): on the GPU each block stages its ball in shared memory, one level at a time, and runs
 * the steps there (access/tiles.cu); the CPU twin does the same block by block
 * (access/tiles_cpu.c), so that CI checks the balls and the schedule. */
#ifndef PILLAR_TILES_RUN_H
#define PILLAR_TILES_RUN_H

#include "../base/common.h"
#include "../stencils/stencil.h"
#include "../storage/tiles.h"

/* Whether stencil s has a K-step kernel (stencils/registry.h: ksteps; 2: a graph stencil's, on
 * balls built through the neighbour lists, tiles_build_lists). */
static inline int tiles_supported(stencil_t s) { return stencil_table[s].ksteps != 0; }

/* The input a K-step launch reads besides the state (input 0) in field set f: input 1 (hdiff's
 * coeff) where the stencil has one, else NULL. */
static inline const void *tiles_fixed_input(stencil_t s, fieldset f)
{
    return stencil_table[s].nin > 1 ? f.p[1] : NULL;
}

/* One launch: k <= t->K steps. Reads the state from src (and, for hdiff, coeff) at levels
 * [0, nlev) (zs elements apart), and writes the state advanced by k steps at the cells >= valid
 * (of blocks holding such cells) into dst; nothing else of dst is written. */
typedef struct {
    stencil_t stencil;
    precision_t prec;
    int k, valid, nlev;
    long zs;
    const void *src, *coeff;
    void *dst;
} tiles_step_args;

void tiles_steps_cpu(const tiles *t, const tiles_step_args *a);

/* The device copies of a tiles' arrays. */
typedef struct {
    const int32_t *start, *layer, *cell;
    const uint16_t *nb;
} tiles_view;

/* Whether launches on t compute laplap's steps in two passes over the ball (tile_step.h:
 * TILE_LAP at every entry within layer radius·(k-i)+1, then TILE_LAPLAP_FROM_LAP within layer
 * radius·(k-i), in place), which needs lattice-like balls; otherwise each step is one pass of
 * TILE_UPDATE from one array into the other. */
static inline int tiles_two_pass(const tiles *t, stencil_t s)
{
    return s == ST_LAPLAP && t->lattice;
}

/* Shared memory a block needs for balls of up to maxball cells with rows of `width` slots
 * (tiles.width): the rows (rounded up to 16 bytes: tiles_rows_bytes), then per entry its cell
 * and two values: the state before and after a step, or (two passes) the state and its
 * Laplacian. */
PILLAR_HD size_t tiles_rows_bytes(int maxball, int width)
{
    return ((size_t)maxball * (size_t)width * sizeof(uint16_t) + 15) / 16 * 16;
}
static inline size_t tiles_smem(int maxball, int width, precision_t p)
{
    return tiles_rows_bytes(maxball, width) + (size_t)maxball * (sizeof(int32_t) + 2 * prec_size(p));
}

/* The launch on the GPU, on a stream (NULL: the default one), `zslice` levels per block
 * (0: chosen). t gives the shape (its host arrays are not read). Returns a cudaError_t. */
#ifdef __cplusplus
extern "C"
#endif
int tiles_steps_gpu(const tiles *t, tiles_view v, const tiles_step_args *a, int zslice, void *stream);

#endif
