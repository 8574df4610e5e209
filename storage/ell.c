/* ell.c — building the ELL neighbour table of a grid from its neighbour lists. */
#include "ell.h"

#include "../base/common.h"

#include <string.h>

void ell_build(ell_table *t, const ugrid *g)
{
    int n = g->nxy, w = g->adjw;
    t->nxy = n;
    t->maxdeg = w;
    t->deg = xalloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    t->nb = xalloc(sizeof(int32_t) * (size_t)(w > 0 ? w : 1) * (size_t)(n > 0 ? n : 1));
    for (int p = 0; p < n; p++) {
        int k = 0;
        for (int j = 0; j < w; j++) {
            int q = g->adj[(size_t)j * n + p];
            if (q >= 0)
                t->nb[(size_t)k++ * n + p] = q;
        }
        t->deg[p] = k;
        for (; k < w; k++)
            t->nb[(size_t)k * n + p] = -1;
    }
}

void ell_free(ell_table *t)
{
    xfree(t->deg);
    xfree(t->nb);
    memset(t, 0, sizeof *t);
}
