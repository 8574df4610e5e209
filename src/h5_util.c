/* h5_util.c — HDF5 helpers shared by mesh_io.c, import_icon.c and field_io.c. */
#include "h5_util.h"

#include "common.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void h5_quiet(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

hid_t h5_open_read(const char *path, const char *what)
{
    h5_quiet();
    if (access(path, R_OK) != 0) {
        perr("%s: cannot read the %s (does it exist?)", path, what);
        return -1;
    }
    if (H5Fis_hdf5(path) <= 0) {
        perr("%s: not an HDF5 file", path);
        return -1;
    }
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        perr("%s: HDF5 could not open the file", path);
    return f;
}

int h5_read_attr_int(hid_t obj, const char *name, long long *v)
{
    if (H5Aexists(obj, name) <= 0)
        return 1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT), t = a >= 0 ? H5Aget_type(a) : -1;
    hid_t sp = a >= 0 ? H5Aget_space(a) : -1;
    int ok = a >= 0 && t >= 0 && sp >= 0 && H5Tget_class(t) == H5T_INTEGER &&
             H5Sget_simple_extent_npoints(sp) == 1 && H5Aread(a, H5T_NATIVE_LLONG, v) >= 0;
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    return ok ? 0 : -1;
}

int h5_open(h5_reader *rd, const char *path, const char *what)
{
    rd->path = path;
    rd->file = h5_open_read(path, what);
    return rd->file < 0 ? -1 : 0;
}

void h5_close(h5_reader *rd)
{
    if (rd->file >= 0)
        H5Fclose(rd->file);
    rd->file = -1;
}

int h5_reader_attr_int(h5_reader *rd, hid_t obj, const char *where, const char *name,
                       int optional, long long *out)
{
    int rc = h5_read_attr_int(obj, name, out);
    if (rc == 1) {
        if (!optional)
            perr("%s: attribute %s%s is missing", rd->path, where, name);
        return -1;
    }
    if (rc < 0) {
        perr("%s: attribute %s%s: expected one integer", rd->path, where, name);
        return -2;
    }
    return 0;
}

int h5_dataset_attr(h5_reader *rd, const char *dset, const char *name, int *out)
{
    long long v = 0;
    char where[64];
    snprintf(where, sizeof where, "%s/", dset);
    hid_t d = H5Dopen2(rd->file, dset, H5P_DEFAULT);
    int rc = h5_reader_attr_int(rd, d, where, name, 0, &v);
    H5Dclose(d);
    if (rc == 0 && (v < 1 || v > INT_MAX)) {
        perr("%s: attribute %s%s = %lld: expected a positive integer", rd->path, where, name, v);
        rc = -1;
    }
    *out = rc == 0 ? (int)v : 0;
    return rc == 0 ? 0 : -1;
}

/* Whether extents dims (rank `rank`) fit `want`; a message if not. */
static int shape_ok(h5_reader *rd, const char *name, int rank, const hsize_t dims[2],
                    const h5_shape *want)
{
    if (rank != want->rank) {
        perr("%s: dataset %s has rank %d; expected %d", rd->path, name, rank, want->rank);
        return 0;
    }
    if (rank == 2 && (dims[1] < (hsize_t)want->cols_min || dims[1] > (hsize_t)want->cols_max)) {
        if (want->cols_min == want->cols_max)
            perr("%s: dataset %s has %llu columns; expected %ld", rd->path, name,
                 (unsigned long long)dims[1], want->cols_min);
        else
            perr("%s: dataset %s has %llu columns; expected %ld to %ld", rd->path, name,
                 (unsigned long long)dims[1], want->cols_min, want->cols_max);
        return 0;
    }
    if (want->rows >= 0 && dims[0] != (hsize_t)want->rows) {
        perr("%s: dataset %s has %llu rows; expected %s (%ld)", rd->path, name,
             (unsigned long long)dims[0], want->rows_are, want->rows);
        return 0;
    }
    for (int k = 0; k < rank; k++)
        if (dims[k] > (hsize_t)(INT_MAX / 4)) {
            perr("%s: dataset %s has %llu entries in dimension %d: too many", rd->path, name,
                 (unsigned long long)dims[k], k);
            return 0;
        }
    return 1;
}

int h5_read(h5_reader *rd, const char *name, int optional, int is_float, const h5_shape *want,
            long dims_out[2], void **buf)
{
    *buf = NULL;
    if (H5Lexists(rd->file, name, H5P_DEFAULT) <= 0) {
        if (optional)
            return 1;
        perr("%s: dataset %s is missing", rd->path, name);
        return -1;
    }
    hid_t d = H5Dopen2(rd->file, name, H5P_DEFAULT);
    if (d < 0) {
        perr("%s: %s is not a dataset", rd->path, name);
        return -1;
    }
    hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
    int rank = H5Sget_simple_extent_ndims(sp), rc = -1;
    hsize_t dims[2] = {0, 1};
    H5T_class_t cls = H5Tget_class(t);
    if (rank >= 1 && rank <= 2)
        H5Sget_simple_extent_dims(sp, dims, NULL);
    if (is_float ? (cls != H5T_FLOAT && cls != H5T_INTEGER) : cls != H5T_INTEGER)
        perr("%s: dataset %s has the wrong type; expected %s", rd->path, name,
             is_float ? "floating-point numbers" : "integers");
    else if (shape_ok(rd, name, rank, dims, want))
        rc = 0;
    if (rc == 0) {
        size_t n = (size_t)dims[0] * (rank == 2 ? (size_t)dims[1] : 1);
        *buf = xalloc((is_float ? sizeof(double) : sizeof(long long)) * n);
        if (n && H5Dread(d, is_float ? H5T_NATIVE_DOUBLE : H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL,
                         H5P_DEFAULT, *buf) < 0) {
            perr("%s: dataset %s could not be read", rd->path, name);
            xfree(*buf);
            *buf = NULL;
            rc = -1;
        }
        dims_out[0] = (long)dims[0];
        dims_out[1] = rank == 2 ? (long)dims[1] : 1;
    }
    H5Sclose(sp);
    H5Tclose(t);
    H5Dclose(d);
    return rc;
}

int h5_read_int(h5_reader *rd, const char *name, int optional, const h5_shape *want, long dims[2],
                int **out)
{
    void *buf;
    *out = NULL;
    int rc = h5_read(rd, name, optional, 0, want, dims, &buf);
    if (rc != 0)
        return rc;
    const long long *v = buf;
    size_t n = (size_t)dims[0] * (size_t)dims[1];
    *out = xalloc(sizeof(int) * (n ? n : 1));
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (v[i] < INT_MIN || v[i] > INT_MAX) {
            perr("%s: dataset %s: row %zu holds %lld, out of range", rd->path, name,
                 i / (size_t)dims[1], v[i]);
            rc = -1;
        }
        (*out)[i] = (int)v[i];
    }
    xfree(buf);
    return rc;
}

/* ---- writing ---- */

int h5_attr_int(hid_t obj, const char *name, long long v)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    int ok = a >= 0 && H5Awrite(a, H5T_NATIVE_LLONG, &v) >= 0;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
    return ok ? 0 : -1;
}

int h5_attr_str(hid_t obj, const char *name, const char *s)
{
    hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR);
    H5Tset_size(t, strlen(s) + 1);
    hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    int ok = a >= 0 && H5Awrite(a, t, s) >= 0;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
    return ok ? 0 : -1;
}

hid_t h5_chunked(int rank, const hsize_t *chunk, int shuffle, int level)
{
    hid_t pl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(pl, rank, chunk);
    if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0) {
        if (shuffle)
            H5Pset_shuffle(pl);
        H5Pset_deflate(pl, (unsigned)level);
    }
    return pl;
}

int h5_write_atomic(const char *path, const char *what, int (*write)(hid_t file, const void *arg),
                    const void *arg)
{
    h5_quiet();
    size_t len = strlen(path) + 32;
    char *tmp = xalloc(len);
    snprintf(tmp, len, "%s.tmp-%ld", path, (long)getpid());
    hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) {
        perr("%s: cannot create the file (is the directory writable?)", tmp);
        xfree(tmp);
        return -1;
    }
    int rc = write(f, arg);
    if (H5Fclose(f) < 0)
        rc = -1;
    if (rc == 0 && rename(tmp, path) != 0) {
        perr("%s: cannot rename %s into place", path, tmp);
        rc = -1;
    } else if (rc != 0) {
        perr("%s: HDF5 failed writing %s (disk full?); nothing was written", path, what);
    }
    if (rc != 0)
        remove(tmp);
    xfree(tmp);
    return rc;
}
