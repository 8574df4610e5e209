/* dist_decomp_steps.c — a model's own decomposition as a rank's share of a distributed run: its
 * dist_local, the share and its lists (src/dist/dist_decomp.h); its passes are a dist_part's
 * (src/dist/dist_mpi.h). */
#include "dist_decomp.h"

#include "dist_cpu.h"
#include "dist_mpi.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* Whether each of d's cells is a halo cell of the grid (never computed) on its owner's grid:
 * here for the owned cells (g's halo cells), the owners' answers for the others, exchanged as a
 * one-level field. flag[c] for the model's cell c. Collective. */
static int owners_halo_flags(const dist_decomp *d, const ugrid *g, const int *cell,
                             unsigned char *flag)
{
    double *v = xalloc(sizeof(double) * (size_t)g->nxy);
    for (int c = 0; c < d->ncells; c++)
        v[cell[c]] = cell[c] < g->nhalo;
    void *f[1] = {v};
    int rc = dist_decomp_exchange(d, PREC_DOUBLE, f, 1, 1, g->nxy);
    for (int c = 0; c < d->ncells; c++)
        flag[c] = v[cell[c]] != 0;
    xfree(v);
    return rc;
}

/* d's rows as a dist_local (dist_local.h), in the engine's table g: the owned cells the stencil
 * computes, then the other held cells; L's cell i is g's cell at[i]. */
static void make_local(dist_local *L, int *at, const dist_decomp *d, const ugrid *g,
                       const int *cell, const unsigned char *flag)
{
    int n = d->ncells, k = 0;
    int *from = xalloc(sizeof(int) * (size_t)n); /* L's cell -> the model's */
    for (int pass = 0; pass < 2; pass++)
        for (int c = 0; c < n; c++)
            if ((c < d->nown && !flag[c]) == (pass == 0))
                from[k++] = c;
    memset(L, 0, sizeof *L);
    L->nlocal = n;
    L->nz = g->nz;
    L->gid = xalloc(sizeof(int) * (size_t)n);
    L->owner = xalloc(sizeof(int) * (size_t)n);
    int *toL = xalloc(sizeof(int) * (size_t)g->nxy); /* g's cell -> L's */
    for (int i = 0; i < n; i++) {
        int c = from[i];
        at[i] = cell[c];
        toL[cell[c]] = i;
        L->gid[i] = d->gid[c];
        L->owner[i] = flag[c] ? -1 : d->owner[c];
        L->nown += c < d->nown && !flag[c];
    }
    dist_local_rows(L, g, at, toL);
    xfree(toL);
    xfree(from);
}

int dist_decomp_share(dist_rank *r, const dist_decomp *d, const ugrid *g, const coef_set *coef,
                      const int *cell, stencil_t s, precision_t p, int chasing, int compressed,
                      int F)
{
    memset(r, 0, sizeof *r);
    unsigned char *flag = xalloc((size_t)d->ncells);
    int rc = owners_halo_flags(d, g, cell, flag);
    char msg[512] = "";
    dist_local L;
    int *at = xalloc(sizeof(int) * (size_t)d->ncells);
    make_local(&L, at, d, g, cell, flag);
    xfree(flag);
    perr_saved saved = perr_capture_save(); /* the rank's message, for the agreement */
    perr_capture(msg, sizeof msg);
    if (rc == 0)
        rc = dist_rank_make_local(r, &L, d->nranks, d->rank, s, p, chasing, compressed, F);
    perr_capture_restore(saved);
    dist_local_free(&L);
    if (rc == 0)
        for (int l = 0; l < r->pt.ncells; l++) /* g's cells from here on */
            r->pt.gcell[l] = at[r->pt.gcell[l]];
    xfree(at);
    if (rc == 0 && stencil_table[s].coeffs.n > 0) { /* fluxdiff's: g's, at the share's cells */
        perr_capture(msg, sizeof msg);
        rc = ooc_part_coeffs(&r->pt, s, p, coef, "a model's decomposition");
        perr_capture_restore(saved);
        if (rc != 0)
            dist_rank_free(r);
    }
    if (rc != 0 && !msg[0])
        snprintf(msg, sizeof msg, "rank %d could not make its share", d->rank);
    if (dist_agree(d->comm, rc != 0, msg, sizeof msg) != 0) {
        if (rc == 0)
            dist_rank_free(r);
        perr("%s", msg);
        return -1;
    }
    /* the passes' messages: fixed sizes, checked once here (dist_exchange_start does not) */
    rc = dist_rank_connect(d->comm, r);
    size_t most = 0;
    for (int j = 0; rc == 0 && j < r->nsend; j++) {
        size_t b = dist_msg_values(r, r->sstart[j + 1] - r->sstart[j]) * prec_size(p);
        most = b > most ? b : most;
    }
    msg[0] = 0;
    if (rc == 0 && most > INT_MAX)
        snprintf(msg, sizeof msg, "rank %d sends a message of more than 2 GB a pass; use more "
                 "ranks", d->rank);
    else if (rc != 0)
        snprintf(msg, sizeof msg, "rank %d: its send lists could not be made", d->rank);
    if (dist_agree(d->comm, msg[0] != 0, msg, sizeof msg) != 0) {
        dist_rank_free(r);
        perr("%s", msg);
        return -1;
    }
    return 0;
}
