/* ooc_plan.h — cutting an unstructured grid into chunks that fit a device-memory budget, for
 * out-of-core iterated runs (SPEC §5) that fuse F time steps per transfer.
 *
 * A chunk is a part (a run of whole Z-pillars: inner cells contiguous in the cell order) times a
 * slab (a run of levels). It travels with its halo for F steps: the cells within graph distance
 * radius·F of its own cells (through W/E/S/N), and zradius·F levels below and above its slab.
 * On the device it runs F steps on a shrinking region (trapezoid): step j of t computes the
 * cells within distance radius·(t - j) of its own cells and the levels within zradius·(t - j) of
 * its slab, the last step its own points only. Neighbouring chunks compute their overlap twice.
 *
 * Local numbering of a part's cells (one table per part, shared by its slabs):
 *   [0, nfixed)            halo cells of the grid: read, never computed
 *   [nfixed, first[0])     ring cells, farthest first (distance radius·F down to 1)
 *   [first[0], ncells)     own cells, in the grid's order: global cells own0 .. own1-1
 * so the cells computed with m steps still to go form the suffix [first[m], ncells).
 *
 * Device bytes of a chunk: its fields (inputs and outputs, all its cells, all its levels, levels
 * zstride elements apart) plus its table (pattern array included), once per buffer of the
 * pipeline (OOC_BUFFERS).
 * Full-height parts are used when one pillar with its halo fits; otherwise the levels are cut
 * into equal slabs, as high as the budget allows. */
#ifndef PILLAR_OOC_PLAN_H
#define PILLAR_OOC_PLAN_H

#include "../grids/grid.h"
#include "../stencils/stencil.h"
#include "../storage/nbtable.h"
#include "../storage/tiles.h"

/* Chunks in flight on the device: one is copied in, one computed, one copied out. */
#define OOC_BUFFERS 3

typedef struct {
    int own0, own1;  /* global plane cells owned (inner, contiguous) */
    int ncells;      /* local plane cells */
    int nfixed;      /* leading local cells that are halo cells of the grid */
    int *first;      /* F + 1 entries: first local cell within distance radius·m, m = 0..F */
    int *gcell;      /* ncells entries: local cell -> global cell */
    long zstride;    /* local level stride (ncells rounded up to 64) */
    ugrid lg;        /* the local grid: nxy = ncells, nhalo = first[0], nbr in local numbers */
    nbtable nt;      /* its table, in the plan's storage */
    tiles tl;        /* with K > 1 steps per launch: its blocks' balls, which replace the table
                      * on the device (ooc_plan_tiles); else empty */
} ooc_part;

typedef struct {
    int z0, z1;      /* global levels owned */
    int lz0, lz1;    /* global levels held: owned ± zradius·F, within [0, nz) */
} ooc_slab;

typedef struct {
    stencil_t stencil;
    precision_t prec;
    int F;                /* steps per transfer */
    int K;                /* steps per kernel launch (1, or more after ooc_plan_tiles) */
    size_t budget;        /* device bytes */
    int nz, zend;         /* levels, computed levels */
    int nparts, nslabs;   /* chunks: nparts x nslabs */
    ooc_part *part;
    ooc_slab *slab;
    size_t max_chunk_bytes; /* the largest chunk, fields + table, one buffer */
    /* Bytes per pass over all chunks (a pass advances F steps): host->device carries every
     * chunk's inputs (cells + halo, held levels) and its table; device->host its state fields at
     * its own points. */
    double h2d_field_bytes, h2d_table_bytes, d2h_bytes;
} ooc_plan;

/* Plans grid g for stencil s in precision p, table storage (chasing, compressed), a budget in
 * bytes and F >= 1 steps per transfer. Returns 0, or -1 with a message (a budget below one pillar
 * of one level with its halo names the minimum). */
int ooc_plan_make(ooc_plan *pl, const ugrid *g, stencil_t s, precision_t p, int chasing,
                  int compressed, size_t budget, int F);
void ooc_plan_free(ooc_plan *pl);

/* The in-core plan: one chunk holding the whole grid (no ring: the grid's halo cells are its
 * fixed cells), so F = all the steps of a run go in one transfer. Its budget is its size. */
int ooc_plan_incore(ooc_plan *pl, const ugrid *g, stencil_t s, precision_t p, int chasing,
                    int compressed, int F);

/* Builds every part's balls for K > 1 steps per launch (at most F) in blocks of B cells
 * (storage/tiles.h); they replace the tables in the device bytes and the traffic, so a plan made
 * to fill a budget may exceed it afterwards (ooc_plan_fits). Returns 0, or -1 with a message. */
int ooc_plan_tiles(ooc_plan *pl, int K, int B);

/* Whether the plan's chunks fit `budget` in their OOC_BUFFERS buffers (one chunk always does:
 * the in-core plan, or a grid that fits whole). */
int ooc_plan_fits(const ooc_plan *pl, size_t budget);

/* The smallest budget ooc_plan_make accepts for these arguments: the largest single pillar of one
 * level with its halo, in each of the OOC_BUFFERS buffers. */
size_t ooc_min_budget(const ugrid *g, stencil_t s, precision_t p, int chasing, int compressed, int F);

/* Device bytes of chunk (part, slab), fields and table, one buffer. */
size_t ooc_chunk_bytes(const ooc_plan *pl, int part, int slab);

/* Host<->device bytes per time step (a pass divided by F). */
double ooc_h2d_per_step(const ooc_plan *pl);
double ooc_d2h_per_step(const ooc_plan *pl);

/* One-line summary: chunks, slabs, halo overhead, bytes per step. */
void ooc_plan_describe(const ooc_plan *pl, char *buf, size_t n);

#endif
