/* persist_onchip.h — the on-chip persistent kernels of iterated laplap, hdiff and lap (issue 35;
 * notes/issue35-design.md, section 4): one cooperative launch runs every step; block b owns the
 * parts of src/plan/persist_parts.h (its run of cells, rings 1 and 2, a W/E/S/N table of 16-bit
 * local slots) and keeps the state of its own cells at the cached levels 0..levels-1 in shared
 * memory for the whole run. Each step, at a cached level, it reads its rings from the export
 * buffer of the step's parity, computes the Laplacian at every own and ring-1 entry from that
 * entry's own table row (pass 1), then laplap at its own cells with the fold (pass 2), keeps the
 * new values and writes those of its exported cells to the other parity's buffer; the other
 * levels stream through the two state arrays. A grid barrier between two steps. hdiff's pass 2
 * takes the fluxes across the own cells' four edges from the Laplacians and the values, and its
 * coefficients from global memory (fixed). lap (radius 1) has ring 1 alone and one pass: the
 * Laplacian at the own cells with its fold. The arithmetic is the bodies' (LAPLAP_COMBINE,
 * stencils/laplap.h; hdiff.h's limiter) with the folds of registry.h, so the state
 * equals the CPU iteration's bit for bit (tests/test_persist_onchip_emul.c emulates this
 * schedule on the CPU; tests/test_persist_onchip.c runs it). Launched by src/plan/persist_onchip.c. */
#ifndef PILLAR_PERSIST_ONCHIP_H
#define PILLAR_PERSIST_ONCHIP_H

#include "../base/common.h"

#include <stddef.h>
#include <stdint.h>

#define ONCHIP_MAX_THREADS 1024 /* threads a block at most */
typedef struct {
    void *state, *other;   /* the state arrays (level stride zs): step t reads `state` at even
                            * t and writes `other`, the other way round at odd t; both hold the
                            * initial state at the grid halo's cells */
    void *xb0, *xb1;       /* export buffers, nxy values a cached level: parity 0 is read at even
                            * steps; both start with the initial state at every cell */
    const int32_t *own0, *r1start, *ring1, *r2start, *ring2, *tstart; /* persist_parts */
    const int32_t *own;    /* the own cells' plane indices (persist_parts.own); NULL where each
                            * block owns a run of the storage order (plane index c0 + slot) */
    const uint16_t *tab;   /* `width` slots a row (persist_parts.tab) */
    const unsigned char *deg; /* graphlap: a row's degree (persist_parts.deg); else NULL */
    int width;             /* slots a table row: 4 (W, E, S, N) or graphlap's list columns */
    int lists;             /* 1: the rows are neighbour lists with degrees (graphlap) */
    const unsigned char *exported; /* per plane cell: an own cell another block's ring holds */
    const void *coeff;     /* hdiff: its coefficients (the state's layout), else NULL */
    long zs;
    int nz, nxy, c0;       /* levels computed, cells a level, the first inner cell */
    int steps, levels;     /* steps; cached levels */
    int rows_max, slots_max, own_max; /* the parts' largest block (shared memory's layout) */
    int laps;              /* Laplacians kept a level: rows_max (laplap's pass 1), 0 (lap) */
} onchip_params;

/* Shared memory of a block's table rows (`width` 16-bit slots a row, and with lists a degree
 * byte a row) and of its own cells' export flags (one byte a cell), each rounded up to 16 bytes. */
PILLAR_HD size_t onchip_tab_bytes(int rows, int width, int lists)
{
    return ((size_t)rows * 2 * (size_t)width + 15) / 16 * 16 +
           (lists ? ((size_t)rows + 15) / 16 * 16 : 0);
}
PILLAR_HD size_t onchip_flag_bytes(int own) { return ((size_t)own + 15) / 16 * 16; }

/* Shared memory (bytes) a block needs: its table rows, its export flags, its cached levels, two
 * levels' values at its slots and two levels' Laplacians, for values of es bytes. */
static inline size_t onchip_smem(const onchip_params *p, size_t es)
{
    return onchip_tab_bytes(p->rows_max, p->width, p->lists) + onchip_flag_bytes(p->own_max) +
           es * ((size_t)p->levels * (size_t)p->own_max + 2 * (size_t)p->slots_max +
                 2 * (size_t)p->laps);
}

/* onchip_kernels[s][precision][variant], s = ONCHIP_LAPLAP, ONCHIP_HDIFF, ONCHIP_LAP or
 * ONCHIP_GRAPHLAP (its rows the neighbour lists, its passes graphlap.h's split): the host
 * stubs for cudaLaunchCooperativeKernel(args = {&onchip_params}). Variant v runs blocks of at most
 * onchip_variant_threads[v] threads, loads the next level while one computes into
 * onchip_variant_prefetch[v] registers a thread (0: each level loaded before it computes; a
 * prefetching variant falls back to that where a block's slots outnumber prefetch x threads) and
 * computes onchip_variant_rows[v] rows a thread at once (pass 1, and laplap's and lap's pass 2;
 * their loads issued together; 2: an experiment of issue 35, taken only when asked). */
enum { ONCHIP_LAPLAP, ONCHIP_HDIFF, ONCHIP_LAP, ONCHIP_GRAPHLAP, ONCHIP_STENCILS };
#define ONCHIP_VARIANTS 4
#ifdef __cplusplus
extern "C" {
#endif
extern const void *const onchip_kernels[ONCHIP_STENCILS][2][ONCHIP_VARIANTS];
extern const int onchip_variant_prefetch[ONCHIP_VARIANTS], onchip_variant_threads[ONCHIP_VARIANTS],
    onchip_variant_rows[ONCHIP_VARIANTS];
#ifdef __cplusplus
}
#endif

#endif
