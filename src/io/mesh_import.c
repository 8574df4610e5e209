/* mesh_import.c — the importer registry (mesh_import.h): the table derived from
 * PILLAR_IMPORTERS, choosing an importer from a file's content, and the check every importer
 * ends with. */
#include "mesh_import.h"

#include "base/common.h"
#include "files.h"

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PILLAR_IMPORTER_ROW(name, looks_for, summary)                                             \
    {#name, looks_for, summary, mesh_detect_##name, mesh_import_##name},
const mesh_importer mesh_importers[MESH_IMPORTER_COUNT] = {PILLAR_IMPORTERS(PILLAR_IMPORTER_ROW)};

int mesh_importer_find(const char *name)
{
    for (int k = 0; k < MESH_IMPORTER_COUNT; k++)
        if (!strcmp(name, mesh_importers[k].name))
            return k;
    return -1;
}

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

int mesh_import_finish(const char *path, const char *format, const char *cells, const char *what,
                       nc_kind kind, int nlevels, int rc, mesh *m)
{
    if (rc == 0) {
        m->nlevels = nlevels;
        snprintf(m->kind, sizeof m->kind, "%s: %d %s from %.60s (%s)", format, m->ncells, cells,
                 path, nc_kind_name[kind]);
        rc = mesh_import_check(path, what, m);
    }
    if (rc != 0)
        mesh_free(m);
    return rc == 0 ? 0 : -1;
}

int mesh_importer_detect(const char *path)
{
    if (file_input_check(path, "mesh to import") != 0)
        return -1;
    mesh_probe p;
    memset(&p, 0, sizeof p);
    p.path = path;
    p.nc.ncid = -1;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    ssize_t got = fd >= 0 ? pread(fd, p.head, sizeof p.head, 0) : -1;
    if (fd >= 0)
        close(fd);
    if (got < 0) {
        perr("%s: cannot read the mesh to import", path);
        return -1;
    }
    p.nhead = (size_t)got;
    /* a netCDF file is opened once for every detect function; one libnetcdf cannot open is
     * refused with the reason (truncated, a header beyond the file, ...) */
    nc_kind kind = nc_sniff(path);
    if (kind != NC_KIND_NONE && nc_open_read(&p.nc, path, "netCDF file") != 0)
        return -1;
    int found = -1;
    for (int k = 0; k < MESH_IMPORTER_COUNT && found < 0; k++)
        if (mesh_importers[k].detect(&p))
            found = k;
    nc_close_read(&p.nc);
    if (found < 0) {
        char list[1024] = "";
        for (int k = 0; k < MESH_IMPORTER_COUNT; k++) {
            const mesh_importer *im = mesh_importers + k;
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s %s: %s",
                     k ? ";" : "", im->name, im->looks_for ? im->looks_for : im->summary);
        }
        perr("%s: which format? pillar recognises none of its own in this file's content (%s); "
             "looked for:%s (--format NAME forces one)", path,
             nc_kind_name[kind], list);
    }
    return found;
}

int mesh_import(const char *path, int which, mesh_import_opts *o, mesh *m)
{
    memset(m, 0, sizeof *m);
    o->merged = o->nodes = 0;
    if (which < 0)
        which = mesh_importer_detect(path);
    if (which < 0 || which >= MESH_IMPORTER_COUNT)
        return -1;
    return mesh_importers[which].import(path, o, m);
}

/* Whether entries j.. of row v (w entries) all repeat node `node` (as stored) or are fill. */
static int repeats_to_end(const int *v, int j, int w, int node)
{
    for (; j < w; j++)
        if (v[j] != node && v[j] != NC_READ_FILL)
            return 0;
    return 1;
}

int mesh_index_rows(const char *path, const char *name, const char *row_word, const int *in,
                    size_t rows, int w, long long start, int max, int corners, int *out)
{
    for (size_t r = 0; r < rows; r++) {
        const int *v = in + r * (size_t)w;
        int *row = out + r * (size_t)w, filled = 0;
        for (int j = 0; j < w; j++) {
            if (corners && j > 0 && !filled && v[j] == v[j - 1] &&
                repeats_to_end(v, j, w, v[j])) { /* the last corner repeated to the end */
                for (; j < w; j++)
                    row[j] = -1;
                break;
            }
            if (v[j] == NC_READ_FILL) {
                row[j] = -1;
                filled = 1;
                continue;
            }
            const char *why = v[j] < start || v[j] >= start + max ? "is out of range"
                              : corners && filled ? "follows a fill value"
                                                  : NULL;
            if (why) {
                perr("%s: variable %s: %s %zu, entry %d = %d %s (%lld..%lld, counted from %lld; "
                     "%s)", path, name, row_word, r, j, v[j], why, start, start + max - 1, start,
                     corners ? "a row is padded after its last corner with the _FillValue or "
                               "missing_value, or by repeating that corner"
                             : "the _FillValue or missing_value for none");
                return -1;
            }
            row[j] = (int)(v[j] - start);
        }
    }
    return 0;
}

int mesh_lonlat_points(const char *path, const char *lon_name, const char *lat_name,
                       const double *lon, const double *lat, size_t n, int degrees, double *xyz)
{
    const double pi = 3.14159265358979323846;
    const double to_rad = degrees ? pi / 180.0 : 1.0, pole = pi / 2 * (1 + 1e-9);
    for (size_t i = 0; i < n; i++) {
        double lo = lon[i] * to_rad, la = lat[i] * to_rad;
        if (!isfinite(lon[i]) || !isfinite(la) || fabs(la) > pole) {
            int bad_lon = !isfinite(lon[i]);
            perr("%s: %s[%zu] = %g is not a %s in %s", path, bad_lon ? lon_name : lat_name, i,
                 bad_lon ? lon[i] : lat[i], bad_lon ? "longitude" : "latitude",
                 degrees ? "degrees" : "radians");
            return -1;
        }
        xyz[3 * i] = cos(la) * cos(lo);
        xyz[3 * i + 1] = cos(la) * sin(lo);
        xyz[3 * i + 2] = sin(la);
    }
    return 0;
}

int mesh_read_lonlat(const nc_reader *rd, const char *lon_name, const char *lat_name, int optional,
                     long n, int degrees, double **xyz, int *count)
{
    nc_shape s, t;
    double *lon = NULL, *lat = NULL;
    *xyz = NULL;
    *count = 0;
    int rc = nc_read_var(rd, lon_name, optional, 1, 1, &s, (void **)&lon);
    if (rc != 0)
        return rc;
    if (nc_read_var(rd, lat_name, 0, 1, 1, &t, (void **)&lat) != 0) {
        xfree(lon);
        return -1;
    }
    rc = 0;
    if (n >= 0 && s.len[0] != (size_t)n) {
        perr("%s: variable %s has %zu values; expected %ld", rd->path, lon_name, s.len[0], n);
        rc = -1;
    } else if (t.len[0] != s.len[0]) {
        perr("%s: variable %s has %zu values; expected %zu, as %s has", rd->path, lat_name,
             t.len[0], s.len[0], lon_name);
        rc = -1;
    }
    if (rc == 0) {
        *xyz = xalloc(sizeof(double) * 3 * (s.len[0] ? s.len[0] : 1));
        rc = mesh_lonlat_points(rd->path, lon_name, lat_name, lon, lat, s.len[0], degrees, *xyz);
        *count = (int)s.len[0];
    }
    if (rc != 0) {
        xfree(*xyz);
        *xyz = NULL;
        *count = 0;
    }
    xfree(lon);
    xfree(lat);
    return rc;
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

int mesh_read_sphere(const nc_reader *rd, const char *lat_name, const char *lon_name,
                     const char *lat_units, const char *lon_units, int rank, nc_shape *s,
                     double **xyz)
{
    double *lat = NULL, *lon = NULL;
    nc_shape t;
    *xyz = NULL;
    int dlat = -1, dlon = -1, rc = -1;
    if (nc_read_var(rd, lat_name, 0, 1, rank, s, (void **)&lat) == 0 &&
        nc_read_var(rd, lon_name, 0, 1, rank, &t, (void **)&lon) == 0 &&
        (dlat = in_degrees(rd, lat_units ? lat_units : lat_name)) >= 0 &&
        (dlon = in_degrees(rd, lon_units ? lon_units : lon_name)) >= 0) {
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

/* Union-find of nodes (mesh_merge_nodes): the representative of i. */
static int node_root(int *up, int i)
{
    while (up[i] != i)
        i = up[i] = up[up[i]];
    return i;
}

/* ---- coincident nodes (mesh_merge_nodes) ---- */

/* A node's cell in the grid of merging: its coordinates divided by the cell size and rounded
 * down (or the coordinates themselves when only identical positions merge). */
typedef struct {
    double key[3];
    int node;
} grid_cell;

static int cell_cmp(const void *a, const void *b)
{
    const grid_cell *p = a, *q = b;
    for (int k = 0; k < 3; k++)
        if (p->key[k] != q->key[k])
            return p->key[k] < q->key[k] ? -1 : 1;
    return p->node - q->node;
}

/* The first entry of sorted cells c (n) whose key is at least key. */
static size_t cell_find(const grid_cell *c, size_t n, const double key[3])
{
    size_t lo = 0, hi = n;
    grid_cell probe = {{key[0], key[1], key[2]}, -1};
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cell_cmp(c + mid, &probe) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}


int mesh_cells_from_corners(const char *path, const char *what, const double *corner, int ncells,
                            int w, mesh *m)
{
    if ((size_t)ncells * (size_t)w > INT_MAX) {
        perr("%s: %s: %d cells of %d corners: more corners than pillar counts (%d)", path, what,
             ncells, w, INT_MAX);
        return -1;
    }
    /* every corner its own node first, then the nodes within MESH_NODE_TOL merged (transitively,
     * the earliest corner leading) */
    size_t n = (size_t)ncells * (size_t)w;
    m->ncells = ncells;
    m->nnodes = (int)n;
    m->nnode_coord = 3;
    m->node_width = w;
    m->node_coord = xalloc(sizeof(double) * 3 * (n ? n : 1));
    memcpy(m->node_coord, corner, sizeof(double) * 3 * n);
    m->cell_nodes = xalloc(sizeof(int) * (n ? n : 1));
    for (size_t j = 0; j < n; j++)
        m->cell_nodes[j] = (int)j;
    mesh_merge_nodes(m, MESH_NODE_TOL);
    for (int c = 0; c < ncells; c++) { /* corners repeated next to themselves count once */
        int *row = m->cell_nodes + (size_t)w * (size_t)c, k = 0;
        for (int j = 0; j < w; j++) { /* in place: row[k] with k <= j is written once read */
            int v = row[j];
            if (k == 0 || (v != row[k - 1] && (j < w - 1 || v != row[0])))
                row[k++] = v;
        }
        if (k > 1 && row[k - 1] == row[0])
            k--;
        for (int j = k; j < w; j++)
            row[j] = -1;
    }
    char err[512];
    if (mesh_adj_from_nodes(m, what, err, sizeof err) != 0) {
        perr("%s: %s (cells counted from 0)", path, err);
        return -1;
    }
    return 0;
}

static int same_cell(const double *a, const double *b)
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

/* Joins node a with the nodes in the cell at key (sorted cells c) that lie at most tol from
 * it. */
static void merge_cell(const mesh *m, const grid_cell *c, size_t n, const double key[3], int a,
                       double tol, int *up)
{
    int d = m->nnode_coord;
    const double *p = m->node_coord + (size_t)d * a;
    for (size_t i = cell_find(c, n, key); i < n; i++) {
        const grid_cell *q = c + i;
        if (!same_cell(q->key, key))
            break;
        int ra = node_root(up, a), rb = node_root(up, q->node);
        if (ra == rb)
            continue;
        double d2 = 0;
        for (int k = 0; k < d; k++) {
            double t = p[k] - m->node_coord[(size_t)d * q->node + k];
            d2 += t * t;
        }
        if (d2 <= tol * tol)
            up[ra > rb ? ra : rb] = ra < rb ? ra : rb; /* the earliest node leads */
    }
}

/* Sorts the n nodes of m (or those that are their set's root, with `roots`) into c by their
 * cell in a grid of cells h wide (h 0: their positions themselves). Returns how many. */
static size_t sort_cells(const mesh *m, int *up, int roots, double h, grid_cell *c)
{
    int d = m->nnode_coord;
    size_t n = 0;
    for (int i = 0; i < m->nnodes; i++) {
        if (roots && node_root(up, i) != i)
            continue;
        c[n].node = i;
        for (int k = 0; k < 3; k++) {
            double x = k < d ? m->node_coord[(size_t)d * i + k] : 0;
            c[n].key[k] = h > 0 ? floor(x / h) : x + 0.0; /* + 0.0: -0 is 0 */
        }
        n++;
    }
    qsort(c, n, sizeof(grid_cell), cell_cmp);
    return n;
}

int mesh_merge_nodes(mesh *m, double tol)
{
    int n = m->nnodes, d = m->nnode_coord;
    if (tol < 0 || n < 2)
        return 0;
    grid_cell *c = xalloc(sizeof(grid_cell) * (size_t)n);
    int *up = xalloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        up[i] = i;
    /* identical positions: runs of the sorted positions (linear, however many share one) */
    sort_cells(m, up, 0, 0, c);
    for (int i = 1; i < n; i++)
        if (same_cell(c[i].key, c[i - 1].key))
            up[c[i].node] = node_root(up, c[i - 1].node); /* the run's first leads */
    if (tol > 0) {
        /* the others of one set each, in a grid of cells at least tol wide and wide enough
         * that a cell's number is an exact integer (below 2^50): nodes within tol lie in the
         * same or adjacent cells */
        double big = 0;
        for (size_t i = 0; i < (size_t)n * d; i++)
            big = fmax(big, fabs(m->node_coord[i]));
        size_t nc = sort_cells(m, up, 1, fmax(tol, big * 0x1p-50), c);
        for (size_t i = 0; i < nc; i++)
            for (int o = 0; o < (d < 3 ? 9 : 27); o++) {
                double key[3] = {c[i].key[0] + o % 3 - 1, c[i].key[1] + o / 3 % 3 - 1,
                                 c[i].key[2] + (d < 3 ? 0 : o / 9 - 1)};
                merge_cell(m, c, nc, key, c[i].node, tol, up);
            }
    }
    int count = 0, *node = xalloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) /* roots come before their members: numbered first */
        node[i] = node_root(up, i) == i ? count++ : -1;
    for (int i = 0; i < n; i++) {
        if (node[i] >= 0)
            memmove(m->node_coord + (size_t)d * node[i], m->node_coord + (size_t)d * i,
                    sizeof(double) * d);
        else
            node[i] = node[node_root(up, i)];
    }
    for (size_t j = 0; j < (size_t)m->ncells * m->node_width; j++)
        if (m->cell_nodes[j] >= 0)
            m->cell_nodes[j] = node[m->cell_nodes[j]];
    m->nnodes = count;
    xfree(c);
    xfree(up);
    xfree(node);
    return n - count;
}
