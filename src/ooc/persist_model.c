/* persist_model.c — cached levels, block shape and predicted times of a persistent run
 * (src/ooc/persist_model.h). */
#include "persist_model.h"

#include "persist_lists.h"

#include <stdio.h>

static size_t align16(size_t b) { return (b + 15) / 16 * 16; }

void persist_cache_layout(persist_cache *c, const persist_work *w)
{
    const int words = w->words, elem = w->elem;
    const persist_shape *s = &c->shape;
    size_t M = (size_t)s->max_cells;
    c->slots_shared = c->levels > 0 && s->max_cells > s->threads;
    c->state_at = 0;
    c->offs_at = align16((size_t)c->levels * (2 * M + (size_t)c->hmax) * (size_t)elem);
    /* offsets only where levels are streamed */
    size_t offs = s->where == PERSIST_OFFSETS_SHARED && c->levels < w->levels
                      ? (size_t)words * M * sizeof(int32_t) : 0;
    c->slots_at = align16(c->offs_at + offs);
    size_t slots = c->slots_shared ? (size_t)(words + 1) * M * sizeof(int32_t) : 0;
    c->smem = slots ? c->slots_at + slots : c->offs_at + offs;
}

void persist_predict(persist_cache *c, const persist_work *w, const persist_device *d)
{
    double es = (double)w->elem, pts = (double)w->cells * w->levels;
    double cyc = d->clock_hz * d->sms;
    /* a warp's load of 32 values takes ceil(32 * elem / 128) wavefronts: per point, elem / 4
     * of a wavefront's 1/32 */
    double per_load = (32.0 * es / PERSIST_LSU_BYTES_PER_CLK) / 32.0;
    double loads = (double)(w->words + 1 + w->extra_in);
    double lsu = pts * loads * per_load / cyc;
    double stream = (double)(2 + w->extra_in) * es; /* state in and out, inputs at the cell */
    double host_dram = pts * stream / d->dram_bps;
    c->host_s = (host_dram > lsu ? host_dram : lsu) + PERSIST_T_LAUNCH_S;
    double L = c->levels, Z = w->levels;
    double bytes = (Z - L) * (double)w->cells * stream +
                   L * ((double)c->nhalo_all + (double)c->nexport + (double)w->cells * w->extra_in) * es;
    c->saved = pts * stream - bytes;
    double dram = bytes / d->dram_bps;
    double lsu_p = lsu + L * (double)c->nhalo_all * per_load / cyc; /* halo into shared memory */
    double imbalance = (double)c->shape.max_cells * c->shape.nblocks / (double)w->cells;
    c->persist_s = imbalance * (dram > lsu_p ? dram : lsu_p) + PERSIST_T_BARRIER_S;
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
    if (persist_shape_make(&c->shape, w->cells, threads, d->sms, w->words, d->smem_block, blocks,
                           occ, ctx) != 0)
        return -1;
    if (levels != PERSIST_LEVELS_NONE) {
        if (persist_lists_count(g, c->shape.nblocks, mask, &c->hmax, &c->nhalo_all,
                                &c->nexport) != 0)
            return -1;
        *fit = levels_that_fit(c, w, d, occ, ctx);
        if (c->shape.where == PERSIST_OFFSETS_SHARED) {
            /* the offsets' shared memory may hold more levels: offsets looked up every step */
            persist_cache k = *c;
            k.shape.where = PERSIST_OFFSETS_GLOBAL;
            int more = levels_that_fit(&k, w, d, occ, ctx);
            int need = levels > 0 ? levels : w->levels;
            if (more > *fit && *fit < need) {
                *c = k;
                *fit = more;
            }
        }
    }
    if (levels > 0 && levels > *fit)
        return -2;
    int best = levels > 0 ? levels : 0;
    if (levels == PERSIST_LEVELS_MODEL) {
        double t = 0;
        for (int L = 0; L <= *fit; L++) {
            c->levels = L;
            persist_cache_layout(c, w);
            persist_predict(c, w, d);
            if (L == 0 || c->persist_s < t) {
                t = c->persist_s;
                best = L;
            }
        }
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
        /* fewer blocks than resident, on fewer cells each than the first: no refusal */
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

void persist_cache_describe(const persist_cache *c, char *buf, size_t n)
{
    char what[160];
    if (c->levels == 0)
        snprintf(what, sizeof what, "no level cached (the state streamed every step)");
    else
        snprintf(what, sizeof what, "%d level%s cached (the lowest; slots in %s), %.3f GB less "
                 "DRAM traffic a step", c->levels, c->levels == 1 ? "" : "s",
                 c->slots_shared ? "shared memory" : "registers", c->saved / 1e9);
    snprintf(buf, n, "%s; predicted %.1f us a step against %.1f us for the host loop (%.2fx)",
             what, c->persist_s * 1e6, c->host_s * 1e6, c->host_s / c->persist_s);
}
