/* persist_ooc.h — the persistent executor inside the out-of-core pipeline (docs/persistent.md,
 * "Out of core"): a chunk's steps (up to F) run as one cooperative launch of the in-core
 * persistent kernel (access/persistent.cu) on the chunk's local grid. Block b owns the cells
 * persist_range gives it of those the chunk's first step computes, [first[F-1], ncells) of its
 * part, for every pass; step t computes those of its cells that lie in the step's region (the
 * suffix from first[m], m the steps left after it: persist_step_from), a grid barrier between two
 * steps. No level is cached on chip (the offsets of the block's cells are, in shared memory, so
 * a part's region must fit the SMs' shared memory: ooc_plan parts are made small enough).
 * Plain C: what a plan must satisfy and each part's launch shape, tested without a device. */
#ifndef PILLAR_PERSIST_OOC_H
#define PILLAR_PERSIST_OOC_H

#include "ooc_plan.h"
#include "persist_model.h"

/* Whether plan pl's chunks can run as persistent launches: a stencil with persistent kernels
 * (persist_supported: laplap, hdiff, lap), no vertical reach (zradius 0: every step computes the
 * slab's own levels), one step per launch (K = 1), no graph-twopass lists. Returns 0, or -1 with
 * a message. */
int persist_ooc_check(const ooc_plan *pl);

/* The cells of part pt's launches, [*c0, *c0 + *n): those its first step computes with F steps
 * to go, [first[F-1], ncells). */
void persist_ooc_cells(const ooc_plan *pl, const ooc_part *pt, int *c0, int *n);

/* Every part's launch shape (shape[p], nparts entries): persist_shape_make over its cells
 * (persist_ooc_cells) with blocks of `threads` threads on device d (SMs, warps and shared memory
 * per block), the kernel's occupancy occ, the stencil's offsets in shared memory. *most gets the
 * most cells of any part's launch. Returns 0, or -1 with the message of the first part that does
 * not fit (its number and cells named, and that a smaller budget makes smaller parts). */
int persist_ooc_shapes(persist_shape *shape, const ooc_plan *pl, int threads,
                       const persist_device *d, persist_occupancy_fn occ, void *ctx, long *most);

/* The factor to scale a budget by so that a plan's largest launch region (most cells) comes
 * within what the SMs' shared memory holds of the stencil's offsets (d->sms x d->smem_sm bytes
 * at persist_words offsets a cell), with a margin: 0.9 x that capacity / most, kept within
 * [0.1, 0.9] (parts do not shrink in proportion to the budget: their rings stay as wide). */
double persist_ooc_shrink(const ooc_plan *pl, const persist_device *d, long most);

#endif
