/* ell.c — building the ELL neighbour table of a grid made from a mesh. */
#include "ell.h"

#include "../base/common.h"

#include <string.h>

void ell_build(ell_table *t, const ugrid *g, const mesh *m)
{
    int n = g->nxy, w = mesh_width(m);
    t->nxy = n;
    t->maxdeg = w;
    t->deg = xalloc(sizeof(int32_t) * (size_t)n);
    t->nb = xalloc(sizeof(int32_t) * (size_t)w * (size_t)n);
    int *to = xalloc(sizeof(int) * (size_t)n); /* mesh cell -> grid cell */
    for (int p = 0; p < n; p++)
        to[g->mesh_cell[p]] = p;
    for (int p = 0; p < n; p++) {
        const int *row = mesh_row(m, g->mesh_cell[p]);
        int k = 0;
        for (int j = 0; j < w; j++)
            if (row[j] >= 0)
                t->nb[(size_t)k++ * n + p] = to[row[j]];
        t->deg[p] = k;
        for (; k < w; k++)
            t->nb[(size_t)k * n + p] = -1;
    }
    xfree(to);
}

void ell_free(ell_table *t)
{
    xfree(t->deg);
    xfree(t->nb);
    memset(t, 0, sizeof *t);
}
