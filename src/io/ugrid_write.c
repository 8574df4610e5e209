/* ugrid_write.c — a mesh into an open netCDF-4 file, with its UGRID view (ugrid_write.h;
 * docs/mesh-format.md gives the names, dimensions and attributes). */
#include "ugrid_write.h"

#include "base/common.h"
#include "nc_write.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define BIG_ROWS 4096    /* datasets of this many rows or more are chunked and deflated */
#define CHUNK_ROWS 65536 /* rows per chunk */
#define DEGREES (180 / 3.14159265358979323846) /* per radian */

/* ---- pillar's datasets ---- */

/* The chunk shape of a dataset of rows x cols (cols 0: rank 1), or NULL to store it whole. */
static const size_t *chunk_of(size_t rows, size_t cols, size_t chunk[2])
{
    chunk[0] = rows < CHUNK_ROWS ? rows : CHUNK_ROWS;
    chunk[1] = cols;
    return rows >= BIG_ROWS ? chunk : NULL;
}

/* An integer dataset [rows] (cols 0) or [rows][cols] over dims, with its long_name; a
 * connectivity (cf_role given) gets _FillValue = -1 and start_index = 0. *varid: the variable. */
static int put_ints(int nc, const char *name, const int *dims, size_t rows, size_t cols,
                    const int *data, const char *long_name, const char *cf_role, int *varid)
{
    size_t chunk[2];
    /* a partition is a few long runs of one value: deflated, it shrinks past the 256:1 that the
     * readers allow a dataset against compressed bombs (IO_STORED_RATIO), so it is stored plain */
    int level = strcmp(name, "partition") == 0 ? 0 : 4;
    NCW_TRY(ncw_var(nc, name, NC_INT, cols ? 2 : 1, dims, chunk_of(rows, cols, chunk), 0, level,
                    varid));
    NCW_TRY(ncw_text(nc, *varid, "long_name", long_name));
    if (cf_role) {
        int fill = -1;
        NCW_TRY(ncw_text(nc, *varid, "cf_role", cf_role));
        NCW_TRY(nc_put_att_int(nc, *varid, "_FillValue", NC_INT, 1, &fill));
        NCW_TRY(ncw_int(nc, *varid, "start_index", 0));
    }
    return nc_put_var_int(nc, *varid, data);
}

/* A dataset of doubles [rows][cols] over dims. */
static int put_points(int nc, const char *name, const int *dims, size_t rows, size_t cols,
                      const double *data, const char *long_name)
{
    size_t chunk[2];
    int v;
    NCW_TRY(ncw_var(nc, name, NC_DOUBLE, 2, dims, chunk_of(rows, cols, chunk), 0, 4, &v));
    NCW_TRY(ncw_text(nc, v, "long_name", long_name));
    return nc_put_var_double(nc, v, data);
}

/* ---- the UGRID coordinate variables ---- */

/* How points lie: in a plane (2 components, or 3 with z = 0 everywhere), on a sphere around the
 * origin (3 components, one radius to 1e-6), or elsewhere in space. */
typedef enum { IN_PLANE, ON_SPHERE, IN_SPACE } geometry;

static geometry geometry_of(const double *p, size_t n, int ncomp)
{
    if (ncomp == 2)
        return IN_PLANE;
    int flat = 1;
    for (size_t i = 0; i < n && flat; i++)
        flat = p[3 * i + 2] == 0;
    if (flat)
        return IN_PLANE;
    double r0 = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    for (size_t i = 0; i < n; i++) {
        double r = sqrt(p[3 * i] * p[3 * i] + p[3 * i + 1] * p[3 * i + 1] + p[3 * i + 2] * p[3 * i + 2]);
        if (!(r0 > 0) || !(fabs(r - r0) <= 1e-6 * r0))
            return IN_SPACE;
    }
    return ON_SPHERE;
}

static const char *const axis_name[3][3] = {
    [IN_PLANE] = {"x", "y", NULL}, [ON_SPHERE] = {"lon", "lat", NULL}, [IN_SPACE] = {"x", "y", "z"}};

/* The names of the coordinate variables of points p ("face" or "node") into buf, space separated. */
static void names_of(const char *what, geometry g, char *buf, size_t n)
{
    buf[0] = 0;
    for (int a = 0; a < 3 && axis_name[g][a]; a++) {
        size_t used = strlen(buf);
        snprintf(buf + used, n - used, "%smesh_%s_%s", a ? " " : "", what, axis_name[g][a]);
    }
}

/* Component a of point i as written: the coordinate itself, or on a sphere its longitude /
 * latitude in degrees. */
static double component(const double *p, size_t i, int ncomp, geometry g, int a)
{
    const double *q = p + (size_t)ncomp * i;
    if (g != ON_SPHERE)
        return q[a];
    if (a == 0)
        return atan2(q[1], q[0]) * DEGREES;
    return asin(q[2] / sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2])) * DEGREES;
}

/* One variable per axis, mesh_<what>_<axis> [dim] (what = "face" or "node", `of` in words), with
 * CF attributes: standard_name and units on a sphere (degrees), long_name always. */
static int put_axes(int nc, const char *what, const char *of, int dim, const double *p, size_t n,
                    int ncomp)
{
    geometry g = geometry_of(p, n, ncomp);
    double *v = xalloc(sizeof(double) * (n ? n : 1));
    int st = NC_NOERR;
    for (int a = 0; a < 3 && axis_name[g][a] && st == NC_NOERR; a++) {
        char name[64], long_name[128];
        size_t chunk[2];
        int var;
        snprintf(name, sizeof name, "mesh_%s_%s", what, axis_name[g][a]);
        snprintf(long_name, sizeof long_name, "%s of the %s",
                 g == ON_SPHERE ? (a ? "latitude" : "longitude") : axis_name[g][a], of);
        st = ncw_var(nc, name, NC_DOUBLE, 1, &dim, chunk_of(n, 0, chunk), 0, 4, &var);
        if (st == NC_NOERR)
            st = ncw_text(nc, var, "long_name", long_name);
        if (st == NC_NOERR && g == ON_SPHERE) {
            st = ncw_text(nc, var, "standard_name", a ? "latitude" : "longitude");
            if (st == NC_NOERR)
                st = ncw_text(nc, var, "units", a ? "degrees_north" : "degrees_east");
        }
        for (size_t i = 0; i < n; i++)
            v[i] = component(p, i, ncomp, g, a);
        if (st == NC_NOERR)
            st = nc_put_var_double(nc, var, v);
    }
    xfree(v);
    return st;
}

void ugrid_face_coordinates(const mesh *m, char *buf, size_t n)
{
    if (!m->coord) {
        buf[0] = 0;
        return;
    }
    names_of("face", geometry_of(m->coord, (size_t)m->ncells, m->ncoord), buf, n);
}

/* ---- the topology ---- */

static const char *components_dim(int k) { return k == 2 ? "nXY" : "nXYZ"; }

static int put_topology(int nc, const mesh *m)
{
    int v;
    char buf[256];
    NCW_TRY(nc_def_var(nc, UGRID_TOPOLOGY, NC_INT, 0, NULL, &v));
    NCW_TRY(ncw_text(nc, v, "cf_role", "mesh_topology"));
    NCW_TRY(ncw_text(nc, v, "long_name", "topology of the horizontal mesh"));
    NCW_TRY(ncw_int(nc, v, "topology_dimension", 2));
    NCW_TRY(ncw_text(nc, v, "face_dimension", UGRID_CELLS));
    if (m->coord) {
        ugrid_face_coordinates(m, buf, sizeof buf);
        NCW_TRY(ncw_text(nc, v, "face_coordinates", buf));
    }
    if (m->nnodes) {
        names_of("node", geometry_of(m->node_coord, (size_t)m->nnodes, m->nnode_coord), buf,
                 sizeof buf);
        NCW_TRY(ncw_text(nc, v, "node_coordinates", buf));
        NCW_TRY(ncw_text(nc, v, "node_dimension", "nNodes"));
        NCW_TRY(ncw_text(nc, v, "face_node_connectivity", "cell_nodes"));
    }
    NCW_TRY(ncw_text(nc, v, "face_face_connectivity", mesh_nbr_name(m) + 1));
    int zero = 0;
    return nc_put_var_int(nc, v, &zero);
}

int ugrid_write(int nc, const mesh *m, int full)
{
    size_t n = (size_t)m->ncells;
    int cells, width, dims[2], var;
    NCW_TRY(ncw_dim(nc, UGRID_CELLS, n, &cells));
    NCW_TRY(ncw_dim(nc, "nMaxEdges", (size_t)mesh_width(m), &width));
    dims[0] = cells;
    dims[1] = width;
    NCW_TRY(put_ints(nc, mesh_nbr_name(m) + 1, dims, n, (size_t)mesh_width(m),
                     m->adj ? m->adj : m->nbr,
                     m->adj ? "the cell across each edge of the cell (-1: none)"
                            : "the cells west, east, south and north of the cell (-1: none)",
                     "face_face_connectivity", &var));
    if (full && m->sides)
        NCW_TRY(put_ints(nc, "cell_sides", dims, n, 0, m->sides, "number of edges of the cell",
                         NULL, &var));
    if (full && m->coord) {
        NCW_TRY(ncw_dim(nc, components_dim(m->ncoord), (size_t)m->ncoord, &dims[1]));
        NCW_TRY(put_points(nc, "coordinates", dims, n, (size_t)m->ncoord, m->coord,
                           "a point of the cell (x, y) or (x, y, z)"));
    }
    if (full && m->xy) {
        NCW_TRY(ncw_dim(nc, "nXY", 2, &dims[1]));
        NCW_TRY(put_ints(nc, "patch_xy", dims, n, 2, m->xy,
                         "position (x, y) of the cell in the regular patch", NULL, &var));
        NCW_TRY(ncw_int(nc, var, "nx", m->nx));
        NCW_TRY(ncw_int(nc, var, "ny", m->ny));
    }
    if (full && m->part) {
        NCW_TRY(put_ints(nc, "partition", dims, n, 0, m->part, "part of the cell", NULL, &var));
        NCW_TRY(ncw_int(nc, var, "nparts", m->nparts));
    }
    if (m->nnodes) {
        int nodes;
        NCW_TRY(ncw_dim(nc, "nNodes", (size_t)m->nnodes, &nodes));
        if (full) {
            dims[0] = nodes;
            NCW_TRY(ncw_dim(nc, components_dim(m->nnode_coord), (size_t)m->nnode_coord, &dims[1]));
            NCW_TRY(put_points(nc, "node_coordinates", dims, (size_t)m->nnodes,
                               (size_t)m->nnode_coord, m->node_coord,
                               "position of the node (x, y) or (x, y, z)"));
        }
        dims[0] = cells;
        NCW_TRY(ncw_dim(nc, m->node_width == mesh_width(m) ? "nMaxEdges" : "nMaxCellNodes",
                        (size_t)m->node_width, &dims[1]));
        NCW_TRY(put_ints(nc, "cell_nodes", dims, n, (size_t)m->node_width, m->cell_nodes,
                         "the nodes at the corners of the cell, in order around it (-1: none)",
                         "face_node_connectivity", &var));
        NCW_TRY(put_axes(nc, "node", "nodes", nodes, m->node_coord, (size_t)m->nnodes,
                         m->nnode_coord));
    }
    if (m->coord)
        NCW_TRY(put_axes(nc, "face", "cell centres", cells, m->coord, n, m->ncoord));
    return put_topology(nc, m);
}
