/* gtable.c — building the neighbour tables of general meshes from a grid's neighbour lists,
 * compressed into patterns (storage/patterns.h). */
#include "gtable.h"

#include "patterns.h"

#include <string.h>

/* Row of entries of plane cell c (see gtable.h) into v[width]. */
static void cell_row(const ugrid *g, int chasing, int c, int32_t *v)
{
    int D = g->adjw, n = g->nxy, deg = 0;
    for (int j = 0; j < D && g->adj[(size_t)j * n + c] >= 0; j++)
        v[1 + deg++] = g->adj[(size_t)j * n + c] - c;
    v[0] = deg;
    if (chasing)
        return;
    for (int j = 0; j < deg; j++) {
        int32_t *b = v + (size_t)(1 + j) * (size_t)(1 + D);
        int q = c + v[1 + j], dq = 0;
        for (int k = 0; k < D && g->adj[(size_t)k * n + q] >= 0; k++)
            b[1 + dq++] = g->adj[(size_t)k * n + q] - c;
        b[0] = dq;
    }
}

void gtable_build(gtable *t, const ugrid *g, int chasing, int compressed)
{
    memset(t, 0, sizeof *t);
    int n = g->nxy, D = g->adjw, m = chasing ? 1 + D : (1 + D) * (1 + D);
    t->chasing = chasing;
    t->compressed = compressed;
    t->maxdeg = D;
    t->width = m;
    t->nxy = n;
    int32_t *rows = xalloc(sizeof(int32_t) * (size_t)n * (size_t)m); /* zeroed: padding */
    for (int c = 0; c < n; c++)
        cell_row(g, chasing, c, rows + (size_t)c * (size_t)m);
    int32_t *ids = xalloc(sizeof(int32_t) * (size_t)n);
    int32_t *first = xalloc(sizeof(int32_t) * (size_t)n);
    t->npat = patterns_group(rows, n, m, ids, first, &t->top_count);
    t->ntab = compressed ? t->npat : n;
    t->tab = xalloc(sizeof(int32_t) * (size_t)t->ntab * (size_t)m);
    for (int row = 0; row < t->ntab; row++) {
        int c = compressed ? first[row] : row;
        for (int e = 0; e < m; e++)
            t->tab[(size_t)e * t->ntab + row] = rows[(size_t)c * m + e];
    }
    if (compressed) {
        t->pat = ids;
        ids = NULL;
    }
    xfree(ids);
    xfree(first);
    xfree(rows);
}

void gtable_free(gtable *t)
{
    xfree(t->tab);
    xfree(t->pat);
    memset(t, 0, sizeof *t);
}

size_t gtable_entries(const gtable *t) { return (size_t)t->ntab * (size_t)t->width; }

double gtable_ratio(const gtable *t)
{
    return (double)gtable_entries(t) / ((double)t->nxy * t->width);
}

double gtable_top_share(const gtable *t)
{
    return t->compressed ? (double)t->top_count / t->nxy : 1.0 / t->nxy;
}

size_t gtable_bytes(const gtable *t)
{
    return sizeof(int32_t) * (gtable_entries(t) + (t->compressed ? (size_t)t->nxy : 0));
}
