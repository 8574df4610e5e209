/* persist_ooc.c — the persistent executor's plan out of core (src/plan/persist_ooc.h). */
#include "persist_ooc.h"

#include <stdio.h>

int persist_ooc_check(const ooc_plan *pl)
{
    char why[200];
    const stencil_info *si = &stencil_table[pl->stencil];
    if (!persist_supported(pl->stencil, why, sizeof why)) {
        perr("--persistent out of core: %s", why);
        return -1;
    }
    if (persist_is_graph(pl->stencil)) {
        perr("--persistent out of core: %s has a persistent kernel in core only (a chunk runs the "
             "quad stencils' kernel)", si->name);
        return -1;
    }
    if (si->zradius != 0) {
        perr("--persistent out of core: %s reads levels above and below (a chunk's region would "
             "shrink in levels too); the persistent chunks compute a slab's own levels", si->name);
        return -1;
    }
    if (pl->K > 1 || pl->lists_bx > 0) {
        perr("--persistent out of core: the plan has %s; a persistent chunk runs its steps one "
             "per grid barrier on the part's table", pl->K > 1 ? "K-step balls" : "graph-twopass lists");
        return -1;
    }
    return 0;
}

void persist_ooc_cells(const ooc_plan *pl, const ooc_part *pt, int *c0, int *n)
{
    *c0 = pt->first[pl->F - 1];
    *n = pt->ncells - *c0;
}

int persist_ooc_shapes(persist_shape *shape, const ooc_plan *pl, int threads,
                       const persist_device *d, persist_occupancy_fn occ, void *ctx, long *most)
{
    int words = persist_words(pl->stencil);
    *most = 0;
    for (int p = 0; p < pl->nparts; p++) {
        int c0, n;
        persist_ooc_cells(pl, &pl->part[p], &c0, &n);
        if (n > *most)
            *most = n;
    }
    for (int p = 0; p < pl->nparts; p++) {
        int c0, n;
        persist_ooc_cells(pl, &pl->part[p], &c0, &n);
        if (persist_shape_make(&shape[p], n, threads, d->sms, d->warps_sm, words, d->smem_block,
                               0, occ, ctx) != 0) {
            perr("--persistent out of core: part %d of %d: a launch over its %d cells (own and "
                 "ring for %d steps) does not fit the device; a smaller budget makes smaller parts",
                 p, pl->nparts, n, pl->F);
            return -1;
        }
    }
    return 0;
}

double persist_ooc_shrink(const ooc_plan *pl, const persist_device *d, long most)
{
    double cap = (double)d->sms * (double)d->smem_sm /
                 (4.0 * (double)(persist_words(pl->stencil) > 0 ? persist_words(pl->stencil) : 1));
    double f = most > 0 ? 0.9 * cap / (double)most : 0.9;
    return f < 0.1 ? 0.1 : f > 0.9 ? 0.9 : f;
}
