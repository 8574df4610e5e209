/* mesh_edges.c — a general mesh's neighbours from its cells' corners (mesh_adj_from_nodes in
 * mesh.h): two cells are neighbours when they share an edge, i.e. two consecutive corners. */
#include "mesh.h"

#include "../base/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An edge of a cell: its two nodes, smaller first, the cell and the edge's column in it. */
typedef struct {
    int lo, hi, cell, side;
} edge;

static int edge_cmp(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    if (x->hi != y->hi)
        return x->hi < y->hi ? -1 : 1;
    return x->cell != y->cell ? (x->cell < y->cell ? -1 : 1) : x->side - y->side;
}

/* Corners of cell c (entries before the first -1). */
static int corners(const mesh *m, int c)
{
    const int *row = m->cell_nodes + (size_t)m->node_width * (size_t)c;
    int k = 0;
    while (k < m->node_width && row[k] >= 0)
        k++;
    return k;
}

int mesh_adj_from_nodes(mesh *m, const char *dataset, char *err, size_t n)
{
    int w = m->node_width, all = 1;
    size_t ne = 0;
    if (w < 3 || w > MESH_MAXDEG) {
        snprintf(err, n, "%s: %d corners per cell at most; expected 3 to %d", dataset, w,
                 MESH_MAXDEG);
        return -1;
    }
    for (int c = 0; c < m->ncells; c++) {
        const int *row = m->cell_nodes + (size_t)w * (size_t)c;
        int k = corners(m, c);
        if (k < 3) {
            snprintf(err, n, "%s: cell %d has %d corner%s; a cell needs at least 3", dataset, c,
                     k, k == 1 ? "" : "s");
            return -1;
        }
        for (int j = 0; j < k; j++)
            if (row[j] == row[(j + 1) % k]) {
                snprintf(err, n, "%s: cell %d has node %d twice in a row (corners %d and %d)",
                         dataset, c, row[j], j, (j + 1) % k);
                return -1;
            }
        all &= k == w;
        ne += (size_t)k;
    }
    edge *ed = xalloc(sizeof(edge) * (ne ? ne : 1));
    ne = 0;
    for (int c = 0; c < m->ncells; c++) {
        const int *row = m->cell_nodes + (size_t)w * (size_t)c;
        int k = corners(m, c);
        for (int j = 0; j < k; j++) {
            int a = row[j], b = row[(j + 1) % k];
            edge e = {a < b ? a : b, a < b ? b : a, c, j};
            ed[ne++] = e;
        }
    }
    qsort(ed, ne, sizeof(edge), edge_cmp);
    /* the first cell in file order with an edge of 3 or more cells (each group is sorted by
     * cell, so its first entry is its least cell) */
    size_t bad = ne, bad_end = ne;
    for (size_t i = 0; i < ne;) {
        size_t j = i + 1;
        while (j < ne && ed[j].lo == ed[i].lo && ed[j].hi == ed[i].hi)
            j++;
        if (j - i > 2 && (bad == ne || ed[i].cell < ed[bad].cell)) {
            bad = i;
            bad_end = j;
        }
        i = j;
    }
    if (bad < ne) {
        char cells[160] = ""; /* every cell on the edge, up to 8 */
        for (size_t k = bad; k < bad_end && k < bad + 8; k++) {
            size_t used = strlen(cells);
            snprintf(cells + used, sizeof cells - used, "%s%d",
                     k == bad ? "" : k + 1 == bad_end ? " and " : ", ", ed[k].cell);
        }
        snprintf(err, n,
                 "%s: cell %d: its edge between nodes %d and %d is shared by %zu cells (%s%s); a "
                 "surface has at most 2 cells on an edge",
                 dataset, ed[bad].cell, ed[bad].lo, ed[bad].hi, bad_end - bad, cells,
                 bad_end - bad > 8 ? ", ..." : "");
        xfree(ed);
        return -1;
    }
    xfree(m->adj);
    xfree(m->sides);
    m->maxdeg = w;
    m->adj = xalloc(sizeof(int) * (size_t)w * (size_t)m->ncells);
    memset(m->adj, 0xff, sizeof(int) * (size_t)w * (size_t)m->ncells);
    m->sides = NULL;
    if (!all) {
        m->sides = xalloc(sizeof(int) * (size_t)m->ncells);
        for (int c = 0; c < m->ncells; c++)
            m->sides[c] = corners(m, c);
    }
    for (size_t i = 0; i + 1 < ne; i++)
        if (ed[i].lo == ed[i + 1].lo && ed[i].hi == ed[i + 1].hi) {
            m->adj[(size_t)w * (size_t)ed[i].cell + (size_t)ed[i].side] = ed[i + 1].cell;
            m->adj[(size_t)w * (size_t)ed[i + 1].cell + (size_t)ed[i + 1].side] = ed[i].cell;
            i++;
        }
    xfree(ed);
    return 0;
}
