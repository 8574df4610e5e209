/* gtable.c — building the neighbour tables of general meshes from a grid's neighbour lists,
 * compressed into patterns (storage/patterns.h). */
#include "gtable.h"

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
    patterns_table(rows, n, m, compressed, &t->p);
    xfree(rows);
}

void gtable_free(gtable *t)
{
    xfree(t->p.tab);
    xfree(t->p.pat);
    memset(t, 0, sizeof *t);
}

size_t gtable_entries(const gtable *t) { return (size_t)t->p.ntab * (size_t)t->width; }

double gtable_ratio(const gtable *t)
{
    return (double)gtable_entries(t) / ((double)t->nxy * t->width);
}

double gtable_top_share(const gtable *t)
{
    return t->compressed ? (double)t->p.top_count / t->nxy : 1.0 / t->nxy;
}

size_t gtable_bytes(const gtable *t)
{
    return sizeof(int32_t) * (gtable_entries(t) + (t->compressed ? (size_t)t->nxy : 0));
}
