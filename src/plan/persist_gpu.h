/* persist_gpu.h — in-core iterated runs as one persistent launch (docs/persistent.md): the
 * fields and the neighbour table go to the device once, one cooperative launch of a persistent
 * kernel (access/persistent.cu) runs every step with a grid barrier between two, and the state
 * comes back. Out of core, the same kernel runs each chunk's steps in one launch
 * (persist_chunk_*, called by src/plan/ooc_gpu.c; src/plan/persist_ooc.h). CUDA backend only. */
#ifndef PILLAR_PERSIST_GPU_H
#define PILLAR_PERSIST_GPU_H

#include "persist_model.h"
#include "persist_ooc.h"
#include "src/exec/problem.h"

typedef struct {
    int threads;     /* per block; 0: PERSIST_THREADS */
    int blocks;      /* 0: the model's choice among resident shapes (persist_model_plan); else
                      * exactly these */
    int levels;      /* cached levels: PERSIST_LEVELS_MODEL (0), PERSIST_LEVELS_NONE, or N */
    double dram_bps; /* the device's memory rate for the model (bytes read + written per
                      * second, e.g. gpu_copy_bandwidth); 0: the peak its attributes give */
    int lists;       /* graph stencils: where the cells' neighbour lists are read
                      * (PERSIST_LISTS_AUTO: shared memory where they fit, else the table;
                      * PERSIST_LISTS_SHARED or _TABLE: exactly there, or refused) */
} persist_request;

typedef struct {
    persist_shape shape;
    persist_cache cache; /* the model's plan: cached levels, prediction (shape = cache.shape) */
    int sms;          /* SMs of the device */
    double kernel_s;  /* the launch, timed with events */
    double total_s;   /* fields and table in, the launch, the state back */
} persist_timing;

/* The plan of a persistent run of pb on the current device without running it: the shape, the
 * cached levels and the model's prediction (persist_model_plan) into c; a graph stencil's (no
 * level cached) also where its lists are read (persist_graph_lists: c->graph_lists). Returns 0,
 * or -1 with a message (a stencil without persistent kernels, a device without cooperative
 * launches, a shape or cached levels the device cannot hold, cached levels asked of a graph
 * stencil, its lists asked in shared memory where they do not fit). */
int persist_gpu_plan(const problem *pb, const persist_request *r, persist_cache *c);

/* Advances the state of f (host fields of pb's unstructured grid, inputs first; the output
 * fields are not used) by `steps` >= 1 steps of pb's stencil in one cooperative launch, on the
 * current device, planned by persist_gpu_plan (the W/E/S/N stencils on pb's offset table, the
 * graph stencils on its ELL table, as the host loop). Returns 0 with t filled, or -1 with a message,
 * nothing changed: persist_gpu_plan's refusals, steps < 1. A failed CUDA call raises
 * FAULT_DEVICE. */
int persist_gpu_run(const problem *pb, fieldset f, int steps, const persist_request *r,
                    persist_timing *t);

/* ---- out of core: a chunk's steps in one launch (src/plan/persist_ooc.h) ---- */

/* The kernel of a plan's chunks and the device it runs on. */
typedef struct {
    const void *fn;
    int threads;      /* per block */
    persist_device d; /* SMs, warps, shared memory (clock and DRAM rate unused) */
} persist_chunk_kernel;

/* The persistent kernel of plan pl's stencil, precision and table storage with blocks of
 * `threads` threads (0: PERSIST_THREADS), on the current device, and every part's launch shape
 * into shape[0 .. nparts) (persist_ooc_shapes; *most: the most cells of a launch). Returns 0, or
 * -1 with a message: persist_ooc_check's refusals, a device without cooperative launches, a
 * part too large (persist_ooc_shapes). */
int persist_chunk_prepare(persist_chunk_kernel *k, const ooc_plan *pl, int threads,
                          persist_shape *shape, long *most);

/* Launches `steps` (1..F) steps of part pt's chunk at slab sl on `stream` as one cooperative
 * launch of shape s: the device fields d (levels pt->zstride apart, level 0 = global level
 * sl->lz0; the state fields hold the chunk's inputs, the output fields the grid's halo cells and
 * fixed levels wherever steps > 1), the part's table at tab (then its patterns when compressed)
 * and its first[] (F + 1 entries, on the device) at first. Each step writes the new state, fold
 * fused, into the other of the state and output fields, so after an odd number of steps the
 * result is in the output fields. A launch the device refuses raises FAULT_DEVICE. */
void persist_chunk_launch(const persist_chunk_kernel *k, const persist_shape *s, const ooc_plan *pl,
                          const ooc_part *pt, const ooc_slab *sl, const int32_t *tab,
                          const int32_t *first, fieldset d, int steps, void *stream);

#endif
