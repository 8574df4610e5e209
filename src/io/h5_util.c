/* h5_util.c — HDF5 helpers shared by mesh_io.c, import_icon.c and field_io.c. */
#include "h5_util.h"

#include "base/common.h"
#include "files.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void h5_quiet(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

hid_t h5_open_read(const char *path, const char *what)
{
    h5_quiet();
    if (file_input_check(path, what) != 0)
        return -1;
    if (H5Fis_hdf5(path) <= 0) {
        perr("%s: not an HDF5 file", path);
        return -1;
    }
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        perr("%s: HDF5 could not open the file", path);
    return f;
}

/* How integers of stored type t are read: as long long, or as unsigned long long when they are
 * unsigned (then every value is range-checked by the caller: HDF5 would turn 2^64 - 1 into -1
 * or clamp it, depending on the byte order). Returns the memory type, or -1 when t is not an
 * integer type of at most 64 bits. */
static hid_t int_memtype(hid_t t)
{
    if (H5Tget_class(t) != H5T_INTEGER || H5Tget_size(t) > 8 || H5Tget_precision(t) > 64)
        return -1;
    return H5Tget_sign(t) == H5T_SGN_NONE ? H5T_NATIVE_ULLONG : H5T_NATIVE_LLONG;
}

/* Values read as unsigned (int_memtype) into signed ones. Returns the index of the first
 * value above LLONG_MAX, or n when all fit. */
static size_t unsigned_to_signed(void *buf, size_t n)
{
    unsigned long long *u = buf;
    long long *v = buf;
    for (size_t i = 0; i < n; i++) {
        if (u[i] > (unsigned long long)LLONG_MAX)
            return i;
        v[i] = (long long)u[i];
    }
    return n;
}

int h5_read_attr_int(hid_t obj, const char *name, long long *v)
{
    if (H5Aexists(obj, name) <= 0)
        return 1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT), t = a >= 0 ? H5Aget_type(a) : -1;
    hid_t sp = a >= 0 ? H5Aget_space(a) : -1, mt = t >= 0 ? int_memtype(t) : -1;
    int ok = a >= 0 && t >= 0 && sp >= 0 && mt >= 0 &&
             H5Sget_simple_extent_npoints(sp) == 1 && H5Aread(a, mt, v) >= 0 &&
             (mt != H5T_NATIVE_ULLONG || unsigned_to_signed(v, 1) == 1);
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
    rd->declared = 0;
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

int h5_data_local(const char *path, const char *name, hid_t d)
{
    hid_t pl = H5Dget_create_plist(d);
    int ext = pl >= 0 ? H5Pget_external_count(pl) : -1;
    H5D_layout_t lay = pl >= 0 ? H5Pget_layout(pl) : H5D_LAYOUT_ERROR;
    if (pl >= 0)
        H5Pclose(pl);
    if (ext != 0 || lay == H5D_VIRTUAL || lay == H5D_LAYOUT_ERROR) {
        perr("%s: dataset %s keeps its values in %s; pillar reads only data stored inside the "
             "file", path, name,
             ext > 0 ? "other files (external storage)"
                     : lay == H5D_VIRTUAL ? "other datasets (a virtual dataset)"
                                          : "a storage layout HDF5 cannot describe");
        return 0;
    }
    return 1;
}

int h5_link_local(const char *path, hid_t file, const char *name)
{
    H5L_info_t info;
    if (H5Lget_info(file, name, &info, H5P_DEFAULT) < 0 ||
        (info.type != H5L_TYPE_HARD && info.type != H5L_TYPE_SOFT)) {
        perr("%s: %s is a link to another file; pillar reads only data stored inside the file",
             path, name);
        return 0;
    }
    return 1;
}

/* H5Lvisit's callback of h5_file_local: 1 (stop) at the first link or dataset that reaches
 * outside the file, after its message. */
static herr_t visit_local(hid_t g, const char *name, const H5L_info_t *info, void *arg)
{
    const char *path = arg;
    if (info->type != H5L_TYPE_HARD && info->type != H5L_TYPE_SOFT) {
        perr("%s: /%s is a link to another file; pillar reads only data stored inside the file",
             path, name);
        return 1;
    }
    if (info->type == H5L_TYPE_SOFT)
        return 0; /* its target is a path inside this file, visited as itself */
    hid_t o = H5Oopen(g, name, H5P_DEFAULT);
    if (o < 0)
        return 0; /* libnetcdf reports objects it cannot open */
    int ok = H5Iget_type(o) != H5I_DATASET || h5_data_local(path, name, o);
    H5Oclose(o);
    return ok ? 0 : 1;
}

int h5_file_local(const char *path)
{
    h5_quiet();
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        perr("%s: HDF5 could not open the file", path);
        return 0;
    }
    herr_t rc = H5Lvisit(f, H5_INDEX_NAME, H5_ITER_NATIVE, visit_local, (void *)path);
    H5Fclose(f);
    if (rc < 0)
        perr("%s: HDF5 could not list the objects of the file", path);
    return rc == 0 ? 1 : 0;
}

/* The memory type numbers of stored type t are read as (integers: int_memtype; numbers: double
 * from floating-point types of at most 8 bytes or integers). -1 after a message. */
static hid_t read_memtype(h5_reader *rd, const char *name, hid_t t, int is_float)
{
    H5T_class_t cls = H5Tget_class(t);
    hid_t mt = -1;
    if (cls == H5T_INTEGER)
        mt = int_memtype(t);
    if (is_float && cls == H5T_INTEGER && mt >= 0)
        mt = H5T_NATIVE_DOUBLE;
    if (is_float && cls == H5T_FLOAT && H5Tget_size(t) <= 8)
        mt = H5T_NATIVE_DOUBLE;
    if (mt < 0)
        perr("%s: dataset %s has the wrong type; expected %s", rd->path, name,
             is_float ? "floating-point numbers of at most 64 bits"
                      : "integers of at most 64 bits");
    return mt;
}

/* Whether dataset d, declaring n values, holds a plausible share of them in the file: a few
 * hundred bytes of HDF5 can declare billions of values (unwritten, or compressed from
 * repetition), which pillar would allocate before reading. Values read are 8 bytes in memory;
 * beyond 64 MiB for the datasets of a file together (rd->declared), they must be at most
 * IO_STORED_RATIO times the bytes the file stores of the dataset and of the whole file. 1, or 0
 * after a message. */
static int stored_enough(h5_reader *rd, const char *name, hid_t d, size_t n)
{
    /* the storage size is what the file's metadata claims; the file itself bounds it */
    hsize_t fsize = 0;
    double stored = (double)H5Dget_storage_size(d);
    if (H5Fget_filesize(rd->file, &fsize) < 0 || (double)fsize < stored)
        stored = (double)fsize;
    const double bytes = 8.0 * (double)n;
    rd->declared += bytes;
    if (rd->declared <= IO_FREE_BYTES ||
        (bytes <= IO_STORED_RATIO * stored && rd->declared <= IO_STORED_RATIO * (double)fsize))
        return 1;
    if (bytes > IO_STORED_RATIO * stored)
        perr("%s: dataset %s declares %zu values but the file stores only %.0f bytes of them; "
             "pillar does not read datasets that are mostly unwritten or compressed more than "
             "%.0f:1", rd->path, name, n, stored, IO_STORED_RATIO);
    else
        perr("%s: dataset %s: the datasets read from this file declare %.0f MB in all, more than "
             "%.0f times the file's %.0f bytes; pillar does not read files compressed more than "
             "%.0f:1", rd->path, name, rd->declared / 1e6, IO_STORED_RATIO, (double)fsize,
             IO_STORED_RATIO);
    return 0;
}

/* An opened dataset being read: its ids, extents and the memory type its values are read as. */
typedef struct {
    hid_t d, t, sp, mt;
    int rank;
    hsize_t dims[2];
    size_t n; /* values it declares */
} h5_ds;

/* Opens dataset `name` of rd checked as h5_read checks it (present, a local link, a dataset,
 * the type, the shape, values inside the file). 0 (ds open: ds_close), 1 if absent and optional,
 * -1 after a message (nothing left open). */
static int ds_open(h5_reader *rd, const char *name, int optional, int is_float,
                   const h5_shape *want, h5_ds *ds)
{
    if (H5Lexists(rd->file, name, H5P_DEFAULT) <= 0) {
        if (optional)
            return 1;
        perr("%s: dataset %s is missing", rd->path, name);
        return -1;
    }
    if (!h5_link_local(rd->path, rd->file, name))
        return -1;
    ds->d = H5Dopen2(rd->file, name, H5P_DEFAULT);
    if (ds->d < 0) {
        perr("%s: %s is not a dataset", rd->path, name);
        return -1;
    }
    ds->t = H5Dget_type(ds->d);
    ds->sp = H5Dget_space(ds->d);
    ds->rank = H5Sget_simple_extent_ndims(ds->sp);
    ds->dims[0] = 0;
    ds->dims[1] = 1;
    if (ds->rank >= 1 && ds->rank <= 2)
        H5Sget_simple_extent_dims(ds->sp, ds->dims, NULL);
    ds->n = (size_t)ds->dims[0] * (ds->rank == 2 ? (size_t)ds->dims[1] : 1);
    ds->mt = read_memtype(rd, name, ds->t, is_float);
    if (ds->mt >= 0 && shape_ok(rd, name, ds->rank, ds->dims, want) &&
        h5_data_local(rd->path, name, ds->d))
        return 0;
    H5Sclose(ds->sp);
    H5Tclose(ds->t);
    H5Dclose(ds->d);
    return -1;
}

static void ds_close(h5_ds *ds)
{
    H5Sclose(ds->sp);
    H5Tclose(ds->t);
    H5Dclose(ds->d);
}

int h5_read(h5_reader *rd, const char *name, int optional, int is_float, const h5_shape *want,
            long dims_out[2], void **buf)
{
    *buf = NULL;
    h5_ds ds;
    int rc = ds_open(rd, name, optional, is_float, want, &ds);
    if (rc != 0)
        return rc;
    rc = stored_enough(rd, name, ds.d, ds.n) ? 0 : -1;
    if (rc == 0) {
        size_t n = ds.n, bad;
        *buf = xalloc((is_float ? sizeof(double) : sizeof(long long)) * n);
        if (n && H5Dread(ds.d, ds.mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, *buf) < 0) {
            perr("%s: dataset %s could not be read", rd->path, name);
            rc = -1;
        } else if (ds.mt == H5T_NATIVE_ULLONG && (bad = unsigned_to_signed(*buf, n)) < n) {
            perr("%s: dataset %s: row %zu holds %llu, out of range", rd->path, name,
                 bad / (ds.rank == 2 ? (size_t)ds.dims[1] : 1), ((unsigned long long *)*buf)[bad]);
            rc = -1;
        }
        if (rc != 0) {
            xfree(*buf);
            *buf = NULL;
        }
        dims_out[0] = (long)ds.dims[0];
        dims_out[1] = ds.rank == 2 ? (long)ds.dims[1] : 1;
    }
    ds_close(&ds);
    return rc;
}

int h5_dims(h5_reader *rd, const char *name, int optional, const h5_shape *want, long dims[2])
{
    h5_ds ds;
    int rc = ds_open(rd, name, optional, 0, want, &ds);
    if (rc != 0)
        return rc;
    dims[0] = (long)ds.dims[0];
    dims[1] = ds.rank == 2 ? (long)ds.dims[1] : 1;
    ds_close(&ds);
    return 0;
}

/* Rows read at once by h5_read_int_rows (through a buffer of long long). */
#define ROWS_PIECE 65536

/* Rows [row0, row0 + nrows) of dataset `name` (ds_open's is_float), piece by piece of at most
 * ROWS_PIECE rows through buf (es bytes a value, room for ROWS_PIECE rows): each piece read is
 * handed to take(u, first row - row0, rows, cols, buf), which returns 0 or -1 after a message.
 * The dataset's extents go to dims_out. Returns 0, 1 if absent and optional, -1 after a message. */
static int read_rows(h5_reader *rd, const char *name, int optional, int is_float,
                     const h5_shape *want, long row0, long nrows, long dims_out[2], size_t es,
                     int (*take)(void *u, h5_reader *rd, const char *name, hid_t mt, long r,
                                 long k, long cols, const void *buf),
                     void *u)
{
    h5_ds ds;
    int rc = ds_open(rd, name, optional, is_float, want, &ds);
    if (rc != 0)
        return rc;
    long rows = (long)ds.dims[0], cols = ds.rank == 2 ? (long)ds.dims[1] : 1;
    dims_out[0] = rows;
    dims_out[1] = cols;
    if (row0 < 0 || nrows < 0 || row0 > rows - nrows) {
        perr("%s: dataset %s has %ld rows; rows %ld to %ld asked", rd->path, name, rows, row0,
             row0 + nrows - 1);
        ds_close(&ds);
        return -1;
    }
    /* only the rows read count against the stored-bytes budget */
    rc = stored_enough(rd, name, ds.d, (size_t)nrows * (size_t)cols) ? 0 : -1;
    void *buf = rc == 0 ? xalloc(es * (size_t)ROWS_PIECE * (size_t)cols) : NULL;
    for (long r = 0; r < nrows && rc == 0; r += ROWS_PIECE) {
        long k = nrows - r < ROWS_PIECE ? nrows - r : ROWS_PIECE;
        hsize_t start[2] = {(hsize_t)(row0 + r), 0}, count[2] = {(hsize_t)k, (hsize_t)cols};
        hid_t ms = H5Screate_simple(ds.rank, count, NULL);
        if (H5Sselect_hyperslab(ds.sp, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
            H5Dread(ds.d, ds.mt, ms, ds.sp, H5P_DEFAULT, buf) < 0) {
            perr("%s: dataset %s: rows %ld to %ld could not be read", rd->path, name, row0 + r,
                 row0 + r + k - 1);
            rc = -1;
        }
        H5Sclose(ms);
        if (rc == 0)
            rc = take(u, rd, name, ds.mt, r, k, cols, buf);
    }
    xfree(buf);
    ds_close(&ds);
    return rc;
}

typedef struct {
    long row0, nrows;
    size_t es;
    void *out; /* int or double, nrows x cols: made with the first piece */
} rows_out;

/* o->out, made for the first piece */
static void *rows_room(rows_out *o, long cols)
{
    if (!o->out)
        o->out = xalloc(o->es * (size_t)(o->nrows * cols > 0 ? o->nrows * cols : 1));
    return o->out;
}

/* A piece of integers into ints, range-checked (read_rows' take). */
static int take_ints(void *u, h5_reader *rd, const char *name, hid_t mt, long r, long k,
                     long cols, const void *piece)
{
    rows_out *o = u;
    const long long *buf = piece;
    int *out = rows_room(o, cols);
    size_t m = (size_t)k * (size_t)cols;
    for (size_t i = 0; i < m; i++) {
        int neg = mt == H5T_NATIVE_ULLONG ? 0 : buf[i] < INT_MIN;
        int big = mt == H5T_NATIVE_ULLONG ? (unsigned long long)buf[i] > INT_MAX : buf[i] > INT_MAX;
        if (neg || big) {
            if (mt == H5T_NATIVE_ULLONG)
                perr("%s: dataset %s: row %ld holds %llu, out of range", rd->path, name,
                     o->row0 + r + (long)(i / (size_t)cols), (unsigned long long)buf[i]);
            else
                perr("%s: dataset %s: row %ld holds %lld, out of range", rd->path, name,
                     o->row0 + r + (long)(i / (size_t)cols), buf[i]);
            return -1;
        }
        out[(size_t)r * (size_t)cols + i] = (int)buf[i];
    }
    return 0;
}

/* A piece of doubles as read (read_rows' take). */
static int take_doubles(void *u, h5_reader *rd, const char *name, hid_t mt, long r, long k,
                        long cols, const void *piece)
{
    (void)rd, (void)name, (void)mt;
    double *out = rows_room(u, cols);
    memcpy(out + (size_t)r * (size_t)cols, piece,
           sizeof(double) * (size_t)k * (size_t)cols);
    return 0;
}

/* The rows of h5_read_int_rows / h5_read_double_rows: es bytes a value in memory, 8 read. */
static int read_rows_into(h5_reader *rd, const char *name, int optional, int is_float,
                          const h5_shape *want, long row0, long nrows, long dims[2], size_t es,
                          void **out)
{
    *out = NULL;
    rows_out o = {row0, nrows, es, NULL};
    int rc = read_rows(rd, name, optional, is_float, want, row0, nrows, dims, 8,
                       is_float ? take_doubles : take_ints, &o);
    if (rc != 0)
        xfree(o.out);
    else
        *out = o.out ? o.out : xalloc(es);
    return rc;
}

int h5_read_int_rows(h5_reader *rd, const char *name, int optional, const h5_shape *want,
                     long row0, long nrows, long dims_out[2], int **out)
{
    void *v;
    int rc = read_rows_into(rd, name, optional, 0, want, row0, nrows, dims_out, sizeof(int), &v);
    *out = rc == 0 ? v : NULL;
    return rc;
}

int h5_read_double_rows(h5_reader *rd, const char *name, int optional, const h5_shape *want,
                        long row0, long nrows, long dims_out[2], double **out)
{
    void *v;
    int rc = read_rows_into(rd, name, optional, 1, want, row0, nrows, dims_out, sizeof(double), &v);
    *out = rc == 0 ? v : NULL;
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
    if (rc != 0) { /* nothing allocated is handed back on failure */
        xfree(*out);
        *out = NULL;
    }
    return rc;
}
