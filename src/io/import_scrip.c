/* import_scrip.c — SCRIP grid files (the remapping grids of SCRIP, ESMF, CDO, TempestRemap, in
 * any netCDF variant), through libnetcdf. pillar reads
 *   grid_corner_lat, grid_corner_lon   real (grid_size, grid_corners)   each cell's corners in
 *                                      order around it; a corner repeated next to itself (the
 *                                      padding of cells with fewer corners, or the pole of a
 *                                      latitude-longitude grid) counts once
 *   grid_center_lat, grid_center_lon   real (grid_size)   the cells' centres
 * with their `units` attribute, degrees (also when absent) or radians, and ignores everything
 * else: grid_imask is not applied (masked cells are imported as cells; pillar has no mask).
 * The corners become points on the unit sphere merged into nodes (mesh_cells_from_corners: two
 * corners within MESH_NODE_TOL are one node, which absorbs 0 against 360 degrees of longitude,
 * the many longitudes of a pole and rounding in the last digits). Two cells are neighbours when
 * they share an edge: two consecutive corners (mesh_adj_from_nodes). */
#include "mesh_import.h"

#include "base/common.h"

#include <stdio.h>
#include <string.h>

int mesh_detect_scrip(const mesh_probe *p)
{
    return p->nc.ncid >= 0 && nc_var(&p->nc, "grid_corner_lat") >= 0 &&
           nc_var(&p->nc, "grid_corner_lon") >= 0;
}

int mesh_import_scrip(const char *path, mesh_import_opts *o, mesh *m)
{
    memset(m, 0, sizeof *m);
    nc_reader rd;
    if (nc_open_read(&rd, path, "SCRIP grid") != 0)
        return -1;
    nc_shape s, t;
    double *corner = NULL;
    int rc = mesh_read_sphere(&rd, "grid_corner_lat", "grid_corner_lon", NULL, NULL, 2, &s,
                              &corner);
    if (rc == 0 && (s.len[0] == 0 || s.len[1] < 3 || s.len[1] > MESH_MAXDEG)) {
        perr("%s: variable grid_corner_lat is (%s = %zu, %s = %zu); expected at least one cell "
             "and 3 to %d corners", path, s.dim[0], s.len[0], s.dim[1], s.len[1], MESH_MAXDEG);
        rc = -1;
    }
    if (rc == 0)
        rc = mesh_read_sphere(&rd, "grid_center_lat", "grid_center_lon", NULL, NULL, 1, &t,
                              &m->coord);
    if (rc == 0 && t.len[0] != s.len[0]) {
        perr("%s: variable grid_center_lat has %zu values; expected one per cell (%zu, as "
             "grid_corner_lat has)", path, t.len[0], s.len[0]);
        rc = -1;
    }
    nc_close_read(&rd);
    if (rc == 0) {
        m->ncoord = 3;
        rc = mesh_cells_from_corners(path, "grid_corner_lat/lon", corner, (int)s.len[0],
                                     (int)s.len[1], m);
    }
    xfree(corner);
    return mesh_import_finish(path, "scrip", "cells", "grid_corner_lat/lon", rd.kind, o->nlevels, rc, m);
}
