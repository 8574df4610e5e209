/* persist_model.c — cached levels, block shape and predicted times of a persistent run
 * (src/plan/persist_model.h). */
#include "persist_model.h"

#include "persist_lists.h"

#include <stdio.h>
#include <string.h>

static size_t align16(size_t b) { return (b + 15) / 16 * 16; }

void persist_cache_layout(persist_cache *c, const persist_work *w)
{
    const int words = w->words, elem = w->elem;
    const persist_shape *s = &c->shape;
    size_t M = (size_t)s->max_cells;
    c->state_at = 0;
    c->offs_at = align16((size_t)c->levels * (2 * M + (size_t)c->hmax) * (size_t)elem);
    /* offsets only where levels are streamed */
    size_t offs = c->levels < w->levels ? (size_t)words * M * sizeof(int32_t) : 0;
    c->slots_at = align16(c->offs_at + offs);
    size_t slots = c->levels > 0 ? (size_t)(words + 1) * M * sizeof(int32_t) : 0;
    c->smem = slots ? c->slots_at + slots : c->offs_at + offs;
}

/* Seconds a step's levels wait when `sms` SMs with `warps` warps resident each cover them. */
static double cover(const persist_work *w, int sms, int warps)
{
    double warp_levels = (double)w->cells * w->levels / 32.0;
    return warps < 1 || sms < 1 ? 1e30 : warp_levels / ((double)sms * warps) * PERSIST_T_LEVEL_S;
}

static double max2(double a, double b) { return a > b ? a : b; }

void persist_predict(persist_cache *c, const persist_work *w, const persist_device *d)
{
    double es = (double)w->elem, pts = (double)w->cells * w->levels;
    double cyc = d->clock_hz * d->sms;
    /* a warp's load of 32 values of b bytes takes 32 * b / 128 wavefronts: b / 128 a point */
    double rd = w->reads > 0 ? w->reads : (double)w->words;
    double loads = (rd + 1.0 + w->extra_in) * es + rd * 4.0;
    double lsu = pts * loads / PERSIST_LSU_BYTES_PER_CLK / cyc;
    double stream = (double)(2 + w->extra_in) * es; /* state in and out, inputs at the cell */
    double host_dram = pts * stream / d->dram_bps;
    double host_model = max2(max2(host_dram, lsu), cover(w, d->sms, d->warps_sm));
    /* a measured host loop: the launch's pipes run as far below the model as the host loop's */
    double scale = w->host_s > PERSIST_T_LAUNCH_S ? (w->host_s - PERSIST_T_LAUNCH_S) / host_model
                                                   : 1.0;
    c->host_s = w->host_s > 0 ? w->host_s : host_model + PERSIST_T_LAUNCH_S;
    double L = c->levels, Z = w->levels;
    double bytes = (Z - L) * (double)w->cells * stream +
                   L * ((double)c->nhalo_all + (double)c->nexport + (double)w->cells * w->extra_in) * es;
    c->saved = pts * stream - bytes;
    double dram = bytes / d->dram_bps;
    double lsu_p = lsu + L * (double)c->nhalo_all * es / PERSIST_LSU_BYTES_PER_CLK / cyc;
    /* a launch of fewer blocks than SMs leaves the others idle */
    int used = c->shape.nblocks < d->sms ? c->shape.nblocks : d->sms;
    c->cover_s = cover(w, used, persist_warps(&c->shape));
    double imbalance = (double)c->shape.max_cells * c->shape.nblocks / (double)w->cells;
    c->persist_s = imbalance * max2(scale * max2(dram, lsu_p), c->cover_s) + PERSIST_T_BARRIER_S;
}

/* The most levels a block of shape c->shape can keep while the device still holds every block
 * at once; c->levels left at that, with its layout. */
static int levels_that_fit(persist_cache *c, const persist_work *w, const persist_device *d,
                           persist_occupancy_fn occ, void *ctx)
{
    for (int L = w->levels; L >= 1; L--) {
        c->levels = L;
        persist_cache_layout(c, w);
        if (c->smem <= d->smem_block && (long)occ(c->smem, ctx) * d->sms >= c->shape.nblocks)
            return L;
    }
    c->levels = 0;
    persist_cache_layout(c, w);
    return 0;
}

/* One candidate shape of `blocks` blocks (0: as many as resident): the levels asked for, or
 * the fastest predicted. 0; -1: refused by persist_shape_make (its message); -2: forced levels
 * that do not fit (no message), fit set to the most that do. */
static int candidate(persist_cache *c, const ugrid *g, unsigned mask, const persist_work *w,
                     const persist_device *d, int threads, int blocks, int levels,
                     persist_occupancy_fn occ, void *ctx, int *fit)
{
    *c = (persist_cache){0};
    *fit = 0;
    if (persist_shape_make(&c->shape, w->cells, threads, d->sms, d->warps_sm, w->words,
                           d->smem_block, blocks, occ, ctx) != 0)
        return -1;
    if (levels != PERSIST_LEVELS_NONE) {
        if (persist_lists_count(g, c->shape.nblocks, mask, &c->hmax, &c->nhalo_all,
                                &c->nexport) != 0)
            return -1;
        *fit = levels_that_fit(c, w, d, occ, ctx);
    }
    if (levels > 0 && levels > *fit)
        return -2;
    int best = levels > 0 ? levels : 0;
    if (levels == PERSIST_LEVELS_MODEL) {
        double t = 0;
        persist_shape s0 = c->shape;
        for (int L = 0; L <= *fit; L++) {
            c->levels = L;
            persist_cache_layout(c, w);
            c->shape.per_sm = c->smem != s0.smem ? occ(c->smem, ctx) : s0.per_sm;
            persist_predict(c, w, d);
            if (L == 0 || c->persist_s < t) {
                t = c->persist_s;
                best = L;
            }
        }
        c->shape = s0;
    }
    c->levels = best;
    persist_cache_layout(c, w);
    if (c->smem != c->shape.smem)
        c->shape.per_sm = occ(c->smem, ctx);
    c->shape.smem = c->smem;
    persist_predict(c, w, d);
    return 0;
}

int persist_model_plan(persist_cache *c, const ugrid *g, unsigned mask, const persist_work *w,
                       const persist_device *d, int threads, int blocks, int levels,
                       persist_occupancy_fn occ, void *ctx)
{
    if (levels > 0 && levels > w->levels) {
        perr("persistent run: %d cached levels asked for; the stencil computes %d", levels,
             w->levels);
        return -1;
    }
    persist_cache k;
    int fit = 0, rc = candidate(&k, g, mask, w, d, threads, blocks, levels, occ, ctx, &fit);
    if (rc == -1)
        return -1;
    int ok = rc == 0, most = fit, first = k.shape.nblocks;
    if (ok)
        *c = k;
    /* fewer blocks per SM: larger blocks, smaller halos in all, more levels on chip */
    for (int per = blocks > 0 ? 0 : occ(0, ctx) / 2; per >= 1; per /= 2) {
        if (per * d->sms >= first)
            continue;
        /* fewer blocks than resident: refused only where their offsets no longer fit */
        long m = (w->cells + (long)per * d->sms - 1) / ((long)per * d->sms);
        size_t os = (size_t)m * (size_t)w->words * sizeof(int32_t);
        if (os > d->smem_block || occ(os, ctx) < per)
            continue;
        rc = candidate(&k, g, mask, w, d, threads, per * d->sms, levels, occ, ctx, &fit);
        most = fit > most ? fit : most;
        if (rc == 0 && (!ok || k.persist_s < c->persist_s)) {
            *c = k;
            ok = 1;
        }
    }
    if (!ok) {
        perr("persistent run: %d cached levels do not fit: with every block resident at most %d "
             "do (%zu bytes of shared memory per SM, %zu per block; a level takes twice a "
             "block's cells plus its halo)", levels, most, d->smem_sm, d->smem_block);
        return -1;
    }
    return 0;
}

double persist_graph_reads(const ell_table *e, int c0, int n)
{
    double sum = 0;
    for (int c = c0; c < c0 + n; c++) {
        int d = e->deg[c];
        sum += d;
        for (int k = 0; k < d; k++)
            sum += 1 + e->deg[e->nb[(long)k * e->nxy + c]];
    }
    return n > 0 ? sum / n : 0;
}

void persist_cache_describe(const persist_cache *c, char *buf, size_t n)
{
    char what[160];
    if (c->levels == 0)
        snprintf(what, sizeof what, "no level cached (the state streamed every step)");
    else
        snprintf(what, sizeof what, "%d level%s cached (the lowest), %.3f GB less DRAM traffic a "
                 "step", c->levels, c->levels == 1 ? "" : "s", c->saved / 1e9);
    snprintf(buf, n, "%s; predicted %.1f us a step (%d warps an SM cover %.1f us of waits) against "
             "%.1f us for the host loop (%.2fx)", what, c->persist_s * 1e6,
             persist_warps(&c->shape), c->cover_s * 1e6, c->host_s * 1e6,
             c->host_s / c->persist_s);
    size_t len = strlen(buf);
    if (c->graph_lists && len < n)
        snprintf(buf + len, n - len, "; neighbour lists %s",
                 c->graph_lists == PERSIST_LISTS_SHARED
                     ? "of each block's cells in shared memory, their neighbours' from the table"
                     : "read from the table where the body uses them");
}
