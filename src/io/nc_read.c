/* nc_read.c — netCDF reading helpers over libnetcdf (nc_read.h). */
#include "nc_read.h"

#include "base/common.h"
#include "files.h"
#include "h5_util.h"

#include <fcntl.h>
#include <limits.h>
#include <netcdf.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const nc_kind_name[5] = {"not netCDF", "netCDF classic (CDF-1)",
                                     "netCDF 64-bit offset (CDF-2)", "netCDF CDF-5",
                                     "netCDF-4 (HDF5)"};

nc_kind nc_sniff(const char *path)
{
    static const unsigned char hdf5[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return NC_KIND_NONE;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return NC_KIND_NONE;
    }
    unsigned char head[8];
    nc_kind k = NC_KIND_NONE;
    if (pread(fd, head, 4, 0) == 4 && !memcmp(head, "CDF", 3))
        k = head[3] == 1 ? NC_KIND_CLASSIC : head[3] == 2 ? NC_KIND_OFFSET64
                                           : head[3] == 5 ? NC_KIND_CDF5 : NC_KIND_NONE;
    /* HDF5's signature: at 0, or after a user block of 512, 1024, 2048, ... bytes */
    for (long long at = 0; k == NC_KIND_NONE && at + 8 <= (long long)st.st_size;
         at = at ? 2 * at : 512)
        if (pread(fd, head, 8, (off_t)at) == 8 && !memcmp(head, hdf5, 8))
            k = NC_KIND_NETCDF4;
    close(fd);
    return k;
}

int nc_open_read(nc_reader *rd, const char *path, const char *what)
{
    memset(rd, 0, sizeof *rd);
    rd->path = path;
    rd->ncid = -1;
    if (file_input_check(path, what) != 0)
        return -1;
    rd->kind = nc_sniff(path);
    if (rd->kind == NC_KIND_NONE) {
        perr("%s: not a netCDF file (neither classic, 64-bit offset, CDF-5 nor netCDF-4/HDF5)",
             path);
        return -1;
    }
    struct stat st;
    rd->size = stat(path, &st) == 0 ? (long long)st.st_size : 0;
    if (rd->kind == NC_KIND_NETCDF4 && !h5_file_local(path))
        return -1;
    /* libnetcdf takes names with a scheme ("http://...") as remote URLs: a relative path is
     * handed over as ./path, so it is always this file */
    size_t len = strlen(path);
    char *name = xalloc(len + 3);
    snprintf(name, len + 3, "%s%s", path[0] == '/' ? "" : "./", path);
    h5_quiet();
    int ncid, rc = nc_open(name, NC_NOWRITE, &ncid);
    xfree(name);
    if (rc != NC_NOERR) {
        perr("%s: libnetcdf could not open the %s (%s): %s", path, what, nc_kind_name[rd->kind],
             nc_strerror(rc));
        return -1;
    }
    rd->ncid = ncid;
    return 0;
}

void nc_close_read(nc_reader *rd)
{
    if (rd->ncid >= 0)
        nc_close(rd->ncid);
    rd->ncid = -1;
}

int nc_var(const nc_reader *rd, const char *name)
{
    int id;
    return nc_inq_varid(rd->ncid, name, &id) == NC_NOERR ? id : -1;
}

int nc_var_shape(const nc_reader *rd, const char *name, int optional, nc_shape *s)
{
    memset(s, 0, sizeof *s);
    int id = nc_var(rd, name), rank, dims[NC_MAX_VAR_DIMS];
    if (id < 0) {
        if (!optional)
            perr("%s: variable %s is missing", rd->path, name);
        return optional ? 1 : -1;
    }
    if (nc_inq_varndims(rd->ncid, id, &rank) != NC_NOERR || rank < 0 ||
        rank > NC_READ_MAXRANK || nc_inq_vardimid(rd->ncid, id, dims) != NC_NOERR) {
        perr("%s: variable %s has a rank pillar does not read (at most %d)", rd->path, name,
             NC_READ_MAXRANK);
        return -1;
    }
    s->rank = rank;
    for (int k = 0; k < rank; k++) {
        char dn[NC_MAX_NAME + 1];
        if (nc_inq_dim(rd->ncid, dims[k], dn, &s->len[k]) != NC_NOERR) {
            perr("%s: variable %s: dimension %d cannot be read", rd->path, name, k);
            return -1;
        }
        snprintf(s->dim[k], sizeof s->dim[k], "%s", dn);
        if (s->len[k] > (size_t)(INT_MAX / 4)) {
            perr("%s: variable %s has %zu entries in dimension %s: too many", rd->path, name,
                 s->len[k], s->dim[k]);
            return -1;
        }
    }
    return 0;
}

/* Whether t is an integer type; *is_u64 tells NC_UINT64 apart. */
static int int_type(nc_type t, int *is_u64)
{
    *is_u64 = t == NC_UINT64;
    return t == NC_BYTE || t == NC_SHORT || t == NC_INT || t == NC_INT64 || t == NC_UBYTE ||
           t == NC_USHORT || t == NC_UINT || t == NC_UINT64;
}

/* The value at position k of an array of the given shape, as "[i][j]" (rank 2) or "[i]". */
static void where(char *buf, size_t n, const nc_shape *s, size_t k)
{
    if (s->rank == 2)
        snprintf(buf, n, "[%zu][%zu]", k / s->len[1], k % s->len[1]);
    else
        snprintf(buf, n, "[%zu]", k);
}

int nc_read_var(const nc_reader *rd, const char *name, int optional, int is_float, int rank,
                nc_shape *s, void **buf)
{
    *buf = NULL;
    int rc = nc_var_shape(rd, name, optional, s);
    if (rc != 0)
        return rc;
    if (s->rank != rank) {
        perr("%s: variable %s has rank %d; expected %d", rd->path, name, s->rank, rank);
        return -1;
    }
    int id = nc_var(rd, name), u64 = 0;
    nc_type t;
    if (nc_inq_vartype(rd->ncid, id, &t) != NC_NOERR ||
        !(int_type(t, &u64) || (is_float && (t == NC_FLOAT || t == NC_DOUBLE)))) {
        perr("%s: variable %s has the wrong type; expected %s", rd->path, name,
             is_float ? "numbers (integer or floating point)" : "integers");
        return -1;
    }
    size_t n = 1;
    for (int k = 0; k < rank; k++)
        n *= s->len[k]; /* each below 2^29: no overflow */
    double bytes = 8.0 * (double)n;
    if (bytes > 64.0 * 1024 * 1024 && bytes > 1024.0 * (double)rd->size) {
        perr("%s: variable %s declares %zu values but the file holds only %lld bytes; pillar "
             "does not read variables that are mostly unwritten or compressed more than 1024:1",
             rd->path, name, n, rd->size);
        return -1;
    }
    *buf = xalloc(8 * (n ? n : 1));
    if (n == 0)
        return 0;
    if (is_float)
        rc = nc_get_var_double(rd->ncid, id, *buf);
    else if (u64)
        rc = nc_get_var_ulonglong(rd->ncid, id, *buf);
    else
        rc = nc_get_var_longlong(rd->ncid, id, *buf);
    if (rc != NC_NOERR) {
        perr("%s: variable %s could not be read: %s", rd->path, name, nc_strerror(rc));
        xfree(*buf);
        *buf = NULL;
        return -1;
    }
    if (u64 && !is_float) {
        unsigned long long *u = *buf;
        for (size_t k = 0; k < n; k++)
            if (u[k] > (unsigned long long)LLONG_MAX) {
                char at[64];
                where(at, sizeof at, s, k);
                perr("%s: variable %s%s holds %llu, out of range", rd->path, name, at, u[k]);
                xfree(*buf);
                *buf = NULL;
                return -1;
            }
    }
    return 0;
}

int nc_read_ints(const nc_reader *rd, const char *name, int optional, int rank, nc_shape *s,
                 int **out)
{
    void *buf;
    *out = NULL;
    int rc = nc_read_var(rd, name, optional, 0, rank, s, &buf);
    if (rc != 0)
        return rc;
    size_t n = 1;
    for (int k = 0; k < rank; k++)
        n *= s->len[k];
    const long long *v = buf;
    *out = xalloc(sizeof(int) * (n ? n : 1));
    for (size_t k = 0; k < n; k++) {
        if (v[k] < INT_MIN || v[k] > INT_MAX) {
            char at[64];
            where(at, sizeof at, s, k);
            perr("%s: variable %s%s holds %lld, out of range", rd->path, name, at, v[k]);
            xfree(*out);
            *out = NULL;
            rc = -1;
            break;
        }
        (*out)[k] = (int)v[k];
    }
    xfree(buf);
    return rc;
}

int nc_att_text(const nc_reader *rd, int varid, const char *name, char *buf, size_t n)
{
    nc_type t;
    size_t len;
    buf[0] = 0;
    if (nc_inq_att(rd->ncid, varid, name, &t, &len) != NC_NOERR)
        return 1;
    if (t == NC_CHAR) {
        if (len >= n || nc_get_att_text(rd->ncid, varid, name, buf) != NC_NOERR)
            return -1;
        buf[len] = 0;
    } else if (t == NC_STRING && len == 1) {
        char *s[1] = {NULL};
        if (nc_get_att_string(rd->ncid, varid, name, s) != NC_NOERR)
            return -1;
        int fits = s[0] && strlen(s[0]) < n;
        if (fits)
            strcpy(buf, s[0]);
        nc_free_string(1, s);
        if (!fits)
            return -1;
    } else {
        return -1;
    }
    size_t k = strlen(buf);
    while (k && (buf[k - 1] == ' ' || buf[k - 1] == '\t' || buf[k - 1] == '\n' || !buf[k - 1]))
        buf[--k] = 0;
    size_t lead = strspn(buf, " \t\n");
    memmove(buf, buf + lead, k - lead + 1);
    return 0;
}

int nc_att_int(const nc_reader *rd, int varid, const char *name, long long *v)
{
    nc_type t;
    size_t len;
    int u64;
    if (nc_inq_att(rd->ncid, varid, name, &t, &len) != NC_NOERR)
        return 1;
    if (!int_type(t, &u64) || len != 1)
        return -1;
    if (u64) {
        unsigned long long u;
        if (nc_get_att_ulonglong(rd->ncid, varid, name, &u) != NC_NOERR || u > LLONG_MAX)
            return -1;
        *v = (long long)u;
        return 0;
    }
    return nc_get_att_longlong(rd->ncid, varid, name, v) == NC_NOERR ? 0 : -1;
}

int nc_fill_int(const nc_reader *rd, const char *var, long long *fill)
{
    int id = nc_var(rd, var);
    nc_type t, vt;
    size_t len;
    if (id < 0 || nc_inq_att(rd->ncid, id, "_FillValue", &t, &len) != NC_NOERR)
        return 1;
    if (nc_inq_vartype(rd->ncid, id, &vt) != NC_NOERR || t != vt || len != 1 ||
        nc_att_int(rd, id, "_FillValue", fill) != 0) {
        perr("%s: variable %s: attribute _FillValue is not one value of the variable's own "
             "integer type", rd->path, var);
        return -1;
    }
    return 0;
}
