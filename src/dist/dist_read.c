/* dist_read.c — a rank's rows read from a mesh file by the ranks together (dist_read.h). */
#include "dist_read.h"

#include "dist_mpi.h"
#include "grids/mesh.h"

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

/* The cells a rank holds so far: global id, owner, edges (sides), the file's row, distance from
 * its own. */
typedef struct {
    int n, cap, w, nc; /* nc: coordinates a cell (0: not carried) */
    int *gid, *owner, *sides, *row, *dist;
    double *coord;
    id_map at;
} held;

static void held_add(held *H, int gid, int dist)
{
    if (H->n == H->cap) {
        int cap = H->cap ? 2 * H->cap : 1024;
        H->gid = xgrow(H->gid, sizeof(int) * (size_t)H->n, sizeof(int) * (size_t)cap);
        H->owner = xgrow(H->owner, sizeof(int) * (size_t)H->n, sizeof(int) * (size_t)cap);
        H->dist = xgrow(H->dist, sizeof(int) * (size_t)H->n, sizeof(int) * (size_t)cap);
        H->sides = xgrow(H->sides, sizeof(int) * (size_t)H->n, sizeof(int) * (size_t)cap);
        if (H->nc)
            H->coord = xgrow(H->coord, sizeof(double) * (size_t)H->n * (size_t)H->nc,
                             sizeof(double) * (size_t)cap * (size_t)H->nc);
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

/* A record: global id, owner, edges, the row (w entries), the centre's nc coordinates (REC_CW
 * ints each, their bytes). */
enum { REC_HEAD = 3, REC_CW = sizeof(double) / sizeof(int) };

static void put_record(int *out, int gid, int owner, int sides, const int *row, int w,
                       const double *xy, int nc)
{
    out[0] = gid;
    out[1] = owner;
    out[2] = sides;
    memcpy(out + REC_HEAD, row, sizeof(int) * (size_t)w);
    if (nc)
        memcpy(out + REC_HEAD + w, xy, sizeof(double) * (size_t)nc);
}

/* Records received into the held cells they name (added when new, with distance dist). */
static void take_records(held *H, const int *rec, long nrec, int dist)
{
    int rs = REC_HEAD + H->w + REC_CW * H->nc;
    for (long i = 0; i < nrec; i++) {
        const int *r = rec + (size_t)i * (size_t)rs;
        int l = map_get(&H->at, r[0]);
        if (l < 0) {
            held_add(H, r[0], dist);
            l = H->n - 1;
        }
        H->owner[l] = r[1];
        H->sides[l] = r[2];
        memcpy(H->row + (size_t)l * (size_t)H->w, r + REC_HEAD, sizeof(int) * (size_t)H->w);
        if (H->nc)
            memcpy(H->coord + (size_t)l * (size_t)H->nc, r + REC_HEAD + H->w,
                   sizeof(double) * (size_t)H->nc);
    }
}

/* The grid's halo cells among the held ones (halo[l] = 1), as the run's grid marks them
 * (problem.c: mesh_graph_halo for a graph stencil, else mesh_halo, radius the stencil's) on the
 * held rows: a neighbour the file has and the rank does not hold is a stand-in cell (index H->n,
 * complete, its row itself), so that only the file's missing neighbours count as missing. Right
 * for the cells whose rows to distance radius-1 are held. */
static unsigned char *held_halo(const held *H, int quad, stencil_t s)
{
    int n = H->n, w = H->w;
    mesh m;
    memset(&m, 0, sizeof m);
    m.ncells = n + 1;
    int *t = xalloc(sizeof(int) * (size_t)w * (size_t)(n + 1));
    for (int l = 0; l < n; l++)
        for (int j = 0; j < w; j++) {
            int v = H->row[(size_t)l * (size_t)w + j], k = v >= 0 ? map_get(&H->at, v) : -1;
            t[(size_t)l * (size_t)w + j] = v < 0 ? -1 : k >= 0 ? k : n;
        }
    for (int j = 0; j < w; j++)
        t[(size_t)n * (size_t)w + j] = n;
    int *sides = NULL;
    if (quad) {
        m.nbr = t;
    } else {
        m.adj = t;
        m.maxdeg = w;
        sides = xalloc(sizeof(int) * (size_t)(n + 1));
        memcpy(sides, H->sides, sizeof(int) * (size_t)n);
        sides[n] = w;
        m.sides = sides;
    }
    unsigned char *halo = xalloc((size_t)n + 1);
    int radius = stencil_table[s].radius;
    if (stencil_table[s].graph)
        mesh_graph_halo(&m, radius, halo);
    else
        mesh_halo(&m, radius, halo);
    xfree(t);
    xfree(sides);
    return halo;
}

/* The places in the checksum's order (the run's grid in file order: the grid's halo cells first,
 * then the inner ones, each in file order) of the rank's cells of the partition, H's [0, n0)
 * (ascending ids), halo their flags (collective): each rank tells the holders of its cells' rows
 * their flags, the holders number their blocks after the counts of the lower blocks (an
 * exclusive scan) and answer. Rank 0 gets the halo cells' ids in file order (*fixed, *nfixed).
 * Returns n0 places. */
static int *hash_places(int comm, int P, const mesh_header *h, int b0, int nb, const held *H,
                        int n0, const unsigned char *halo, int **fixed, int *nfixed)
{
    int *scount = xalloc(sizeof(int) * (size_t)P), *rcount = xalloc(sizeof(int) * (size_t)P);
    memset(scount, 0, sizeof(int) * (size_t)P);
    int *send = xalloc(sizeof(int) * (size_t)(2 * n0 + 1));
    for (int l = 0; l < n0; l++) { /* ascending ids: holders in rank order */
        scount[holder(h, P, H->gid[l])] += 2;
        send[2 * l] = H->gid[l];
        send[2 * l + 1] = halo[l];
    }
    int *got = dist_alltoallv_int(comm, send, scount, rcount);
    xfree(send);
    long nget = 0;
    for (int q = 0; q < P; q++)
        nget += rcount[q] / 2;
    unsigned char *flag = xalloc((size_t)nb + 1);
    for (long i = 0; i < nget; i++)
        flag[got[2 * i] - b0] = (unsigned char)got[2 * i + 1];
    long count[2] = {0, 0}, before[2], total[2];
    for (int i = 0; i < nb; i++)
        count[flag[i] ? 0 : 1]++;
    dist_exscan_long(comm, count, 2, before, total);
    int *place = xalloc(sizeof(int) * (size_t)(nb + 1)), *ids = xalloc(sizeof(int) * (size_t)(nb + 1));
    long kh = before[0], ki = total[0] + before[1];
    int nh = 0;
    for (int i = 0; i < nb; i++) {
        place[i] = (int)(flag[i] ? kh++ : ki++);
        if (flag[i])
            ids[nh++] = b0 + i;
    }
    *fixed = dist_gather_ints(comm, ids, nh, nfixed);
    xfree(ids);
    xfree(flag);
    /* the answer: each asked cell's place, in the order asked */
    send = xalloc(sizeof(int) * (size_t)(nget + 1));
    for (long i = 0; i < nget; i++)
        send[i] = place[got[2 * i] - b0];
    xfree(got);
    xfree(place);
    for (int q = 0; q < P; q++) {
        rcount[q] /= 2;
        scount[q] /= 2;
    }
    int *places = dist_alltoallv_int(comm, send, rcount, scount);
    xfree(send);
    xfree(scount);
    xfree(rcount);
    return places;
}

int dist_read_local(int comm, int nranks, int rank, const char *path, const mesh_header *h,
                    stencil_t s, int F, dist_local *L, int **fixed, int *nfixed)
{
    memset(L, 0, sizeof *L);
    *fixed = NULL;
    *nfixed = 0;
    int P = nranks, w = h->width, nc = 0, want_xy = stencil_table[s].coeffs.n > 0;
    int b0 = block0(h, P, rank), nb = block0(h, P, rank + 1) - b0;
    int *nbr = NULL, *sides = NULL, *part = NULL;
    double *xy = NULL; /* the centres, for a stencil with coefficients */
    int rc = h->nparts == P ? mesh_read_block(path, h, b0, nb, &nbr, &sides, &part,
                                              want_xy ? &xy : NULL, &nc) : -1;
    int rs = REC_HEAD + w + REC_CW * nc;
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
        xfree(xy);
        return -1;
    }
    /* open: some row lacks a neighbour on one of its sides (the grid has halo cells) */
    int open = 0;
    for (int i = 0; i < nb && !open; i++)
        for (int j = 0; j < (sides ? sides[i] : w); j++)
            open |= nbr[(size_t)i * (size_t)w + j] < 0;
    dist_minmax(comm, open, &lo, &hi);
    open = hi != 0;

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
        put_record(send + at[part[i]], b0 + i, part[i], sides ? sides[i] : w,
                   nbr + (size_t)i * (size_t)w, w, nc ? xy + (size_t)i * (size_t)nc : NULL, nc);
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
    H.nc = nc;
    map_init(&H.at, (size_t)nrec * 3 / 2 + 16);
    take_records(&H, recv, nrec, 0); /* from the holders in rank order: ascending ids */
    xfree(recv);
    int n0 = H.n; /* the rank's cells of the partition */

    /* the ring: radius·F rounds, each asking the holders for the rows the last round reached; on
     * a grid with halo cells radius-1 more, for the halo flags of the cells within radius·F */
    int radius = stencil_table[s].radius, depth = radius * F;
    int rounds = depth + (open && radius > 1 ? radius - 1 : 0);
    int *ask = NULL, nask = 0, cap = 0;
    for (int d = 1; d <= rounds; d++) {
        nask = 0;
        int n1 = H.n;
        for (int l = 0; l < n1; l++) {
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
            put_record(send + (size_t)i * (size_t)rs, asked[i], part[r], sides ? sides[r] : w,
                       nbr + (size_t)r * (size_t)w, w, nc ? xy + (size_t)r * (size_t)nc : NULL, nc);
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
    xfree(scount);
    xfree(rcount);
    xfree(at);

    /* the grid's halo cells: owned by no rank, and the checksum's places of the own cells */
    unsigned char *halo = NULL;
    int *place = NULL;
    if (open) {
        halo = held_halo(&H, h->quad, s);
        place = hash_places(comm, P, h, b0, nb, &H, n0, halo, fixed, nfixed);
    }
    int has_sides = sides != NULL;
    xfree(nbr);
    xfree(sides);
    xfree(part);
    xfree(xy);

    /* local numbering: own cells (the partition's that are not halo cells), then the other cells
     * within radius·F as held (by distance: a prefix of H) */
    int nkeep = 0;
    while (nkeep < H.n && H.dist[nkeep] <= depth)
        nkeep++;
    int *from = xalloc(sizeof(int) * (size_t)(nkeep + 1)), *to = xalloc(sizeof(int) * (size_t)(H.n + 1));
    int n = 0, nown = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int l = 0; l < nkeep; l++)
            if ((l < n0 && !(halo && halo[l])) == (pass == 0))
                from[n++] = l;
    for (int l = 0; l < n0; l++)
        nown += !(halo && halo[l]);
    for (int l = 0; l < H.n; l++)
        to[l] = -1;
    for (int i = 0; i < n; i++)
        to[from[i]] = i;
    L->nlocal = n;
    L->nown = nown;
    L->nz = h->nlevels;
    L->gid = xalloc(sizeof(int) * (size_t)(n + 1));
    L->owner = xalloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        L->gid[i] = H.gid[from[i]];
        L->owner[i] = halo && halo[from[i]] ? -1 : H.owner[from[i]];
    }
    if (place) {
        L->hix = xalloc(sizeof(int) * (size_t)(nown + 1));
        for (int i = 0; i < nown; i++)
            L->hix[i] = place[from[i]];
    }
    if (nc) { /* the centres and sides, for the coefficients (dist_local_coeffs) */
        L->ncoord = nc;
        L->coord = xalloc(sizeof(double) * (size_t)nc * (size_t)(n + 1));
        for (int i = 0; i < n; i++)
            memcpy(L->coord + (size_t)i * (size_t)nc, H.coord + (size_t)from[i] * (size_t)nc,
                   sizeof(double) * (size_t)nc);
    }
    if (nc && has_sides) {
        L->sides = xalloc(sizeof(int) * (size_t)(n + 1));
        for (int i = 0; i < n; i++)
            L->sides[i] = H.sides[from[i]];
    }
    L->adjw = w;
    L->adj = xalloc(sizeof(int) * (size_t)w * (size_t)n);
    if (h->quad)
        L->nbr = xalloc(sizeof(int) * (size_t)NREL1 * (size_t)n);
    for (int i = 0; i < n; i++) {
        const int *row = H.row + (size_t)from[i] * (size_t)w;
        int k = 0;
        for (int j = 0; j < w; j++) {
            int v = row[j] >= 0 ? map_get(&H.at, row[j]) : -1;
            v = v >= 0 ? to[v] : -1;
            if (h->quad)
                L->nbr[(size_t)j * (size_t)n + (size_t)i] = v;
            if (row[j] >= 0) /* present in the file: listed, -1 when not held */
                L->adj[(size_t)k++ * (size_t)n + (size_t)i] = v;
        }
        for (; k < w; k++)
            L->adj[(size_t)k * (size_t)n + (size_t)i] = -1;
    }
    xfree(from);
    xfree(to);
    xfree(halo);
    xfree(place);
    xfree(H.gid);
    xfree(H.owner);
    xfree(H.sides);
    xfree(H.coord);
    xfree(H.row);
    xfree(H.dist);
    map_free(&H.at);
    return 0;
}
