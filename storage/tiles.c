/* tiles.c — the balls of blocks for K-step kernels (storage/tiles.h). */
#include "tiles.h"

#include "../base/common.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int32_t *cell;
    uint16_t *nb;
    size_t n, cap;
} entries;

static void entries_push(entries *e, int32_t c, int width)
{
    if (e->n == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 4096, w = (size_t)width;
        e->cell = xgrow(e->cell, sizeof(int32_t) * e->n, sizeof(int32_t) * cap);
        e->nb = xgrow(e->nb, sizeof(uint16_t) * w * e->n, sizeof(uint16_t) * w * cap);
        e->cap = cap;
    }
    e->cell[e->n++] = c;
}

/* The ball of a block of n cells own[], appended to e: own cells, then layer by layer; slot_of
 * is -1 everywhere on entry and on return. Returns the ball's size, or -1 if it is too large. */
/* Neighbour r of cell c: relation r (W, E, S, N), or with t->graph entry r of the grid's list
 * (g->adj); -1 for none. Neighbours per cell: nbr_count. */
static int nbr_at(const tiles *t, const ugrid *g, int c, int r)
{
    const int *a = t->graph ? g->adj : g->nbr;
    return a[(size_t)r * (size_t)g->nxy + (size_t)c];
}
static int nbr_count(const tiles *t, const ugrid *g) { return t->graph ? g->adjw : NREL1; }

static int ball_of_block(const tiles *t, const ugrid *g, const int *own, int n, entries *e,
                         int *slot_of, int32_t *layer)
{
    size_t e0 = e->n, w = (size_t)t->width;
    const int nr = nbr_count(t, g);
    for (int j = 0; j < n; j++) {
        slot_of[own[j]] = (int)(e->n - e0);
        entries_push(e, own[j], t->width);
    }
    layer[0] = n;
    size_t from = e0;
    for (int d = 1; d <= t->depth; d++) {
        size_t to = e->n;
        for (size_t i = from; i < to; i++)
            for (int r = 0; r < nr; r++) {
                int v = nbr_at(t, g, e->cell[i], r);
                if (v >= 0 && slot_of[v] < 0) {
                    slot_of[v] = (int)(e->n - e0);
                    entries_push(e, v, t->width);
                }
            }
        from = to;
        layer[d] = (int32_t)(e->n - e0);
    }
    int size = (int)(e->n - e0);
    for (size_t i = e0; i < e->n; i++) {
        uint16_t *row = e->nb + w * i;
        int deg = 0;
        for (int r = 0; r < nr; r++) {
            int v = nbr_at(t, g, e->cell[i], r);
            int s = v >= 0 ? slot_of[v] : -1;
            deg += v >= 0 && deg == r; /* the list's length: up to its first gap (ugrid_deg) */
            row[t->graph + r] = (uint16_t)(s >= 0 ? s : (int)(i - e0));
        }
        for (int r = t->graph + nr; r < t->width; r++) /* padding */
            row[r] = (uint16_t)(i - e0);
        if (t->graph)
            row[0] = (uint16_t)deg;
    }
    for (size_t i = e0; i < e->n; i++)
        slot_of[e->cell[i]] = -1;
    return size > TILES_MAX_BALL ? -1 : size;
}

/* Relation r (W, E, S, N) of cell c in g; -1 for none, and for c = -1. */
static int nbr_of(const ugrid *g, int c, int r)
{
    return c < 0 ? -1 : g->nbr[(size_t)r * (size_t)g->nxy + (size_t)c];
}

/* Whether block b's ball is lattice-like (tiles.h), checked on the grid's relations around every
 * entry a step may update. A relation that is missing one way round and not the other (as at
 * the inner corner of an L-shaped patch) fails the check. */
static int ball_is_lattice(const tiles *t, const ugrid *g, int b)
{
    const int32_t *cell = t->cell + t->start[b];
    const int32_t *layer = t->layer + (size_t)b * (size_t)(t->depth + 1);
    /* step i of k <= K updates layers <= radius·(k-i) <= radius·(K-1) = depth - radius */
    int updated = layer[t->depth - t->depth / t->K];
    for (int e = 0; e < updated; e++) {
        int c = cell[e];
        if (c < t->base)
            continue;
        int w = nbr_of(g, c, R_W), ea = nbr_of(g, c, R_E), s = nbr_of(g, c, R_S);
        int n = nbr_of(g, c, R_N);
        if (nbr_of(g, w, R_E) != c || nbr_of(g, ea, R_W) != c || nbr_of(g, s, R_N) != c ||
            nbr_of(g, n, R_S) != c || nbr_of(g, s, R_W) != nbr_of(g, w, R_S) ||
            nbr_of(g, s, R_E) != nbr_of(g, ea, R_S) || nbr_of(g, n, R_W) != nbr_of(g, w, R_N) ||
            nbr_of(g, n, R_E) != nbr_of(g, ea, R_N))
            return 0;
    }
    return 1;
}

static const int *sort_key; /* for by_key: qsort has no context argument in C11 */

static int by_key(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int kx = sort_key ? sort_key[x] : x, ky = sort_key ? sort_key[y] : y;
    return kx != ky ? (kx > ky) - (kx < ky) : (x > y) - (x < y);
}

typedef struct {
    int max, first; /* a block's largest cell, its first position in the sorted cells */
} block_span;

static int by_max(const void *a, const void *b)
{
    const block_span *x = a, *y = b;
    return x->max != y->max ? (x->max > y->max) - (x->max < y->max) : x->first - y->first;
}

/* The cells [from, nxy) in blocks of B by key, the blocks by their largest cell: cells of block
 * b at *own + span[b].first. */
static block_span *cut_blocks(const tiles *t, const int *key, int **own)
{
    int n = t->ncells - t->from;
    int *c = xalloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++)
        c[i] = t->from + i;
    sort_key = key;
    if (key)
        qsort(c, (size_t)n, sizeof(int), by_key);
    sort_key = NULL;
    block_span *span = xalloc(sizeof(block_span) * (size_t)(t->nblocks > 0 ? t->nblocks : 1));
    for (int b = 0; b < t->nblocks; b++) {
        span[b].first = b * t->B;
        span[b].max = -1;
        for (int i = b * t->B; i < n && i < (b + 1) * t->B; i++)
            span[b].max = c[i] > span[b].max ? c[i] : span[b].max;
    }
    qsort(span, (size_t)t->nblocks, sizeof(block_span), by_max);
    *own = c;
    return span;
}

/* tiles_build and tiles_build_lists: through W/E/S/N, or (graph) through the lists. */
static int build(tiles *t, const ugrid *g, int base, int from, int B, int K, int radius,
                 const int *key, int graph)
{
    memset(t, 0, sizeof *t);
    t->B = B;
    t->K = K;
    t->depth = radius * K;
    t->base = base;
    t->from = from;
    t->ncells = g->nxy;
    t->nblocks = (g->nxy - from + B - 1) / B;
    t->graph = graph;
    t->width = t->graph ? (1 + g->adjw + 1) / 2 * 2 : 4; /* even: whole 32-bit words */
    t->start = xalloc(sizeof(int32_t) * (size_t)(t->nblocks + 1));
    t->layer = xalloc(sizeof(int32_t) * (size_t)t->nblocks * (size_t)(t->depth + 1));
    t->bmax = xalloc(sizeof(int32_t) * (size_t)(t->nblocks > 0 ? t->nblocks : 1));
    int *own;
    block_span *span = cut_blocks(t, key, &own);
    int *slot_of = xalloc(sizeof(int) * (size_t)(g->nxy > 0 ? g->nxy : 1));
    for (int c = 0; c < g->nxy; c++)
        slot_of[c] = -1;
    entries e = {0};
    int rc = 0;
    t->start[0] = 0;
    t->lattice = 1;
    for (int b = 0; b < t->nblocks; b++) {
        int n = g->nxy - from - span[b].first < B ? g->nxy - from - span[b].first : B;
        t->bmax[b] = span[b].max;
        int size = ball_of_block(t, g, own + span[b].first, n, &e, slot_of,
                                 t->layer + (size_t)b * (size_t)(t->depth + 1));
        if (size < 0) {
            perr("kernel steps: the ball of block %d (%d cells and all within distance %d) has "
                 "more than %d cells; use fewer --kernel-steps or a smaller block (--threads)",
                 b, B, t->depth, TILES_MAX_BALL);
            rc = -1;
            break;
        }
        if (size > t->maxball)
            t->maxball = size;
        if (e.n > INT32_MAX) {
            perr("kernel steps: more than 2^31 ball entries; use fewer --kernel-steps");
            rc = -1;
            break;
        }
        t->start[b + 1] = (int32_t)e.n;
    }
    xfree(slot_of);
    xfree(own);
    xfree(span);
    t->cell = e.cell;
    t->nb = e.nb;
    t->nentries = e.n;
    t->lattice = !t->graph;
    for (int b = 0; b < t->nblocks && rc == 0 && t->lattice; b++)
        t->lattice = ball_is_lattice(t, g, b);
    if (rc != 0)
        tiles_free(t);
    return rc;
}

int tiles_build(tiles *t, const ugrid *g, int base, int from, int B, int K, int radius,
                const int *key)
{
    return build(t, g, base, from, B, K, radius, key, 0);
}

int tiles_build_lists(tiles *t, const ugrid *g, int base, int from, int B, int K, int radius,
                      const int *key)
{
    if (!g->adj) {
        memset(t, 0, sizeof *t);
        perr("kernel steps: a graph stencil's balls need the grid's neighbour lists");
        return -1;
    }
    return build(t, g, base, from, B, K, radius, key, 1);
}

void tiles_free(tiles *t)
{
    xfree(t->start);
    xfree(t->bmax);
    xfree(t->layer);
    xfree(t->cell);
    xfree(t->nb);
    memset(t, 0, sizeof *t);
}

size_t tiles_bytes(const tiles *t)
{
    return sizeof(int32_t) * ((size_t)t->nblocks + 1 + (size_t)t->nblocks * (size_t)(t->depth + 1) +
                              t->nentries) +
           sizeof(uint16_t) * (size_t)t->width * t->nentries;
}
