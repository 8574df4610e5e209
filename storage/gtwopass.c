/* gtwopass.c — per-block lists of the graph two-pass strategy (gtwopass.h). */
#include "gtwopass.h"

#include "../base/common.h"
#include "../base/ilist.h"

#include <stdlib.h>
#include <string.h>

/* Closes the block of own cells [c0, c1): appends its entries (own cells, then the ring
 * ascending) to ents, fills the slot rows of its own cells. where[] maps a ring cell to its
 * entry while the block is closed (-1 otherwise); ring holds nt cells. */
static void close_block(gtwopass *s, const ugrid *g, int c0, int c1, ilist *ents, int32_t *where,
                        int32_t *ring)
{
    int nring = 0;
    for (int c = c0; c < c1; c++)
        ilist_push(ents, c);
    if (s->radius >= 2) {
        for (int c = c0; c < c1; c++)
            for (int k = 0, d = ugrid_deg(g, c); k < d; k++) {
                int q = ugrid_nb(g, c, k);
                if ((q < c0 || q >= c1) && where[q] < 0) {
                    where[q] = 0;
                    ring[nring++] = q;
                }
            }
        qsort(ring, (size_t)nring, sizeof(int32_t), cmp_i32);
        for (int h = 0; h < nring; h++) {
            where[ring[h]] = (c1 - c0) + h;
            ilist_push(ents, ring[h]);
        }
        for (int c = c0; c < c1; c++) {
            const int j = c - g->nhalo;
            for (int k = 0, d = ugrid_deg(g, c); k < d; k++) {
                int q = ugrid_nb(g, c, k);
                uint32_t e = (uint32_t)(q >= c0 && q < c1 ? q - c0 : where[q]);
                uint32_t *w = (uint32_t *)&s->slot[(size_t)(k / 2) * s->n + j];
                *w |= (k & 1) ? e << 16 : e;
            }
        }
        for (int h = 0; h < nring; h++)
            where[ring[h]] = -1;
    }
    s->nblocks++;
    if (c1 - c0 + nring > s->emax)
        s->emax = c1 - c0 + nring;
}

int gtwopass_build(gtwopass *s, const ugrid *g, int nt, int radius)
{
    return gtwopass_build_cut(s, g, nt, radius, NULL, 0);
}

int gtwopass_build_cut(gtwopass *s, const ugrid *g, int nt, int radius, const int *cuts,
                       int ncuts)
{
    memset(s, 0, sizeof *s);
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
    int32_t *stamp = xalloc(sizeof(int32_t) * (size_t)g->nxy); /* 1 + the run that holds q */
    int32_t *where = xalloc(sizeof(int32_t) * (size_t)g->nxy);
    int32_t *ring = xalloc(sizeof(int32_t) * ((size_t)nt + 1));
    for (int c = 0; c < g->nxy; c++)
        where[c] = -1;
    ilist ents = {0}, starts = {0}, owns = {0}, firsts = {0};
    int c0 = g->nhalo, held = 0, run = 1, cut = 0;
    for (int c = g->nhalo; c < g->nxy; c++) {
        int add = stamp[c] != run, at_cut = 0;
        while (cut < ncuts && cuts[cut] <= c)
            at_cut |= cuts[cut++] == c;
        if (s->radius >= 2)
            for (int k = 0, d = ugrid_deg(g, c); k < d; k++)
                add += stamp[ugrid_nb(g, c, k)] != run;
        if ((held + add > nt || at_cut) && c > c0) { /* close the run [c0, c), start one at c */
            ilist_push(&starts, (int32_t)ents.n);
            ilist_push(&owns, c - c0);
            ilist_push(&firsts, c0);
            close_block(s, g, c0, c, &ents, where, ring);
            c0 = c;
            held = 0;
            run++;
            add = 1;
            if (s->radius >= 2)
                add += ugrid_deg(g, c);
        }
        if (add > nt) {
            perr("graph-twopass: cell %d with its %d neighbours does not fit a block of %d threads",
                 c, ugrid_deg(g, c), nt);
            xfree(stamp), xfree(where), xfree(ring), xfree(ents.v), xfree(starts.v);
            xfree(owns.v), xfree(firsts.v), xfree(s->slot);
            memset(s, 0, sizeof *s);
            return -1;
        }
        held += add;
        stamp[c] = run;
        if (s->radius >= 2)
            for (int k = 0, d = ugrid_deg(g, c); k < d; k++)
                stamp[ugrid_nb(g, c, k)] = run;
    }
    if (g->nxy > c0) {
        ilist_push(&starts, (int32_t)ents.n);
        ilist_push(&owns, g->nxy - c0);
        ilist_push(&firsts, c0);
        close_block(s, g, c0, g->nxy, &ents, where, ring);
    }
    const int nb = s->nblocks;
    s->blk = xalloc(sizeof(int32_t) * (3 * (size_t)nb + 1));
    for (int b = 0; b < nb; b++) {
        s->blk[b] = starts.v[b];
        s->blk[nb + 1 + b] = owns.v[b];
        s->blk[2 * nb + 1 + b] = firsts.v[b];
    }
    s->blk[nb] = (int32_t)ents.n;
    s->nent = ents.n;
    const size_t ne = ents.n > 0 ? ents.n : 1;
    s->ent = xalloc(sizeof(int32_t) * (size_t)(2 + D) * ne);
    for (size_t i = 0; i < ents.n; i++) {
        const int q = ents.v[i], d = ugrid_deg(g, q);
        s->ent[i] = q;
        s->ent[ne + i] = d;
        for (int j = 0; j < d; j++)
            s->ent[(size_t)(2 + j) * ne + i] = ugrid_nb(g, q, j) - q;
    }
    xfree(stamp);
    xfree(where);
    xfree(ring);
    xfree(ents.v);
    xfree(starts.v);
    xfree(owns.v);
    xfree(firsts.v);
    return 0;
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

int gtwopass_block_start(const gtwopass *s, int b)
{
    const int32_t *own = s->blk + (size_t)s->nblocks + 1, *cell0 = own + s->nblocks;
    if (s->nblocks <= 0 || b < 0 || b > s->nblocks)
        return -1;
    return b < s->nblocks ? cell0[b] : cell0[s->nblocks - 1] + own[s->nblocks - 1];
}

double gtwopass_ratio(const gtwopass *s) { return s->n > 0 ? (double)s->nent / s->n : 0; }
