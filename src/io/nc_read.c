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

/* ---- the classic header (CDF-1, CDF-2, CDF-5), walked before libnetcdf reads it ----
 * libnetcdf 4.9 allocates what a classic header declares before it checks it against the file
 * (tests/fuzz: a 300-byte header declaring billions of dimensions makes it fail an allocation
 * and crash). So pillar walks the header itself first: every count and name length must fit in
 * the bytes that follow, which bounds what libnetcdf allocates by the file's size. */

typedef struct {
    const unsigned char *p, *end;
    int wide; /* CDF-5: counts and lengths of 8 bytes */
} hdr;

/* A big-endian unsigned integer of n bytes; 0 when the header ends (h->p is then past end). */
static unsigned long long take(hdr *h, int n)
{
    unsigned long long v = 0;
    if (h->end - h->p < n) {
        h->p = h->end + 1;
        return 0;
    }
    for (int i = 0; i < n; i++)
        v = v << 8 | *h->p++;
    return v;
}

/* Skips n bytes rounded up to 4; 0 when they are not there. */
static int skip(hdr *h, unsigned long long n)
{
    n = (n + 3) / 4 * 4;
    if (h->p > h->end || (unsigned long long)(h->end - h->p) < n)
        return 0;
    h->p += n;
    return 1;
}

/* A count of items of at least `least` bytes each, which must fit in what is left. */
static int count(hdr *h, unsigned long long least, unsigned long long *n)
{
    *n = take(h, h->wide ? 8 : 4);
    return h->p <= h->end && *n <= (unsigned long long)(h->end - h->p) / least;
}

/* A name; *at and *len where it lies (when at is not NULL). */
static int name(hdr *h, const unsigned char **at, unsigned long long *len)
{
    unsigned long long n;
    if (!count(h, 1, &n))
        return 0;
    if (at) {
        *at = h->p;
        *len = n;
    }
    return skip(h, n);
}

/* A list: ABSENT (two zeros) or its tag and a count; items of at least `least` bytes. */
static int list(hdr *h, unsigned tag, unsigned long long least, unsigned long long *n)
{
    unsigned long long t = take(h, 4);
    if (t == 0) {
        *n = 0;
        return take(h, h->wide ? 8 : 4) == 0 && h->p <= h->end;
    }
    return t == tag && count(h, least, n);
}

static const int type_size[12] = {0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8}; /* by nc_type 1..11 */

static int attributes(hdr *h)
{
    unsigned long long n, k;
    if (!list(h, 0x0C, 12, &n))
        return 0;
    for (unsigned long long i = 0; i < n; i++) {
        unsigned long long t;
        if (!name(h, NULL, NULL) || (t = take(h, 4)) < 1 || t > 11 ||
            !count(h, (unsigned)type_size[t], &k) || !skip(h, k * (unsigned)type_size[t]))
            return 0;
    }
    return 1;
}

/* A variable of a classic header: where its name lies, its data's bytes in one record (a
 * record variable) or in all, and where its data begins. */
typedef struct {
    const unsigned char *name;
    unsigned long long name_len;
    double bytes; /* a double: a header may declare more than 2^64 */
    unsigned long long begin;
    int record;
} classic_var;

/* The variables' data must lie inside the file (libnetcdf reads zeros past its end, so a file
 * cut short would read as data): data of non-record variables at begin + bytes, that of
 * record variables in each of numrecs records of recsize bytes (the record variables' bytes,
 * each rounded up to 4, unless there is only one). Returns the first variable whose data
 * ends past size, or -1; *end = where it ends. */
static long first_outside(const classic_var *v, unsigned long long nvars,
                          unsigned long long numrecs, int streaming, long long size, double *end)
{
    double recsize = 0;
    int nrec = 0;
    for (unsigned long long i = 0; i < nvars; i++)
        if (v[i].record) {
            recsize += (double)(((unsigned long long)v[i].bytes + 3) / 4 * 4);
            nrec++;
        }
    for (unsigned long long i = 0; i < nvars; i++)
        if (v[i].record && nrec == 1)
            recsize = v[i].bytes;
    for (unsigned long long i = 0; i < nvars; i++) {
        if (v[i].record && (streaming || numrecs == 0))
            continue; /* streaming: libnetcdf counts the records the file holds */
        *end = (double)v[i].begin + v[i].bytes +
               (v[i].record ? (double)(numrecs - 1) * recsize : 0);
        if (v[i].bytes > 0 && *end > (double)size)
            return (long)i;
    }
    return -1;
}

/* Whether the classic header (its first n bytes in buf; the file has size bytes) fits in it:
 * 1; 0 when it does not; 2 when a variable's data lies past the file's end (*bad names it). */
static int classic_header_ok(const unsigned char *buf, size_t n, int wide, long long size,
                             classic_var *bad, double *end)
{
    hdr h = {buf + 4, buf + n, wide};
    int w = wide ? 8 : 4;
    unsigned long long ndims, nvars, k = 0, numrecs = take(&h, w);
    int streaming = numrecs == (wide ? ~0ull : 0xffffffffull);
    if (!list(&h, 0x0A, 8, &ndims))
        return 0;
    unsigned long long *dim = xalloc(sizeof *dim * (ndims ? ndims : 1));
    classic_var *var = NULL;
    int ok = 1;
    for (unsigned long long i = 0; i < ndims && ok; i++)
        ok = name(&h, NULL, NULL) && (dim[i] = take(&h, w), h.p <= h.end);
    ok = ok && attributes(&h) && list(&h, 0x0B, 16, &nvars);
    if (ok)
        var = xalloc(sizeof *var * (nvars ? nvars : 1));
    for (unsigned long long i = 0; i < nvars && ok; i++) {
        classic_var *v = var + i;
        ok = name(&h, &v->name, &v->name_len) && count(&h, (unsigned)w, &k);
        v->bytes = 1;
        for (unsigned long long d = 0; d < k && ok; d++) {
            unsigned long long id = take(&h, w);
            ok = id < ndims && h.p <= h.end;
            if (ok && d == 0 && dim[id] == 0)
                v->record = 1; /* the unlimited dimension: one record's worth */
            else if (ok)
                v->bytes *= (double)dim[id];
        }
        unsigned long long t = ok && attributes(&h) ? take(&h, 4) : 0;
        take(&h, w);                       /* vsize: computed here instead */
        v->begin = take(&h, buf[3] == 1 ? 4 : 8);
        ok = t >= 1 && t <= 11 && h.p <= h.end;
        v->bytes *= ok ? type_size[t] : 0;
    }
    long at = ok ? first_outside(var, nvars, numrecs, streaming, size, end) : -1;
    if (at >= 0) {
        *bad = var[at];
        ok = 2;
    }
    xfree(dim);
    xfree(var);
    return ok;
}

/* classic_header_ok on the file at path (its first 16 MiB at most). 1, or 0 after a message. */
static int classic_check(const char *path, nc_kind kind, long long size)
{
    size_t n = size < (16 << 20) ? (size_t)size : (size_t)(16 << 20);
    unsigned char *buf = xalloc(n + 1);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), ok = 0;
    classic_var bad;
    double end = 0;
    if (fd >= 0 && pread(fd, buf, n, 0) == (ssize_t)n && n >= 8)
        ok = classic_header_ok(buf, n, kind == NC_KIND_CDF5, size, &bad, &end);
    if (fd >= 0)
        close(fd);
    if (ok == 0)
        perr("%s: a %s header that does not fit in the file (counts or names beyond its %lld "
             "bytes): not a netCDF file pillar reads", path, nc_kind_name[kind], size);
    else if (ok == 2)
        perr("%s: the file is truncated: the data of variable %.*s end at byte %.0f, but the "
             "file has %lld bytes (a %s file cut short)", path,
             (int)(bad.name_len < 256 ? bad.name_len : 256), (const char *)bad.name, end, size,
             nc_kind_name[kind]);
    xfree(buf);
    return ok == 1;
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
    if (rd->kind != NC_KIND_NETCDF4 && !classic_check(path, rd->kind, rd->size))
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
    rd->declared = xalloc(sizeof *rd->declared);
    *rd->declared = 0;
    return 0;
}

void nc_close_read(nc_reader *rd)
{
    if (rd->ncid >= 0)
        nc_close(rd->ncid);
    rd->ncid = -1;
    xfree(rd->declared);
    rd->declared = NULL;
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
    double bytes = 8.0 * (double)n, all = (*rd->declared += bytes);
    if (all > IO_FREE_BYTES && all > IO_STORED_RATIO * (double)rd->size) {
        if (bytes == all)
            perr("%s: variable %s declares %zu values but the file holds only %lld bytes; pillar "
                 "does not read variables that are mostly unwritten or compressed more than "
                 "%.0f:1", rd->path, name, n, rd->size, IO_STORED_RATIO);
        else
            perr("%s: variable %s: the variables read from this file declare %.0f MB in all, "
                 "more than %.0f times the file's %lld bytes; pillar does not read files "
                 "compressed more than %.0f:1", rd->path, name, all / 1e6, IO_STORED_RATIO,
                 rd->size, IO_STORED_RATIO);
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

/* The values of variable id's attribute `att` that mark absent entries: 0 and *n (0..8) values
 * in v, 1 when absent, -1 after a message. _FillValue must be one value of the variable's own
 * type (libnetcdf compares it in that type); missing_value may be one to 8 values (CF allows a
 * vector) of any numeric type, compared by value (a real one that is no integer marks
 * nothing). */
static int marker_values(const nc_reader *rd, int id, const char *var, const char *att,
                         long long *v, int *n)
{
    nc_type t, vt = NC_NAT;
    size_t len;
    int u64;
    if (nc_inq_att(rd->ncid, id, att, &t, &len) != NC_NOERR)
        return 1;
    int is_fill = !strcmp(att, "_FillValue"), real = t == NC_FLOAT || t == NC_DOUBLE;
    if (is_fill && (nc_inq_vartype(rd->ncid, id, &vt) != NC_NOERR || t != vt)) {
        perr("%s: variable %s: attribute _FillValue has another type than the variable (a "
             "_FillValue must have its variable's own type)", rd->path, var);
        return -1;
    }
    double d[8];
    if ((!int_type(t, &u64) && !real) || len < 1 || len > (is_fill ? 1 : 8) ||
        (real ? nc_get_att_double(rd->ncid, id, att, d)
              : nc_get_att_longlong(rd->ncid, id, att, v)) != NC_NOERR) {
        perr("%s: variable %s: attribute %s is not %s", rd->path, var, att,
             is_fill ? "one integer" : "one to 8 numbers");
        return -1;
    }
    *n = real ? 0 : (int)len;
    for (size_t k = 0; real && k < len; k++)
        if (d[k] > -9e18 && d[k] < 9e18 && d[k] == (double)(long long)d[k])
            v[(*n)++] = (long long)d[k];
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
    long long mark[9]; /* the _FillValue, then the missing_value(s) */
    int nfill = 0, nmissing = 0, id = nc_var(rd, name);
    int fill = marker_values(rd, id, name, "_FillValue", mark, &nfill);
    int missing = fill < 0 ? 1 : marker_values(rd, id, name, "missing_value", mark + nfill,
                                              &nmissing);
    if (fill < 0 || missing < 0)
        rc = -1;
    int nmark = (fill == 0 ? nfill : 0) + (missing == 0 ? nmissing : 0);
    size_t n = 1;
    for (int k = 0; k < rank; k++)
        n *= s->len[k];
    const long long *v = buf;
    *out = xalloc(sizeof(int) * (n ? n : 1));
    for (size_t k = 0; k < n && rc == 0; k++) {
        int marked = 0;
        for (int i = 0; i < nmark; i++)
            marked |= v[k] == mark[i];
        if (!marked && (v[k] <= NC_READ_FILL || v[k] > INT_MAX)) {
            char at[64];
            where(at, sizeof at, s, k);
            perr("%s: variable %s%s holds %lld, out of range%s", rd->path, name, at, v[k],
                 nmark ? "" : " (the variable has no _FillValue or missing_value)");
            rc = -1;
        }
        (*out)[k] = marked ? NC_READ_FILL : (int)v[k];
    }
    if (rc != 0) {
        xfree(*out);
        *out = NULL;
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
