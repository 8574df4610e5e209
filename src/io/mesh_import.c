/* mesh_import.c — the importer registry (mesh_import.h): the table derived from
 * PILLAR_IMPORTERS, choosing an importer from a file's content, and the check every importer
 * ends with. */
#include "mesh_import.h"

#include "base/common.h"
#include "files.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
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

int mesh_import(const char *path, int which, int nlevels, mesh *m)
{
    memset(m, 0, sizeof *m);
    if (which < 0)
        which = mesh_importer_detect(path);
    if (which < 0 || which >= MESH_IMPORTER_COUNT)
        return -1;
    return mesh_importers[which].import(path, nlevels, m);
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
