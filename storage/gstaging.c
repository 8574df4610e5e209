/* gstaging.c — per-block halo lists of the graph stencils (gstaging.h). */
#include "gstaging.h"

#include "../base/common.h"

#include <stdlib.h>
#include <string.h>

static int cmp_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Adds cell q to the block's halo unless it is already there or one of its own cells. */
static void add_halo(int q, int c0, int c1, int32_t *slot, int32_t *list, int *nh)
{
    if ((q >= c0 && q < c1) || slot[q] >= 0)
        return;
    slot[q] = 0; /* seen; the slot follows once the list is sorted */
    list[(*nh)++] = q;
}

void gstaging_build(staging *s, const ugrid *g, int B, int radius)
{
    memset(s, 0, sizeof *s);
    const int D = g->adjw, w = (1 + D) * (1 + D), n = g->nxy - g->nhalo;
    s->B = B;
    s->n = n;
    s->nblocks = (n + B - 1) / B;
    s->start = xalloc(sizeof(int32_t) * (size_t)(s->nblocks + 1));
    s->loc = xalloc(sizeof(int32_t) * (size_t)w * (size_t)(n > 0 ? n : 1));
    int32_t *slot = xalloc(sizeof(int32_t) * (size_t)g->nxy);
    for (int c = 0; c < g->nxy; c++)
        slot[c] = -1;
    size_t cap = 1024, used = 0;
    int32_t *cells = xalloc(sizeof(int32_t) * cap);
    int32_t *list = xalloc(sizeof(int32_t) * (size_t)g->nxy);
    for (int b = 0; b < s->nblocks; b++) {
        const int c0 = g->nhalo + b * B, c1 = c0 + B < g->nxy ? c0 + B : g->nxy;
        int nh = 0;
        for (int c = c0; c < c1; c++)
            for (int k = 0, d = ugrid_deg(g, c); k < d; k++) {
                int q = ugrid_nb(g, c, k);
                add_halo(q, c0, c1, slot, list, &nh);
                for (int i = 0, dq = radius >= 2 ? ugrid_deg(g, q) : 0; i < dq; i++)
                    add_halo(ugrid_nb(g, q, i), c0, c1, slot, list, &nh);
            }
        qsort(list, (size_t)nh, sizeof(int32_t), cmp_int32);
        for (int h = 0; h < nh; h++)
            slot[list[h]] = B + h;
        for (int c = c0; c < c1; c++)
            slot[c] = c - c0;
        for (int c = c0; c < c1; c++) {
            const int j = c - g->nhalo, d = ugrid_deg(g, c);
            int32_t *row = s->loc;
            for (int e = 0; e < w; e++)
                row[(size_t)e * n + j] = 0;
            row[j] = d;
            for (int k = 0; k < d; k++) {
                int q = ugrid_nb(g, c, k);
                row[(size_t)(1 + k) * n + j] = slot[q];
                if (radius < 2)
                    continue;
                int dq = ugrid_deg(g, q), e0 = (1 + k) * (1 + D);
                row[(size_t)e0 * n + j] = dq;
                for (int i = 0; i < dq; i++)
                    row[(size_t)(e0 + 1 + i) * n + j] = slot[ugrid_nb(g, q, i)];
            }
        }
        if (nh > s->hmax)
            s->hmax = nh;
        s->start[b] = (int32_t)used;
        if (used + (size_t)nh > cap) {
            while (used + (size_t)nh > cap)
                cap *= 2;
            int32_t *nc = xalloc(sizeof(int32_t) * cap);
            memcpy(nc, cells, sizeof(int32_t) * used);
            xfree(cells);
            cells = nc;
        }
        memcpy(cells + used, list, sizeof(int32_t) * (size_t)nh);
        used += (size_t)nh;
        for (int h = 0; h < nh; h++)
            slot[list[h]] = -1;
        for (int c = c0; c < c1; c++)
            slot[c] = -1;
    }
    s->start[s->nblocks] = (int32_t)used;
    s->cells = cells;
    s->ncells = used;
    xfree(slot);
    xfree(list);
}
