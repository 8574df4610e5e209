/* import_scrip.c — SCRIP grid files (the remapping grids of SCRIP, ESMF, CDO, TempestRemap, in
 * any netCDF variant), through libnetcdf. pillar reads
 *   grid_corner_lat, grid_corner_lon   real (grid_size, grid_corners)   each cell's corners in
 *                                      order around it; a corner repeated next to itself (the
 *                                      padding of cells with fewer corners, or the pole of a
 *                                      latitude-longitude grid) counts once
 *   grid_center_lat, grid_center_lon   real (grid_size)   the cells' centres
 * with their `units` attribute, degrees (also when absent) or radians, and ignores everything
 * else: grid_imask is not applied (masked cells are imported as cells; pillar has no mask).
 * The corners become points on the unit sphere; two corners are the same node when those
 * points lie within NODE_TOL of each other, which absorbs 0 against 360 degrees of longitude,
 * the many longitudes of a pole and rounding in the last digits. Two cells are neighbours when
 * they share an edge: two consecutive corners (mesh_adj_from_nodes). */
#include "mesh_import.h"

#include "base/common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODE_TOL 1e-9 /* on the unit sphere: about 6 mm on the Earth */

int mesh_detect_scrip(const mesh_probe *p)
{
    return p->nc.ncid >= 0 && nc_var(&p->nc, "grid_corner_lat") >= 0 &&
           nc_var(&p->nc, "grid_corner_lon") >= 0;
}

/* Whether variable name is in degrees (1) or radians (0) by its units; -1 after a message. */
static int in_degrees(const nc_reader *rd, const char *name)
{
    char u[64];
    int rc = nc_att_text(rd, nc_var(rd, name), "units", u, sizeof u);
    if (rc == 1 || (rc == 0 && !strncmp(u, "degree", 6)))
        return 1;
    if (rc == 0 && !strncmp(u, "radian", 6))
        return 0;
    perr("%s: variable %s: units '%s': expected degrees or radians", rd->path, name,
         rc == 0 ? u : "(not text)");
    return -1;
}

/* Points on the unit sphere of lat/lon variables of the given rank; count = their number and
 * s the shape. -1 after a message. */
static int read_sphere(const nc_reader *rd, const char *lat_name, const char *lon_name, int rank,
                       nc_shape *s, double **xyz)
{
    double *lat = NULL, *lon = NULL;
    nc_shape t;
    *xyz = NULL;
    int dlat = -1, dlon = -1, rc = -1;
    if (nc_read_var(rd, lat_name, 0, 1, rank, s, (void **)&lat) == 0 &&
        nc_read_var(rd, lon_name, 0, 1, rank, &t, (void **)&lon) == 0 &&
        (dlat = in_degrees(rd, lat_name)) >= 0 && (dlon = in_degrees(rd, lon_name)) >= 0) {
        if (memcmp(s->len, t.len, sizeof t.len) != 0)
            perr("%s: variables %s and %s differ in shape", rd->path, lat_name, lon_name);
        else if (dlat != dlon)
            perr("%s: variables %s and %s differ in units", rd->path, lat_name, lon_name);
        else
            rc = 0;
    }
    size_t n = rc == 0 ? s->len[0] * (rank == 2 ? s->len[1] : 1) : 0;
    if (rc == 0) {
        *xyz = xalloc(sizeof(double) * 3 * (n ? n : 1));
        rc = mesh_lonlat_points(rd->path, lon_name, lat_name, lon, lat, n, dlat, *xyz);
    }
    if (rc != 0) {
        xfree(*xyz);
        *xyz = NULL;
    }
    xfree(lat);
    xfree(lon);
    return rc;
}

/* Union-find of corners: the representative of i. */
static int root(int *up, int i)
{
    while (up[i] != i)
        i = up[i] = up[up[i]];
    return i;
}

typedef struct {
    double x;
    int i;
} key;

static int key_cmp(const void *a, const void *b)
{
    const key *p = a, *q = b;
    return p->x < q->x ? -1 : p->x > q->x ? 1 : p->i - q->i;
}

/* Corners (n points xyz) merged into nodes: node[i] = the node of corner i, numbered in order of
 * first appearance; their positions into a new *pos. Returns the number of nodes. */
static int merge_corners(const double *xyz, int n, int *node, double **pos)
{
    key *k = xalloc(sizeof(key) * (size_t)(n ? n : 1));
    int *up = xalloc(sizeof(int) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
        k[i].x = xyz[3 * i];
        k[i].i = i;
        up[i] = i;
    }
    qsort(k, (size_t)n, sizeof(key), key_cmp);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n && k[b].x - k[a].x <= NODE_TOL; b++) {
            const double *p = xyz + 3 * k[a].i, *q = xyz + 3 * k[b].i;
            double d2 = (p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                        (p[2] - q[2]) * (p[2] - q[2]);
            if (d2 <= NODE_TOL * NODE_TOL) {
                int ra = root(up, k[a].i), rb = root(up, k[b].i);
                if (ra != rb)
                    up[ra > rb ? ra : rb] = ra < rb ? ra : rb; /* the earliest corner leads */
            }
        }
    int count = 0;
    for (int i = 0; i < n; i++) /* roots come before their members: numbered first */
        node[i] = root(up, i) == i ? count++ : -1;
    *pos = xalloc(sizeof(double) * 3 * (size_t)(count ? count : 1));
    for (int i = 0; i < n; i++) {
        if (node[i] >= 0)
            memcpy(*pos + 3 * node[i], xyz + 3 * i, 3 * sizeof(double));
        else
            node[i] = node[root(up, i)];
    }
    xfree(k);
    xfree(up);
    return count;
}

int mesh_import_scrip(const char *path, mesh_import_opts *o, mesh *m)
{
    memset(m, 0, sizeof *m);
    nc_reader rd;
    if (nc_open_read(&rd, path, "SCRIP grid") != 0)
        return -1;
    nc_shape s, t;
    double *corner = NULL;
    int rc = read_sphere(&rd, "grid_corner_lat", "grid_corner_lon", 2, &s, &corner);
    if (rc == 0 && (s.len[0] == 0 || s.len[1] < 3 || s.len[1] > MESH_MAXDEG)) {
        perr("%s: variable grid_corner_lat is (%s = %zu, %s = %zu); expected at least one cell "
             "and 3 to %d corners", path, s.dim[0], s.len[0], s.dim[1], s.len[1], MESH_MAXDEG);
        rc = -1;
    }
    if (rc == 0)
        rc = read_sphere(&rd, "grid_center_lat", "grid_center_lon", 1, &t, &m->coord);
    if (rc == 0 && t.len[0] != s.len[0]) {
        perr("%s: variable grid_center_lat has %zu values; expected one per cell (%zu, as "
             "grid_corner_lat has)", path, t.len[0], s.len[0]);
        rc = -1;
    }
    nc_close_read(&rd);
    if (rc == 0) {
        int n = (int)s.len[0], w = (int)s.len[1], *node = xalloc(sizeof(int) * (size_t)n * w);
        m->ncells = n;
        m->ncoord = 3;
        m->nnodes = merge_corners(corner, n * w, node, &m->node_coord);
        m->nnode_coord = 3;
        m->node_width = w;
        m->cell_nodes = xalloc(sizeof(int) * (size_t)n * w);
        for (int c = 0; c < n; c++) { /* corners repeated next to themselves count once */
            int *row = m->cell_nodes + (size_t)w * c, k = 0;
            for (int j = 0; j < w; j++) {
                int v = node[(size_t)w * c + j];
                if (k == 0 || (v != row[k - 1] && (j < w - 1 || v != row[0])))
                    row[k++] = v;
            }
            if (k > 1 && row[k - 1] == row[0])
                k--;
            for (int j = k; j < w; j++)
                row[j] = -1;
        }
        xfree(node);
        char err[512];
        if (mesh_adj_from_nodes(m, "grid_corner_lat/lon", err, sizeof err) != 0) {
            perr("%s: %s (cells counted from 0)", path, err);
            rc = -1;
        }
    }
    xfree(corner);
    return mesh_import_finish(path, "scrip", "cells", "grid_corner_lat/lon", rd.kind, o->nlevels, rc, m);
}
