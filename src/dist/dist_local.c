/* dist_local.c — a rank's rows in local numbering (src/dist/dist_local.h). */
#include "dist_local.h"

#include "grids/mesh.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Copies the w columns of table t (nxy cells, column-major) for the held cells hold[0 .. n) into
 * local numbers (loc: grid cell -> local cell, -1 where not held). */
static int *table_rows(const int *t, int w, int nxy, const int *hold, int n, const int *loc)
{
    int *out = xalloc(sizeof(int) * (size_t)w * (size_t)(n > 0 ? n : 1));
    for (int r = 0; r < w; r++)
        for (int l = 0; l < n; l++) {
            int v = t[(size_t)r * nxy + hold[l]];
            out[(size_t)r * n + l] = v >= 0 ? loc[v] : -1;
        }
    return out;
}

int dist_local_from_grid(dist_local *L, const ugrid *g, const int *part, int nranks, int rank,
                         stencil_t s, int F)
{
    memset(L, 0, sizeof *L);
    for (int c = g->nhalo; c < g->nxy; c++)
        if (part[c] < 0 || part[c] >= nranks) {
            perr("distributed run: cell %d is given to rank %d, not one of 0 to %d", c, part[c],
                 nranks - 1);
            return -1;
        }
    int graph = stencil_table[s].graph, depth = stencil_table[s].radius * F;
    int w = graph ? g->adjw : NREL1;
    const int *walk = graph ? g->adj : g->nbr;
    if (!walk) {
        perr("distributed run: %s needs the grid's %s", stencil_table[s].name,
             graph ? "neighbour lists" : "W/E/S/N relations");
        return -1;
    }
    /* breadth-first from every own cell at once: dist = the distance to the nearest */
    int *dist = xalloc(sizeof(int) * (size_t)g->nxy), *queue = xalloc(sizeof(int) * (size_t)g->nxy);
    int head = 0, tail = 0, nown = 0;
    for (int c = 0; c < g->nxy; c++) {
        dist[c] = c >= g->nhalo && part[c] == rank ? 0 : INT_MAX;
        if (dist[c] == 0)
            queue[tail++] = c;
    }
    nown = tail;
    if (nown == 0) {
        perr("distributed run: rank %d of %d owns no cell (%d inner cells: use fewer ranks)", rank,
             nranks, g->nxy - g->nhalo);
        xfree(dist);
        xfree(queue);
        return -1;
    }
    while (head < tail) {
        int u = queue[head++];
        if (dist[u] >= depth)
            continue;
        for (int r = 0; r < w; r++) {
            int v = walk[(size_t)r * g->nxy + u];
            if (v >= 0 && dist[v] == INT_MAX) {
                dist[v] = dist[u] + 1;
                queue[tail++] = v;
            }
        }
    }
    /* own cells ascending, then the others ascending (queue reused as the held list) */
    int n = 0;
    for (int c = 0; c < g->nxy; c++)
        if (dist[c] == 0)
            queue[n++] = c;
    for (int c = 0; c < g->nxy; c++)
        if (dist[c] != 0 && dist[c] != INT_MAX)
            queue[n++] = c;
    int *loc = dist; /* grid cell -> local cell */
    for (int c = 0; c < g->nxy; c++)
        loc[c] = -1;
    for (int l = 0; l < n; l++)
        loc[queue[l]] = l;
    L->nlocal = n;
    L->nown = nown;
    L->nz = g->nz;
    L->gid = xalloc(sizeof(int) * (size_t)n);
    L->owner = xalloc(sizeof(int) * (size_t)n);
    for (int l = 0; l < n; l++) {
        L->gid[l] = queue[l];
        L->owner[l] = queue[l] < g->nhalo ? -1 : part[queue[l]];
    }
    dist_local_rows(L, g, queue, loc);
    xfree(dist);
    xfree(queue);
    return 0;
}

void dist_local_rows(dist_local *L, const ugrid *g, const int *hold, const int *loc)
{
    if (g->nbr)
        L->nbr = table_rows(g->nbr, NREL1, g->nxy, hold, L->nlocal, loc);
    if (g->adj) {
        L->adjw = g->adjw;
        L->adj = table_rows(g->adj, g->adjw, g->nxy, hold, L->nlocal, loc);
    }
}

static const int *gid_key; /* by_gid's key (qsort takes no context) */

static int by_gid(const void *pa, const void *pb)
{
    int a = gid_key[*(const int *)pa], b = gid_key[*(const int *)pb];
    return (a > b) - (a < b);
}

int dist_local_check(const dist_local *L, int nranks, int rank, stencil_t s)
{
    int graph = stencil_table[s].graph;
    if (L->nown < 1 || L->nlocal < L->nown || L->nz < 1) {
        perr("distributed run: rank %d of %d: %s", rank, nranks,
             L->nown < 1 ? "owns no cell" : L->nz < 1 ? "no levels" : "fewer cells than it owns");
        return -1;
    }
    if (graph ? !L->adj || L->adjw < 1 : !L->nbr) {
        perr("distributed run: rank %d: %s needs the grid's %s", rank, stencil_table[s].name,
             graph ? "neighbour lists" : "W/E/S/N relations");
        return -1;
    }
    for (int l = 0; l < L->nlocal; l++) {
        int o = L->owner[l], own = l < L->nown;
        if (L->gid[l] < 0 || (own ? o != rank : o == rank || o < -1 || o >= nranks)) {
            perr("distributed run: rank %d's local cell %d (global id %d): %s %d", rank, l,
                 L->gid[l], L->gid[l] < 0 ? "a negative global id, owner" :
                 own ? "an owned cell, but its owner is" : "a cell it does not own, owner", o);
            return -1;
        }
    }
    int w = graph ? L->adjw : NREL1;
    const int *t = graph ? L->adj : L->nbr;
    for (size_t i = 0; i < (size_t)w * (size_t)L->nlocal; i++)
        if (t[i] < -1 || t[i] >= L->nlocal) {
            int l = (int)(i % (size_t)L->nlocal);
            perr("distributed run: rank %d's local cell %d (global id %d): neighbour %d is %d, "
                 "not a local cell (0 to %d) or -1", rank, l, L->gid[l], (int)(i / (size_t)L->nlocal),
                 t[i], L->nlocal - 1);
            return -1;
        }
    int *by = xalloc(sizeof(int) * (size_t)L->nlocal), rc = 0;
    for (int l = 0; l < L->nlocal; l++)
        by[l] = l;
    gid_key = L->gid;
    qsort(by, (size_t)L->nlocal, sizeof(int), by_gid);
    gid_key = NULL;
    for (int i = 1; i < L->nlocal && rc == 0; i++)
        if (L->gid[by[i]] == L->gid[by[i - 1]]) {
            perr("distributed run: rank %d holds global id %d twice (local cells %d and %d)", rank,
                 L->gid[by[i]], by[i - 1] < by[i] ? by[i - 1] : by[i],
                 by[i - 1] < by[i] ? by[i] : by[i - 1]);
            rc = -1;
        }
    xfree(by);
    return rc;
}

/* Whether l appears in row m of adj (adjw columns, nlocal rows). */
static int row_lists(const dist_local *L, int m, int l)
{
    for (int j = 0; j < L->adjw; j++)
        if (L->adj[(size_t)j * (size_t)L->nlocal + (size_t)m] == l)
            return 1;
    return 0;
}

int dist_local_symmetric(const dist_local *L, int rank, const char *file, const char *dataset)
{
    if (!L->adj)
        return 0;
    for (int l = 0; l < L->nown; l++)
        for (int j = 0; j < L->adjw; j++) {
            int m = L->adj[(size_t)j * (size_t)L->nlocal + (size_t)l];
            if (m >= 0 && !row_lists(L, m, l)) {
                perr("%s: %s: asymmetric at cell %d: it lists cell %d, but cell %d does not list "
                     "%d among its neighbours (found by rank %d, reading its part)", file, dataset,
                     L->gid[l], L->gid[m], L->gid[m], L->gid[l], rank);
                return -1;
            }
        }
    return 0;
}

int dist_local_coeffs(const dist_local *L, stencil_t s, precision_t p, const char *file,
                      double (*min_all)(void *u, double x), void *u, coef_set *all)
{
    memset(all, 0, sizeof *all);
    if (!L->adj) {
        perr("distributed run: %s's coefficients are made from neighbour lists, which these rows "
             "lack", stencil_table[s].name);
        return -1;
    }
    int n = L->nlocal;
    mesh m; /* the held cells: their sides and centres, all fluxdiff's kind of build reads */
    memset(&m, 0, sizeof m);
    m.ncells = n;
    m.ncoord = L->coord ? L->ncoord : 0;
    m.coord = L->coord;
    if (!L->nbr) { /* a general mesh: adjw edges, or sides (m.adj only says the kind here) */
        m.adj = L->adj;
        m.maxdeg = L->adjw;
        m.sides = L->sides;
    }
    ugrid g;
    memset(&g, 0, sizeof g);
    g.nxy = n;
    g.nz = L->nz;
    g.adjw = L->adjw;
    g.adj = L->adj;
    g.mesh_cell = xalloc(sizeof(int) * (size_t)(n + 1));
    for (int l = 0; l < n; l++)
        g.mesh_cell[l] = l;
    int rc = stencil_coeffs_part(s, all, &g, &m, p, file, min_all, u);
    xfree(g.mesh_cell);
    return rc;
}

void dist_local_free(dist_local *L)
{
    xfree(L->gid);
    xfree(L->owner);
    xfree(L->nbr);
    xfree(L->adj);
    xfree(L->hix);
    xfree(L->coord);
    xfree(L->sides);
    memset(L, 0, sizeof *L);
}
