/* import_icon.c — ICON grid files, in any netCDF variant (classic, 64-bit offset, CDF-5,
 * netCDF-4), through libnetcdf (nc_read.h). pillar reads
 *   neighbor_cell_index  int  (nv = 3, cell)   1-based neighbour of each cell across edge j,
 *                                              <= 0 where the edge lies on the grid's boundary
 *   clon, clat           real (cell)           cell centre, radians
 *   vertex_of_cell       int  (nv = 3, cell)   1-based corners of each triangle, in order
 *                                              around it; optional with neighbor_cell_index
 *   vlon, vlat           real (vertex)         their positions, radians (with vertex_of_cell)
 * and ignores everything else. Without neighbor_cell_index the neighbours are derived from
 * vertex_of_cell: the cell across edge j is the other cell with the corners j and j + 1 (mod 3),
 * ICON's numbering of a triangle's edges (mesh_adj_from_nodes). */
#include "mesh_import.h"

#include "base/common.h"

#include <stdio.h>
#include <string.h>

int mesh_detect_icon(const mesh_probe *p)
{
    return p->nc.ncid >= 0 && (nc_var(&p->nc, "neighbor_cell_index") >= 0 ||
                               (nc_var(&p->nc, "vertex_of_cell") >= 0 &&
                                nc_var(&p->nc, "clon") >= 0 && nc_var(&p->nc, "clat") >= 0));
}

/* A (3, ncells) table of 1-based indices into rows[3*c + j] (0-based); a value <= 0 becomes -1
 * when none_ok, else it is refused like one above max (max < 0: the table's columns, for a table
 * of cells). *ncells = its columns (when it is -1 on entry), else they must match. -1 after a
 * message naming the first bad index. */
static int read_table(const nc_reader *rd, const char *name, int none_ok, int *ncells, int max,
                      int **rows)
{
    nc_shape s;
    int *idx;
    *rows = NULL;
    if (nc_read_ints(rd, name, 0, 2, &s, &idx) != 0)
        return -1;
    if (s.len[0] != 3 || (*ncells >= 0 && s.len[1] != (size_t)*ncells) || s.len[1] == 0) {
        if (s.len[0] != 3)
            perr("%s: variable %s has %zu rows; expected 3, one per edge of a triangle (netCDF "
                 "dimension nv)", rd->path, name, s.len[0]);
        else if (s.len[1] == 0)
            perr("%s: variable %s has no columns: the grid has no cells", rd->path, name);
        else
            perr("%s: variable %s has %zu columns; expected one per cell (%d)", rd->path, name,
                 s.len[1], *ncells);
        xfree(idx);
        return -1;
    }
    int n = (int)s.len[1];
    if (*ncells < 0)
        *ncells = n;
    if (max < 0)
        max = n;
    *rows = xalloc(sizeof(int) * 3 * (size_t)n);
    for (int j = 0; j < 3; j++)
        for (int c = 0; c < n; c++) {
            int v = idx[(size_t)j * n + c];
            if (v > max || (v <= 0 && !none_ok)) {
                perr("%s: %s[%d][%d] = %d is out of range (1..%d%s)", rd->path, name, j, c, v,
                     max, none_ok ? ", or <= 0 for none" : "");
                xfree(idx);
                xfree(*rows);
                *rows = NULL;
                return -1;
            }
            (*rows)[3 * c + j] = v > 0 ? v - 1 : -1;
        }
    xfree(idx);
    return 0;
}

/* vertex_of_cell with vlon, vlat, when the file has them. */
static int read_vertices(const nc_reader *rd, mesh *m)
{
    if (nc_var(rd, "vertex_of_cell") < 0)
        return 0;
    if (mesh_read_lonlat(rd, "vlon", "vlat", 0, -1, 0, &m->node_coord, &m->nnodes) != 0)
        return -1;
    if (m->nnodes == 0) {
        perr("%s: variables vlon, vlat are empty, but vertex_of_cell refers to vertices",
             rd->path);
        return -1;
    }
    m->nnode_coord = 3;
    m->node_width = 3;
    return read_table(rd, "vertex_of_cell", 0, &m->ncells, m->nnodes, &m->cell_nodes);
}

/* The neighbours: neighbor_cell_index, or derived from vertex_of_cell (read_vertices) where the
 * file has no neighbor_cell_index; *what = the variable they come from. */
static int read_neighbours(const nc_reader *rd, mesh *m, const char **what)
{
    *what = "neighbor_cell_index";
    m->maxdeg = 3;
    if (nc_var(rd, "neighbor_cell_index") >= 0)
        return read_table(rd, "neighbor_cell_index", 1, &m->ncells, -1, &m->adj) != 0 ||
                       read_vertices(rd, m) != 0 ? -1 : 0;
    if (nc_var(rd, "vertex_of_cell") < 0) {
        perr("%s: variable neighbor_cell_index is missing, and so is vertex_of_cell, from which "
             "pillar would derive it", rd->path);
        return -1;
    }
    *what = "vertex_of_cell";
    if (read_vertices(rd, m) != 0)
        return -1;
    char err[512];
    if (mesh_adj_from_nodes(m, "vertex_of_cell", err, sizeof err) != 0) {
        perr("%s: %s (cells counted from 0)", rd->path, err);
        return -1;
    }
    return 0;
}

int mesh_import_icon(const char *path, mesh_import_opts *o, mesh *m)
{
    memset(m, 0, sizeof *m);
    nc_reader rd;
    if (nc_open_read(&rd, path, "ICON grid file") != 0)
        return -1;
    m->ncells = -1;
    const char *what;
    int n, rc = read_neighbours(&rd, m, &what);
    if (rc == 0) {
        rc = mesh_read_lonlat(&rd, "clon", "clat", 0, m->ncells, 0, &m->coord, &n);
        m->ncoord = 3;
    }
    nc_close_read(&rd);
    return mesh_import_finish(path, "icon", "triangles", what, rd.kind, o->nlevels, rc, m);
}
