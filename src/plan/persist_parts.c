/* persist_parts.c — the parts, rings, local slots and exports of an on-chip persistent launch
 * (src/plan/persist_parts.h). */
#include "persist_parts.h"

#include "access/persistent.h"
#include "base/common.h"
#include "base/ilist.h"

#include <stdlib.h>
#include <string.h>

/* Neighbour j of plane cell c as the parts follow them: W, E, S, N (j < NREL1), or the j-th of
 * its list (lists; -1 past its degree). */
static int nb_of(const ugrid *g, int lists, int c, int j)
{
    return lists ? ugrid_nb(g, c, j) : g->nbr[(size_t)j * g->nxy + c];
}

/* Appends to `to` the cells that the cells from[0..nfrom) reach by a first-order relation (or
 * their lists) and that no list of block b holds yet (stamp[d] != b + 1), ascending; stamps them.
 * Returns how many. */
static int ring(const ugrid *g, int lists, int width, const int32_t *from, long nfrom, int b,
                int *stamp, ilist *to)
{
    size_t first = to->n;
    for (long i = 0; i < nfrom; i++)
        for (int r = 0; r < width; r++) {
            int d = nb_of(g, lists, from[i], r);
            if (d < 0 || stamp[d] == b + 1)
                continue;
            stamp[d] = b + 1;
            ilist_push(to, d);
        }
    if (to->n > first) /* (an empty list may have no array yet) */
        qsort(to->v + first, (size_t)(to->n - first), sizeof(int32_t), cmp_i32);
    return (int)(to->n - first);
}

int persist_parts_build(persist_parts *P, const ugrid *g, int nblocks, int depth)
{
    return persist_parts_build_from(P, g, nblocks, depth, NULL, 0);
}

/* P->own0 and P->own: runs of the storage order (part NULL) or the cells of each part, ascending.
 * Returns 0, or -1 with a message (an inner cell without a block). */
static int own_cells(persist_parts *P, const ugrid *g, int nb, const int *part)
{
    long n = P->n;
    int c0 = g->nhalo;
    P->own = xalloc(sizeof(int32_t) * (size_t)n);
    if (!part) {
        for (int b = 0; b < nb; b++) {
            long lo, hi;
            persist_range(n, nb, b, &lo, &hi);
            P->own0[b] = (int32_t)lo;
        }
        P->own0[nb] = (int32_t)n;
        for (long k = 0; k < n; k++)
            P->own[k] = (int32_t)(c0 + k);
        P->contiguous = 1;
        return 0;
    }
    memset(P->own0, 0, sizeof(int32_t) * (size_t)(nb + 1));
    for (int c = c0; c < g->nxy; c++) {
        if (part[c] < 0 || part[c] >= nb) {
            perr("persistent parts: inner cell %d has no block (part %d of %d)", c, part[c], nb);
            return -1;
        }
        P->own0[part[c] + 1]++;
    }
    for (int b = 0; b < nb; b++) /* a block may own no cell (METIS leaves some parts of a small
                                   * grid empty): it only keeps the grid's barriers */
        P->own0[b + 1] += P->own0[b];
    int32_t *fill = xalloc(sizeof(int32_t) * (size_t)nb);
    memcpy(fill, P->own0, sizeof(int32_t) * (size_t)nb);
    for (int c = c0; c < g->nxy; c++) /* ascending plane index within each block */
        P->own[fill[part[c]]++] = c;
    xfree(fill);
    P->contiguous = 1;
    for (long k = 0; k < n && P->contiguous; k++)
        P->contiguous = P->own[k] == c0 + k;
    return 0;
}

int persist_parts_build_from(persist_parts *P, const ugrid *g, int nblocks, int depth,
                             const int *part, int lists)
{
    memset(P, 0, sizeof *P);
    long n = (long)g->nxy - g->nhalo;
    if (n < 1 || nblocks < 1 || nblocks > n) {
        perr("persistent parts: %d blocks over %ld inner cells: need 1 to %ld blocks", nblocks, n,
             n);
        return -1;
    }
    if (depth != 1 && depth != 2) {
        perr("persistent parts: rings to depth %d: 1 or 2", depth);
        return -1;
    }
    if (!lists && !g->nbr) {
        perr("persistent parts: the grid has no W/E/S/N neighbours (a mesh of neighbour lists)");
        return -1;
    }
    if (lists && (!g->adj || g->adjw < 1 || g->adjw > 255)) {
        perr("persistent parts: the grid has no neighbour lists (of 1 to 255 columns)");
        return -1;
    }
    int c0 = g->nhalo, nb = nblocks;
    P->nblocks = nb;
    P->depth = depth;
    P->n = n;
    P->width = lists ? g->adjw : NREL1;
    P->own0 = xalloc(sizeof(int32_t) * (size_t)(nb + 1));
    P->r1start = xalloc(sizeof(int32_t) * (size_t)(nb + 1));
    P->r2start = xalloc(sizeof(int32_t) * (size_t)(nb + 1));
    P->xstart = xalloc(sizeof(int32_t) * (size_t)(nb + 1));
    P->tstart = xalloc(sizeof(int32_t) * (size_t)(nb + 1));
    if (own_cells(P, g, nb, part) != 0) {
        persist_parts_free(P);
        return -1;
    }
    int *stamp = xalloc(sizeof(int) * (size_t)g->nxy); /* 1 + the last block that listed d */
    unsigned char *read = xalloc((size_t)g->nxy); /* d is in another block's ring */
    ilist r1 = {0}, r2 = {0};
    for (int b = 0; b < nb; b++) {
        P->r1start[b] = (int32_t)r1.n;
        P->r2start[b] = (int32_t)r2.n;
        int m = P->own0[b + 1] - P->own0[b];
        const int32_t *own = P->own + P->own0[b];
        for (int j = 0; j < m; j++)
            stamp[own[j]] = b + 1;
        int h1 = ring(g, lists, P->width, own, m, b, stamp, &r1);
        int h2 = depth == 2 ? ring(g, lists, P->width, r1.v + P->r1start[b], h1, b, stamp, &r2) : 0;
        long slots = (long)m + h1 + h2;
        if (slots > PERSIST_MAX_SLOTS) {
            perr("persistent parts: block %d of %d holds %ld slots (%d own cells, rings of %d and "
                 "%d): 16-bit slots number at most %d; take more blocks",
                 b, nb, slots, m, h1, h2, PERSIST_MAX_SLOTS);
            xfree(stamp);
            xfree(read);
            xfree(r1.v);
            xfree(r2.v);
            persist_parts_free(P);
            return -1;
        }
        for (long i = P->r1start[b]; i < (long)r1.n; i++)
            if (r1.v[i] >= c0)
                read[r1.v[i]] = 1;
        for (long i = P->r2start[b]; i < (long)r2.n; i++)
            if (r2.v[i] >= c0)
                read[r2.v[i]] = 1;
        P->own_max = m > P->own_max ? m : P->own_max;
        P->r1_max = h1 > P->r1_max ? h1 : P->r1_max;
        P->r2_max = h2 > P->r2_max ? h2 : P->r2_max;
        P->slots_max = (int)slots > P->slots_max ? (int)slots : P->slots_max;
        P->tstart[b + 1] = P->tstart[b] + m + (depth == 2 ? h1 : 0);
        if (P->tstart[b + 1] - P->tstart[b] > P->rows_max)
            P->rows_max = P->tstart[b + 1] - P->tstart[b];
    }
    P->r1start[nb] = (int32_t)r1.n;
    P->r2start[nb] = (int32_t)r2.n;
    P->ring1 = r1.v;
    P->ring2 = r2.v;
    P->ring_all = (long)(r1.n + r2.n);

    /* the table: the slot of each cell of block b, then the W/E/S/N slots of its rows */
    int *slot = xalloc(sizeof(int) * (size_t)g->nxy);
    int W = P->width;
    P->tab = xalloc(sizeof(uint16_t) * (size_t)W * (size_t)P->tstart[nb]);
    if (lists)
        P->deg = xalloc((size_t)P->tstart[nb]);
    ilist x = {0};
    for (int b = 0; b < nb; b++) {
        int m = P->own0[b + 1] - P->own0[b], s = 0;
        int h1 = P->r1start[b + 1] - P->r1start[b], h2 = P->r2start[b + 1] - P->r2start[b];
        P->xstart[b] = (int32_t)x.n;
        for (int j = 0; j < m; j++) {
            int c = P->own[P->own0[b] + j];
            slot[c] = s++;
            if (read[c])
                ilist_push(&x, c);
        }
        for (int i = 0; i < h1; i++)
            slot[P->ring1[P->r1start[b] + i]] = s++;
        for (int i = 0; i < h2; i++)
            slot[P->ring2[P->r2start[b] + i]] = s++;
        uint16_t *row = P->tab + (size_t)W * P->tstart[b];
        for (int e = 0; e < P->tstart[b + 1] - P->tstart[b]; e++, row += W) {
            int c = e < m ? P->own[P->own0[b] + e] : P->ring1[P->r1start[b] + e - m];
            for (int r = 0; r < W; r++) {
                int d = nb_of(g, lists, c, r);
                row[r] = d < 0 ? (uint16_t)PERSIST_NO_SLOT : (uint16_t)slot[d];
            }
            if (lists)
                P->deg[P->tstart[b] + e] = (unsigned char)ugrid_deg(g, c);
        }
        int nx = (int)(x.n - P->xstart[b]);
        P->x_max = nx > P->x_max ? nx : P->x_max;
    }
    P->xstart[nb] = (int32_t)x.n;
    P->exports = x.v;
    P->export_all = (long)x.n;
    xfree(slot);
    xfree(stamp);
    xfree(read);
    return 0;
}

void persist_parts_free(persist_parts *P)
{
    xfree(P->own0);
    xfree(P->own);
    xfree(P->r1start);
    xfree(P->ring1);
    xfree(P->r2start);
    xfree(P->ring2);
    xfree(P->xstart);
    xfree(P->exports);
    xfree(P->tstart);
    xfree(P->tab);
    xfree(P->deg);
    memset(P, 0, sizeof *P);
}

int persist_parts_cell(const persist_parts *P, const ugrid *g, int b, int s)
{
    int m = P->own0[b + 1] - P->own0[b], h1 = P->r1start[b + 1] - P->r1start[b];
    (void)g;
    if (s < m)
        return P->own[P->own0[b] + s];
    if (s < m + h1)
        return P->ring1[P->r1start[b] + s - m];
    return P->ring2[P->r2start[b] + s - m - h1];
}

long persist_parts_index_bytes(const persist_parts *P, int b)
{
    long rows = P->tstart[b + 1] - P->tstart[b];
    long ring = (P->r1start[b + 1] - P->r1start[b]) + (P->r2start[b + 1] - P->r2start[b]);
    long exp = P->xstart[b + 1] - P->xstart[b];
    return (2L * P->width + (P->deg ? 1 : 0)) * rows + 4 * ring + 2 * exp;
}

/* The wavefronts of one half-warp's gather of 8-byte words at slots s[0..k): the most distinct
 * slots on one pair of the 32 four-byte banks (slot mod 16). */
static int wavefronts(const int *s, int k)
{
    int n[16] = {0}, most = 0;
    for (int i = 0; i < k; i++) {
        int dup = 0;
        for (int j = 0; j < i && !dup; j++)
            dup = s[j] == s[i];
        if (!dup && ++n[s[i] & 15] > most)
            most = n[s[i] & 15];
    }
    return most;
}

double persist_parts_conflicts(const persist_parts *P, int pass)
{
    double sum = 0;
    long count = 0;
    for (int b = 0; b < P->nblocks; b++) {
        int rows = pass == 1 ? P->tstart[b + 1] - P->tstart[b] : P->own0[b + 1] - P->own0[b];
        const int W = P->width;
        const uint16_t *tab = P->tab + (size_t)W * P->tstart[b];
        for (int e0 = 0; e0 < rows; e0 += 16) {
            int k = rows - e0 < 16 ? rows - e0 : 16;
            for (int r = pass == 1 ? -1 : 0; r < W; r++) { /* -1: pass 1's v[e] itself */
                int s[16], nk = 0;
                for (int i = 0; i < k; i++)
                    if (r < 0)
                        s[nk++] = e0 + i;
                    else if (tab[(size_t)W * (e0 + i) + r] != PERSIST_NO_SLOT)
                        s[nk++] = tab[(size_t)W * (e0 + i) + r];
                if (nk) {
                    sum += wavefronts(s, nk);
                    count++;
                }
            }
        }
    }
    return count ? sum / (double)count : 0;
}
