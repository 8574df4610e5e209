/* staging.c — building per-block halo lists (see staging.h). */
#include "staging.h"

#include "../base/common.h"

#include <stdlib.h>
#include <string.h>

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

void staging_build(staging *s, const ugrid *g, int B, unsigned mask)
{
    memset(s, 0, sizeof *s);
    int c0 = g->nhalo, n = g->nxy - g->nhalo;
    s->B = B;
    s->n = n;
    s->nblocks = (n + B - 1) / B;
    s->start = xalloc(sizeof(int32_t) * (size_t)(s->nblocks + 1));
    s->loc = xalloc(sizeof(int32_t) * (size_t)NREL2 * (size_t)(n > 0 ? n : 1));
    size_t cap = 1024;
    s->cells = xalloc(sizeof(int32_t) * cap);
    int *halo = xalloc(sizeof(int) * (size_t)B * NREL2);
    for (int b = 0; b < s->nblocks; b++) {
        int first = c0 + b * B, last = first + B < c0 + n ? first + B : c0 + n;
        int h = 0;
        for (int c = first; c < last; c++)
            for (int r = 0; r < NREL2; r++) {
                if (!((mask >> r) & 1u))
                    continue;
                int d = ugrid_follow(g, c, r);
                if (d >= 0 && (d < first || d >= last))
                    halo[h++] = d;
            }
        qsort(halo, (size_t)h, sizeof(int), cmp_int);
        int u = 0;
        for (int k = 0; k < h; k++)
            if (u == 0 || halo[k] != halo[u - 1])
                halo[u++] = halo[k];
        if (u > s->hmax)
            s->hmax = u;
        s->start[b] = (int32_t)s->ncells;
        if (s->ncells + (size_t)u > cap) {
            while (s->ncells + (size_t)u > cap)
                cap *= 2;
            s->cells = xgrow(s->cells, sizeof(int32_t) * s->ncells, sizeof(int32_t) * cap);
        }
        for (int k = 0; k < u; k++)
            s->cells[s->ncells + (size_t)k] = halo[k];
        for (int c = first; c < last; c++)
            for (int r = 0; r < NREL2; r++) {
                int slot = 0;
                if ((mask >> r) & 1u) {
                    int d = ugrid_follow(g, c, r);
                    if (d >= first && d < last)
                        slot = d - first;
                    else if (d >= 0)
                        slot = B + (int)((int *)bsearch(&d, halo, (size_t)u, sizeof(int), cmp_int) - halo);
                }
                s->loc[(size_t)r * n + (c - c0)] = slot;
            }
        s->ncells += (size_t)u;
    }
    s->start[s->nblocks] = (int32_t)s->ncells;
    xfree(halo);
}

void staging_free(staging *s)
{
    xfree(s->start);
    xfree(s->cells);
    xfree(s->loc);
    memset(s, 0, sizeof *s);
}
