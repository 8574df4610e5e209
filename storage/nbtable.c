/* nbtable.c — building neighbourship tables from a grid's relations, compressed into patterns
 * (storage/patterns.h: every distinct tuple of offsets stored once, thesis §4.2.2). */
#include "nbtable.h"

#include "patterns.h"

#include <stdlib.h>
#include <string.h>

void nbtable_build(nbtable *t, const ugrid *g, int chasing, int compressed)
{
    memset(t, 0, sizeof *t);
    int n = g->nxy, m = chasing ? NREL1 : NREL2;
    t->chasing = chasing;
    t->compressed = compressed;
    t->nrel = m;
    t->nxy = n;

    int32_t *tuples = xalloc(sizeof(int32_t) * (size_t)n * m);
    for (int c = 0; c < n; c++)
        for (int r = 0; r < m; r++) {
            int d = ugrid_follow(g, c, r);
            tuples[(size_t)c * m + r] = d < 0 ? 0 : d - c;
        }

    pattern_table pt;
    patterns_table(tuples, n, m, compressed, &pt);
    t->npat = pt.npat;
    t->top_count = pt.top_count;
    t->ntab = pt.ntab;
    t->tab = pt.tab;
    t->pat = pt.pat;
    xfree(tuples);
}

void nbtable_free(nbtable *t)
{
    xfree(t->tab);
    xfree(t->pat);
    memset(t, 0, sizeof *t);
}

size_t nbtable_entries(const nbtable *t) { return (size_t)t->ntab * (size_t)t->nrel; }

double nbtable_ratio(const nbtable *t)
{
    return (double)nbtable_entries(t) / ((double)t->nxy * t->nrel);
}

double nbtable_top_share(const nbtable *t)
{
    return t->compressed ? (double)t->top_count / t->nxy : 1.0 / t->nxy;
}

size_t nbtable_bytes(const nbtable *t)
{
    return sizeof(int32_t) * (nbtable_entries(t) + (t->compressed ? (size_t)t->nxy : 0));
}
