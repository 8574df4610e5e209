/* dist_read.c — a rank's rows read from a mesh file by the ranks together (dist_read.h). */
#include "dist_read.h"

#include "dist_mpi.h"

#include <stdlib.h>
#include <string.h>

/* Global id -> local cell, open addressing (keys >= 0; -1 empty), grown at half full. */
typedef struct {
    int *key, *val;
    size_t cap, n;
} id_map;

static void map_init(id_map *m, size_t want)
{
    m->cap = 64;
    while (m->cap < 2 * want)
        m->cap *= 2;
    m->n = 0;
    m->key = xalloc(sizeof(int) * m->cap);
    m->val = xalloc(sizeof(int) * m->cap);
    memset(m->key, 0xff, sizeof(int) * m->cap); /* -1 */
}

static size_t map_slot(const id_map *m, int k)
{
    size_t h = ((size_t)(unsigned)k * 0x9E3779B1u) & (m->cap - 1);
    while (m->key[h] != -1 && m->key[h] != k)
        h = (h + 1) & (m->cap - 1);
    return h;
}

static int map_get(const id_map *m, int k)
{
    size_t h = map_slot(m, k);
    return m->key[h] == k ? m->val[h] : -1;
}

static void map_put(id_map *m, int k, int v);

static void map_grow(id_map *m)
{
    id_map b;
    map_init(&b, m->cap);
    for (size_t i = 0; i < m->cap; i++)
        if (m->key[i] != -1)
            map_put(&b, m->key[i], m->val[i]);
    xfree(m->key);
    xfree(m->val);
    *m = b;
}

static void map_put(id_map *m, int k, int v)
{
    if (2 * (m->n + 1) > m->cap)
        map_grow(m);
    size_t h = map_slot(m, k);
    m->n += m->key[h] == -1;
    m->key[h] = k;
    m->val[h] = v;
}

static void map_free(id_map *m)
{
    xfree(m->key);
    xfree(m->val);
}

/* The first row of rank q's block. */
static int block0(const mesh_header *h, int nranks, int q)
{
    return (int)((long long)q * h->ncells / nranks);
}

/* The rank whose block holds row g. */
static int holder(const mesh_header *h, int nranks, int g)
{
    int q = (int)((long long)g * nranks / h->ncells);
    while (q + 1 < nranks && block0(h, nranks, q + 1) <= g)
        q++;
    while (q > 0 && block0(h, nranks, q) > g)
        q--;
    return q;
}

/* The cells a rank holds so far: global id, owner, the file's row, distance from its own. */
typedef struct {
    int n, cap, w;
    int *gid, *owner, *row, *dist;
    id_map at;
} held;

static void held_add(held *H, int gid, int dist)
{
    if (H->n == H->cap) {
        int cap = H->cap ? 2 * H->cap : 1024;
        H->gid = xgrow(H->gid, sizeof(int) * (size_t)H->n, sizeof(int) * (size_t)cap);
        H->owner = xgrow(H->owner, sizeof(int) * (size_t)H->n, sizeof(int) * (size_t)cap);
        H->dist = xgrow(H->dist, sizeof(int) * (size_t)H->n, sizeof(int) * (size_t)cap);
        H->row = xgrow(H->row, sizeof(int) * (size_t)H->n * (size_t)H->w,
                       sizeof(int) * (size_t)cap * (size_t)H->w);
        H->cap = cap;
    }
    H->gid[H->n] = gid;
    H->owner[H->n] = -1;
    H->dist[H->n] = dist;
    map_put(&H->at, gid, H->n);
    H->n++;
}

/* A record: global id, owner, the row (w entries). */
static void put_record(int *out, int gid, int owner, const int *row, int w)
{
    out[0] = gid;
    out[1] = owner;
    memcpy(out + 2, row, sizeof(int) * (size_t)w);
}

/* Records received into the held cells they name (added when new, with distance dist). */
static void take_records(held *H, const int *rec, long nrec, int dist)
{
    int rs = 2 + H->w;
    for (long i = 0; i < nrec; i++) {
        const int *r = rec + (size_t)i * (size_t)rs;
        int l = map_get(&H->at, r[0]);
        if (l < 0) {
            held_add(H, r[0], dist);
            l = H->n - 1;
        }
        H->owner[l] = r[1];
        memcpy(H->row + (size_t)l * (size_t)H->w, r + 2, sizeof(int) * (size_t)H->w);
    }
}

int dist_read_local(int comm, int nranks, int rank, const char *path, const mesh_header *h,
                    stencil_t s, int F, dist_local *L)
{
    memset(L, 0, sizeof *L);
    int P = nranks, w = h->width, rs = 2 + w;
    int b0 = block0(h, P, rank), nb = block0(h, P, rank + 1) - b0;
    int *nbr = NULL, *sides = NULL, *part = NULL;
    int rc = h->nparts == P ? mesh_read_block(path, h, b0, nb, &nbr, &sides, &part) : -1;
    if (h->nparts != P)
        perr("%s: its /partition has %d parts, not one per rank (%d)", path, h->nparts, P);
    double lo, hi;
    dist_minmax(comm, rc, &lo, &hi);
    if (lo != 0) {
        if (rc == 0)
            perr("distributed run: another rank could not read its block of %s", path);
        xfree(nbr);
        xfree(sides);
        xfree(part);
        return -1;
    }
    /* closed: every row has all its sides' neighbours */
    int open = 0;
    for (int i = 0; i < nb && !open; i++)
        for (int j = 0; j < (sides ? sides[i] : w); j++)
            open |= nbr[(size_t)i * (size_t)w + j] < 0;
    dist_minmax(comm, open, &lo, &hi);
    if (hi != 0) {
        xfree(nbr);
        xfree(sides);
        xfree(part);
        return 1;
    }
    xfree(sides);

    /* rows to owners */
    int *scount = xalloc(sizeof(int) * (size_t)P), *rcount = xalloc(sizeof(int) * (size_t)P);
    int *at = xalloc(sizeof(int) * (size_t)P);
    memset(scount, 0, sizeof(int) * (size_t)P);
    for (int i = 0; i < nb; i++)
        scount[part[i]] += rs;
    for (int q = 0, sum = 0; q < P; q++) {
        at[q] = sum;
        sum += scount[q];
    }
    int *send = xalloc(sizeof(int) * ((size_t)nb * (size_t)rs + 1));
    for (int i = 0; i < nb; i++) {
        put_record(send + at[part[i]], b0 + i, part[i], nbr + (size_t)i * (size_t)w, w);
        at[part[i]] += rs;
    }
    int *recv = dist_alltoallv_int(comm, send, scount, rcount);
    xfree(send);
    long nrec = 0;
    for (int q = 0; q < P; q++)
        nrec += rcount[q] / rs;
    held H;
    memset(&H, 0, sizeof H);
    H.w = w;
    map_init(&H.at, (size_t)nrec * 3 / 2 + 16);
    take_records(&H, recv, nrec, 0); /* from the holders in rank order: ascending ids */
    xfree(recv);
    int nown = H.n;

    /* the ring: radius·F rounds, each asking the holders for the rows the last round reached */
    int depth = stencil_table[s].radius * F;
    int *ask = NULL, nask = 0, cap = 0;
    for (int d = 1; d <= depth; d++) {
        nask = 0;
        int n0 = H.n;
        for (int l = 0; l < n0; l++) {
            if (H.dist[l] != d - 1)
                continue;
            for (int j = 0; j < w; j++) {
                int v = H.row[(size_t)l * (size_t)w + j];
                if (v < 0 || map_get(&H.at, v) >= 0)
                    continue;
                held_add(&H, v, d);
                if (nask == cap) {
                    cap = cap ? 2 * cap : 1024;
                    ask = xgrow(ask, sizeof(int) * (size_t)nask, sizeof(int) * (size_t)cap);
                }
                ask[nask++] = v;
            }
        }
        /* the ids by holder */
        memset(scount, 0, sizeof(int) * (size_t)P);
        for (int i = 0; i < nask; i++)
            scount[holder(h, P, ask[i])]++;
        for (int q = 0, sum = 0; q < P; q++) {
            at[q] = sum;
            sum += scount[q];
        }
        send = xalloc(sizeof(int) * (size_t)(nask + 1));
        for (int i = 0; i < nask; i++)
            send[at[holder(h, P, ask[i])]++] = ask[i];
        int *asked = dist_alltoallv_int(comm, send, scount, rcount);
        xfree(send);
        /* answer: the record of each id asked, in the order asked */
        long nasked = 0;
        for (int q = 0; q < P; q++)
            nasked += rcount[q];
        send = xalloc(sizeof(int) * ((size_t)nasked * (size_t)rs + 1));
        for (long i = 0; i < nasked; i++) {
            int r = asked[i] - b0;
            put_record(send + (size_t)i * (size_t)rs, asked[i], part[r], nbr + (size_t)r * (size_t)w, w);
        }
        for (int q = 0; q < P; q++)
            rcount[q] *= rs;
        xfree(asked);
        recv = dist_alltoallv_int(comm, send, rcount, scount);
        xfree(send);
        nrec = 0;
        for (int q = 0; q < P; q++)
            nrec += scount[q] / rs;
        take_records(&H, recv, nrec, d);
        xfree(recv);
    }
    xfree(ask);
    xfree(nbr);
    xfree(part);
    xfree(scount);
    xfree(rcount);
    xfree(at);

    /* local numbering: as held (own cells first) */
    int n = H.n;
    L->nlocal = n;
    L->nown = nown;
    L->nz = h->nlevels;
    L->gid = H.gid;
    L->owner = H.owner;
    L->adjw = w;
    L->adj = xalloc(sizeof(int) * (size_t)w * (size_t)n);
    if (h->quad)
        L->nbr = xalloc(sizeof(int) * (size_t)NREL1 * (size_t)n);
    for (int l = 0; l < n; l++) {
        const int *row = H.row + (size_t)l * (size_t)w;
        int k = 0;
        for (int j = 0; j < w; j++) {
            int v = row[j] >= 0 ? map_get(&H.at, row[j]) : -1;
            if (h->quad)
                L->nbr[(size_t)j * (size_t)n + (size_t)l] = v;
            if (row[j] >= 0) /* present in the file: listed, -1 when not held */
                L->adj[(size_t)k++ * (size_t)n + (size_t)l] = v;
        }
        for (; k < w; k++)
            L->adj[(size_t)k * (size_t)n + (size_t)l] = -1;
    }
    xfree(H.row);
    xfree(H.dist);
    map_free(&H.at);
    return 0;
}
