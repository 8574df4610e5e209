/* persist_plan.h — the shape of a persistent run (docs/persistent.md, access/persistent.h): how
 * many blocks one cooperative launch has, how many cells each owns, the shared memory its cells'
 * neighbour offsets take and the warps it keeps resident on an SM. Pure arithmetic (the CUDA occupancy query comes in as a function),
 * so that it is tested without a device. */
#ifndef PILLAR_PERSIST_PLAN_H
#define PILLAR_PERSIST_PLAN_H

#include "access/persistent.h"

#include <stddef.h>

/* Threads per block when --threads is not given. */
#define PERSIST_THREADS 256

/* Blocks of the launch's kernel with `threads` threads and smem bytes of dynamic shared memory
 * that one SM holds at once (cudaOccupancyMaxActiveBlocksPerMultiprocessor); 0: none. */
typedef int (*persist_occupancy_fn)(size_t smem, void *ctx);

typedef struct {
    int nblocks, threads;
    int per_sm;          /* co-resident blocks per SM at smem */
    int sms;             /* SMs of the device */
    int warps_sm;        /* the most warps an SM holds (the device's threads per SM / 32) */
    long cells;          /* inner cells of the grid */
    long max_cells;      /* the most any block owns: ceil(cells / nblocks) */
    size_t smem;         /* dynamic shared memory per block (the offsets, then what a plan adds) */
} persist_shape;

/* Warps of the launch resident on one SM: its blocks spread over the SMs (no more than per_sm
 * an SM) of threads rounded up to warps, no more than the SM holds; the occupancy the model
 * sets against the host loop's. */
int persist_warps(const persist_shape *s);

/* 1 if stencil s has persistent kernels (laplap, hdiff, lap: the stencils with staged kernels;
 * graphlap: the graph stencils with K-step kernels; not a stencil file), else 0 with the reason
 * in why. */
int persist_supported(stencil_t s, char *why, size_t n);

/* 1 if s is a built-in graph stencil (neighbour lists: access/persistent_graph.cu's kernels). */
int persist_is_graph(stencil_t s);

/* The relations stencil s's body reads (its RELS mask; bit r = relation r), 0 for none. */
unsigned persist_mask(stencil_t s);

/* 32-bit offsets a cell keeps: the relations stencil s's body reads (its RELS mask). */
int persist_words(stencil_t s);

/* Plans a launch over `cells` inner cells with blocks of `threads` threads on `sms` SMs of
 * warps_sm warps each, whose kernel keeps `words` offsets per cell in shared memory (the lean
 * kernels hold none in registers across the steps) and may have smem_max bytes of it per block.
 * blocks: 0 for as many as the SMs hold at once (occ(0) per SM), but no more than one per
 * `threads` cells; else exactly that many. Returns 0, or -1 with a message: threads outside
 * 1..PERSIST_MAX_THREADS, no block fits an SM, more blocks asked for than can be resident at
 * once (a grid barrier needs them all resident), offsets that do not fit smem_max or with which
 * the SMs no longer hold every block (occ(smem) · sms < nblocks). */
int persist_shape_make(persist_shape *s, long cells, int threads, int sms, int warps_sm,
                       int words, size_t smem_max, int blocks, persist_occupancy_fn occ,
                       void *ctx);

/* Where a graph stencil's persistent kernel reads its cells' neighbour lists
 * (persist_graph_lists's want): shared memory where they fit (auto), shared memory or a refusal,
 * the table. */
#define PERSIST_LISTS_AUTO 0
#define PERSIST_LISTS_SHARED 1
#define PERSIST_LISTS_TABLE 2

/* The shape of a graph stencil's persistent launch and where its lists are read: with `words`
 * 32-bit entries of a cell's lists in shared memory (its degree and first ring: 1 + the grid's
 * most neighbours) as persist_shape_make plans it with the occupancy occ_lists of the kernel
 * that copies them there, unless want is PERSIST_LISTS_TABLE; where that shape is refused and
 * want is PERSIST_LISTS_AUTO (quietly: the lists do not fit shared memory, or keep blocks from
 * being resident), or want is PERSIST_LISTS_TABLE, with none in shared memory and the occupancy
 * occ_table of the kernel that reads the table. Returns 1 (lists in shared memory), 0 (read from
 * the table), or -1 with persist_shape_make's message. */
int persist_graph_lists(persist_shape *s, long cells, int threads, int sms, int warps_sm,
                        int words, size_t smem_max, int blocks, int want,
                        persist_occupancy_fn occ_lists, void *ctx_lists,
                        persist_occupancy_fn occ_table, void *ctx_table);

/* "528 blocks x 256 threads (4 per SM: 32 of 64 warps, 50%), <= 489 of 258064 cells per block,
 * 39120 bytes of shared memory per block" into buf (smem: all the block's dynamic shared memory,
 * the offsets and the cached levels where a plan put them there). */
void persist_shape_describe(const persist_shape *s, char *buf, size_t n);

#endif
