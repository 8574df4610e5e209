/* import_esmf.c — ESMF unstructured grid files (the ESMFMESH format of ESMF's regridding, ESMPy
 * and NCL's unstructured_to_ESMF), in any netCDF variant, through libnetcdf. pillar reads
 *   nodeCoords      real (nodeCount, coordDim = 2)   each node's longitude and latitude, in
 *                                                    degrees or radians by `units`; with other
 *                                                    units ("km", "m") x and y on a plane
 *   elementConn     int  (elementCount, maxNodePElement)   each element's nodes in order around
 *                                                    it, counted from the attribute start_index
 *                                                    (0 or 1; 1 when absent), -1 (or the
 *                                                    _FillValue) past its nodes
 *   numElementConn  int  (elementCount)              each element's nodes, 3..maxNodePElement
 *   centerCoords    real (elementCount, coordDim)    optional: each element's centre, like
 *                                                    nodeCoords; without it, the mean of its nodes
 *                                                    (on the sphere: that mean's direction)
 * and ignores everything else: elementMask is not applied (masked elements are imported as
 * cells, as SCRIP's grid_imask; pillar has no mask), elementArea is not read. coordDim = 3 (a
 * mesh of volumes) is refused. Two elements are neighbours when they share an edge: two
 * consecutive nodes (mesh_adj_from_nodes). */
#include "mesh_import.h"

#include "base/common.h"

#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <string.h>

/* Whether the open netCDF file ncid is an ESMF unstructured grid file: it has the variables
 * nodeCoords, elementConn and numElementConn (the recogniser of this format). */
static int esmf_recognise(int ncid)
{
    int v;
    return nc_inq_varid(ncid, "nodeCoords", &v) == NC_NOERR &&
           nc_inq_varid(ncid, "elementConn", &v) == NC_NOERR &&
           nc_inq_varid(ncid, "numElementConn", &v) == NC_NOERR;
}

int mesh_detect_esmf(const mesh_probe *p)
{
    return p->nc.ncid >= 0 && esmf_recognise(p->nc.ncid);
}

/* Whether variable name holds longitudes and latitudes (1 degrees, 2 radians) or planar x, y
 * (0), by its units. */
static int units_kind(const nc_reader *rd, const char *name)
{
    char u[64];
    if (nc_att_text(rd, nc_var(rd, name), "units", u, sizeof u) != 0)
        return 1; /* ESMF's default: degrees */
    return !strncmp(u, "degree", 6) ? 1 : !strncmp(u, "radian", 6) ? 2 : 0;
}

/* Variable name, (rows, coordDim = 2) with rows = *n (any when *n < 0, then set), as points:
 * on the unit sphere (3 coordinates) or on a plane (2), by its units; *ndim = the coordinates
 * per point. -1 after a message naming the variable and the first bad value. */
static int read_coords(const nc_reader *rd, const char *name, long *n, double **xyz, int *ndim)
{
    nc_shape s;
    double *v;
    *xyz = NULL;
    if (nc_read_var(rd, name, 0, 1, 2, &s, (void **)&v) != 0)
        return -1;
    if (s.len[1] != 2 || (*n >= 0 && s.len[0] != (size_t)*n)) {
        if (s.len[1] == 3)
            perr("%s: variable %s has coordDim = 3: a mesh of volumes (tetrahedra, hexahedra); "
                 "pillar reads a surface mesh (coordDim = 2)", rd->path, name);
        else if (s.len[1] != 2)
            perr("%s: variable %s has %zu columns; expected coordDim = 2", rd->path, name,
                 s.len[1]);
        else
            perr("%s: variable %s has %zu rows; expected %ld, one per element", rd->path, name,
                 s.len[0], *n);
        xfree(v);
        return -1;
    }
    size_t k = s.len[0];
    *n = (long)k;
    int kind = units_kind(rd, name), rc = 0;
    *ndim = kind ? 3 : 2;
    *xyz = xalloc(sizeof(double) * (size_t)*ndim * (k ? k : 1));
    if (kind) {
        double *lon = xalloc(sizeof(double) * (k ? k : 1));
        double *lat = xalloc(sizeof(double) * (k ? k : 1));
        for (size_t i = 0; i < k; i++) {
            lon[i] = v[2 * i];
            lat[i] = v[2 * i + 1];
        }
        char lon_name[300], lat_name[300];
        snprintf(lon_name, sizeof lon_name, "%s (column 0, longitude)", name);
        snprintf(lat_name, sizeof lat_name, "%s (column 1, latitude)", name);
        rc = mesh_lonlat_points(rd->path, lon_name, lat_name, lon, lat, k, kind == 1, *xyz);
        xfree(lon);
        xfree(lat);
    } else {
        for (size_t i = 0; i < 2 * k && rc == 0; i++)
            if (!isfinite(v[i])) {
                perr("%s: %s[%zu][%zu] = %g is not a finite position", rd->path, name, i / 2,
                     i % 2, v[i]);
                rc = -1;
            }
        memcpy(*xyz, v, sizeof(double) * 2 * k);
    }
    xfree(v);
    if (rc != 0) {
        xfree(*xyz);
        *xyz = NULL;
    }
    return rc;
}

/* The attribute start_index of elementConn (0 or 1; absent: 1) into *start. -1 after a
 * message. Its _FillValue is applied by nc_read_ints. */
static int conn_attributes(const nc_reader *rd, long long *start)
{
    *start = 1;
    int rc = nc_att_int(rd, nc_var(rd, "elementConn"), "start_index", start);
    if (rc < 0 || *start < 0 || *start > 1) {
        perr("%s: variable elementConn: attribute start_index must be 0 or 1", rd->path);
        return -1;
    }
    return 0;
}

/* Element c's row of elementConn (w entries, count[c] of them nodes) into m->cell_nodes. -1
 * after a message naming the first bad entry. */
static int element_row(const nc_reader *rd, mesh *m, int c, const int *conn, const int *count,
                       long long start)
{
    int w = m->node_width, *row = m->cell_nodes + (size_t)w * (size_t)c;
    if (count[c] < 3 || count[c] > w) {
        perr("%s: numElementConn[%d] = %d is out of range (3..maxNodePElement = %d)", rd->path,
             c, count[c], w);
        return -1;
    }
    for (int j = 0; j < w; j++) {
        long long v = conn[(size_t)w * (size_t)c + (size_t)j];
        if (j >= count[c]) {
            row[j] = -1;
        } else if (v == NC_READ_FILL) {
            perr("%s: elementConn[%d][%d] holds the fill value, but element %d has %d nodes "
                 "(numElementConn)", rd->path, c, j, c, count[c]);
            return -1;
        } else if (v < start || v - start >= m->nnodes) {
            perr("%s: elementConn[%d][%d] = %lld is out of range (%lld..%lld: element %d has %d "
                 "nodes, numElementConn)", rd->path, c, j, v, start, start + m->nnodes - 1, c,
                 count[c]);
            return -1;
        } else {
            row[j] = (int)(v - start);
        }
    }
    return 0;
}

/* numElementConn and elementConn into m (ncells, node_width, cell_nodes: 0-based, -1 past each
 * element's nodes). -1 after a message naming the first bad entry. */
static int read_elements(const nc_reader *rd, mesh *m)
{
    nc_shape s, t;
    long long start;
    int *count = NULL, *conn = NULL;
    int rc = conn_attributes(rd, &start) == 0 &&
                     nc_read_ints(rd, "elementConn", 0, 2, &s, &conn) == 0 &&
                     nc_read_ints(rd, "numElementConn", 0, 1, &t, &count) == 0
                 ? 0
                 : -1;
    if (rc == 0 && (s.len[0] == 0 || s.len[1] < 3 || s.len[1] > MESH_MAXDEG)) {
        perr("%s: variable elementConn is (%s = %zu, %s = %zu); expected at least one element "
             "and 3 to %d nodes per element", rd->path, s.dim[0], s.len[0], s.dim[1], s.len[1],
             MESH_MAXDEG);
        rc = -1;
    } else if (rc == 0 && t.len[0] != s.len[0]) {
        perr("%s: variable numElementConn has %zu values; expected one per element (%zu, as "
             "elementConn has)", rd->path, t.len[0], s.len[0]);
        rc = -1;
    }
    if (rc == 0) {
        m->ncells = (int)s.len[0];
        m->node_width = (int)s.len[1];
        m->cell_nodes = xalloc(sizeof(int) * s.len[1] * s.len[0]);
        for (int c = 0; c < m->ncells && rc == 0; c++)
            rc = element_row(rd, m, c, conn, count, start);
    }
    xfree(conn);
    xfree(count);
    return rc;
}

/* Each cell's centre as the mean of its nodes (on the sphere: that mean's direction). */
static void centres_from_nodes(mesh *m)
{
    int d = m->nnode_coord;
    m->ncoord = d;
    m->coord = xalloc(sizeof(double) * (size_t)d * (size_t)m->ncells);
    for (int c = 0; c < m->ncells; c++) {
        double *p = m->coord + (size_t)d * (size_t)c, r = 0;
        const int *row = m->cell_nodes + (size_t)m->node_width * (size_t)c;
        int k = 0;
        for (; k < m->node_width && row[k] >= 0; k++)
            for (int i = 0; i < d; i++)
                p[i] += m->node_coord[(size_t)d * (size_t)row[k] + i];
        for (int i = 0; i < d; i++)
            r += p[i] * p[i];
        r = d == 3 && r > 0 ? sqrt(r) : k;
        for (int i = 0; i < d; i++)
            p[i] /= r;
    }
}

int mesh_import_esmf(const char *path, mesh_import_opts *o, mesh *m)
{
    memset(m, 0, sizeof *m);
    nc_reader rd;
    if (nc_open_read(&rd, path, "ESMF mesh") != 0)
        return -1;
    long n = -1;
    int rc = read_coords(&rd, "nodeCoords", &n, &m->node_coord, &m->nnode_coord);
    m->nnodes = (int)n;
    if (rc == 0 && n == 0) {
        perr("%s: variable nodeCoords is empty: the mesh has no nodes", path);
        rc = -1;
    }
    if (rc == 0)
        rc = read_elements(&rd, m);
    if (rc == 0 && nc_var(&rd, "centerCoords") >= 0) {
        n = m->ncells;
        rc = read_coords(&rd, "centerCoords", &n, &m->coord, &m->ncoord);
        if (rc == 0 && m->ncoord != m->nnode_coord) {
            perr("%s: variables centerCoords and nodeCoords differ in units (one on the sphere, "
                 "the other on a plane)", path);
            rc = -1;
        }
    } else if (rc == 0) {
        centres_from_nodes(m);
    }
    nc_close_read(&rd);
    char err[512];
    if (rc == 0 && mesh_adj_from_nodes(m, "elementConn", err, sizeof err) != 0) {
        perr("%s: %s (cells counted from 0)", path, err);
        rc = -1;
    }
    return mesh_import_finish(path, "esmf", "elements", "elementConn", rd.kind, o->nlevels, rc, m);
}
