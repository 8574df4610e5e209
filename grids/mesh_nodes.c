/* mesh_nodes.c — the optional nodes of a mesh (mesh.h, docs/mesh-format.md): checking them, and
 * the nodes of a regular patch. */
#include "mesh.h"

#include "../base/common.h"

#include <stdio.h>

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
