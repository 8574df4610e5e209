/* dist_plan.c — a rank's cells, ring and exchange lists (src/dist/dist_plan.h). */
#include "dist_plan.h"

#include "src/exec/iterate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the stencil at inner cell c reads a cell another rank owns: a W/E/S/N body reads the
 * relations of its registry line (followed on the grid, second-order ones through the first
 * hop's row); a graph body every cell within `radius` of c through the lists, found by a
 * breadth-first search (stamp, nxy entries, marks the cells seen with c + 1; queue and depth have
 * room for them). */
static int reads_other(const ugrid *g, stencil_t s, const int *part, int rank, int c, int *stamp,
                       int *queue, int *depth)
{
    const stencil_info *si = &stencil_table[s];
    if (!si->graph) {
        for (int r = 0; r < NREL2; r++) {
            int v = si->rels & (1u << r) ? ugrid_follow(g, c, r) : -1;
            if (v >= g->nhalo && part[v] != rank)
                return 1;
        }
        return 0;
    }
    int head = 0, tail = 0;
    stamp[c] = c + 1;
    queue[tail] = c;
    depth[tail++] = 0;
    while (head < tail) {
        int u = queue[head], du = depth[head++];
        if (du >= si->radius)
            continue;
        for (int r = 0; r < g->adjw; r++) {
            int v = g->adj[(size_t)r * g->nxy + u];
            if (v < 0 || stamp[v] == c + 1)
                continue;
            if (v >= g->nhalo && part[v] != rank)
                return 1;
            stamp[v] = c + 1;
            queue[tail] = v;
            depth[tail++] = du + 1;
        }
    }
    return 0;
}

/* Rank `rank`'s cells in local order: those reading another rank's cells, then the others,
 * each in g's order. Returns their number; *nboundary gets the first group's. */
static int own_cells(const ugrid *g, stencil_t s, const int *part, int rank, int *own, int *nboundary)
{
    int n = 0, nb = 0;
    int *stamp = xalloc(sizeof(int) * (size_t)g->nxy), *queue = xalloc(sizeof(int) * (size_t)g->nxy),
        *depth = xalloc(sizeof(int) * (size_t)g->nxy);
    unsigned char *edge = xalloc((size_t)g->nxy);
    memset(stamp, 0, sizeof(int) * (size_t)g->nxy);
    for (int c = g->nhalo; c < g->nxy; c++)
        if (part[c] == rank) {
            edge[c] = (unsigned char)reads_other(g, s, part, rank, c, stamp, queue, depth);
            nb += edge[c];
        }
    for (int pass = 1; pass >= 0; pass--)
        for (int c = g->nhalo; c < g->nxy; c++)
            if (part[c] == rank && edge[c] == pass)
                own[n++] = c;
    xfree(stamp);
    xfree(queue);
    xfree(depth);
    xfree(edge);
    *nboundary = nb;
    return n;
}

static const int *sort_key; /* by_key's key (qsort takes no context) */

/* Local cells by their key (global cell). */
static int by_key(const void *pa, const void *pb)
{
    int a = sort_key[*(const int *)pa], b = sort_key[*(const int *)pb];
    return (a > b) - (a < b);
}

/* L's cells as a grid (a ugrid's halo cells come first): its halo cells (owner -1), then the
 * others, each in L's order; lg2L gets the local grid's cell -> L's cell, lown the owner of each
 * local grid cell. */
static void local_grid(ugrid *lg, const dist_local *L, int *lg2L, int *lown)
{
    int n = L->nlocal, nf = 0, *L2lg = xalloc(sizeof(int) * (size_t)n);
    for (int l = 0; l < n; l++)
        if (L->owner[l] < 0)
            lg2L[nf++] = l;
    for (int l = 0, k = nf; l < n; l++)
        if (L->owner[l] >= 0)
            lg2L[k++] = l;
    for (int i = 0; i < n; i++) {
        L2lg[lg2L[i]] = i;
        lown[i] = L->owner[lg2L[i]];
    }
    memset(lg, 0, sizeof *lg);
    lg->nxy = n;
    lg->nhalo = nf;
    lg->nz = L->nz;
    for (int t = 0; t < 2; t++) {
        const int *in = t ? L->adj : L->nbr;
        int w = t ? L->adjw : NREL1;
        if (!in)
            continue;
        int *out = xalloc(sizeof(int) * (size_t)w * (size_t)n);
        for (int r = 0; r < w; r++)
            for (int i = 0; i < n; i++) {
                int v = in[(size_t)r * n + lg2L[i]];
                out[(size_t)r * n + i] = v >= 0 ? L2lg[v] : -1;
            }
        if (t) {
            lg->adj = out;
            lg->adjw = w;
        } else {
            lg->nbr = out;
        }
    }
    xfree(L2lg);
}

int dist_rank_make_local(dist_rank *d, const dist_local *L, int nranks, int rank, stencil_t s,
                         precision_t p, int chasing, int compressed, int F)
{
    memset(d, 0, sizeof *d);
    if (nranks < 1 || rank < 0 || rank >= nranks) {
        perr("distributed run: rank %d of %d", rank, nranks);
        return -1;
    }
    if (dist_local_check(L, nranks, rank, s) != 0)
        return -1;
    int n = L->nlocal, *lg2L = xalloc(sizeof(int) * (size_t)n), *lown = xalloc(sizeof(int) * (size_t)n);
    ugrid lg;
    local_grid(&lg, L, lg2L, lown);
    int *own = xalloc(sizeof(int) * (size_t)n), nboundary = 0;
    int nown = own_cells(&lg, s, lown, rank, own, &nboundary);
    int rc = ooc_part_of_cells(&d->pt, &lg, s, chasing, compressed, F, own, nown);
    xfree(own);
    xfree(lown);
    ugrid_free(&lg);
    if (rc != 0) {
        xfree(lg2L);
        return -1;
    }
    ooc_part *pt = &d->pt;
    d->gid = xalloc(sizeof(int) * (size_t)pt->ncells);
    for (int l = 0; l < pt->ncells; l++) {
        pt->gcell[l] = lg2L[pt->gcell[l]]; /* L's cells from here on */
        d->gid[l] = L->gid[pt->gcell[l]];
    }
    xfree(lg2L);
    d->rank = rank;
    d->nranks = nranks;
    d->stencil = s;
    d->prec = p;
    d->F = F;
    d->nz = L->nz;
    d->zend = stencil_zend(s, L->nz);
    d->nown = nown;
    /* the interior starts at a multiple of 32 cells, so that its launches' loads and stores of
     * a level's cells are aligned (the levels' stride is a multiple of 64): the up to 31 interior
     * cells before it are computed with the boundary, once the ring is in (the same values) */
    d->edge1 = pt->first[0] + nboundary;
    d->inner0 = (d->edge1 + 31) / 32 * 32 < pt->ncells ? (d->edge1 + 31) / 32 * 32 : pt->ncells;

    /* ring cells [nfixed, first[0]) by owner, then global id */
    int nring = pt->first[0] - pt->nfixed;
    d->rcell = xalloc(sizeof(int) * (size_t)(nring > 0 ? nring : 1));
    for (int i = 0; i < nring; i++)
        d->rcell[i] = pt->nfixed + i;
    sort_key = d->gid; /* by global id, then (stable counting sort) by owner */
    qsort(d->rcell, (size_t)nring, sizeof(int), by_key);
    sort_key = NULL;
    int *count = xalloc(sizeof(int) * (size_t)nranks);
    memset(count, 0, sizeof(int) * (size_t)nranks);
    for (int i = 0; i < nring; i++)
        count[L->owner[pt->gcell[d->rcell[i]]]]++;
    int *sorted = xalloc(sizeof(int) * (size_t)(nring > 0 ? nring : 1)), *at = xalloc(sizeof(int) * (size_t)nranks);
    for (int q = 0, sum = 0; q < nranks; q++) {
        at[q] = sum;
        sum += count[q];
        d->nrecv += count[q] > 0;
    }
    for (int i = 0; i < nring; i++) /* stable: ascending global id within an owner */
        sorted[at[L->owner[pt->gcell[d->rcell[i]]]]++] = d->rcell[i];
    memcpy(d->rcell, sorted, sizeof(int) * (size_t)nring);
    d->rpeer = xalloc(sizeof(int) * (size_t)(d->nrecv > 0 ? d->nrecv : 1));
    d->rstart = xalloc(sizeof(int) * (size_t)(d->nrecv + 1));
    for (int q = 0, j = 0, sum = 0; q < nranks; q++)
        if (count[q] > 0) {
            d->rpeer[j] = q;
            d->rstart[j++] = sum;
            sum += count[q];
        }
    d->rstart[d->nrecv] = nring;
    d->sstart = xalloc(sizeof(int));
    d->sstart[0] = 0;
    xfree(count);
    xfree(sorted);
    xfree(at);
    return 0;
}

int dist_rank_make(dist_rank *d, const ugrid *g, const coef_set *coef, const int *part,
                   int nranks, int rank, stencil_t s, precision_t p, int chasing, int compressed,
                   int F)
{
    dist_local L;
    memset(d, 0, sizeof *d);
    if (nranks < 1 || rank < 0 || rank >= nranks) {
        perr("distributed run: rank %d of %d", rank, nranks);
        return -1;
    }
    if (F < 1) {
        perr("distributed run: need at least 1 step between exchanges");
        return -1;
    }
    if (dist_local_from_grid(&L, g, part, nranks, rank, s, F) != 0)
        return -1;
    int rc = dist_rank_make_local(d, &L, nranks, rank, s, p, chasing, compressed, F);
    dist_local_free(&L);
    if (rc != 0)
        return -1;
    memcpy(d->pt.gcell, d->gid, sizeof(int) * (size_t)d->pt.ncells); /* the grid's cells */
    if (ooc_part_coeffs(&d->pt, s, p, coef, "distributed run") != 0) { /* fluxdiff's */
        dist_rank_free(d);
        return -1;
    }
    return 0;
}

void dist_rank_wants(const dist_rank *d, int *gcells)
{
    for (int i = 0; i < d->rstart[d->nrecv]; i++)
        gcells[i] = d->gid[d->rcell[i]];
}

int dist_rank_lists(dist_rank *d, access_t a, int nt)
{
    return ooc_part_lists(&d->pt, a, d->stencil, d->F, nt, &d->inner0, 1);
}

int dist_rank_sends(dist_rank *d, const int *want, const int *gcells)
{
    const ooc_part *pt = &d->pt;
    int total = 0, nsend = 0;
    for (int q = 0; q < d->nranks; q++) {
        total += want[q];
        nsend += want[q] > 0;
    }
    /* global -> local own cell, by binary search over the own cells sorted by global cell */
    int n = d->nown, *bycell = xalloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        bycell[i] = pt->first[0] + i;
    sort_key = d->gid;
    qsort(bycell, (size_t)n, sizeof(int), by_key);
    sort_key = NULL;
    xfree(d->speer);
    xfree(d->sstart);
    xfree(d->scell);
    d->nsend = nsend;
    d->speer = xalloc(sizeof(int) * (size_t)(nsend > 0 ? nsend : 1));
    d->sstart = xalloc(sizeof(int) * (size_t)(nsend + 1));
    d->scell = xalloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
    int rc = 0;
    for (int q = 0, j = 0, i = 0; q < d->nranks; q++) {
        if (want[q] == 0)
            continue;
        d->speer[j] = q;
        d->sstart[j++] = i;
        for (int k = 0; k < want[q]; k++, i++) {
            int c = gcells[i], lo = 0, hi = n - 1, found = -1;
            while (lo <= hi) {
                int mid = lo + (hi - lo) / 2, m = d->gid[bycell[mid]];
                if (m == c) {
                    found = bycell[mid];
                    break;
                }
                if (m < c)
                    lo = mid + 1;
                else
                    hi = mid - 1;
            }
            if (found < 0 && rc == 0) {
                perr("distributed run: rank %d asks rank %d for cell %d, which it does not own", q,
                     d->rank, c);
                rc = -1;
            }
            d->scell[i] = found < 0 ? pt->first[0] : found;
        }
    }
    d->sstart[nsend] = total;
    xfree(bycell);
    return rc;
}

size_t dist_msg_values(const dist_rank *d, int n)
{
    return (size_t)iter_carried(d->stencil)->n * (size_t)d->zend * (size_t)n;
}

void dist_rank_free(dist_rank *d)
{
    ooc_part_free(&d->pt);
    xfree(d->gid);
    xfree(d->rpeer);
    xfree(d->rstart);
    xfree(d->rcell);
    xfree(d->speer);
    xfree(d->sstart);
    xfree(d->scell);
    memset(d, 0, sizeof *d);
}

void dist_rank_describe(const dist_rank *d, char *buf, size_t n)
{
    const ooc_part *pt = &d->pt;
    double es = (double)prec_size(d->prec);
    snprintf(buf, n,
             "rank %d of %d: %d own cells (%d interior, computed while messages fly), ring of %d "
             "cells (radius %d x %d step%s) from %d rank%s, %d grid halo cells; sends %.3f MB to "
             "%d rank%s per exchange",
             d->rank, d->nranks, d->nown, pt->ncells - d->inner0, pt->first[0] - pt->nfixed,
             stencil_table[d->stencil].radius, d->F, d->F == 1 ? "" : "s", d->nrecv,
             d->nrecv == 1 ? "" : "s", pt->nfixed,
             (double)dist_msg_values(d, d->sstart[d->nsend]) * es / 1e6, d->nsend,
             d->nsend == 1 ? "" : "s");
}
