/* import_ugrid.c — UGRID 2D meshes (the UGRID conventions for unstructured grids in netCDF, as
 * written by uxarray, xugrid, MDAL, Delft3D FM, ...), in any netCDF variant, through libnetcdf.
 * pillar finds the mesh topology variable (attribute cf_role = "mesh_topology",
 * topology_dimension = 2; the first one in the file) and reads from the variables it names:
 *   face_node_connectivity   the corners of each face, in order around it; padded with the
 *                            variable's _FillValue or missing_value, or by repeating the last
 *                            corner (mixed triangles, quadrangles, ...: mesh_index_rows); nodes
 *                            at identical positions (or within --merge-nodes TOL) are merged
 *                            first (mesh_merge_nodes)
 *   face_face_connectivity   optional: each face's neighbours (_FillValue where an edge lies on
 *                            the boundary); without it, two faces are neighbours when they share
 *                            an edge (two consecutive corners); with it, it must agree with that
 *   node_coordinates         the nodes' positions: longitude/latitude (by standard_name or units
 *                            degrees_east/_north; radians when units say so) become points on the
 *                            unit sphere, anything else stays planar (x, y)
 *   face_coordinates         optional: the faces' centres, likewise; without it the mean of the
 *                            corners (on the sphere: projected back onto it)
 * Each connectivity variable may count from 0 or 1 (its attribute start_index, default 0) and
 * be stored faces first or transposed: its dimension named by the topology's face_dimension
 * attribute is the faces (without face_dimension the first dimension is). */
#include "mesh_import.h"

#include "base/common.h"

#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <string.h>

/* The first variable with cf_role = "mesh_topology" and topology_dimension = dim (0: any), or
 * -1. */
static int find_topology(const nc_reader *rd, long long dim)
{
    int nvars;
    if (nc_inq_nvars(rd->ncid, &nvars) != NC_NOERR)
        return -1;
    for (int v = 0; v < nvars; v++) {
        char role[64];
        long long d;
        if (nc_att_text(rd, v, "cf_role", role, sizeof role) == 0 &&
            !strcmp(role, "mesh_topology") &&
            (dim == 0 || (nc_att_int(rd, v, "topology_dimension", &d) == 0 && d == dim)))
            return v;
    }
    return -1;
}

int mesh_detect_ugrid(const mesh_probe *p)
{
    return p->nc.ncid >= 0 && find_topology(&p->nc, 0) >= 0;
}

/* A mesh topology being read: its name and attributes. */
typedef struct {
    const nc_reader *rd;
    int var;
    char name[NC_MAX_NAME + 1];
    char face_dim[NC_MAX_NAME + 1]; /* "" when the attribute is absent */
} topology;

/* Text attribute `att` of the topology (a variable name, or names) into buf; optional: 1 when
 * absent; -1 after a message. */
static int topo_att(const topology *t, const char *att, int optional, char *buf, size_t n)
{
    int rc = nc_att_text(t->rd, t->var, att, buf, n);
    if (rc == 1 && !optional)
        perr("%s: mesh topology %s has no attribute %s", t->rd->path, t->name, att);
    else if (rc < 0)
        perr("%s: mesh topology %s: attribute %s is not text naming variables", t->rd->path,
             t->name, att);
    return rc == 1 && !optional ? -1 : rc;
}

/* A connectivity variable of the faces into rows of *width entries, 0-based or -1 (its
 * _FillValue or missing_value). `max`: entries must lie in 0..max-1 after start_index (an
 * optional attribute, 0 when absent); corners: the rows are corners, padded by the one rule of
 * every reader (mesh_index_rows). *nfaces: the faces (set here when -1). -1 after a message
 * naming the first bad entry. */
static int read_conn(const topology *t, const char *name, int max, int corners, int *nfaces,
                     int *width, int **rows)
{
    const nc_reader *rd = t->rd;
    nc_shape s;
    int *idx;
    *rows = NULL;
    if (nc_read_ints(rd, name, 0, 2, &s, &idx) != 0)
        return -1;
    int tr = 0; /* stored (entry, face) */
    if (t->face_dim[0]) {
        tr = !strcmp(s.dim[1], t->face_dim) && strcmp(s.dim[0], t->face_dim);
        if (!tr && strcmp(s.dim[0], t->face_dim)) {
            perr("%s: variable %s has dimensions (%s, %s), neither of them the faces' %s "
                 "(attribute face_dimension of %s)", rd->path, name, s.dim[0], s.dim[1],
                 t->face_dim, t->name);
            xfree(idx);
            return -1;
        }
    }
    size_t nf = s.len[tr], w = s.len[1 - tr];
    const char *why = NULL;
    if (nf == 0)
        why = "no faces";
    else if (*nfaces >= 0 && nf != (size_t)*nfaces)
        why = "another number of faces than face_node_connectivity";
    else if (w < 1 || w > MESH_MAXDEG)
        why = "more entries per face than pillar's 16 (or none)";
    if (why) {
        perr("%s: variable %s (%s, %s) has %s%s", rd->path, name, s.dim[0], s.dim[1], why,
             t->face_dim[0] ? "" : " (faces first: the topology has no face_dimension)");
        xfree(idx);
        return -1;
    }
    long long start = 0;
    if (nc_att_int(rd, nc_var(rd, name), "start_index", &start) < 0 ||
        (start != 0 && start != 1)) {
        perr("%s: variable %s: attribute start_index must be the integer 0 or 1", rd->path, name);
        xfree(idx);
        return -1;
    }
    if (tr) { /* faces first */
        int *faces = xalloc(sizeof(int) * nf * w);
        for (size_t f = 0; f < nf; f++)
            for (size_t j = 0; j < w; j++)
                faces[f * w + j] = idx[j * nf + f];
        xfree(idx);
        idx = faces;
    }
    *nfaces = (int)nf;
    *width = (int)w;
    *rows = xalloc(sizeof(int) * nf * w);
    int rc = mesh_index_rows(rd->path, name, "face", idx, nf, (int)w, start, max, corners, *rows);
    xfree(idx);
    if (rc != 0) {
        xfree(*rows);
        *rows = NULL;
    }
    return rc;
}

/* Whether variable name holds longitudes (1), latitudes (2) or neither (0); *radians from its
 * units. */
static int coord_role(const nc_reader *rd, const char *name, int *radians)
{
    int id = nc_var(rd, name);
    char sn[64], units[64];
    if (nc_att_text(rd, id, "standard_name", sn, sizeof sn) != 0)
        sn[0] = 0;
    if (nc_att_text(rd, id, "units", units, sizeof units) != 0)
        units[0] = 0;
    *radians = !strcmp(units, "radian") || !strcmp(units, "radians");
    if (!strcmp(sn, "longitude") || !strncmp(units, "degrees_east", 12) ||
        !strcmp(units, "degree_east") || !strcmp(units, "degrees_E") || !strcmp(units, "degree_E"))
        return 1;
    if (!strcmp(sn, "latitude") || !strncmp(units, "degrees_north", 13) ||
        !strcmp(units, "degree_north") || !strcmp(units, "degrees_N") ||
        !strcmp(units, "degree_N"))
        return 2;
    return 0;
}

/* The variables named by topology attribute `att` ("x y" or "lon lat") as points: on the unit
 * sphere when they are a longitude and a latitude, else as they are (2 or 3 components). n:
 * their number (-1: any; set). Returns 0, 1 when absent and optional, -1 after a message. */
static int read_points(const topology *t, const char *att, int optional, int *n, double **xyz,
                       int *ndim)
{
    const nc_reader *rd = t->rd;
    char names[3 * (NC_MAX_NAME + 1)], name[3][NC_MAX_NAME + 1];
    int rc = topo_att(t, att, optional, names, sizeof names), k = 0;
    *xyz = NULL;
    if (rc != 0)
        return rc;
    for (char *tok = strtok(names, " \t"); tok; tok = strtok(NULL, " \t"), k++)
        if (k < 3)
            snprintf(name[k], sizeof name[0], "%s", tok);
    if (k < 2 || k > 3) {
        perr("%s: mesh topology %s: attribute %s names %d variable%s; expected 2 or 3", rd->path,
             t->name, att, k, k == 1 ? "" : "s");
        return -1;
    }
    int rad0, rad1, r0 = coord_role(rd, name[0], &rad0), r1 = coord_role(rd, name[1], &rad1);
    if (k == 2 && r0 && r1 && r0 != r1) {
        const char *lon = r0 == 1 ? name[0] : name[1], *lat = r0 == 1 ? name[1] : name[0];
        int cnt;
        rc = mesh_read_lonlat(rd, lon, lat, 0, *n, !(r0 == 1 ? rad0 : rad1), xyz, &cnt);
        if (rc == 0) {
            *n = cnt;
            *ndim = 3;
        }
        return rc;
    }
    double *v[3] = {NULL, NULL, NULL};
    nc_shape s;
    for (int i = 0; i < k && rc == 0; i++) {
        rc = nc_read_var(rd, name[i], 0, 1, 1, &s, (void **)&v[i]);
        if (rc == 0 && *n >= 0 && s.len[0] != (size_t)*n) {
            perr("%s: variable %s has %zu values; expected %d", rd->path, name[i], s.len[0], *n);
            rc = -1;
        }
        if (rc == 0)
            *n = (int)s.len[0];
        for (size_t j = 0; rc == 0 && j < s.len[0]; j++)
            if (!isfinite(v[i][j])) {
                perr("%s: variable %s[%zu] = %g is not a finite coordinate", rd->path, name[i],
                     j, v[i][j]);
                rc = -1;
            }
    }
    if (rc == 0) {
        *ndim = k;
        *xyz = xalloc(sizeof(double) * (size_t)k * (size_t)(*n ? *n : 1));
        for (int j = 0; j < *n; j++)
            for (int i = 0; i < k; i++)
                (*xyz)[k * j + i] = v[i][j];
    }
    for (int i = 0; i < 3; i++)
        xfree(v[i]);
    return rc;
}

/* Face centres as the mean of their corners (projected onto the unit sphere for 3 components
 * of unit length). */
static void corner_means(mesh *m)
{
    int d = m->nnode_coord;
    m->ncoord = d;
    m->coord = xalloc(sizeof(double) * (size_t)d * (size_t)m->ncells);
    for (int c = 0; c < m->ncells; c++) {
        const int *row = m->cell_nodes + (size_t)m->node_width * c;
        int k = 0;
        for (; k < m->node_width && row[k] >= 0; k++)
            for (int i = 0; i < d; i++)
                m->coord[d * c + i] += m->node_coord[(size_t)d * row[k] + i];
        double r = 0;
        for (int i = 0; i < d; i++) {
            m->coord[d * c + i] /= k;
            r += m->coord[d * c + i] * m->coord[d * c + i];
        }
        if (d == 3 && r > 0)
            for (int i = 0; i < 3; i++)
                m->coord[3 * c + i] /= sqrt(r);
    }
}

/* Whether cell d is in row c of table (width w). */
static int row_has(const int *table, int w, int c, int d)
{
    for (int j = 0; j < w; j++)
        if (table[(size_t)w * c + j] == d)
            return 1;
    return 0;
}

/* face_face_connectivity into m->adj (a row's entries moved to its front; no more than the
 * face's edges), checked like every imported table and then against the neighbours the shared
 * edges give (derived). */
static int read_face_faces(const topology *t, const char *var, mesh *m, const mesh *derived)
{
    int nf = m->ncells, w, *rows, rc = 0;
    if (read_conn(t, var, m->ncells, 0, &nf, &w, &rows) != 0)
        return -1;
    size_t dw = (size_t)derived->maxdeg;
    m->maxdeg = derived->maxdeg;
    m->adj = xalloc(sizeof(int) * dw * (size_t)nf);
    memset(m->adj, 0xff, sizeof(int) * dw * (size_t)nf);
    for (int c = 0; c < nf && rc == 0; c++)
        for (int j = 0, k = 0; j < w && rc == 0; j++) {
            int d = rows[(size_t)w * c + j];
            if (d < 0)
                continue;
            if (k == mesh_sides(m, c)) {
                perr("%s: %s: face %d lists more neighbours than its %d edges (faces counted "
                     "from 0)", t->rd->path, var, c, mesh_sides(m, c));
                rc = -1;
            } else {
                m->adj[dw * c + k++] = d;
            }
        }
    xfree(rows);
    if (rc != 0 || mesh_import_check(t->rd->path, var, m) != 0)
        return -1;
    for (int c = 0; c < nf; c++)
        for (size_t j = 0; j < dw; j++) {
            int d = m->adj[dw * c + j], e = derived->adj[dw * c + j];
            if (d >= 0 && !row_has(derived->adj, (int)dw, c, d)) {
                perr("%s: %s: face %d lists face %d, but they share no edge in the face-node "
                     "connectivity (faces counted from 0)", t->rd->path, var, c, d);
                return -1;
            }
            if (e >= 0 && !row_has(m->adj, (int)dw, c, e)) {
                perr("%s: %s: faces %d and %d share an edge in the face-node connectivity, but "
                     "face %d does not list %d (faces counted from 0)", t->rd->path, var, c, e,
                     c, e);
                return -1;
            }
        }
    return 0;
}

/* Reads the mesh of topology t into m, coincident nodes merged as o asks. */
static int read_mesh(const topology *t, mesh_import_opts *o, mesh *m)
{
    const nc_reader *rd = t->rd;
    char fn[NC_MAX_NAME + 1], ff[NC_MAX_NAME + 1];
    if (topo_att(t, "face_node_connectivity", 0, fn, sizeof fn) != 0)
        return -1;
    int nnodes = -1;
    if (read_points(t, "node_coordinates", 0, &nnodes, &m->node_coord, &m->nnode_coord) != 0)
        return -1;
    m->nnodes = nnodes;
    if (nnodes == 0) {
        perr("%s: mesh topology %s has no nodes", rd->path, t->name);
        return -1;
    }
    m->ncells = -1;
    if (read_conn(t, fn, nnodes, 1, &m->ncells, &m->node_width, &m->cell_nodes) != 0)
        return -1;
    o->nodes = nnodes;
    o->merged = mesh_merge_nodes(m, o->merge_tol);
    mesh derived = *m; /* the neighbours the shared edges give */
    derived.adj = NULL;
    derived.sides = NULL;
    char err[512];
    if (mesh_adj_from_nodes(&derived, fn, err, sizeof err) != 0) {
        perr("%s: %s (faces and nodes counted from 0%s)", rd->path, err,
             o->merged ? ", nodes after merging coincident ones; --merge-nodes off keeps them"
                       : "");
        return -1;
    }
    m->sides = derived.sides;
    int rc = topo_att(t, "face_face_connectivity", 1, ff, sizeof ff);
    if (rc == 1) {
        m->adj = derived.adj;
        m->maxdeg = derived.maxdeg;
        rc = mesh_import_check(rd->path, fn, m);
    } else if (rc == 0) {
        rc = read_face_faces(t, ff, m, &derived);
        xfree(derived.adj);
    } else {
        xfree(derived.adj);
    }
    if (rc != 0)
        return -1;
    int nf = m->ncells, cdim;
    double *centres;
    rc = read_points(t, "face_coordinates", 1, &nf, &centres, &cdim);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        m->coord = centres;
        m->ncoord = cdim;
    } else {
        corner_means(m);
    }
    return 0;
}

int mesh_import_ugrid(const char *path, mesh_import_opts *o, mesh *m)
{
    memset(m, 0, sizeof *m);
    nc_reader rd;
    if (nc_open_read(&rd, path, "UGRID mesh") != 0)
        return -1;
    topology t = {&rd, find_topology(&rd, 2), "", ""};
    int rc = 0;
    if (t.var < 0) {
        perr("%s: no UGRID 2D mesh: no variable has cf_role = \"mesh_topology\" and "
             "topology_dimension = 2%s", path,
             find_topology(&rd, 0) >= 0 ? " (the file's meshes are not 2D)" : "");
        rc = -1;
    } else {
        nc_inq_varname(rd.ncid, t.var, t.name);
        if (topo_att(&t, "face_dimension", 1, t.face_dim, sizeof t.face_dim) < 0)
            rc = -1;
    }
    m->nlevels = o->nlevels; /* read_mesh checks the neighbour table it reads */
    if (rc == 0)
        rc = read_mesh(&t, o, m);
    nc_close_read(&rd);
    return mesh_import_finish(path, "ugrid", "faces", "the mesh", rd.kind, o->nlevels, rc, m);
}
