/* mesh_io.c — reading and writing mesh files with the HDF5 C API. HDF5's own error printing is
 * silenced; every failure is reported once, naming the file and the dataset or attribute. */
#include "mesh_io.h"

#include "common.h"
#include "h5_util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading ---- */

typedef struct {
    const char *path;
    hid_t file;
} reader;

/* Integer scalar attribute of the root group; -1 if absent (when optional) or bad. */
static int read_attr_int(reader *rd, hid_t obj, const char *where, const char *name, int optional,
                         long long *out)
{
    int rc = h5_read_attr_int(obj, name, out);
    if (rc == 1 && !optional)
        perr("%s: attribute %s%s is missing", rd->path, where, name);
    if (rc == 1)
        return -1;
    if (rc < 0) {
        perr("%s: attribute %s%s: expected one integer", rd->path, where, name);
        return -2;
    }
    return 0;
}

/* Positive integer attribute `name` of dataset `dset`. Returns 0, or -1 after a message. */
static int read_dataset_attr(reader *rd, const char *dset, const char *name, int *out)
{
    long long v = 0;
    char where[64];
    snprintf(where, sizeof where, "%s/", dset);
    hid_t d = H5Dopen2(rd->file, dset, H5P_DEFAULT);
    int rc = read_attr_int(rd, d, where, name, 0, &v);
    H5Dclose(d);
    if (rc == 0 && (v < 1 || v > INT_MAX)) {
        perr("%s: attribute %s%s = %lld: expected a positive integer", rd->path, where, name, v);
        rc = -1;
    }
    *out = rc == 0 ? (int)v : 0;
    return rc == 0 ? 0 : -1;
}

/* Reads dataset `name` of rank 1 (cols = 0) or 2 with `cols` (or any of cols..cols_max) columns
 * and `rows` rows (-1: any; the count is stored in *rows). Integers come back in *ibuf as long
 * long, floats in *dbuf. Returns 0, 1 if absent and optional, -1 after a message. */
static int read_dataset(reader *rd, const char *name, int optional, int is_float, long *rows,
                        int cols, int cols_max, int *cols_out, void **buf)
{
    *buf = NULL;
    if (H5Lexists(rd->file, name, H5P_DEFAULT) <= 0) {
        if (optional)
            return 1;
        perr("%s: dataset %s is missing (see docs/mesh-format.md)", rd->path, name);
        return -1;
    }
    hid_t d = H5Dopen2(rd->file, name, H5P_DEFAULT);
    if (d < 0) {
        perr("%s: %s is not a dataset", rd->path, name);
        return -1;
    }
    hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
    int rank = H5Sget_simple_extent_ndims(sp), want_rank = cols ? 2 : 1, rc = -1;
    hsize_t dims[2] = {0, 0};
    H5T_class_t cls = H5Tget_class(t);
    if (rank != want_rank) {
        perr("%s: dataset %s has rank %d; expected %d", rd->path, name, rank, want_rank);
    } else if (is_float ? (cls != H5T_FLOAT && cls != H5T_INTEGER) : cls != H5T_INTEGER) {
        perr("%s: dataset %s has the wrong type; expected %s", rd->path, name,
             is_float ? "floating-point numbers" : "integers");
    } else {
        H5Sget_simple_extent_dims(sp, dims, NULL);
        if (cols && (dims[1] < (hsize_t)cols || dims[1] > (hsize_t)cols_max))
            perr("%s: dataset %s has %llu columns; expected %d%s", rd->path, name,
                 (unsigned long long)dims[1], cols, cols_max > cols ? " or 3" : "");
        else if (*rows >= 0 && dims[0] != (hsize_t)*rows)
            perr("%s: dataset %s has %llu rows; expected one per cell (%ld)", rd->path, name,
                 (unsigned long long)dims[0], *rows);
        else if (dims[0] > (hsize_t)(INT_MAX / 4))
            perr("%s: dataset %s has %llu rows: too many cells", rd->path, name,
                 (unsigned long long)dims[0]);
        else
            rc = 0;
    }
    if (rc == 0) {
        size_t n = (size_t)dims[0] * (cols ? dims[1] : 1);
        *buf = xalloc((is_float ? sizeof(double) : sizeof(long long)) * n);
        if (n && H5Dread(d, is_float ? H5T_NATIVE_DOUBLE : H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL,
                         H5P_DEFAULT, *buf) < 0) {
            perr("%s: dataset %s could not be read", rd->path, name);
            xfree(*buf);
            *buf = NULL;
            rc = -1;
        }
        *rows = (long)dims[0];
        if (cols_out)
            *cols_out = (int)dims[1];
    }
    H5Sclose(sp);
    H5Tclose(t);
    H5Dclose(d);
    return rc;
}

/* Converts n values to int, reporting the first one that does not fit. */
static int to_int(reader *rd, const char *name, const long long *v, size_t n, int width, int *out)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i] < INT_MIN || v[i] > INT_MAX) {
            perr("%s: dataset %s: row %zu holds %lld, out of range", rd->path, name, i / width,
                 v[i]);
            return -1;
        }
        out[i] = (int)v[i];
    }
    return 0;
}

static int read_int_dataset(reader *rd, const char *name, int optional, long *rows, int cols,
                            int **out)
{
    void *buf;
    *out = NULL;
    int rc = read_dataset(rd, name, optional, 0, rows, cols, cols, NULL, &buf);
    if (rc != 0)
        return rc;
    int width = cols ? cols : 1;
    size_t n = (size_t)*rows * width;
    *out = xalloc(sizeof(int) * n);
    rc = to_int(rd, name, buf, n, width, *out);
    xfree(buf);
    return rc;
}

static int read_all(reader *rd, mesh *m)
{
    long long v;
    if (read_attr_int(rd, rd->file, "/", "pillar_mesh_version", 0, &v) != 0)
        return -1;
    if (v != MESH_FORMAT_VERSION) {
        perr("%s: attribute /pillar_mesh_version = %lld: this pillar reads version %d", rd->path, v,
             MESH_FORMAT_VERSION);
        return -1;
    }
    if (read_attr_int(rd, rd->file, "/", "nlevels", 0, &v) != 0)
        return -1;
    if (v < 1 || v > 100000) {
        perr("%s: attribute /nlevels = %lld: expected 1 to 100000", rd->path, v);
        return -1;
    }
    m->nlevels = (int)v;
    long rows = -1;
    if (read_int_dataset(rd, "/neighbours", 0, &rows, 4, &m->nbr) != 0)
        return -1;
    if (rows == 0) {
        perr("%s: dataset /neighbours is empty: the mesh has no cells", rd->path);
        return -1;
    }
    m->ncells = (int)rows;
    void *buf;
    int rc = read_dataset(rd, "/coordinates", 1, 1, &rows, 2, 3, &m->ncoord, &buf);
    if (rc < 0)
        return -1;
    m->coord = buf;
    if (rc == 1)
        m->ncoord = 0;
    rc = read_int_dataset(rd, "/patch_xy", 1, &rows, 2, &m->xy);
    if (rc < 0 || (rc == 0 && (read_dataset_attr(rd, "/patch_xy", "nx", &m->nx) != 0 ||
                               read_dataset_attr(rd, "/patch_xy", "ny", &m->ny) != 0)))
        return -1;
    rc = read_int_dataset(rd, "/partition", 1, &rows, 0, &m->part);
    if (rc < 0 || (rc == 0 && read_dataset_attr(rd, "/partition", "nparts", &m->nparts) != 0))
        return -1;
    if (H5Aexists(rd->file, "kind") > 0) {
        hid_t a = H5Aopen(rd->file, "kind", H5P_DEFAULT), t = H5Aget_type(a);
        hid_t sp = H5Aget_space(a); /* one string: more would overrun m->kind */
        if (H5Tget_class(t) == H5T_STRING && !H5Tis_variable_str(t) &&
            H5Tget_size(t) < sizeof m->kind && H5Sget_simple_extent_npoints(sp) == 1) {
            hid_t mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, sizeof m->kind);
            H5Aread(a, mt, m->kind);
            m->kind[sizeof m->kind - 1] = 0;
            H5Tclose(mt);
        }
        H5Sclose(sp);
        H5Tclose(t);
        H5Aclose(a);
    }
    char err[512];
    if (mesh_check(m, err, sizeof err) != 0) {
        perr("%s: %s", rd->path, err);
        return -1;
    }
    return 0;
}

/* Reads and checks the mesh of an opened file (file < 0: the open failed), then closes it. */
static int read_opened(reader *rd, mesh *m)
{
    if (rd->file < 0) {
        perr("%s: HDF5 could not open the file", rd->path);
        return -1;
    }
    int rc = read_all(rd, m);
    H5Fclose(rd->file);
    if (rc != 0)
        mesh_free(m);
    return rc;
}

int mesh_read(const char *path, mesh *m)
{
    memset(m, 0, sizeof *m);
    reader rd = {path, h5_open_read(path, "mesh file")};
    if (rd.file < 0)
        return -1;
    return read_opened(&rd, m);
}

int mesh_read_image(const void *image, size_t size, const char *name, mesh *m)
{
    memset(m, 0, sizeof *m);
    h5_quiet();
    if (size == 0) { /* the core driver would open the file `name` instead */
        perr("%s: not an HDF5 file (empty)", name);
        return -1;
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    int ok = fapl >= 0 && H5Pset_fapl_core(fapl, 65536, 0) >= 0 &&
             H5Pset_file_image(fapl, (void *)image, size) >= 0;
    reader rd = {name, ok ? H5Fopen(name, H5F_ACC_RDONLY, fapl) : -1};
    if (fapl >= 0)
        H5Pclose(fapl);
    return read_opened(&rd, m);
}

/* ---- writing ---- */

/* Dataset of rows x cols (cols 0: rank 1), chunked and deflated when large. Returns its id. */
static hid_t write_dataset(hid_t file, const char *name, hid_t ftype, hid_t mtype, long rows,
                           int cols, const void *data)
{
    hsize_t dims[2] = {(hsize_t)rows, (hsize_t)(cols ? cols : 1)};
    int rank = cols ? 2 : 1;
    hsize_t chunk[2] = {rows < 65536 ? (hsize_t)rows : 65536, dims[1]};
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    hid_t pl = rows >= 4096 ? h5_chunked(rank, chunk, 0, 4) : H5Pcreate(H5P_DATASET_CREATE);
    hid_t d = H5Dcreate2(file, name, ftype, sp, H5P_DEFAULT, pl, H5P_DEFAULT);
    if (d >= 0 && H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
        H5Dclose(d);
        d = -1;
    }
    H5Pclose(pl);
    H5Sclose(sp);
    return d;
}

static int write_all(hid_t f, const void *arg)
{
    const mesh *m = arg;
    if (h5_attr_int(f, "pillar_mesh_version", MESH_FORMAT_VERSION) != 0 ||
        h5_attr_int(f, "nlevels", m->nlevels) != 0)
        return -1;
    if (m->kind[0] && h5_attr_str(f, "kind", m->kind) != 0)
        return -1;
    hid_t d = write_dataset(f, "/neighbours", H5T_STD_I32LE, H5T_NATIVE_INT, m->ncells, 4, m->nbr);
    if (d < 0)
        return -1;
    H5Dclose(d);
    if (m->coord) {
        d = write_dataset(f, "/coordinates", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, m->ncells,
                          m->ncoord, m->coord);
        if (d < 0)
            return -1;
        H5Dclose(d);
    }
    if (m->xy) {
        d = write_dataset(f, "/patch_xy", H5T_STD_I32LE, H5T_NATIVE_INT, m->ncells, 2, m->xy);
        int ok =
            d >= 0 && h5_attr_int(d, "nx", m->nx) == 0 && h5_attr_int(d, "ny", m->ny) == 0;
        if (d >= 0)
            H5Dclose(d);
        if (!ok)
            return -1;
    }
    if (m->part) {
        d = write_dataset(f, "/partition", H5T_STD_I32LE, H5T_NATIVE_INT, m->ncells, 0, m->part);
        int ok = d >= 0 && h5_attr_int(d, "nparts", m->nparts) == 0;
        if (d >= 0)
            H5Dclose(d);
        if (!ok)
            return -1;
    }
    return 0;
}

int mesh_write(const char *path, const mesh *m)
{
    return h5_write_atomic(path, "the mesh", write_all, m);
}
