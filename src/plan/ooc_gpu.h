/* ooc_gpu.h — out-of-core iterated runs on the GPU: the chunks of a plan (src/plan/ooc_plan.h)
 * streamed through OOC_BUFFERS device buffers, each with its own CUDA stream, so that the copy
 * of one chunk to the device, the steps of another and the copy back of a third overlap.
 *
 * Per chunk: its fixed and ring cells of every input are gathered on the host into a pinned
 * staging buffer, its own cells go straight from the (registered) host fields with 2D copies;
 * its table goes from a pinned image of all tables built once (with fluxdiff's coefficients of
 * its cells after the lists: read-only inputs of every step, sent with the table each pass). What it holds in common with the
 * previous chunk of the pass (region sharing with --share, ooc_chunk_share) is not sent: the
 * previous chunk's stream copies it from its own buffer into this one (src/plan/share.cu) before its
 * steps, ordered by events (share_step in ooc_gpu.c). Then up to F steps on the shrinking region
 * (one strategy kernel per step that writes the new state, fold included, into the other of the
 * state and output fields; the global level passed so that fastwaves switches where it does in
 * core), then the state at its own points straight back into the host fields of the next
 * state. A pass over all chunks advances F steps; passes read one state and write the
 * other, and follow each other without draining the pipeline: a chunk waits only for the
 * chunks of the pass before whose results it reads. */
#ifndef PILLAR_OOC_GPU_H
#define PILLAR_OOC_GPU_H

#include "ooc_plan.h"
#include "access/access.h"

typedef struct {
    access_t access;
    int bx, by, bz; /* block shape (0: the strategy's default) */
    int zslice;     /* levels per thread of zloop-sliced */
    int persistent; /* 1: each chunk's steps in one cooperative launch of the persistent kernel
                     * (src/plan/persist_ooc.h; blocks of bx threads, 0: PERSIST_THREADS; access
                     * and the other shape fields unused), the chunks' launches one after the
                     * other; 0: a launch per step (or per K steps) */
} ooc_kernel;

/* The launch of an iterated step's kernel, checked once (ooc_launch_prepare). */
typedef struct {
    access_t access;
    int bx, by, bz; /* block shape, the strategy's default filled in */
    int column;     /* storage column: chasing * 2 + compressed */
    int zslice;
    size_t smem;    /* dynamic shared memory */
    int apply;      /* 1: the plain application (outputs from the inputs, no fold, in_out 0);
                     * 0 (what ooc_launch_prepare sets): an iterated step, the fold fused */
} ooc_launch;

/* Whether strategy a has kernels for iterated steps of stencil st (a graph stencil's steps run
 * the ELL kernel under idxvar's name, or graph-twopass). */
int ooc_iterated_ok(access_t a, stencil_t st);

/* Checks kernel k for iterated runs of stencil st in precision prec on tables (chasing,
 * compressed) and fills L. Returns 0, or -1 with a message (a strategy without iterated
 * kernels for st, a block shape it does not take). */
int ooc_launch_prepare(ooc_launch *L, const ooc_kernel *k, stencil_t st, precision_t prec,
                       int chasing, int compressed);

/* 32-bit words of part pt's table for stencil st (a graph stencil's lists: degrees, then the
 * columns; else the table's entries, then its patterns when compressed), and that image written
 * at `at`: what ooc_step_launch reads at tab. */
size_t ooc_table_words(const ooc_part *pt, stencil_t st);
void ooc_table_pack(const ooc_part *pt, stencil_t st, int32_t *at);

/* 32-bit words of part pt's whole image for single steps (K = 1) of stencil st in precision
 * prec: its neighbours (its strategy's lists pt->lists when it has them, access/hooks.h words;
 * else its table or ELL lists, ooc_table_words), then for a stencil that reads coefficients
 * (stencils/coeffs.h) the part's (ooc_part_coeffs) at the next even word; and that image written at
 * `at`: all ooc_step_launch reads at tab (the pipeline's parts, the resident part of
 * src/engine/resident.c, a distributed rank's part of src/dist/dist_gpu.c). The part must have
 * its coefficients when the stencil reads them, and the launch's strategy's lists when it has
 * any (ooc_part_lists). */
size_t ooc_part_image_words(const ooc_part *pt, stencil_t st, precision_t prec);
void ooc_part_image_pack(const ooc_part *pt, stencil_t st, precision_t prec, int32_t *at);

/* One step of stencil st on the device arrays d of part pt (levels pt->zstride apart, level 0 of
 * the arrays = global level lz0): cells [c0, c1) at global levels [k0, k1), the new state (fold
 * fused) written into the output fields from the state fields, or with in_out the other way
 * round; the part's table at tab (then its patterns when compressed), or a graph stencil's lists
 * (degrees, then columns), or the part's lists of a strategy that has them (access/hooks.h,
 * bound by its prep's bind; graph-twopass: blocks cut at c0 and c1, ooc_part_lists), followed for a stencil that reads coefficients
 * (fluxdiff) by the part's coefficients at the next even word (as ooc_gpu_open packs them). Launched on `stream`; nothing when the region is empty. */
void ooc_step_launch(const ooc_launch *L, stencil_t st, precision_t prec, const ooc_part *pt,
                     const int32_t *tab, fieldset d, int lz0, int k0, int k1, int c0, int c1,
                     int in_out, void *stream);

typedef struct {
    double total_s;         /* the whole run: passes, first copy to last */
    double pass_median_s;   /* median time of a full pass (F steps), on the device, from the
                             * end of the pass before to the end of this one; over the passes
                             * after the first when there are several (the first carries the
                             * fill of the pipeline, which a run pays once) */
    int passes, steady_passes; /* passes; those the median is over */
    int pinned;             /* host fields registered (else pageable copies, no overlap) */
    double h2d_bytes, d2h_bytes; /* moved by the run (what chunks share excluded) */
    double kernel_s;        /* while some chunk's steps ran: the union over the run of the
                             * spans from the end of a chunk's copies in to its last kernel; the
                             * kernel time of a one-chunk plan, with several chunks the time the
                             * device had steps to run */
    double stage_s;         /* the host thread before a chunk's steps are issued (waiting for
                             * the chunks it reads and for its staging buffer, gathering its ring
                             * cells, issuing its copies in), summed */
    double gather_s;        /* of which gathering ring cells into the staging buffers */
} ooc_timing;

/* Advances state *f (on grid g; its output fields are not used: outputs live on the device) by
 * `steps` steps. *spare holds a second array of each carried field (iter_carried), written
 * before its values are read; the two are swapped pass by pass, so on return *f holds the result
 * and *spare the state before the last pass (the initial state when steps <= F). Other fields of
 * *spare are unused. With k->persistent the host->device bytes include every part's first[]
 * (F + 1 words a part), copied once. Returns 0, or -1 with a message (with k->persistent:
 * persist_chunk_prepare's refusals, src/plan/persist_gpu.h). */
int ooc_gpu_run(const ooc_plan *pl, const ugrid *g, fieldset *f, fieldset *spare, int steps,
                const ooc_kernel *k, ooc_timing *t);

#endif
