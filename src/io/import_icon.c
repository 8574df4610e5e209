/* import_icon.c — ICON grid files. ICON writes netCDF-4, which is HDF5: the variables are
 * datasets in the root group, netCDF dimensions (cell, nv) their extents. pillar reads
 *   neighbor_cell_index  int  [nv = 3][ncells]  1-based neighbour of each cell across edge j,
 *                                               <= 0 where the edge lies on the grid's boundary
 *   clon, clat           real [ncells]          cell centre, radians
 * and ignores everything else. */
#include "mesh_import.h"

#include "base/common.h"
#include "h5_util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int mesh_import_check(const char *path, const char *what, const mesh *m)
{
    char err[512];
    if (mesh_check(m, err, sizeof err) == 0)
        return 0;
    const char *msg = err, *prefix = "/cell_neighbours: ";
    if (!strncmp(err, prefix, strlen(prefix)))
        msg += strlen(prefix);
    perr("%s: %s: %s (cells counted from 0)", path, what, msg);
    return -1;
}

/* neighbor_cell_index into m->adj; -1 after a message naming the first bad index. */
static int read_neighbours(h5_reader *rd, mesh *m)
{
    long dims[2];
    int *idx;
    h5_shape want = {2, 3, 1, INT_MAX / 4, "3, one per edge of a triangle (netCDF dimension nv)"};
    if (h5_read_int(rd, "neighbor_cell_index", 0, &want, dims, &idx) != 0)
        return -1;
    int n = (int)dims[1];
    m->ncells = n;
    m->maxdeg = 3;
    m->adj = xalloc(sizeof(int) * 3 * (size_t)n);
    for (int j = 0; j < 3; j++)
        for (int c = 0; c < n; c++) {
            int v = idx[(size_t)j * n + c];
            if (v > n) {
                perr("%s: neighbor_cell_index[%d][%d] = %d is out of range (1..%d, or <= 0 for "
                     "none)", rd->path, j, c, v, n);
                xfree(idx);
                return -1;
            }
            m->adj[3 * c + j] = v > 0 ? v - 1 : -1;
        }
    xfree(idx);
    return 0;
}

/* clon, clat into points on the unit sphere. */
static int read_centres(h5_reader *rd, mesh *m)
{
    long dims[2];
    double *lon = NULL, *lat = NULL;
    h5_shape want = {1, m->ncells, 0, 0, "one per cell, as neighbor_cell_index has"};
    if (h5_read(rd, "clon", 0, 1, &want, dims, (void **)&lon) != 0 ||
        h5_read(rd, "clat", 0, 1, &want, dims, (void **)&lat) != 0) {
        xfree(lon);
        return -1;
    }
    int rc = 0;
    m->ncoord = 3;
    m->coord = xalloc(sizeof(double) * 3 * (size_t)m->ncells);
    for (int c = 0; c < m->ncells && rc == 0; c++) {
        if (!isfinite(lon[c]) || !isfinite(lat[c]) || fabs(lat[c]) > 1.5708) {
            perr("%s: %s[%d] = %g is not a %s in radians", rd->path,
                 isfinite(lon[c]) ? "clat" : "clon", c, isfinite(lon[c]) ? lat[c] : lon[c],
                 isfinite(lon[c]) ? "latitude" : "longitude");
            rc = -1;
        }
        m->coord[3 * c] = cos(lat[c]) * cos(lon[c]);
        m->coord[3 * c + 1] = cos(lat[c]) * sin(lon[c]);
        m->coord[3 * c + 2] = sin(lat[c]);
    }
    xfree(lon);
    xfree(lat);
    return rc;
}

int mesh_import_icon(const char *path, int nlevels, mesh *m)
{
    memset(m, 0, sizeof *m);
    h5_reader rd;
    if (h5_open(&rd, path, "ICON grid file") != 0)
        return -1;
    int rc = read_neighbours(&rd, m) == 0 && read_centres(&rd, m) == 0 ? 0 : -1;
    h5_close(&rd);
    if (rc == 0) {
        m->nlevels = nlevels;
        snprintf(m->kind, sizeof m->kind, "icon: %d triangles from %.80s", m->ncells, path);
        rc = mesh_import_check(path, "neighbor_cell_index", m);
    }
    if (rc != 0)
        mesh_free(m);
    return rc;
}
