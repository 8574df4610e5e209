/* mesh_nodes.c — the optional nodes of a mesh (mesh.h, docs/mesh-format.md): checking them, and
 * the nodes of a regular patch. */
#include "mesh.h"

#include "../base/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mesh_check_nodes(const mesh *m, char *err, size_t n)
{
    if (!m->node_coord && !m->cell_nodes && m->nnodes == 0)
        return 0;
    if (!m->node_coord || !m->cell_nodes || m->nnodes < 1) {
        snprintf(err, n, "%s: node data needs both /node_coordinates (at least one node) and "
                 "/cell_nodes", !m->cell_nodes ? "/cell_nodes is missing"
                 : m->node_coord ? "/node_coordinates is empty" : "/node_coordinates is missing");
        return -1;
    }
    if (m->nnode_coord != 2 && m->nnode_coord != 3) {
        snprintf(err, n, "/node_coordinates: %d components per node; expected 2 or 3",
                 m->nnode_coord);
        return -1;
    }
    if (m->node_width < 3 || m->node_width > MESH_MAXDEG) {
        snprintf(err, n, "/cell_nodes has %d columns; expected 3 to %d", m->node_width,
                 MESH_MAXDEG);
        return -1;
    }
    for (int c = 0; c < m->ncells; c++) {
        const int *row = m->cell_nodes + (size_t)m->node_width * (size_t)c;
        int corners = 0;
        while (corners < m->node_width && row[corners] != -1)
            corners++;
        for (int j = 0; j < m->node_width; j++) {
            int v = row[j];
            const char *why = NULL;
            if (j >= corners && v != -1)
                why = "lies past the cell's last corner (a -1); expected -1";
            else if (j < corners && (v < 0 || v >= m->nnodes))
                why = "is out of range";
            for (int i = 0; i < j && !why && v >= 0; i++)
                if (row[i] == v)
                    why = "repeats a corner of the cell";
            if (why) {
                snprintf(err, n, "/cell_nodes: cell %d: column %d = %d %s (nodes 0..%d)", c, j, v,
                         why, m->nnodes - 1);
                return -1;
            }
        }
        if (corners < 3) {
            snprintf(err, n, "/cell_nodes: cell %d has %d corners; a cell needs at least 3", c,
                     corners);
            return -1;
        }
    }
    return 0;
}

void mesh_patch_nodes(mesh *m)
{
    int nx = m->nx, ny = m->ny;
    xfree(m->node_coord);
    xfree(m->cell_nodes);
    m->nnodes = (nx + 1) * (ny + 1);
    m->nnode_coord = 2;
    m->node_coord = xalloc(sizeof(double) * 2 * (size_t)m->nnodes);
    for (int j = 0; j <= ny; j++)
        for (int i = 0; i <= nx; i++) {
            size_t v = (size_t)j * (size_t)(nx + 1) + (size_t)i;
            m->node_coord[2 * v] = i;
            m->node_coord[2 * v + 1] = j;
        }
    m->node_width = 4;
    m->cell_nodes = xalloc(sizeof(int) * 4 * (size_t)m->ncells);
    for (int c = 0; c < m->ncells; c++) {
        int x = m->xy[2 * (size_t)c], y = m->xy[2 * (size_t)c + 1], *row = m->cell_nodes + 4 * (size_t)c;
        row[0] = y * (nx + 1) + x;
        row[1] = row[0] + 1;
        row[2] = row[1] + nx + 1;
        row[3] = row[0] + nx + 1;
    }
}

/* A corner by its key, for sorting. */
typedef struct {
    long long k[3];
    size_t entry;
} keyed;

static int same_key(const keyed *a, const keyed *b)
{
    return a->k[0] == b->k[0] && a->k[1] == b->k[1] && a->k[2] == b->k[2];
}

/* By key, then by entry: the head of each run of equal keys is its first corner. */
static int by_key(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    for (int i = 0; i < 3; i++)
        if (a->k[i] != b->k[i])
            return a->k[i] < b->k[i] ? -1 : 1;
    return a->entry < b->entry ? -1 : a->entry > b->entry;
}

/* The corners of cell c that it has. */
static size_t corners_of(const mesh_corners_in *in, size_t c)
{
    return in->count ? (size_t)in->count[c] : (size_t)in->width;
}

void mesh_nodes_from_corners(mesh *m, const mesh_corners_in *in)
{
    size_t w = (size_t)in->width, total = w * (size_t)m->ncells, n = 0;
    keyed *all = xalloc(sizeof(keyed) * (total ? total : 1));
    for (size_t c = 0; c < (size_t)m->ncells; c++)
        for (size_t j = 0; j < corners_of(in, c); j++) {
            size_t e = w * c + j;
            memcpy(all[n].k, in->key + 3 * e, sizeof all[n].k);
            all[n++].entry = e;
        }
    qsort(all, n, sizeof *all, by_key);
    /* run[e]: the run of equal keys corner e is in; head_run[e]: the run e heads, or -1 */
    long *run = xalloc(sizeof(long) * (total ? total : 1));
    long *head_run = xalloc(sizeof(long) * (total ? total : 1)), runs = 0;
    for (size_t e = 0; e < total; e++)
        head_run[e] = -1;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || !same_key(&all[i], &all[i - 1]))
            head_run[all[i].entry] = runs++;
        run[all[i].entry] = runs - 1;
    }
    /* nodes numbered in the order their first corners come (cell order) */
    int *number = xalloc(sizeof(int) * (runs ? (size_t)runs : 1));
    xfree(m->node_coord);
    xfree(m->cell_nodes);
    m->nnodes = (int)runs;
    m->nnode_coord = in->ncomp;
    m->node_width = in->width;
    m->node_coord = xalloc(sizeof(double) * (size_t)in->ncomp * (runs ? (size_t)runs : 1));
    m->cell_nodes = xalloc(sizeof(int) * (total ? total : 1));
    int next = 0;
    for (size_t e = 0; e < total; e++)
        if (head_run[e] >= 0) {
            number[head_run[e]] = next;
            memcpy(m->node_coord + (size_t)in->ncomp * (size_t)next,
                   in->pos + (size_t)in->ncomp * e, sizeof(double) * (size_t)in->ncomp);
            next++;
        }
    for (size_t c = 0; c < (size_t)m->ncells; c++)
        for (size_t j = 0; j < w; j++)
            m->cell_nodes[w * c + j] = j < corners_of(in, c) ? number[run[w * c + j]] : -1;
    xfree(number);
    xfree(head_run);
    xfree(run);
    xfree(all);
}
