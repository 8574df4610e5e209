/* persist_lists.c — halo and export lists of the blocks of a persistent launch
 * (src/plan/persist_lists.h). */
#include "persist_lists.h"

#include "base/common.h"
#include "base/ilist.h"

#include <stdlib.h>
#include <string.h>

/* owner[j]: the block of inner cell j (0-based), from persist_range; NULL after a message. */
static int *owners(const ugrid *g, int nblocks)
{
    long n = (long)g->nxy - g->nhalo;
    if (n < 1 || nblocks < 1 || nblocks > n) {
        perr("persistent lists: %d blocks over %ld inner cells: need 1 to %ld blocks", nblocks, n,
             n);
        return NULL;
    }
    int *own = xalloc(sizeof(int) * (size_t)n);
    for (int b = 0; b < nblocks; b++) {
        long lo, hi;
        persist_range(n, nblocks, b, &lo, &hi);
        for (long j = lo; j < hi; j++)
            own[j] = b;
    }
    return own;
}

int persist_lists_count(const ugrid *g, int nblocks, unsigned mask, int *hmax, long *nhalo_all,
                        long *nexport)
{
    int *own = owners(g, nblocks);
    if (!own)
        return -1;
    long n = (long)g->nxy - g->nhalo;
    int c0 = g->nhalo;
    /* stamp[d] = 1 + the last block that counted d as its halo cell; exp[d] marks exports */
    int *stamp = xalloc(sizeof(int) * (size_t)g->nxy);
    unsigned char *exp = xalloc((size_t)g->nxy);
    *hmax = 0;
    *nhalo_all = 0;
    for (int b = 0; b < nblocks; b++) {
        long lo, hi;
        persist_range(n, nblocks, b, &lo, &hi);
        int h = 0;
        for (long j = lo; j < hi; j++)
            for (int r = 0; r < NREL2; r++) {
                if (!((mask >> r) & 1u))
                    continue;
                int d = ugrid_follow(g, c0 + (int)j, r);
                if (d < 0 || (d >= c0 + lo && d < c0 + hi) || stamp[d] == b + 1)
                    continue;
                stamp[d] = b + 1;
                h++;
                if (d >= c0)
                    exp[d] = 1;
            }
        *hmax = h > *hmax ? h : *hmax;
        *nhalo_all += h;
    }
    *nexport = 0;
    for (int d = c0; d < g->nxy; d++)
        *nexport += exp[d];
    xfree(exp);
    xfree(stamp);
    xfree(own);
    return 0;
}

int persist_lists_build(persist_lists *L, const ugrid *g, int nblocks, unsigned mask)
{
    memset(L, 0, sizeof *L);
    int *own = owners(g, nblocks);
    if (!own)
        return -1;
    long n = (long)g->nxy - g->nhalo;
    int c0 = g->nhalo;
    L->nblocks = nblocks;
    L->n = n;
    L->M = (int)((n + nblocks - 1) / nblocks);
    L->hstart = xalloc(sizeof(int32_t) * (size_t)(nblocks + 1));
    L->slots = xalloc(sizeof(int32_t) * (size_t)(1 + NREL2) * (size_t)n);
    size_t cap = 1024;
    L->halo = xalloc(sizeof(int32_t) * cap);
    int32_t *h = xalloc(sizeof(int32_t) * (size_t)L->M * NREL2);
    for (int b = 0; b < nblocks; b++) {
        long lo, hi;
        persist_range(n, nblocks, b, &lo, &hi);
        int nh = 0;
        for (long j = lo; j < hi; j++)
            for (int r = 0; r < NREL2; r++) {
                int d = (mask >> r) & 1u ? ugrid_follow(g, c0 + (int)j, r) : -1;
                if (d >= 0 && !(d >= c0 + lo && d < c0 + hi))
                    h[nh++] = d;
            }
        qsort(h, (size_t)nh, sizeof(int32_t), cmp_i32);
        int u = 0;
        for (int k = 0; k < nh; k++)
            if (u == 0 || h[k] != h[u - 1])
                h[u++] = h[k];
        L->hmax = u > L->hmax ? u : L->hmax;
        L->hstart[b] = (int32_t)L->nhalo_all;
        if ((size_t)L->nhalo_all + (size_t)u > cap) {
            size_t was = cap;
            while ((size_t)L->nhalo_all + (size_t)u > cap)
                cap *= 2;
            L->halo = xgrow(L->halo, sizeof(int32_t) * was, sizeof(int32_t) * cap);
        }
        memcpy(L->halo + L->nhalo_all, h, sizeof(int32_t) * (size_t)u);
        for (long j = lo; j < hi; j++)
            for (int r = 0; r < NREL2; r++) {
                int d = (mask >> r) & 1u ? ugrid_follow(g, c0 + (int)j, r) : -1;
                int32_t slot = 0;
                if (d >= c0 + lo && d < c0 + hi) {
                    slot = (int32_t)(d - c0 - lo);
                } else if (d >= 0) {
                    int32_t key = d;
                    const int32_t *at = bsearch(&key, h, (size_t)u, sizeof(int32_t), cmp_i32);
                    slot = L->M + (int32_t)(at - h);
                    if (d >= c0)
                        L->slots[d - c0] = 1; /* read by block b, owned by another: an export */
                }
                L->slots[(size_t)(1 + r) * (size_t)n + (size_t)j] = slot;
            }
        L->nhalo_all += u;
    }
    L->hstart[nblocks] = (int32_t)L->nhalo_all;
    for (long j = 0; j < n; j++)
        L->nexport += L->slots[j];
    xfree(h);
    xfree(own);
    return 0;
}

void persist_lists_free(persist_lists *L)
{
    xfree(L->hstart);
    xfree(L->halo);
    xfree(L->slots);
    memset(L, 0, sizeof *L);
}
