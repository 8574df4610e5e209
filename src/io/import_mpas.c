/* import_mpas.c — MPAS meshes (MPAS-Atmosphere, -Ocean, E3SM; usually CDF-5), through
 * libnetcdf (nc_read.h). pillar reads
 *   nEdgesOnCell    int  (nCells)             edges of each cell, 1..maxEdges
 *   cellsOnCell     int  (nCells, maxEdges)   1-based cell across each edge, 0 where the edge
 *                                             lies on the boundary (a coastline, a regional
 *                                             mesh's border); columns past nEdgesOnCell ignored
 *   lonCell, latCell  real (nCells)           cell centres, radians (a sphere); or, when
 *   xCell, yCell[, zCell]                     lonCell is absent or the global attribute
 *                                             on_a_sphere is "NO", the Cartesian centres (x, y
 *                                             only on a plane)
 *   verticesOnCell  int  (nCells, maxEdges)   1-based corners of each cell, counter-clockwise
 *                                             (optional with cellsOnCell), with
 *   lonVertex, latVertex / xVertex, yVertex[, zVertex]   their positions, likewise
 * and ignores everything else. Every position must be finite. Without cellsOnCell the
 * neighbours are derived from verticesOnCell: the cell across edge j is the other cell with the
 * corners j - 1 and j (mod nEdgesOnCell), MPAS's numbering (edge j ends at vertex j: the mesh
 * specification, and MPAS-Tools' mesh converter, which builds both lists that way). */
#include "mesh_import.h"

#include "base/common.h"

#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <string.h>

int mesh_detect_mpas(const mesh_probe *p)
{
    return p->nc.ncid >= 0 && nc_var(&p->nc, "nEdgesOnCell") >= 0 &&
           (nc_var(&p->nc, "cellsOnCell") >= 0 || nc_var(&p->nc, "verticesOnCell") >= 0);
}

/* A (nCells, maxEdges) table of 1-based indices into rows (0-based, -1 past each cell's edges
 * and, when none_ok, for 0); `as` names the table that gave nCells x maxEdges. -1 after a
 * message naming the first bad entry. */
static int read_table(const nc_reader *rd, const char *name, const char *as, const mesh *m,
                      int max, int none_ok, int **rows)
{
    nc_shape s;
    int *idx;
    *rows = NULL;
    if (nc_read_ints(rd, name, 0, 2, &s, &idx) != 0)
        return -1;
    if (s.len[0] != (size_t)m->ncells || s.len[1] != (size_t)m->maxdeg) {
        perr("%s: variable %s is %zu x %zu; expected nCells x maxEdges (%d x %d), as "
             "%s", rd->path, name, s.len[0], s.len[1], m->ncells, m->maxdeg, as);
        xfree(idx);
        return -1;
    }
    size_t w = (size_t)m->maxdeg;
    *rows = xalloc(sizeof(int) * w * (size_t)m->ncells);
    for (int c = 0; c < m->ncells; c++)
        for (int j = 0; j < m->maxdeg; j++) {
            int v = idx[w * c + j];
            if (j >= m->sides[c]) {
                (*rows)[w * c + j] = -1;
                continue;
            }
            if (v == NC_READ_FILL && none_ok)
                v = 0; /* the _FillValue or missing_value: no cell there */
            if (v < 0 || v > max || (v == 0 && !none_ok)) {
                perr("%s: %s[%d][%d] = %d is out of range (1..%d%s)", rd->path, name, c, j, v,
                     max, none_ok ? ", or 0 for none" : "");
                xfree(idx);
                xfree(*rows);
                *rows = NULL;
                return -1;
            }
            (*rows)[w * c + j] = v - 1;
        }
    xfree(idx);
    return 0;
}

/* Positions of cells or vertices (what = "Cell" or "Vertex") of n points (n < 0: any) into a
 * new *xyz with *ndim components; *count = the points. -1 after a message. */
static int read_points(const nc_reader *rd, const char *what, int planar, long n, double **xyz,
                       int *ndim, int *count)
{
    char lon[32], lat[32], xyzname[3][32];
    snprintf(lon, sizeof lon, "lon%s", what);
    snprintf(lat, sizeof lat, "lat%s", what);
    for (int k = 0; k < 3; k++)
        snprintf(xyzname[k], sizeof xyzname[k], "%c%s", "xyz"[k], what);
    if (!planar) {
        int rc = mesh_read_lonlat(rd, lon, lat, 1, n, 0, xyz, count);
        if (rc <= 0) {
            *ndim = 3;
            return rc;
        }
    }
    *ndim = planar ? 2 : 3;
    double *v[3] = {NULL, NULL, NULL};
    nc_shape s;
    int rc = 0;
    for (int k = 0; k < *ndim && rc == 0; k++) {
        rc = nc_read_var(rd, xyzname[k], 0, 1, 1, &s, (void **)&v[k]);
        if (rc == 0 && (k == 0 ? (n >= 0 && s.len[0] != (size_t)n) : s.len[0] != (size_t)n)) {
            perr("%s: variable %s has %zu values; expected %ld", rd->path, xyzname[k], s.len[0],
                 n);
            rc = -1;
        }
        if (rc == 0 && k == 0)
            n = (long)s.len[0];
    }
    if (rc != 0) {
        if (!planar && nc_var(rd, lon) < 0)
            perr("%s: (the mesh has neither %s/%s nor %s/%s/%s)", rd->path, lon, lat,
                 xyzname[0], xyzname[1], xyzname[2]);
        for (int k = 0; k < 3; k++)
            xfree(v[k]);
        return -1;
    }
    for (int k = 0; k < *ndim && rc == 0; k++)
        for (long i = 0; i < n && rc == 0; i++)
            if (!isfinite(v[k][i])) {
                perr("%s: %s[%ld] = %g is not a finite position", rd->path, xyzname[k], i,
                     v[k][i]);
                rc = -1;
            }
    if (rc != 0) {
        for (int k = 0; k < 3; k++)
            xfree(v[k]);
        return -1;
    }
    *count = (int)n;
    *xyz = xalloc(sizeof(double) * (size_t)*ndim * (size_t)(n ? n : 1));
    for (long i = 0; i < n; i++)
        for (int k = 0; k < *ndim; k++)
            (*xyz)[*ndim * i + k] = v[k][i];
    for (int k = 0; k < 3; k++)
        xfree(v[k]);
    return 0;
}

/* nEdgesOnCell and the shape of cellsOnCell, or else of verticesOnCell (*table), into m
 * (ncells, maxdeg, sides). */
static int read_cells(const nc_reader *rd, mesh *m, const char **table)
{
    nc_shape s;
    *table = nc_var(rd, "cellsOnCell") >= 0 ? "cellsOnCell" : "verticesOnCell";
    if (nc_var(rd, *table) < 0) {
        perr("%s: variable cellsOnCell is missing, and so is verticesOnCell, from which pillar "
             "would derive it", rd->path);
        return -1;
    }
    if (nc_var_shape(rd, *table, 0, &s) != 0)
        return -1;
    if (s.rank != 2 || s.len[0] == 0 || s.len[1] < 1 || s.len[1] > MESH_MAXDEG) {
        perr("%s: variable %s must be (nCells, maxEdges) with 1 <= maxEdges <= %d and "
             "at least one cell", rd->path, *table, MESH_MAXDEG);
        return -1;
    }
    m->ncells = (int)s.len[0];
    m->maxdeg = (int)s.len[1];
    if (nc_read_ints(rd, "nEdgesOnCell", 0, 1, &s, &m->sides) != 0)
        return -1;
    if (s.len[0] != (size_t)m->ncells) {
        perr("%s: variable nEdgesOnCell has %zu values; expected nCells (%d)", rd->path,
             s.len[0], m->ncells);
        return -1;
    }
    for (int c = 0; c < m->ncells; c++)
        if (m->sides[c] < 1 || m->sides[c] > m->maxdeg) {
            perr("%s: nEdgesOnCell[%d] = %d is out of range (1..maxEdges = %d)", rd->path, c,
                 m->sides[c], m->maxdeg);
            return -1;
        }
    return 0;
}

/* The neighbours from the cells' vertices (cell_nodes): mesh_adj_from_nodes gives in column j
 * the cell across corners j and j + 1, which is MPAS's edge j + 1; each row turns by one. */
static int derive_neighbours(const nc_reader *rd, mesh *m)
{
    char err[512];
    if (mesh_adj_from_nodes(m, "verticesOnCell", err, sizeof err) != 0) {
        perr("%s: %s (cells counted from 0)", rd->path, err);
        return -1;
    }
    for (int c = 0; c < m->ncells; c++) {
        int *row = m->adj + (size_t)m->maxdeg * (size_t)c, k = mesh_sides(m, c), last = row[k - 1];
        memmove(row + 1, row, sizeof(int) * (size_t)(k - 1));
        row[0] = last;
    }
    return 0;
}

/* verticesOnCell with the vertices' positions, when the file has them (when it has no
 * cellsOnCell, it must: the neighbours come from them). */
static int read_vertices(const nc_reader *rd, int planar, const char *table, mesh *m)
{
    if (nc_var(rd, "verticesOnCell") < 0)
        return 0;
    int rc = read_points(rd, "Vertex", planar, -1, &m->node_coord, &m->nnode_coord, &m->nnodes);
    if (rc == 0 && m->nnodes == 0) {
        perr("%s: the mesh has no vertices, but verticesOnCell refers to them", rd->path);
        rc = -1;
    }
    if (rc == 0) {
        m->node_width = m->maxdeg;
        rc = read_table(rd, "verticesOnCell", table, m, m->nnodes, 0, &m->cell_nodes);
    }
    if (rc == 0 && !m->adj)
        rc = derive_neighbours(rd, m);
    return rc;
}

int mesh_import_mpas(const char *path, mesh_import_opts *o, mesh *m)
{
    memset(m, 0, sizeof *m);
    nc_reader rd;
    if (nc_open_read(&rd, path, "MPAS mesh") != 0)
        return -1;
    char sphere[16];
    int planar = nc_att_text(&rd, NC_GLOBAL, "on_a_sphere", sphere, sizeof sphere) == 0 &&
                 (!strcmp(sphere, "NO") || !strcmp(sphere, "no"));
    const char *table;
    int n, rc = read_cells(&rd, m, &table);
    if (rc == 0 && !strcmp(table, "cellsOnCell"))
        rc = read_table(&rd, "cellsOnCell", table, m, m->ncells, 1, &m->adj);
    if (rc == 0)
        rc = read_points(&rd, "Cell", planar, m->ncells, &m->coord, &m->ncoord, &n);
    if (rc == 0)
        rc = read_vertices(&rd, planar, table, m);
    nc_close_read(&rd);
    if (rc == 0 && m->sides) {
        int all = 1;
        for (int c = 0; c < m->ncells; c++)
            all &= m->sides[c] == m->maxdeg;
        if (all) { /* every cell has maxEdges edges: no per-cell counts needed */
            xfree(m->sides);
            m->sides = NULL;
        }
    }
    return mesh_import_finish(path, "mpas", "cells", table, rd.kind, o->nlevels, rc, m);
}
