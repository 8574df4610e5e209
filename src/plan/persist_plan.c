/* persist_plan.c — the shape of a persistent run (src/plan/persist_plan.h). */
#include "persist_plan.h"

#include <stdio.h>

int persist_supported(stencil_t s, char *why, size_t n)
{
#define PERSIST_IS_(ST, _) || s == ST_##ST
    int yes = (int)s >= 0 && !stencil_is_user(s) &&
              (0 FOR_EACH_STAGED_STENCIL(PERSIST_IS_, _) FOR_EACH_GRAPH_KSTEPS_STENCIL(PERSIST_IS_, _));
#undef PERSIST_IS_
    if (!yes)
        snprintf(why, n, "%s has no persistent kernel (laplap, hdiff, lap and graphlap have: one "
                 "state field read across the neighbourhood, other inputs read at the cell only%s)",
                 stencil_table[s].name,
                 stencil_table[s].carry.n == 0 ? "; it has no iterated runs at all"
                 : stencil_table[s].coeffs.n   ? "; it reads per-cell and per-edge coefficients"
                                               : "");
    return yes;
}

int persist_is_graph(stencil_t s)
{
    return (int)s >= 0 && !stencil_is_user(s) && stencil_table[s].graph;
}

unsigned persist_mask(stencil_t s)
{
#define PERSIST_MASK_(ST, _) ST##_RELS,
    static const unsigned mask[ST_QUAD_COUNT] = {FOR_EACH_STENCIL(PERSIST_MASK_, _)};
#undef PERSIST_MASK_
    return (int)s < 0 || (int)s >= (int)ST_QUAD_COUNT ? 0u : mask[s];
}

int persist_words(stencil_t s)
{
    int w = 0;
    for (unsigned m = persist_mask(s); m; m >>= 1)
        w += (int)(m & 1u);
    return w;
}

int persist_warps(const persist_shape *s)
{
    int spread = s->sms > 0 ? (s->nblocks + s->sms - 1) / s->sms : s->per_sm;
    int w = (spread < s->per_sm ? spread : s->per_sm) * ((s->threads + 31) / 32);
    return s->warps_sm > 0 && w > s->warps_sm ? s->warps_sm : w;
}

/* persist_shape_make without a message: 0, or -1 with the reason in why. */
static int shape_try(persist_shape *s, long cells, int threads, int sms, int warps_sm, int words,
                     size_t smem_max, int blocks, persist_occupancy_fn occ, void *ctx, char *why,
                     size_t n)
{
    s->cells = cells;
    s->threads = threads;
    s->warps_sm = warps_sm;
    s->sms = sms;
    if (threads < 1 || threads > PERSIST_MAX_THREADS) {
        snprintf(why, n, "persistent run: blocks of %d threads: the kernels take 1 to %d",
                 threads, PERSIST_MAX_THREADS);
        return -1;
    }
    if (cells < 1 || sms < 1) {
        snprintf(why, n, "persistent run: %ld inner cells on %d SMs: nothing to run", cells, sms);
        return -1;
    }
    int per0 = occ(0, ctx);
    if (per0 < 1) {
        snprintf(why, n, "persistent run: a block of %d threads does not fit an SM (registers); "
                 "give fewer --threads", threads);
        return -1;
    }
    long most = (long)per0 * sms;
    if (blocks > most) {
        snprintf(why, n, "persistent run: %d blocks cannot all be resident at once: at most %ld "
                 "(%d per SM x %d SMs); the grid barrier between steps needs every block "
                 "resident", blocks, most, per0, sms);
        return -1;
    }
    if (blocks > 0) {
        s->nblocks = blocks;
    } else {
        long need = (cells + threads - 1) / threads;
        s->nblocks = (int)(need < most ? need : most);
    }
    s->max_cells = (cells + s->nblocks - 1) / s->nblocks;
    s->per_sm = per0;
    s->smem = (size_t)s->max_cells * (size_t)words * sizeof(int32_t);
    if (s->smem == 0)
        return 0;
    /* fewer blocks an SM would not help: the SMs' shared memory holds the same offsets in all */
    int per = s->smem <= smem_max ? occ(s->smem, ctx) : 0;
    if ((long)per * sms < s->nblocks) {
        /* blocks asked for: more of them may fit; the default shape: the grid is too large */
        const char *hint = blocks > 0 ? "give more blocks" : "this grid is too large for it: run "
                                                             "it without --persistent (the host loop)";
        snprintf(why, n, "persistent run: the offsets of %ld cells a block (%zu bytes of shared "
                 "memory) leave room for %d of %d blocks at once (%d per SM x %d SMs, at most %zu "
                 "bytes a block); the lean kernels keep every offset on chip, so the grid's %ld "
                 "cells x %d offsets must fit the SMs' shared memory: %s",
                 s->max_cells, s->smem, per * sms, s->nblocks, per, sms, smem_max, cells, words,
                 hint);
        return -1;
    }
    s->per_sm = per;
    return 0;
}

int persist_shape_make(persist_shape *s, long cells, int threads, int sms, int warps_sm,
                       int words, size_t smem_max, int blocks, persist_occupancy_fn occ,
                       void *ctx)
{
    char why[512];
    int rc = shape_try(s, cells, threads, sms, warps_sm, words, smem_max, blocks, occ, ctx, why,
                       sizeof why);
    if (rc != 0)
        perr("%s", why);
    return rc;
}

int persist_graph_lists(persist_shape *s, long cells, int threads, int sms, int warps_sm,
                        int words, size_t smem_max, int blocks, int want,
                        persist_occupancy_fn occ_lists, void *ctx_lists,
                        persist_occupancy_fn occ_table, void *ctx_table)
{
    char why[512];
    if (want != PERSIST_LISTS_TABLE) {
        if (shape_try(s, cells, threads, sms, warps_sm, words, smem_max, blocks, occ_lists,
                      ctx_lists, why, sizeof why) == 0)
            return 1;
        if (want == PERSIST_LISTS_SHARED) {
            perr("%s (the neighbour lists asked for in shared memory)", why);
            return -1;
        }
    }
    /* auto: the lists that do not fit are read from the table */
    return persist_shape_make(s, cells, threads, sms, warps_sm, 0, smem_max, blocks, occ_table,
                              ctx_table) == 0 ? 0 : -1;
}

void persist_shape_describe(const persist_shape *s, char *buf, size_t n)
{
    int w = persist_warps(s);
    snprintf(buf, n, "%d blocks x %d threads (%d per SM at most: %d of %d warps, %.0f%%), <= %ld "
             "of %ld cells per block, %zu bytes of shared memory per block", s->nblocks,
             s->threads, s->per_sm, w, s->warps_sm, s->warps_sm > 0 ? 100.0 * w / s->warps_sm : 0.0,
             s->max_cells, s->cells, s->smem);
}
