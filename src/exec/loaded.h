/* loaded.h — how the executors reach a stencil loaded at run time (a user stencil file compiled
 * by src/jit/, docs/own-stencil.md): its slot of stencils/stencil.h holds what it reads and
 * writes; this table holds its compiled code. The CPU executor (cpu_exec.c), the fold of iterated
 * runs (iterate.c) and the GPU runner (gpu_runner.c, and through it the out-of-core runner) look
 * here for every stencil id at or past ST_COUNT; built-in stencils never come here. */
#ifndef PILLAR_LOADED_H
#define PILLAR_LOADED_H

#include "access/access.h"
#include "cpu_exec.h"

/* The composed CPU loops of the generated shared object: the same loops as cpu_exec.c's
 * (cpu_loops.h) around the stencil's body. [precision], uns [precision][chasing*2+compressed]. */
typedef void (*loaded_reg_fn)(const rgrid *g, fieldset f);
typedef void (*loaded_uns_fn)(nbview nbv, cpu_block b, fieldset f);
typedef void (*loaded_graph_fn)(ellview ev, cpu_block b, fieldset f);
typedef void (*loaded_gtable_fn)(const gtable *t, cpu_block b, fieldset f);
typedef void (*loaded_lattice_fn)(lattice L, int radius, int nz, long zs, const coef_set *G,
                                  fieldset f);

typedef struct {
    loaded_reg_fn reg[2];     /* W/E/S/N stencils: the regular twin */
    loaded_uns_fn uns[2][4];  /* W/E/S/N stencils: unstructured, each storage */
    loaded_graph_fn graph[2]; /* graph stencils: the neighbour lists (the reference) */
    /* graph stencils: the offset tables [precision][chasing*2+compressed] (NULL in the checked
     * mode, which checks on the lists: cpu_run_gtable runs those) and the lattice twin */
    loaded_gtable_fn gtable[2][4];
    loaded_lattice_fn lattice[2];
    /* GPU (NULL without NVRTC): the kernel of strategy a, precision p, kernel-table column
     * `column` (access/access.h: STORAGE_*), compiled on first use; NULL with a message when
     * it cannot be had. The handle is the driver's function, launched by launch(). */
    const void *(*gpu_kernel)(stencil_t s, access_t a, precision_t p, int column);
    /* Launches kernel fn (from gpu_kernel) with one argument block `arg` of `argbytes` bytes;
     * returns 0 or -1 with a message. */
    int (*gpu_launch)(const void *fn, const unsigned grid[3], const unsigned block[3],
                      size_t smem, void *stream, void *arg);
    /* Copies `bytes` of constant-memory rows into strategy a's module (--constant-tables);
     * 0 or -1 with a message. */
    int (*gpu_upload)(stencil_t s, access_t a, const void *rows, size_t bytes);
} loaded_code;

/* Registers the code of loaded stencil s (copied). */
void loaded_set(stencil_t s, const loaded_code *c);
/* The code of loaded stencil s, NULL for a built-in one or an id without code. */
const loaded_code *loaded_get(stencil_t s);

#endif
