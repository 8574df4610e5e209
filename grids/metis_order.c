/* metis_order.c — a METIS k-way partition of a mesh's cells, and the locality order built from
 * it: parts chained greedily so that consecutive parts share an edge where possible, each part's
 * cells in breadth-first order from its first cell. */
#include "mesh.h"

#include "../base/common.h"

#include <metis.h>
#include <string.h>

/* CSR adjacency of the cells (each undirected edge once per direction, no duplicates). */
static void mesh_csr(const mesh *m, idx_t *xadj, idx_t *adj)
{
    idx_t k = 0;
    for (int c = 0; c < m->ncells; c++) {
        xadj[c] = k;
        const int *row = mesh_row(m, c);
        for (int r = 0; r < mesh_width(m); r++) {
            int d = row[r], dup = 0;
            for (int s = 0; s < r; s++)
                dup |= row[s] == d;
            if (d >= 0 && !dup)
                adj[k++] = d;
        }
    }
    xadj[m->ncells] = k;
}

/* At most this many parts per METIS call: asked for tens of thousands of parts of a few dozen
 * cells (e.g. 32,761 parts of a 724x724 triangle mesh), METIS 5.1's initial partitioning prints
 * "Cannot bisect a graph with 0 vertices" on stdout, and the library never prints. More parts are
 * made in two levels (kway_two_level). Up to 16,384 parts of 32 cells were seen quiet. */
#define KWAY_MAX_PARTS 4096

static int kway(int n, idx_t *xadj, idx_t *adj, int nparts, int *part);

/* nparts > KWAY_MAX_PARTS: k1 coarse parts of the whole graph, then each coarse part (its induced
 * subgraph) into its share of the nparts, proportional to its cells (at least 1, at most its
 * cells), numbered after the parts of the coarse parts before it. xadj and adj are freed. */
static int kway_two_level(int n, idx_t *xadj, idx_t *adj, int nparts, int *part)
{
    int k1 = (nparts + KWAY_MAX_PARTS - 1) / KWAY_MAX_PARTS;
    int *coarse = xalloc(sizeof(int) * (size_t)n);
    idx_t *cx = xalloc(sizeof(idx_t) * ((size_t)n + 1)), *ca = xalloc(sizeof(idx_t) * (size_t)(xadj[n] > 0 ? xadj[n] : 1));
    memcpy(cx, xadj, sizeof(idx_t) * ((size_t)n + 1));
    memcpy(ca, adj, sizeof(idx_t) * (size_t)xadj[n]);
    int rc = kway(n, cx, ca, k1, coarse); /* frees cx, ca */
    int *count = xalloc(sizeof(int) * (size_t)k1), *share = xalloc(sizeof(int) * (size_t)k1);
    int *local = xalloc(sizeof(int) * (size_t)n);
    memset(count, 0, sizeof(int) * (size_t)k1);
    for (int v = 0; rc == 0 && v < n; v++)
        local[v] = count[coarse[v]]++;
    /* shares: floor of the proportional share, at least 1; the rest one by one to the coarse
     * parts with the most cells per share that can still take one */
    int given = 0;
    for (int i = 0; rc == 0 && i < k1; i++) {
        long long q = (long long)nparts * count[i] / n;
        share[i] = q < 1 ? 1 : (int)q;
        if (share[i] > count[i])
            share[i] = count[i];
        given += share[i];
    }
    while (rc == 0 && given != nparts) {
        int best = -1;
        for (int i = 0; i < k1; i++) {
            int ok = given < nparts ? share[i] < count[i] : share[i] > 1;
            if (ok && (best < 0 || (given < nparts
                                        ? (long long)count[i] * share[best] > (long long)count[best] * share[i]
                                        : (long long)count[i] * share[best] < (long long)count[best] * share[i])))
                best = i;
        }
        if (best < 0) {
            perr("METIS: %d parts of %d cells could not be shared among %d coarse parts", nparts,
                 n, k1);
            rc = -1;
            break;
        }
        share[best] += given < nparts ? 1 : -1;
        given += given < nparts ? 1 : -1;
    }
    int *verts = xalloc(sizeof(int) * (size_t)n), *sub = xalloc(sizeof(int) * (size_t)n);
    int first = 0;
    for (int i = 0; rc == 0 && i < k1; i++) {
        int m = 0;
        for (int v = 0; v < n; v++)
            if (coarse[v] == i)
                verts[m++] = v;
        idx_t *sx = xalloc(sizeof(idx_t) * ((size_t)m + 1));
        idx_t *sa = xalloc(sizeof(idx_t) * (size_t)(xadj[n] > 0 ? xadj[n] : 1));
        idx_t e = 0;
        for (int j = 0; j < m; j++) {
            sx[j] = e;
            for (idx_t a = xadj[verts[j]]; a < xadj[verts[j] + 1]; a++)
                if (coarse[adj[a]] == i)
                    sa[e++] = local[adj[a]];
        }
        sx[m] = e;
        rc = kway(m, sx, sa, share[i], sub); /* frees sx, sa */
        for (int j = 0; rc == 0 && j < m; j++)
            part[verts[j]] = first + sub[j];
        first += share[i];
    }
    xfree(verts);
    xfree(sub);
    xfree(local);
    xfree(count);
    xfree(share);
    xfree(coarse);
    xfree(xadj);
    xfree(adj);
    return rc;
}

/* METIS k-way partition of the graph (xadj, adj) of n vertices into nparts parts (1 <= nparts
 * <= n, checked by the callers), seeded for reproducible parts; xadj and adj are freed. */
static int kway(int n, idx_t *xadj, idx_t *adj, int nparts, int *part)
{
    if (nparts > KWAY_MAX_PARTS)
        return kway_two_level(n, xadj, adj, nparts, part);
    if (nparts == 1) {
        memset(part, 0, sizeof(int) * (size_t)n);
        xfree(xadj);
        xfree(adj);
        return 0;
    }
    idx_t nv = n, ncon = 1, np = nparts, cut = 0;
    idx_t *pt = xalloc(sizeof(idx_t) * (size_t)(n > 0 ? n : 1));
    idx_t opt[METIS_NOPTIONS];
    METIS_SetDefaultOptions(opt);
    opt[METIS_OPTION_SEED] = 1; /* reproducible */
    int rc = METIS_PartGraphKway(&nv, &ncon, xadj, adj, NULL, NULL, NULL, &np, NULL, NULL, opt,
                                 &cut, pt);
    if (rc != METIS_OK) {
        perr("METIS_PartGraphKway failed (code %d) for %d parts of %d cells", rc, nparts, n);
    } else {
        for (int c = 0; c < n; c++)
            part[c] = (int)pt[c];
    }
    xfree(xadj);
    xfree(adj);
    xfree(pt);
    return rc == METIS_OK ? 0 : -1;
}

int mesh_partition(const mesh *m, int nparts, int *part)
{
    int n = m->ncells;
    if (nparts < 1 || nparts > n) {
        perr("--parts %d: expected 1 to the number of cells (%d)", nparts, n);
        return -1;
    }
    idx_t *xadj = xalloc(sizeof(idx_t) * ((size_t)n + 1)),
          *adj = xalloc(sizeof(idx_t) * (size_t)mesh_width(m) * (size_t)n);
    mesh_csr(m, xadj, adj);
    return kway(n, xadj, adj, nparts, part);
}

int ugrid_partition(const ugrid *g, int graph, int nparts, int *part)
{
    int inner = g->nxy - g->nhalo, w = graph ? g->adjw : NREL1;
    const int *nb = graph ? g->adj : g->nbr;
    if (nparts < 1 || nparts > inner) {
        perr("%d parts of a grid of %d inner cells: expected 1 to %d", nparts, inner, inner);
        return -1;
    }
    if (!nb) {
        perr("the grid has no %s to partition", graph ? "neighbour lists" : "W/E/S/N neighbours");
        return -1;
    }
    /* vertices: inner cells c - nhalo; edges: neighbours that are inner cells, each once */
    idx_t *xadj = xalloc(sizeof(idx_t) * ((size_t)inner + 1)),
          *adj = xalloc(sizeof(idx_t) * (size_t)w * (size_t)(inner > 0 ? inner : 1));
    idx_t k = 0;
    for (int c = g->nhalo; c < g->nxy; c++) {
        xadj[c - g->nhalo] = k;
        for (int r = 0; r < w; r++) {
            int d = nb[(size_t)r * g->nxy + c], dup = 0;
            for (int s = 0; s < r; s++)
                dup |= nb[(size_t)s * g->nxy + c] == d;
            if (d >= g->nhalo && d != c && !dup)
                adj[k++] = d - g->nhalo;
        }
    }
    xadj[inner] = k;
    for (int c = 0; c < g->nhalo; c++)
        part[c] = -1;
    return kway(inner, xadj, adj, nparts, part + g->nhalo);
}

void mesh_order_from_parts(const mesh *m, const int *part, int nparts, int *order)
{
    int n = m->ncells;
    /* cells grouped by part (counting sort, file order within a part) */
    int *start = xalloc(sizeof(int) * ((size_t)nparts + 1)),
        *bypart = xalloc(sizeof(int) * (size_t)n);
    for (int c = 0; c < n; c++)
        start[part[c] + 1]++;
    for (int p = 0; p < nparts; p++)
        start[p + 1] += start[p];
    int *fill = xalloc(sizeof(int) * (size_t)nparts);
    for (int c = 0; c < n; c++)
        bypart[start[part[c]] + fill[part[c]]++] = c;

    /* chain the parts: next = the unvisited part sharing most edges with the current one, else
     * the lowest-numbered unvisited part */
    int *chain = xalloc(sizeof(int) * (size_t)nparts),
        *shared = xalloc(sizeof(int) * (size_t)nparts);
    unsigned char *used = xalloc((size_t)nparts);
    int cur = part[0];
    for (int k = 0; k < nparts; k++) {
        chain[k] = cur;
        used[cur] = 1;
        int best = -1;
        for (int i = start[cur]; i < start[cur + 1]; i++)
            for (int r = 0; r < mesh_width(m); r++) {
                int d = mesh_row(m, bypart[i])[r];
                if (d >= 0 && !used[part[d]] && ++shared[part[d]] > (best < 0 ? 0 : shared[best]))
                    best = part[d];
            }
        for (int i = start[cur]; i < start[cur + 1]; i++)
            for (int r = 0; r < mesh_width(m); r++) {
                int d = mesh_row(m, bypart[i])[r];
                if (d >= 0)
                    shared[part[d]] = 0;
            }
        for (int p = 0; best < 0 && p < nparts; p++)
            if (!used[p])
                best = p;
        cur = best;
    }

    /* breadth-first order inside each part */
    unsigned char *seen = xalloc((size_t)n);
    int k = 0;
    for (int q = 0; q < nparts; q++) {
        int p = chain[q];
        for (int i = start[p]; i < start[p + 1]; i++) {
            if (seen[bypart[i]])
                continue;
            int head = k;
            order[k++] = bypart[i];
            seen[bypart[i]] = 1;
            while (head < k) {
                int c = order[head++];
                for (int r = 0; r < mesh_width(m); r++) {
                    int d = mesh_row(m, c)[r];
                    if (d >= 0 && part[d] == p && !seen[d]) {
                        seen[d] = 1;
                        order[k++] = d;
                    }
                }
            }
        }
    }
    xfree(seen);
    xfree(used);
    xfree(shared);
    xfree(chain);
    xfree(fill);
    xfree(bypart);
    xfree(start);
}

int mesh_locality_order(const mesh *m, int w, int *order, int *part_out)
{
    int nparts = m->part ? m->nparts : (m->ncells + w - 1) / w;
    int *part = m->part;
    if (!part) {
        part = xalloc(sizeof(int) * (size_t)m->ncells);
        if (mesh_partition(m, nparts, part) != 0) {
            xfree(part);
            return -1;
        }
    }
    mesh_order_from_parts(m, part, nparts, order);
    if (part_out)
        memcpy(part_out, part, sizeof(int) * (size_t)m->ncells);
    if (part != m->part)
        xfree(part);
    return nparts;
}
