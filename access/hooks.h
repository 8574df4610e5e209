/* hooks.h — what a strategy does on the host, behind one row of hooks per strategy (the
 * `shape_ok`, `smem` and `prep` of its line in access.h, docs/access.md "hooks"). The runners
 * (src/exec/gpu_runner.c, src/plan/ooc_gpu.c, the part images of src/plan, src/engine, src/dist)
 * call these and never name a strategy:
 *   shape_ok   whether a block shape suits the strategy (after the common thread-count rule)
 *   smem       the dynamic shared memory of a launch
 *   prep       the strategy's own per-block lists: built on the host from the cells a launch
 *              computes (prepare), written as one image of 32-bit words (words, pack) that goes
 *              to the device in place of the neighbour table, and bound into a launch's kparams
 *              (bind). A strategy that reads the plain neighbour table has access_prep_NONE.
 * The hooks of a strategy live beside its kernels: access/staging_host.c (staged, twopass),
 * access/graph_twopass_host.c (graph-twopass), access/access.c (the rules several share). */
#ifndef PILLAR_HOOKS_H
#define PILLAR_HOOKS_H

#include "launch.h"

#include "../grids/grid.h"
#include "../grids/lattice.h"

#include <stddef.h>
#include <stdint.h>

/* Whether blocks of bx x by x bz threads suit strategy d on the unstructured (uns) or regular
 * grid; 0 with the reason in why if not. The runner has checked 1 <= bx·by·bz <= PILLAR_MAX_THREADS. */
typedef int access_shape_fn(const access_desc *d, int uns, int bx, int by, int bz, char *why,
                            size_t n);

/* What a launch's shared memory depends on. */
typedef struct access_smem_in_s {
    int graph;        /* a graph stencil (its kernels: access/graph_kernels.cuh) */
    int uns;          /* on the unstructured grid (a graph stencil: its offset table) */
    int lattice_kind; /* a graph stencil on its lattice twin: grids/lattice.h kind (uns = 0) */
    precision_t prec;
    int bx, by, bz;   /* the block */
    int D;            /* a graph stencil: its list width */
    int hmax;         /* the largest per-block halo of the strategy's lists (access_prep hmax) */
} access_smem_in;
/* Dynamic shared memory in bytes of such a launch (0: none). */
typedef size_t access_smem_fn(const access_smem_in *in);

/* The cells a strategy's lists are built for: g's inner cells [g->nhalo, g->nxy) (the whole grid
 * in core; a part's computed cells out of core), for stencil s and blocks of bx threads; no block
 * may straddle one of the cells cuts[0 .. ncuts) (ascending; an iterated part launches the
 * blocks of [cut, nxy) only: src/plan/ooc_plan.h). */
typedef struct {
    const ugrid *g;
    stencil_t stencil;
    int bx;
    const int *cuts;
    int ncuts;
} access_prep_in;

/* Which stencils a strategy's lists serve. */
enum {
    PREP_FOR_ANY,    /* no lists, or lists any stencil's kernels read */
    PREP_FOR_STAGED, /* W/E/S/N stencils whose field 'in' carries the horizontal neighbourhood
                      * (stencils/registry.h: staged); graph stencils where the strategy has
                      * graph kernels */
    PREP_FOR_GRAPH   /* built-in graph stencils only */
};

typedef struct access_prep_s {
    int stencils;    /* PREP_FOR_*: what access_supports derives from the registries */
    /* Builds the lists into *data (released by release). Returns 0, or -1 with a message (a
     * block that cannot hold what it must, a stencil the lists are not for). NULL: the strategy
     * has no lists and reads the neighbour table. */
    int (*prepare)(void **data, const access_prep_in *in);
    void (*release)(void *data);
    /* 32-bit words of the lists' device image, and that image written at `at`. */
    size_t (*words)(const void *data);
    void (*pack)(const void *data, int32_t *at);
    /* Points P at the image (on the device at `image`) for a launch computing the cells
     * [c0, c1) of the grid the lists were built for: the strategy's fields of P, P->c0 and P->n
     * when it indexes from elsewhere, the kernel-table *column when the lists choose it, and
     * *blocks, the blocks of the launch (0: the runner's count from P->n). Returns 0, or -1 with
     * a message when [c0, c1) is not whole blocks of the lists. */
    int (*bind)(const void *data, const int32_t *image, int c0, int c1, kparams *P, int *column,
                unsigned *blocks);
    /* The largest per-block halo of the lists (shared memory: access_smem_in hmax). */
    int (*hmax)(const void *data);
    /* 1: the kernels read the neighbour table too (the lists lie next to it, not in its place):
     * an iterated part's image then holds its table, then the lists at a 16-byte boundary
     * (src/plan/ooc_gpu.c) */
    int beside_table;
} access_prep;

/* The strategy's lists for in, into *data; a strategy without lists leaves *data NULL. 0 or -1
 * with a message. */
int access_prepare(access_t a, const access_prep_in *in, void **data);
/* Releases lists of strategy a made by access_prepare (NULL: nothing). */
void access_release(access_t a, void *data);
/* Words of strategy a's image of data (0 without lists), and that image at `at`. */
size_t access_words(access_t a, const void *data);
void access_pack(access_t a, const void *data, int32_t *at);

/* The hooks the table's lines name (access.h columns shape, smem, prep). */
extern access_shape_fn access_shape_ANY, access_shape_WARP, access_shape_STAGED,
    access_shape_TILE, access_shape_GTILE, access_shape_PAIRS;
extern access_smem_fn access_smem_NONE, access_smem_OFFSETS, access_smem_STAGED,
    access_smem_LAPS, access_smem_GLAPS;
extern const access_prep access_prep_NONE, access_prep_STAGED, access_prep_TWOPASS,
    access_prep_GRAPH_TWOPASS, access_prep_PAIRS;

/* pairs (access/pairs_host.c): the lattice pairs of g for stencil s. pat (may be NULL) gets
 * each aligned pair's pattern row or -1 ((g->nxy + 1) / 2 entries), *tab (may be NULL; the
 * caller frees it with xfree) the rows, PAIRS_SLOTS displacements each, *npat (may be NULL)
 * their count. Returns the number of lattice pairs. */
long pairs_lattice_count(const ugrid *g, stencil_t s, int32_t *pat, int32_t **tab, int *npat);

#endif
