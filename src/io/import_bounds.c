/* import_bounds.c — cells given by CF cell bounds (the netCDF grids of FESOM, CDO's
 * unstructured grids and many models' outputs), in any netCDF variant, through libnetcdf. pillar
 * reads
 *   LON, LAT            real (ncells)       the cells' centres: the first variables of rank 1
 *                                           that are longitudes and latitudes (units
 *                                           degrees_east / degrees_north, or standard_name
 *                                           longitude / latitude, then units degrees or
 *                                           radians) on one dimension, each with a `bounds`
 *                                           attribute naming
 *   LON_BNDS, LAT_BNDS  real (ncells, nv)   each cell's corners in order around it (in the
 *                                           units of LON and LAT); a corner repeated next to
 *                                           itself (FESOM pads its cells so) counts once
 * and ignores everything else. The corners are merged into nodes as SCRIP's are
 * (mesh_cells_from_corners); two cells are neighbours when they share an edge. Longitudes and
 * latitudes on two dimensions (a rectilinear grid) are refused. */
#include "mesh_import.h"

#include "base/common.h"

#include <netcdf.h>
#include <stdio.h>
#include <string.h>

/* The two kinds of coordinate looked for. */
enum { LON, LAT };

/* Whether variable v of file ncid is a longitude (axis LON) or latitude (LAT) by its units or
 * standard_name. */
static int is_coordinate(int ncid, int v, int axis)
{
    static const char *const units[2][6] = {
        {"degrees_east", "degree_east", "degrees_E", "degree_E", "degreesE", "degreeE"},
        {"degrees_north", "degree_north", "degrees_N", "degree_N", "degreesN", "degreeN"}};
    char text[64];
    size_t len;
    for (int a = 0; a < 2; a++) {
        const char *att = a ? "standard_name" : "units";
        nc_type t;
        if (nc_inq_att(ncid, v, att, &t, &len) != NC_NOERR || t != NC_CHAR || len >= sizeof text ||
            nc_get_att_text(ncid, v, att, text) != NC_NOERR)
            continue;
        text[len] = 0;
        if (a && !strcmp(text, axis == LON ? "longitude" : "latitude"))
            return 1;
        for (int k = 0; !a && k < 6; k++)
            if (!strcmp(text, units[axis][k]))
                return 1;
    }
    return 0;
}

/* The cells' coordinate variables: var[LON], var[LAT] (ids) of rank 1 on one dimension, each with
 * a text attribute `bounds` naming a variable of the file. Returns 1 when found, 0 when not;
 * *other_dim is set when a longitude and a latitude with bounds were found on two dimensions. */
static int find_coordinates(int ncid, int var[2], int *other_dim)
{
    int nvars, dims[2] = {-1, -1};
    *other_dim = 0;
    if (nc_inq_nvars(ncid, &nvars) != NC_NOERR)
        return 0;
    var[LON] = var[LAT] = -1;
    for (int axis = LON; axis <= LAT; axis++)
        for (int v = 0; v < nvars && var[axis] < 0; v++) {
            int rank, dim, b;
            size_t len;
            char name[NC_MAX_NAME + 1];
            nc_type t;
            if (nc_inq_varndims(ncid, v, &rank) != NC_NOERR || rank != 1 ||
                nc_inq_vardimid(ncid, v, &dim) != NC_NOERR || !is_coordinate(ncid, v, axis) ||
                nc_inq_att(ncid, v, "bounds", &t, &len) != NC_NOERR || t != NC_CHAR ||
                len > NC_MAX_NAME || nc_get_att_text(ncid, v, "bounds", name) != NC_NOERR)
                continue;
            name[len] = 0;
            if (nc_inq_varid(ncid, name, &b) != NC_NOERR)
                continue;
            if (axis == LAT && dim != dims[LON]) {
                *other_dim = 1;
                continue;
            }
            var[axis] = v;
            dims[axis] = dim;
        }
    return var[LON] >= 0 && var[LAT] >= 0;
}

/* Whether the open netCDF file ncid gives cells by CF bounds (the recogniser of this format). */
static int bounds_recognise(int ncid)
{
    int var[2], other;
    return find_coordinates(ncid, var, &other);
}

int mesh_detect_bounds(const mesh_probe *p)
{
    return p->nc.ncid >= 0 && bounds_recognise(p->nc.ncid);
}

/* The names of the coordinates (name[LON], name[LAT]) and of their bounds (bnds[...]). -1
 * after a message when the file has none. */
static int coordinate_names(const nc_reader *rd, char name[2][NC_MAX_NAME + 1],
                            char bnds[2][NC_MAX_NAME + 1])
{
    int var[2], other;
    if (!find_coordinates(rd->ncid, var, &other)) {
        perr("%s: %s", rd->path,
             other ? "the longitudes and latitudes with cell bounds lie on two dimensions (a "
                     "rectilinear grid); pillar reads cells given one by one, on one dimension"
                   : "no variables of cell centres with bounds: expected a longitude and a "
                     "latitude (units degrees_east, degrees_north) of rank 1 on one dimension, "
                     "each with an attribute bounds naming its (ncells, nv) corners");
        return -1;
    }
    for (int axis = LON; axis <= LAT; axis++) {
        size_t len = 0;
        nc_inq_varname(rd->ncid, var[axis], name[axis]);
        nc_inq_attlen(rd->ncid, var[axis], "bounds", &len);
        nc_get_att_text(rd->ncid, var[axis], "bounds", bnds[axis]);
        bnds[axis][len] = 0;
    }
    return 0;
}

int mesh_import_bounds(const char *path, mesh_import_opts *o, mesh *m)
{
    memset(m, 0, sizeof *m);
    nc_reader rd;
    if (nc_open_read(&rd, path, "netCDF file of cells with bounds") != 0)
        return -1;
    char name[2][NC_MAX_NAME + 1], bnds[2][NC_MAX_NAME + 1], what[2 * NC_MAX_NAME + 8] = "";
    nc_shape s, t;
    double *corner = NULL;
    int rc = coordinate_names(&rd, name, bnds);
    if (rc == 0) {
        snprintf(what, sizeof what, "%s/%s", bnds[LAT], bnds[LON]);
        rc = mesh_read_sphere(&rd, bnds[LAT], bnds[LON], name[LAT], name[LON], 2, &s, &corner);
    }
    if (rc == 0 && (s.len[0] == 0 || s.len[1] < 3 || s.len[1] > MESH_MAXDEG)) {
        perr("%s: variable %s is (%s = %zu, %s = %zu); expected at least one cell and 3 to %d "
             "corners", path, bnds[LAT], s.dim[0], s.len[0], s.dim[1], s.len[1], MESH_MAXDEG);
        rc = -1;
    }
    if (rc == 0)
        rc = mesh_read_sphere(&rd, name[LAT], name[LON], NULL, NULL, 1, &t, &m->coord);
    if (rc == 0 && t.len[0] != s.len[0]) {
        perr("%s: variable %s has %zu rows; expected one per cell (%zu, as %s has)", path,
             bnds[LAT], s.len[0], t.len[0], name[LAT]);
        rc = -1;
    }
    nc_close_read(&rd);
    if (rc == 0) {
        m->ncoord = 3;
        rc = mesh_cells_from_corners(path, what, corner, (int)s.len[0], (int)s.len[1], m);
    }
    xfree(corner);
    return mesh_import_finish(path, "bounds", "cells", what[0] ? what : "bounds", rd.kind,
                              o->nlevels, rc, m);
}
