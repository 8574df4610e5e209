/* dist_decomp.c — a model's own decomposition: the exchange pattern from global ids through a
 * distributed directory, its refusals, the halo exchange (src/dist/dist_decomp.h). */
#include "dist_decomp.h"

#include "dist_mpi.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Columns of the local table and row c of it. */
static int table_width(const mesh *m) { return m->nbr ? 4 : m->maxdeg; }
static const int *row_of(const mesh *m, int c)
{
    return m->nbr ? m->nbr + 4 * (size_t)c : m->adj + (size_t)m->maxdeg * (size_t)c;
}

/* A record sorted by key, then a, then b. */
typedef struct {
    int key, a, b;
} rec3;

static int by_rec3(const void *x, const void *y)
{
    const rec3 *p = x, *q = y;
    if (p->key != q->key)
        return (p->key > q->key) - (p->key < q->key);
    if (p->a != q->a)
        return (p->a > q->a) - (p->a < q->a);
    return (p->b > q->b) - (p->b < q->b);
}

/* The checks one rank makes alone: owned cells, ids 0 or more and none twice. */
static int local_checks(const mesh *m, int nown, const int *gid, int rank, char *msg, size_t n)
{
    int nc = m->ncells;
    if (nown == 0) {
        snprintf(msg, n, "rank %d owns no cell (nowned = 0 of its %d local cells); every rank "
                 "must own at least one", rank, nc);
        return DECOMP_ERR_GRID;
    }
    if (nown < 0 || nown > nc) {
        snprintf(msg, n, "rank %d: nowned = %d: expected 1 to its %d local cells", rank, nown, nc);
        return DECOMP_ERR_ARG;
    }
    for (int i = 0; i < nc; i++)
        if (gid[i] < 0) {
            snprintf(msg, n, "rank %d's local cell %d has global id %d; global ids are 0 or more",
                     rank, i, gid[i]);
            return DECOMP_ERR_GRID;
        }
    rec3 *r = xalloc(sizeof(rec3) * (size_t)nc);
    for (int i = 0; i < nc; i++)
        r[i] = (rec3){gid[i], i, 0};
    qsort(r, (size_t)nc, sizeof(rec3), by_rec3);
    int st = DECOMP_OK;
    for (int i = 1; i < nc && st == DECOMP_OK; i++)
        if (r[i].key == r[i - 1].key) {
            snprintf(msg, n, "global id %d is given twice on rank %d: local cells %d and %d "
                     "(%s)", r[i].key, rank, r[i - 1].a, r[i].a,
                     r[i].a < nown ? "both owned" : r[i - 1].a < nown ? "owned and halo"
                                                                      : "both halo");
            st = DECOMP_ERR_GRID;
        }
    xfree(r);
    return st;
}

/* Whether every rank gives a table of the same kind, width and levels (collective). */
static int same_tables(int comm, const mesh *m, int rank, char *msg, size_t n)
{
    int general = m->nbr == NULL, w = table_width(m);
    double key = general * 100 + w, lo, hi, zlo, zhi;
    dist_minmax(comm, key, &lo, &hi);
    dist_minmax(comm, m->nlevels, &zlo, &zhi);
    int st = DECOMP_OK;
    if (key != lo) {
        int og = (int)lo >= 100, ow = (int)lo % 100;
        snprintf(msg, n, "the ranks' tables disagree: rank %d gives a %s table of %d columns, "
                 "another rank a %s table of %d columns", rank, general ? "general" : "quad", w,
                 og ? "general" : "quad", ow);
        st = DECOMP_ERR_GRID;
    } else if (m->nlevels != (int)zlo) {
        snprintf(msg, n, "the ranks' grids disagree: rank %d has %d levels, another rank %d",
                 rank, m->nlevels, (int)zlo);
        st = DECOMP_ERR_GRID;
    }
    return st;
}

/* Records of `unit` ints for each cell of list[0 .. k) sent to dest[list[i]] (P ranks): laid out
 * by destination, each destination's in list order; count[q] gets their number. put(i, out)
 * writes cell list[i]'s record. */
static int *by_destination(const int *list, int k, const int *dest, int P, int unit, int *count,
                           void (*put)(const void *, int, int *), const void *ctx)
{
    memset(count, 0, sizeof(int) * (size_t)P);
    for (int i = 0; i < k; i++)
        count[dest[list[i]]]++;
    int *at = xalloc(sizeof(int) * (size_t)P);
    for (int q = 0, s = 0; q < P; q++) {
        at[q] = s;
        s += count[q];
    }
    int *out = xalloc(sizeof(int) * (size_t)unit * (size_t)(k + 1));
    for (int i = 0; i < k; i++)
        put(ctx, list[i], out + (size_t)unit * (size_t)at[dest[list[i]]]++);
    xfree(at);
    return out;
}

/* An all-to-all of records of `unit` ints (dist_alltoallv_int): count[q] records for rank q, laid
 * out as by_destination lays them; *recv gets every rank's for this one, rcount[q] from rank q.
 * Returns the records received. Collective. */
static int records(int comm, int P, const int *send, const int *count, int unit, int **recv,
                   int *rcount)
{
    int *ints = xalloc(sizeof(int) * (size_t)P), total = 0;
    for (int q = 0; q < P; q++)
        ints[q] = count[q] * unit;
    *recv = dist_alltoallv_int(comm, send, ints, rcount);
    for (int q = 0; q < P; q++)
        total += rcount[q] /= unit;
    xfree(ints);
    return total;
}

/* What the records describe (by_destination's put). */
typedef struct {
    const mesh *m;
    const int *gid, *dist, *owner_local;
    int reach;
} rec_ctx;

static void put_id(const void *cx, int c, int *out) /* (global id, local cell) */
{
    const rec_ctx *x = cx;
    out[0] = x->gid[c];
    out[1] = c;
}

static void put_row(const void *cx, int c, int *out) /* owner's cell, strict, cell, id, row */
{
    const rec_ctx *x = cx;
    int w = table_width(x->m);
    const int *row = row_of(x->m, c);
    out[0] = x->owner_local[c];
    out[1] = x->dist[c] < x->reach;
    out[2] = c;
    out[3] = x->gid[c];
    for (int s = 0; s < w; s++)
        out[4 + s] = row[s] >= 0 ? x->gid[row[s]] : -1;
}

/* Distance of every local cell from the owned cells through the table, up to reach (cells
 * farther, or not reached: reach). */
static int *distances(const mesh *m, int nown, int reach)
{
    int nc = m->ncells, w = table_width(m);
    int *dist = xalloc(sizeof(int) * (size_t)nc), *queue = xalloc(sizeof(int) * (size_t)nc);
    int head = 0, tail = 0;
    for (int c = 0; c < nc; c++)
        dist[c] = c < nown ? 0 : reach;
    for (int c = 0; c < nown; c++)
        queue[tail++] = c;
    while (head < tail) {
        int u = queue[head++];
        if (dist[u] + 1 >= reach)
            continue;
        const int *row = row_of(m, u);
        for (int s = 0; s < w; s++) {
            int v = row[s];
            if (v >= 0 && dist[v] > dist[u] + 1) {
                dist[v] = dist[u] + 1;
                queue[tail++] = v;
            }
        }
    }
    xfree(queue);
    return dist;
}

/* Steps 1 and 2: owned ids registered at the directory (an id owned twice refused there), the
 * owner and owner's local cell of every halo cell (owner[c], owner_local[c]; a halo cell owned by
 * no rank refused). Returns a status after the agreement. */
static int directory(dist_decomp *d, int *owner, int *owner_local, char *msg, size_t n)
{
    int P = d->nranks, nc = d->ncells, nown = d->nown, st = DECOMP_OK;
    int *dir = xalloc(sizeof(int) * (size_t)nc), *list = xalloc(sizeof(int) * (size_t)(nc + 1));
    for (int c = 0; c < nc; c++) {
        dir[c] = d->gid[c] % P;
        list[c] = c;
    }
    rec_ctx x = {NULL, d->gid, NULL, NULL, 0};
    int *count = xalloc(sizeof(int) * (size_t)P), *rcount = xalloc(sizeof(int) * (size_t)P);
    int *send = by_destination(list, nown, dir, P, 2, count, put_id, &x), *got = NULL;
    int nreg = records(d->comm, P, send, count, 2, &got, rcount);
    xfree(send);
    /* the directory's entries: (id, owner, owner's local cell) by id */
    rec3 *e = xalloc(sizeof(rec3) * (size_t)(nreg + 1));
    for (int q = 0, i = 0; q < P; q++)
        for (int k = 0; k < rcount[q] && i < nreg; k++, i++)
            e[i] = (rec3){got[2 * i], q, got[2 * i + 1]};
    xfree(got);
    qsort(e, (size_t)nreg, sizeof(rec3), by_rec3);
    for (int i = 1; i < nreg && st == DECOMP_OK; i++)
        if (e[i].key == e[i - 1].key) {
            snprintf(msg, n, "global id %d is owned by rank %d (local cell %d) and rank %d (local "
                     "cell %d)", e[i].key, e[i - 1].a, e[i - 1].b, e[i].a, e[i].b);
            st = DECOMP_ERR_GRID;
        }
    if ((st = dist_agree(d->comm, st, msg, n)) != DECOMP_OK)
        goto out;

    /* the halo cells' owners, asked of the directory and answered in the order asked */
    int nhalo = nc - nown;
    send = by_destination(list + nown, nhalo, dir, P, 2, count, put_id, &x);
    int nask = records(d->comm, P, send, count, 2, &got, rcount);
    int *answer = xalloc(sizeof(int) * 2 * (size_t)(nask + 1));
    for (int i = 0; i < nask; i++) {
        int lo = 0, hi = nreg - 1, g = got[2 * i];
        answer[2 * i] = answer[2 * i + 1] = -1;
        while (lo <= hi) {
            int mid = lo + (hi - lo) / 2;
            if (e[mid].key == g) {
                answer[2 * i] = e[mid].a;
                answer[2 * i + 1] = e[mid].b;
                break;
            }
            if (e[mid].key < g)
                lo = mid + 1;
            else
                hi = mid - 1;
        }
    }
    xfree(got);
    int *back = NULL, *bcount = xalloc(sizeof(int) * (size_t)P);
    records(d->comm, P, answer, rcount, 2, &back, bcount); /* nhalo answers */
    xfree(answer);
    /* the answers come back grouped by directory rank, each group in the order it was asked */
    int *at = xalloc(sizeof(int) * (size_t)P);
    for (int q = 0, s = 0; q < P; q++) {
        at[q] = s;
        s += count[q];
    }
    for (int i = 0; st == DECOMP_OK && i < nhalo; i++) {
        int c = nown + i, k = at[dir[c]]++;
        owner[c] = back[2 * k];
        owner_local[c] = back[2 * k + 1];
        if (owner[c] < 0) {
            snprintf(msg, n, "rank %d's halo cell %d (global id %d) is owned by no rank", d->rank,
                     c, d->gid[c]);
            st = DECOMP_ERR_GRID;
        }
    }
    xfree(at);
    xfree(back);
    xfree(bcount);
    xfree(send);
    st = dist_agree(d->comm, st, msg, n);
out:
    xfree(e);
    xfree(dir);
    xfree(list);
    xfree(count);
    xfree(rcount);
    return st;
}

/* Compares the halo rows another rank sent (records of put_row, from rank q) with this rank's
 * own rows; the first difference into msg. */
static int compare_rows(const dist_decomp *d, const mesh *m, const int *r, int q, int reach,
                        char *msg, size_t n)
{
    int w = table_width(m);
    int mine = r[0], strict = r[1], c = r[2], g = r[3];
    if (mine < 0 || mine >= d->nown || d->gid[mine] != g) {
        snprintf(msg, n, "rank %d's halo cell %d (global id %d) is not owned by rank %d as the "
                 "directory says", q, c, g, d->rank);
        return DECOMP_ERR_GRID;
    }
    const int *row = row_of(m, mine);
    for (int s = 0; s < w; s++) {
        int own = row[s] >= 0 ? d->gid[row[s]] : -1, copy = r[4 + s];
        if (copy >= 0 && copy != own) {
            snprintf(msg, n, "the ranks' tables disagree at global id %d: rank %d's halo cell %d "
                     "has global id %d in column %d, its owner rank %d (local cell %d) has %d "
                     "there", g, q, c, copy, s, d->rank, mine, own);
            return DECOMP_ERR_GRID;
        }
        if (copy < 0 && own >= 0 && strict) {
            snprintf(msg, n, "rank %d's halo is too thin at its halo cell %d (global id %d): "
                     "its neighbour in column %d (global id %d, on the owner rank %d) is not "
                     "held, but the stencil's radius x fuse = %d needs every cell within %d of "
                     "the owned cells", q, c, g, s, own, d->rank, reach, reach);
            return DECOMP_ERR_GRID;
        }
    }
    return DECOMP_OK;
}

/* The peers (ranks with count[q] > 0, ascending) and starts of a list grouped by rank. */
static void group(int P, const int *count, int *npeer, int **peer, int **start)
{
    int np = 0;
    for (int q = 0; q < P; q++)
        np += count[q] > 0;
    *npeer = np;
    *peer = xalloc(sizeof(int) * (size_t)(np + 1));
    *start = xalloc(sizeof(int) * (size_t)(np + 1));
    int j = 0, s = 0;
    for (int q = 0; q < P; q++)
        if (count[q] > 0) {
            (*peer)[j] = q;
            (*start)[j++] = s;
            s += count[q];
        }
    (*start)[np] = s;
}

/* Step 3: each halo row to its owner, by (owner, global id), compared there (compare_rows); the
 * lists: the halo cells in that order to receive, the requests as they came to send. Returns a
 * status after the agreement. */
static int rows_and_lists(dist_decomp *d, const mesh *m, const int *owner, const int *owner_local,
                          int reach, char *msg, size_t n)
{
    int P = d->nranks, nown = d->nown, nhalo = d->ncells - nown, unit = 4 + table_width(m);
    int st = DECOMP_OK;
    int *order = xalloc(sizeof(int) * (size_t)(nhalo + 1));
    rec3 *key = xalloc(sizeof(rec3) * (size_t)(nhalo + 1)); /* no static sort key: handles on
                                                              * other threads */
    for (int i = 0; i < nhalo; i++)
        key[i] = (rec3){owner[nown + i], d->gid[nown + i], nown + i};
    qsort(key, (size_t)nhalo, sizeof(rec3), by_rec3);
    for (int i = 0; i < nhalo; i++)
        order[i] = key[i].b;
    xfree(key);
    int *dist = distances(m, nown, reach);
    rec_ctx x = {m, d->gid, dist, owner_local, reach};
    int *count = xalloc(sizeof(int) * (size_t)P), *rcount = xalloc(sizeof(int) * (size_t)P);
    int *send = by_destination(order, nhalo, owner, P, unit, count, put_row, &x), *got = NULL;
    int nreq = records(d->comm, P, send, count, unit, &got, rcount);
    xfree(send);
    xfree(dist);
    for (int q = 0, i = 0; q < P && st == DECOMP_OK; q++)
        for (int k = 0; k < rcount[q] && st == DECOMP_OK; k++, i++)
            st = compare_rows(d, m, got + (size_t)unit * (size_t)i, q, reach, msg, n);
    group(P, count, &d->nrecv, &d->rpeer, &d->rstart); /* order is by owner */
    d->rcell = order;
    group(P, rcount, &d->nsend, &d->speer, &d->sstart);
    d->scell = xalloc(sizeof(int) * (size_t)(nreq + 1));
    for (int i = 0; i < nreq; i++)
        d->scell[i] = got[(size_t)unit * (size_t)i];
    xfree(got);
    xfree(count);
    xfree(rcount);
    return dist_agree(d->comm, st, msg, n);
}

int dist_decomp_make(dist_decomp *d, int comm, const mesh *m, int nown, const int *gid, int reach,
                     int st_in, char *msg, size_t n)
{
    memset(d, 0, sizeof *d);
    int rank, P;
    if (dist_comm_info(comm, &rank, &P) != 0) {
        snprintf(msg, n, "not a usable communicator");
        return DECOMP_ERR_ARG;
    }
    int st = m ? local_checks(m, nown, gid, rank, msg, n) : st_in ? st_in : DECOMP_ERR_ARG;
    if ((st = dist_agree(comm, st, msg, n)) != DECOMP_OK)
        return st;
    if ((st = dist_agree(comm, same_tables(comm, m, rank, msg, n), msg, n)) != DECOMP_OK)
        return st;
    int nc = m->ncells;
    d->comm = comm;
    d->rank = rank;
    d->nranks = P;
    d->ncells = nc;
    d->nown = nown;
    d->gid = xalloc(sizeof(int) * (size_t)nc);
    memcpy(d->gid, gid, sizeof(int) * (size_t)nc);
    int *owner = d->owner = xalloc(sizeof(int) * (size_t)nc);
    int *owner_local = xalloc(sizeof(int) * (size_t)nc);
    for (int c = 0; c < nc; c++) {
        owner[c] = c < nown ? rank : -1;
        owner_local[c] = c < nown ? c : -1;
    }
    st = directory(d, owner, owner_local, msg, n);
    if (st == DECOMP_OK)
        st = rows_and_lists(d, m, owner, owner_local, reach, msg, n);
    xfree(owner_local);
    if (st != DECOMP_OK)
        dist_decomp_free(d);
    return st;
}

void dist_decomp_renumber(dist_decomp *d, const int *cell)
{
    for (int i = 0; i < d->rstart[d->nrecv]; i++)
        d->rcell[i] = cell[d->rcell[i]];
    for (int i = 0; i < d->sstart[d->nsend]; i++)
        d->scell[i] = cell[d->scell[i]];
}

/* Byte offsets of the messages of a list (npeer peers, start[]): per cell, nf fields x nz levels. */
static size_t *offsets(int npeer, const int *start, size_t per_cell)
{
    size_t *off = xalloc(sizeof(size_t) * (size_t)(npeer + 1));
    off[0] = 0;
    for (int j = 0; j < npeer; j++)
        off[j + 1] = off[j] + per_cell * (size_t)(start[j + 1] - start[j]);
    return off;
}

/* The host's arrays of a dist_decomp_exchange, for dist_decomp_exchange_cells. */
typedef struct {
    void *const *fields;
    int nz;
    long zstride;
    size_t es;
} host_fields;

static void host_cells(void *user, int f, const int *cell, int n, void *buf, int pack)
{
    const host_fields *h = user;
    field_cells(h->fields[f], h->nz, h->zstride, h->es, cell, n, buf, pack);
}

int dist_decomp_exchange(const dist_decomp *d, precision_t p, void *const *fields, int nf, int nz,
                         long zstride)
{
    host_fields h = {fields, nz, zstride, prec_size(p)};
    return dist_decomp_exchange_cells(d, p, nf, nz, host_cells, &h);
}

/* Between the values of every listed cell of field f (all[z * total + i], the lists' cells
 * start[0] .. start[npeer] in turn) and the messages (buf + off[j]: peer j's, field after field,
 * level after level, its cells in list order). */
static void messages(char *buf, const size_t *off, int npeer, const int *start, char *all, int f,
                     int nz, size_t es, int to_messages)
{
    size_t total = (size_t)start[npeer];
    for (int j = 0; j < npeer; j++) {
        size_t cnt = (size_t)(start[j + 1] - start[j]);
        for (int z = 0; z < nz; z++) {
            char *m = buf + off[j] + ((size_t)f * (size_t)nz + (size_t)z) * cnt * es;
            char *a = all + ((size_t)z * total + (size_t)start[j]) * es;
            if (to_messages)
                memcpy(m, a, cnt * es);
            else
                memcpy(a, m, cnt * es);
        }
    }
}

int dist_decomp_exchange_cells(const dist_decomp *d, precision_t p, int nf, int nz,
                               dist_cells_fn cells, void *user)
{
    size_t es = prec_size(p), per = es * (size_t)nf * (size_t)nz;
    size_t *soff = offsets(d->nsend, d->sstart, per), *roff = offsets(d->nrecv, d->rstart, per);
    char *sbuf = xalloc(soff[d->nsend] + 1), *rbuf = xalloc(roff[d->nrecv] + 1);
    int ns = d->nsend ? d->sstart[d->nsend] : 0, nr = d->nrecv ? d->rstart[d->nrecv] : 0;
    int most = ns > nr ? ns : nr;
    char *all = xalloc(es * (size_t)nz * (size_t)most + 1); /* one field's listed values */
    for (int f = 0; f < nf && ns > 0; f++) {
        cells(user, f, d->scell, ns, all, 1);
        messages(sbuf, soff, d->nsend, d->sstart, all, f, nz, es, 1);
    }
    int rc = dist_exchange_bytes(d->comm, d->nsend, d->speer, soff, sbuf, d->nrecv, d->rpeer, roff,
                                 rbuf);
    for (int f = 0; rc == 0 && f < nf && nr > 0; f++) {
        messages(rbuf, roff, d->nrecv, d->rstart, all, f, nz, es, 0);
        cells(user, f, d->rcell, nr, all, 0);
    }
    xfree(all);
    xfree(soff);
    xfree(roff);
    xfree(sbuf);
    xfree(rbuf);
    return rc;
}

void dist_decomp_free(dist_decomp *d)
{
    xfree(d->gid);
    xfree(d->owner);
    xfree(d->rpeer);
    xfree(d->rstart);
    xfree(d->rcell);
    xfree(d->speer);
    xfree(d->sstart);
    xfree(d->scell);
    memset(d, 0, sizeof *d);
}
