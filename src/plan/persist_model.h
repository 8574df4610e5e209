/* persist_model.h — the model of a persistent run with its state cached on chip
 * (docs/persistent.md, "The model"): how many levels each block keeps on chip and how many blocks
 * the launch has, from the device's resources (SMs, shared memory per SM and per block, the
 * occupancy its registers allow, clock, DRAM rate), as PERKS sizes its caches; and the predicted
 * time per step of the host loop and of the persistent launch, from which --persistent auto
 * decides. Plain C (the occupancy comes in as a function), tested without a device. */
#ifndef PILLAR_PERSIST_MODEL_H
#define PILLAR_PERSIST_MODEL_H

#include "persist_plan.h"

#include "grids/grid.h"
#include "storage/ell.h"

/* Measurable inputs, guessed from PERKS's figures and the H100's documentation; TO BE MEASURED on
 * the device (NOTES.md): a grid barrier of some 500-1000 resident blocks (a persistent launch of
 * empty steps), a kernel boundary of the host loop (the host loop of empty kernels). */
#define PERSIST_T_BARRIER_S 3.0e-6
#define PERSIST_T_LAUNCH_S 4.0e-6
/* The time a warp waits for each level it computes: its loads' latency under load and the
 * body's dependent arithmetic, which the other warps of its SM must cover (the occupancy term:
 * t_cover = points / 32 / (SMs x warps resident per SM) x this). Fitted to the H100 runs of
 * 2026-11-23 (bench/results/2026-11-23-h100-iterated), where the persistent kernel of 128
 * registers kept 16 warps an SM (8 with a level cached) and laplap took 0.9-1.5 us a level and
 * warp (the steps' time x SMs x warps / warp-levels), hdiff 2.6; the host loop's kernels keep
 * the SMs full (64 warps) and stay bound by the memory pipes. */
#define PERSIST_T_LEVEL_S 1.2e-6
/* Bytes the L1 / shared-memory pipe of an SM serves per clock (one 128-byte wavefront; sm_80 and
 * sm_90): a warp's load of doubles takes two, of floats and of 32-bit offsets one. The one-step
 * laplap kernels are bound by this pipe on the H100 (README: ncu 95% L1), so values on chip are
 * read no faster. Both the host loop's kernels (the table) and the lean persistent kernels
 * (shared memory) read a point's offsets through it. */
#define PERSIST_LSU_BYTES_PER_CLK 128.0
/* --persistent auto runs the persistent launch from this predicted speed-up on, and only once
 * the model is trusted. It is not: on the H100 (bench/results/2026-11-23-h100-iterated) the launch
 * ran 1.2-6x slower than the host loop for laplap, hdiff and lap at 512x512 x 16 and x 64, with
 * levels cached or not, where this model predicted 1.01-1.37x gains. What it leaves out bounds
 * the launch: 1-2 resident blocks of 256 threads an SM (8-16 warps, against up to 64 in the host
 * loop's kernels) leave the loads' latency uncovered (docs/persistent.md). The occupancy term
 * (PERSIST_T_LEVEL_S) now predicts those runs slower (tests/test_persist_plan.c); the lean
 * kernels (64 registers) are not measured yet. */
#define PERSIST_AUTO_GAIN 1.05
#define PERSIST_AUTO_TRUSTED 0

/* The device as the model sees it. */
typedef struct {
    int sms;
    int warps_sm;      /* the most warps an SM holds (threads per SM / 32) */
    size_t smem_sm;    /* shared memory per SM (bytes) */
    size_t smem_block; /* the most one block may have (opt-in) */
    double clock_hz;   /* SM clock */
    double dram_bps;   /* device memory rate, bytes read + written per second */
} persist_device;

/* What a step computes. */
typedef struct {
    long cells;   /* inner cells of a level */
    int levels;   /* levels computed per step (stencil_zend) */
    int elem;     /* bytes of a value */
    int words;    /* offsets (relations) per cell: persist_words */
    int extra_in; /* inputs read at the cell only besides the state (hdiff: coeff) */
    double host_s; /* the host loop's measured time a step; 0: the model's own */
    double reads;  /* neighbour entries the body reads a point (values: reads + 1); 0: words.
                    * Graph stencils: persist_graph_reads (their words are what shared memory
                    * holds, none where the lists are read from the table) */
} persist_work;

/* The model's choice: a shape and the cached levels, with its prediction. */
typedef struct {
    persist_shape shape;
    int levels;       /* levels 0..levels-1 on chip (the cells' slots in shared memory too) */
    int hmax;         /* the largest halo of a block */
    long nhalo_all;   /* halo entries of all blocks (read per cached level and step) */
    long nexport;     /* export cells (written per cached level and step) */
    size_t smem;      /* dynamic shared memory per block: cached levels, offsets, slots */
    size_t state_at, offs_at, slots_at; /* where each part starts in it (bytes) */
    double host_s;    /* predicted time per step, host loop (w->host_s where measured) */
    double persist_s; /* predicted time per step, persistent launch */
    double cover_s;   /* its occupancy term: the levels' waits over the warps resident */
    double saved;     /* DRAM bytes per step the caching saves */
    int graph_lists;  /* a graph stencil's launch: PERSIST_LISTS_SHARED (its cells' lists in
                       * shared memory) or PERSIST_LISTS_TABLE; 0 for the W/E/S/N stencils */
} persist_cache;

/* Ways to ask for cached levels (persist_model_plan's levels): the model's choice, none, or
 * exactly N > 0. */
#define PERSIST_LEVELS_MODEL 0
#define PERSIST_LEVELS_NONE (-1)

/* Fills c->smem and where its parts start for shape c->shape, c->levels cached levels and
 * c->hmax, for work w: the cached levels first (2M + hmax values each), then the offsets (where
 * levels are streamed), then the slots (where levels are cached). */
void persist_cache_layout(persist_cache *c, const persist_work *w);

/* Predicted seconds per step of the host loop and of the persistent launch of c (shape, levels,
 * hmax, nhalo_all, nexport) for work w on device d, into c->host_s, c->persist_s, c->cover_s,
 * c->saved. Each is the largest of its DRAM time, its L1/shared-memory time (the body's
 * words + 1 + extra_in values and its words offsets a point) and its occupancy term
 * (PERSIST_T_LEVEL_S a warp and level over the warps resident per SM: d->warps_sm for the host
 * loop, persist_warps of the shape for the launch), plus a launch boundary (host loop) or a
 * barrier, the persistent one scaled by the blocks' imbalance. Where w->host_s is given (a
 * measured host loop), host_s is that and the launch's DRAM and L1 times are scaled by the
 * measured over the modelled host loop (the same loads through the same pipes); its occupancy
 * term is not. */
void persist_predict(persist_cache *c, const persist_work *w, const persist_device *d);

/* Plans a persistent launch of blocks of `threads` threads on grid g (the stencil's relations
 * in mask) for work w on device d; occ: the kernel's occupancy. blocks > 0: exactly these
 * blocks, else the model tries as many as the SMs hold and fewer (halving the blocks per SM:
 * larger blocks, smaller halos, more levels on chip). levels: PERSIST_LEVELS_MODEL (the
 * fastest predicted), PERSIST_LEVELS_NONE, or exactly N (1..w->levels). Returns 0 with c
 * filled, or -1 with a message: persist_shape_make's refusals, N levels outside 1..w->levels or
 * more than fit the device (the bytes needed and given in the message). */
int persist_model_plan(persist_cache *c, const ugrid *g, unsigned mask, const persist_work *w,
                       const persist_device *d, int threads, int blocks, int levels,
                       persist_occupancy_fn occ, void *ctx);

/* The neighbour entries graphlap's body reads a point on ELL table e, on average over the n
 * inner cells from c0: the cell's degree and ring, and each neighbour's degree and ring
 * (d + sum over the ring of 1 + d_k); it reads one value more than that (its own). */
double persist_graph_reads(const ell_table *e, int c0, int n);

/* "12 levels cached (the lowest), 1.2 GB less DRAM traffic a step; predicted 95.0 us a step
 * (32 warps an SM cover 80.0 us of waits) against 112.0 us for the host loop (1.18x)" into
 * buf; a graph stencil's launch adds where it reads its cells' neighbour lists. */
void persist_cache_describe(const persist_cache *c, char *buf, size_t n);

#endif
