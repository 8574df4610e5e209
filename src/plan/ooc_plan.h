/* ooc_plan.h — cutting an unstructured grid into chunks that fit a device-memory budget, for
 * out-of-core iterated runs (docs/out-of-core.md) that fuse F time steps per transfer.
 *
 * A chunk is a part (a run of whole Z-pillars: inner cells contiguous in the cell order; on a
 * grid in METIS order, whole METIS parts once the largest fits) times a slab (a run of levels). It travels with its halo for F steps: the cells within graph distance
 * radius·F of its own cells (through W/E/S/N, or for a graph stencil through the grid's neighbour
 * lists g->adj), and zradius·F levels below and above its slab.
 * On the device it runs F steps on a shrinking region (trapezoid): step j of t computes the
 * cells within distance radius·(t - j) of its own cells and the levels within zradius·(t - j) of
 * its slab, the last step its own points only. Neighbouring chunks compute their overlap twice.
 *
 * Local numbering of a part's cells (one table per part, shared by its slabs):
 *   [0, nfixed)            halo cells of the grid: read, never computed
 *   [nfixed, first[0])     ring cells by band, farthest first: band m holds the cells at distance
 *                          radius·(m-1)+1 .. radius·m, m = F down to 1
 *   [first[0], ncells)     own cells, in the grid's order: global cells own0 .. own1-1
 * so the cells computed with m steps still to go form the suffix [first[m], ncells). Among the
 * fixed cells and in each band, the cells the previous part does not hold come first.
 *
 * Region sharing (SO2DR): a pass runs the chunks in the order i -> part i / nslabs, slab
 * i % nslabs, all reading the same state. Chunk i takes the inputs it holds in common with chunk
 * i - 1 (same cells, levels both hold) from chunk i - 1's device buffer instead of the host:
 * after the next slab of the same part, every cell at the overlapping levels (fastwaves only:
 * the others hold no levels twice); after the last slab of the previous part, the cells listed
 * in share_to / share_from at the levels both hold (all levels when nslabs = 1). The first chunk
 * of a pass takes nothing. Own cells are taken only in runs of at least OOC_SHARE_RUN
 * consecutive cells (each run splits a copy from the host in two); fixed and ring cells always.
 * What is taken is no longer sent from the host: the traffic below counts it apart.
 *
 * Device bytes of a chunk: its fields (inputs and outputs, all its cells, all its levels, levels
 * zstride elements apart) plus its table (pattern array included) and the share list it carries
 * for the next chunk (planned at 2 words per cell), once per buffer of the pipeline (OOC_BUFFERS).
 * Full-height parts are used when one pillar with its halo fits; otherwise the levels are cut
 * into equal slabs, as high as the budget allows. */
#ifndef PILLAR_OOC_PLAN_H
#define PILLAR_OOC_PLAN_H

#include "grids/grid.h"
#include "stencils/stencil.h"
#include "storage/ell.h"
#include "storage/coeffs.h"
#include "access/hooks.h"
#include "storage/nbtable.h"
#include "storage/tiles.h"

/* Chunks in flight on the device: one is copied in, one computed, one copied out. */
#define OOC_BUFFERS 3

/* Shortest run of consecutive own cells taken from the previous chunk. */
#define OOC_SHARE_RUN 32

typedef struct {
    int own0, own1;  /* global plane cells owned (inner, contiguous); -1, -1 for a part of any
                      * cells (ooc_part_of_cells): then gcell[first[0] ..] are the owned cells */
    int ncells;      /* local plane cells */
    int nfixed;      /* leading local cells that are halo cells of the grid */
    int *first;      /* F + 1 entries: first local cell within distance radius·m, m = 0..F */
    int *gcell;      /* ncells entries: local cell -> global cell */
    int *ring_order; /* first[0] entries: the fixed and ring cells, in ascending global cell
                      * (the order in which the host gathers them: reads run along memory) */
    long zstride;    /* local level stride (ncells rounded up to 64) */
    ugrid lg;        /* the local grid: nxy = ncells, nhalo = first[0], nbr in local numbers */
    nbtable nt;      /* its table, in the plan's storage (W/E/S/N stencils) */
    ell_table ell;   /* graph stencils: its neighbour lists instead (lg.adj in local numbers;
                      * cells of the outermost band keep only the neighbours the part holds,
                      * and are never computed) */
    tiles tl;        /* with K > 1 steps per launch: its blocks' balls, which replace the table
                      * on the device (ooc_plan_tiles); else empty */
    void *lists;     /* a strategy with its own lists (access/hooks.h prep; graph-twopass):
                      * the part's, over the cells [first[F-1], ncells), cut at every first[m]
                      * (ooc_plan_lists); they replace the table on the device; else NULL */
    access_t lists_a; /* the strategy they are for */
    coef_set coef;   /* a stencil that reads coefficients (stencils/coeffs.h; fluxdiff): those
                      * of its local cells (ooc_plan_coeffs; column j of local cell l, j in the
                      * order of l's list); else empty */
    /* sharing with part p - 1 (none for part 0): */
    int nshare;      /* local cells taken from it */
    int *share_to;   /* nshare: those cells here, ascending */
    int *share_from; /* nshare: the same cells in part p - 1's numbering */
    int nkeep;       /* runs of the other local cells, which come from the host */
    int *keep;       /* 2 x nkeep: first local cell, count; no run straddles first[0] */
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
    int lists_bx;         /* threads per block of the parts' strategy lists (0: none;
                           * ooc_plan_lists) */
    access_t lists_a;     /* the strategy they are for */
    size_t budget;        /* device bytes */
    int nz, zend;         /* levels, computed levels */
    int nparts, nslabs;   /* chunks: nparts x nslabs */
    int units;            /* the grid's METIS parts (ugrid part_start) grouped whole into the
                           * plan's parts; 0: parts cut at any cell */
    int share;            /* consecutive chunks share their overlap (ooc_plan_share) */
    ooc_part *part;
    ooc_slab *slab;
    size_t max_chunk_bytes; /* the largest chunk, fields + table + share list, one buffer */
    /* Bytes per pass over all chunks (a pass advances F steps): host->device carries every
     * chunk's inputs (cells + halo, held levels) but those taken from the previous chunk
     * (shared_bytes, copied on the device), its table, and the share list of the next chunk when
     * that is another part (list_bytes: share_from and share_to, 4 bytes each); device->host its
     * state fields at its own points. */
    double h2d_field_bytes, h2d_table_bytes, list_bytes, shared_bytes, d2h_bytes;
} ooc_plan;

/* What chunk `chunk` of a pass takes from chunk - 1 on the device: cells at global levels
 * [z0, z1) of both; n = 0 when nothing. */
typedef struct {
    int z0, z1;
    int n;
    const int *to, *from; /* local cells here and in the previous chunk; both NULL: cells
                           * 0 .. n-1 of both (the previous chunk is the same part's lower slab) */
} ooc_share;

/* Local cells [c0, c0 + n) at global levels [z0, z1) of every input: a piece that comes from
 * the host. A piece lies within the fixed and ring cells [0, first[0]) or the own cells. */
typedef struct {
    int c0, n, z0, z1;
} ooc_piece;

/* Plans grid g for stencil s in precision p, table storage (chasing, compressed), a budget in
 * bytes and F >= 1 steps per transfer, with sharing on. When g carries METIS parts (part_start)
 * and the largest with its halo fits the budget at the slabs' height, parts are whole runs of
 * them; else they are cut at any cell. Returns 0, or -1 with a message (a budget below one pillar
 * of one level with its halo names the minimum). */
int ooc_plan_make(ooc_plan *pl, const ugrid *g, stencil_t s, precision_t p, int chasing,
                  int compressed, size_t budget, int F);
void ooc_plan_free(ooc_plan *pl);

/* The in-core plan: one chunk holding the whole grid (no ring: the grid's halo cells are its
 * fixed cells), so F = all the steps of a run go in one transfer. Its budget is its size. */
int ooc_plan_incore(ooc_plan *pl, const ugrid *g, stencil_t s, precision_t p, int chasing,
                    int compressed, int F);

/* A part owning any set of inner cells of g (a rank's, src/dist/): own[0 .. nown) in the local
 * order they are given, after the fixed and ring cells of the halo of F steps (radius·F), numbered
 * as above; its local grid and table (or lists) built, nothing shared (nshare = 0,
 * own0 = own1 = -1). Returns 0, or -1 with a message (no cells, a cell not inner, F < 1, a graph
 * stencil on a grid without lists). Free with ooc_part_free. */
int ooc_part_of_cells(ooc_part *pt, const ugrid *g, stencil_t s, int chasing, int compressed,
                      int F, const int *own, int nown);
void ooc_part_free(ooc_part *pt);

/* Steps per kernel launch of an iterated run whose caller asked for `requested` (--kernel-steps;
 * 0 when not given): the request, else 1. Nothing picks K > 1 by itself: in core, K = 2 ran 3.6x
 * slower than one step per launch at 512x512 on the H100 (issue 19; docs/out-of-core.md), and out
 * of core K > 1 pays only where the kernels dominate a pass, which no measured model predicts yet.
 * A model that picks K must be measured first (pillar bench --iterated) and enter here. Plans are
 * made with K = 1 (ooc_plan_make, ooc_plan_incore, ooc_plan_choose); only ooc_plan_tiles sets K. */
int ooc_kernel_steps(int requested);

/* Builds every part's balls for K > 1 steps per launch (at most F) in blocks of B cells
 * (storage/tiles.h); they replace the tables in the device bytes and the traffic, so a plan made
 * to fill a budget may exceed it afterwards (ooc_plan_fits). Returns 0, or -1 with a message. */
int ooc_plan_tiles(ooc_plan *pl, int K, int B);

/* Builds every part's lists of strategy a (access/hooks.h prep; graph-twopass: storage/gtwopass.h)
 * for blocks of nt threads, for its iterated steps (src/plan/ooc_gpu.c): over the cells a pass's
 * first step computes, [first[F-1], ncells) (the part's local grid), with the blocks cut at every
 * first[m], so that the step with m steps to go launches the suffix of blocks of
 * [first[m], ncells) (the prep's bind). The lists replace the table in the device bytes and the
 * traffic (ooc_plan_fits, as for ooc_plan_tiles). A strategy without lists builds none (0).
 * Returns 0, or -1 with a message (K > 1, lists the strategy cannot build: not a graph stencil,
 * a cell whose ring does not fit nt). */
int ooc_plan_lists(ooc_plan *pl, access_t a, int nt);

/* Builds part pt's lists of strategy a (pt->lists, replacing any) for stencil s's steps with F
 * steps per pass and blocks of nt threads: over the cells [first[F-1], ncells), the blocks cut at
 * every first[m] (m < F - 1) and at the nmore cells more[] (any order; a distributed rank's first
 * interior cell, src/dist/), so that the blocks of [a, b) for a and b among those cuts or ncells
 * are consecutive. ooc_plan_lists builds every part's with it. Returns 0, or -1 with a message. */
int ooc_part_lists(ooc_part *pt, access_t a, stencil_t s, int F, int nt, const int *more,
                   int nmore);

/* Where part pt's strategy lists start in its device image, in 32-bit words: 0 where they
 * replace its neighbour table, after the table at a 16-byte boundary where the kernels read
 * both (access/hooks.h beside_table: twopass, pairs; W/E/S/N stencils only). */
size_t ooc_part_lists_at(const ooc_part *pt);

/* 32-bit words of part pt's coefficients on the device for stencil s in precision p (a stencil
 * that reads them, stencils/coeffs.h: its arrays back to back, each column by column, in that
 * precision, after a word of alignment), 0 for the other stencils. They count in the chunk's
 * device bytes and the table traffic from the start (a pass sends them with the part's table),
 * so a plan made for a budget fits it with them. */
size_t ooc_coeffs_words(const ooc_part *pt, stencil_t s, precision_t p);

/* Gives part pt (an out-of-core chunk's or a distributed rank's, src/dist/) the coefficients of
 * its local cells for stencil s in precision p, gathered from `all` (stencils/coeffs.h,
 * numbered as the grid's cells): column j of local cell l = all's column j of gcell[l], every
 * array (a local cell's list keeps the global list's order wherever the cell is computed);
 * read-only inputs of every step. Nothing for stencils that read none. Returns 0, or -1 with a
 * message starting with `who` (no coefficients, other arrays or widths than the descriptor's
 * with the part's lists, a cell outside them). */
int ooc_part_coeffs(ooc_part *pt, stencil_t s, precision_t p, const coef_set *all,
                    const char *who);

/* ooc_part_coeffs for every part of the plan. Returns 0, or -1 with a message. */
int ooc_plan_coeffs(ooc_plan *pl, const coef_set *all);

/* Whether the plan can run: 1, or 0 with a message when its stencil reads coefficients and
 * ooc_plan_coeffs did not give them (the runners check it). */
int ooc_plan_has_coeffs(const ooc_plan *pl);

/* Whether the plan's chunks fit `budget` in their OOC_BUFFERS buffers (one chunk always does:
 * the in-core plan, or a grid that fits whole). */
int ooc_plan_fits(const ooc_plan *pl, size_t budget);

/* Turns region sharing on or off (for measurement); the traffic follows. */
void ooc_plan_share(ooc_plan *pl, int on);

/* What chunk i (0 .. nparts·nslabs - 1, in pass order) takes from chunk i - 1. */
void ooc_chunk_share(const ooc_plan *pl, int chunk, ooc_share *sh);

/* The pieces chunk i takes from the host: with what it shares, every input cell at every held
 * level exactly once. Returns their number, at most ooc_max_pieces(pl). */
int ooc_chunk_pieces(const ooc_plan *pl, int chunk, ooc_piece *pc);
int ooc_max_pieces(const ooc_plan *pl);

/* The smallest budget ooc_plan_make accepts for these arguments: the largest single pillar of one
 * level with its halo, in each of the OOC_BUFFERS buffers. */
size_t ooc_min_budget(const ugrid *g, stencil_t s, precision_t p, int chasing, int compressed, int F);

/* Device bytes of chunk (part, slab), one buffer: fields, table and the share list it carries. */
size_t ooc_chunk_bytes(const ooc_plan *pl, int part, int slab);

/* Host<->device bytes per time step (a pass divided by F); host->device: fields, tables, lists. */
double ooc_h2d_per_step(const ooc_plan *pl);
double ooc_d2h_per_step(const ooc_plan *pl);

/* The rates the model runs on, in bytes per second: the pinned link host->device and
 * device->host while both directions run, and the device's copy rate. */
typedef struct {
    double h2d, d2h, dev;
} ooc_rates;

/* The model (docs/out-of-core.md, after SO2DR §IV-C): a pass of F steps costs the longest of
 * its copies in, its copies out and its kernels (every trapezoid step's points times the fields'
 * bytes, at 75% of the device copy rate); returns seconds per step, a pass / F. */
double ooc_model_step_s(const ooc_plan *pl, const ooc_rates *r);

/* Plans for F = min_f, 2 min_f, 4 min_f, ... up to max_f steps per transfer (sharing on or off),
 * keeping the first F after which doubling it no longer lowers the modelled time per step by 5%
 * (then the kernels dominate and a larger F only adds redundant computation) or no longer fits
 * the budget. Returns 0, or -1 with a message when not even F = min_f fits. */
int ooc_plan_choose(ooc_plan *pl, const ugrid *g, stencil_t s, precision_t p, int chasing,
                    int compressed, size_t budget, int share, int min_f, int max_f,
                    const ooc_rates *r);

/* One-line summary: chunks, slabs, halo overhead, bytes per step, bytes shared per step. */
void ooc_plan_describe(const ooc_plan *pl, char *buf, size_t n);

#endif
