/* gtwopass.c — per-block lists of the graph two-pass strategy (gtwopass.h). */
#include "gtwopass.h"

#include "../base/common.h"

#include <stdlib.h>
#include <string.h>

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Growable list of int32. */
typedef struct {
    int32_t *v;
    size_t n, cap;
} ilist;

static void ilist_push(ilist *l, int32_t x)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 1024;
        l->v = xgrow(l->v, sizeof(int32_t) * l->n, sizeof(int32_t) * cap);
        l->cap = cap;
    }
    l->v[l->n++] = x;
}

/* Closes a block of own cells cells[0 .. nown) (ascending), whose slots start at own position
 * pos0 (slot[r*n + pos0 + e] for own entry e): appends its entries (own cells, then the ring
 * ascending) to ents, fills the slot rows of its own cells. where[] maps a cell of the block to
 * its entry while the block is closed (-1 otherwise); ring holds nt cells. */
static void close_block(gtwopass *s, const ugrid *g, const int32_t *cells, int nown, int pos0,
                        ilist *ents, int32_t *where, int32_t *ring)
{
    int nring = 0;
    for (int e = 0; e < nown; e++) {
        ilist_push(ents, cells[e]);
        where[cells[e]] = e;
    }
    if (s->radius >= 2) {
        for (int e = 0; e < nown; e++)
            for (int k = 0, c = cells[e], d = ugrid_deg(g, c); k < d; k++) {
                int q = ugrid_nb(g, c, k);
                if (where[q] < 0) {
                    where[q] = 0x7fffffff; /* in the ring; its entry once sorted */
                    ring[nring++] = q;
                }
            }
        qsort(ring, (size_t)nring, sizeof(int32_t), cmp_i32);
        for (int h = 0; h < nring; h++) {
            where[ring[h]] = nown + h;
            ilist_push(ents, ring[h]);
        }
        for (int e = 0; e < nown; e++) {
            const int c = cells[e];
            for (int k = 0, d = ugrid_deg(g, c); k < d; k++) {
                uint32_t w_ = (uint32_t)where[ugrid_nb(g, c, k)];
                uint32_t *w = (uint32_t *)&s->slot[(size_t)(k / 2) * s->n + (size_t)(pos0 + e)];
                *w |= (k & 1) ? w_ << 16 : w_;
            }
        }
        for (int h = 0; h < nring; h++)
            where[ring[h]] = -1;
    }
    for (int e = 0; e < nown; e++)
        where[cells[e]] = -1;
    s->nblocks++;
    if (nown + nring > s->emax)
        s->emax = nown + nring;
}

int gtwopass_build(gtwopass *s, const ugrid *g, int nt, int radius)
{
    return gtwopass_build_cut(s, g, nt, radius, NULL, 0);
}

/* What the two builders share while they cut blocks. */
typedef struct {
    int32_t *stamp; /* 1 + the block that holds q (own cell or ring) */
    int32_t *where; /* close_block's map, -1 between blocks */
    int32_t *ring;  /* nt + 1 cells */
    ilist ents, starts, owns, firsts;
    int pos;        /* own cells of the blocks closed so far */
} builder;

/* Starts s and b for blocks of nt threads on g; -1 with a message when nt is out of range. */
static int builder_open(builder *b, gtwopass *s, const ugrid *g, int nt, int radius)
{
    memset(s, 0, sizeof *s);
    memset(b, 0, sizeof *b);
    if (nt < 32 || nt > 65535) {
        perr("graph-twopass: blocks of %d threads; it takes 32 to 65535", nt);
        return -1;
    }
    const int D = g->adjw, n = g->nxy - g->nhalo;
    s->nt = nt;
    s->D = D;
    s->radius = radius >= 2 ? 2 : 1;
    s->n = n;
    s->slot = xalloc(sizeof(int32_t) * (size_t)gtwopass_slot_rows(D) * (size_t)(n > 0 ? n : 1));
    b->stamp = xalloc(sizeof(int32_t) * (size_t)g->nxy);
    b->where = xalloc(sizeof(int32_t) * (size_t)g->nxy);
    b->ring = xalloc(sizeof(int32_t) * ((size_t)nt + 1));
    for (int c = 0; c < g->nxy; c++)
        b->where[c] = -1;
    return 0;
}

/* Closes the block of own cells cells[0 .. nown) (ascending) into b's lists. */
static void builder_block(builder *b, gtwopass *s, const ugrid *g, const int32_t *cells, int nown)
{
    ilist_push(&b->starts, (int32_t)b->ents.n);
    ilist_push(&b->owns, nown);
    ilist_push(&b->firsts, g->nhalo + b->pos);
    close_block(s, g, cells, nown, b->pos, &b->ents, b->where, b->ring);
    b->pos += nown;
}

/* The "held" count of adding cell c to the block `run` (itself and, radius 2, its neighbours
 * not yet held). */
static int builder_add(const builder *b, const gtwopass *s, const ugrid *g, int c, int run)
{
    int add = b->stamp[c] != run;
    if (s->radius >= 2)
        for (int k = 0, d = ugrid_deg(g, c); k < d; k++)
            add += b->stamp[ugrid_nb(g, c, k)] != run;
    return add;
}

static void builder_hold(builder *b, const gtwopass *s, const ugrid *g, int c, int run)
{
    b->stamp[c] = run;
    if (s->radius >= 2)
        for (int k = 0, d = ugrid_deg(g, c); k < d; k++)
            b->stamp[ugrid_nb(g, c, k)] = run;
}

/* Frees b's scratch; ok: moves its lists into s (returns 0), else clears s (returns -1). */
static int builder_close(builder *b, gtwopass *s, const ugrid *g, int ok)
{
    xfree(b->stamp);
    xfree(b->where);
    xfree(b->ring);
    if (ok) {
        const int nb = s->nblocks, D = s->D;
        s->blk = xalloc(sizeof(int32_t) * (3 * (size_t)nb + 1));
        for (int k = 0; k < nb; k++) {
            s->blk[k] = b->starts.v[k];
            s->blk[nb + 1 + k] = b->owns.v[k];
            s->blk[2 * nb + 1 + k] = b->firsts.v[k];
        }
        s->blk[nb] = (int32_t)b->ents.n;
        s->nent = b->ents.n;
        const size_t ne = b->ents.n > 0 ? b->ents.n : 1;
        s->ent = xalloc(sizeof(int32_t) * (size_t)(2 + D) * ne);
        for (size_t i = 0; i < b->ents.n; i++) {
            const int q = b->ents.v[i], d = ugrid_deg(g, q);
            s->ent[i] = q;
            s->ent[ne + i] = d;
            for (int j = 0; j < d; j++)
                s->ent[(size_t)(2 + j) * ne + i] = ugrid_nb(g, q, j) - q;
        }
    }
    xfree(b->ents.v);
    xfree(b->starts.v);
    xfree(b->owns.v);
    xfree(b->firsts.v);
    if (!ok) {
        xfree(s->slot);
        memset(s, 0, sizeof *s);
        return -1;
    }
    return 0;
}

static void too_big(const ugrid *g, int c, int nt)
{
    perr("graph-twopass: cell %d with its %d neighbours does not fit a block of %d threads", c,
         ugrid_deg(g, c), nt);
}

int gtwopass_build_cut(gtwopass *s, const ugrid *g, int nt, int radius, const int *cuts,
                       int ncuts)
{
    builder b;
    if (builder_open(&b, s, g, nt, radius) != 0)
        return -1;
    int32_t *cells = xalloc(sizeof(int32_t) * ((size_t)nt + 1)); /* the run being grown */
    int c0 = g->nhalo, run = 1, cut = 0, held = 0, ok = 1;
    for (int c = g->nhalo; c < g->nxy && ok; c++) {
        int add = builder_add(&b, s, g, c, run), at_cut = 0;
        while (cut < ncuts && cuts[cut] <= c)
            at_cut |= cuts[cut++] == c;
        if ((held + add > nt || at_cut) && c > c0) { /* close the run [c0, c), start one at c */
            builder_block(&b, s, g, cells, c - c0);
            c0 = c;
            held = 0;
            run++;
            add = builder_add(&b, s, g, c, run);
        }
        if (add > nt) {
            too_big(g, c, nt);
            ok = 0;
            break;
        }
        cells[c - c0] = c;
        held += add;
        builder_hold(&b, s, g, c, run);
    }
    if (ok && g->nxy > c0)
        builder_block(&b, s, g, cells, g->nxy - c0);
    xfree(cells);
    return builder_close(&b, s, g, ok);
}

int gtwopass_build_balls(gtwopass *s, const ugrid *g, int nt, int radius)
{
    if (radius < 2) /* no ring to save: runs of nt cells */
        return gtwopass_build_cut(s, g, nt, radius, NULL, 0);
    builder b;
    if (builder_open(&b, s, g, nt, radius) != 0)
        return -1;
    s->balls = 1;
    unsigned char *taken = xalloc((size_t)g->nxy);          /* own cell of a block already */
    int32_t *seen = xalloc(sizeof(int32_t) * (size_t)g->nxy); /* 1 + the ball that queued q */
    int32_t *queue = xalloc(sizeof(int32_t) * (size_t)g->nxy);
    int32_t *cells = xalloc(sizeof(int32_t) * ((size_t)nt + 1));
    int seed = g->nhalo, run = 0, ok = 1;
    while (ok) {
        while (seed < g->nxy && taken[seed])
            seed++;
        if (seed >= g->nxy)
            break;
        run++;
        int qh = 0, qt = 0, held = 0, nown = 0, from = seed;
        queue[qt++] = seed;
        seen[seed] = run;
        while (qh < qt) { /* breadth first from the seed; a cell that does not fit is skipped */
            const int c = queue[qh++], add = builder_add(&b, s, g, c, run);
            if (qh == qt && held + add <= nt) { /* the ball closes in: go on from the next seed */
                while (from < g->nxy && (taken[from] || seen[from] == run || from == c))
                    from++;
                if (from < g->nxy) {
                    seen[from] = run;
                    queue[qt++] = from;
                }
            }
            if (held + add > nt) {
                if (nown == 0) {
                    too_big(g, c, nt);
                    ok = 0;
                }
                if (!ok)
                    break;
                continue;
            }
            held += add;
            builder_hold(&b, s, g, c, run);
            taken[c] = 1;
            cells[nown++] = c;
            for (int k = 0, d = ugrid_deg(g, c); k < d; k++) {
                const int q = ugrid_nb(g, c, k);
                if (q >= g->nhalo && !taken[q] && seen[q] != run) {
                    seen[q] = run;
                    queue[qt++] = q;
                }
            }
        }
        if (!ok)
            break;
        qsort(cells, (size_t)nown, sizeof(int32_t), cmp_i32);
        builder_block(&b, s, g, cells, nown);
    }
    xfree(taken);
    xfree(seen);
    xfree(queue);
    xfree(cells);
    return builder_close(&b, s, g, ok);
}

void gtwopass_free(gtwopass *s)
{
    xfree(s->blk);
    xfree(s->ent);
    xfree(s->slot);
    memset(s, 0, sizeof *s);
}

size_t gtwopass_words(const gtwopass *s)
{
    return 3 * (size_t)s->nblocks + 1 + (size_t)(2 + s->D) * (s->nent > 0 ? s->nent : 1) +
           (size_t)gtwopass_slot_rows(s->D) * (size_t)(s->n > 0 ? s->n : 1);
}

int gtwopass_block_of(const gtwopass *s, int c)
{
    const int32_t *cell0 = s->blk + 2 * (size_t)s->nblocks + 1;
    int lo = 0, hi = s->nblocks; /* the first block whose first cell is >= c */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (cell0[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

double gtwopass_ratio(const gtwopass *s) { return s->n > 0 ? (double)s->nent / s->n : 0; }
