/* nc_read.h — reading netCDF files through libnetcdf (netcdf.h), for the importers of other
 * tools' meshes. One reader for every variant: classic (CDF-1), 64-bit offset (CDF-2), CDF-5
 * and netCDF-4 (HDF5 underneath) all read the same. Like h5_util.h it treats the file as data
 * from someone else: every failure is reported once naming the file and the variable or
 * attribute, types are checked before anything is converted, extents are bounded before
 * anything is allocated, and a netCDF-4 file whose data lives in other files (HDF5 external
 * links, external storage, virtual datasets) is refused before libnetcdf opens it. */
#ifndef PILLAR_NC_READ_H
#define PILLAR_NC_READ_H

#include <limits.h>
#include <stddef.h>

/* The variants, from the file's first bytes. */
typedef enum {
    NC_KIND_NONE = 0, /* not a netCDF file */
    NC_KIND_CLASSIC,  /* CDF-1 */
    NC_KIND_OFFSET64, /* CDF-2, 64-bit offset */
    NC_KIND_CDF5,     /* CDF-5, 64-bit data */
    NC_KIND_NETCDF4,  /* HDF5 (netCDF-4, or a plain HDF5 file) */
} nc_kind;

/* Names of the variants for messages ("netCDF classic", ...), indexed by nc_kind. */
extern const char *const nc_kind_name[5];

/* The variant of the file at path from its signature (no message; NC_KIND_NONE when the file
 * cannot be read or is none of them). */
nc_kind nc_sniff(const char *path);

/* An open file: its path (for messages), libnetcdf's id, its variant and its size in bytes. */
typedef struct {
    const char *path;
    int ncid;
    nc_kind kind;
    long long size;
    double *declared; /* bytes the variables read so far declare, 8 per value (nc_read_var's
                       * budget, shared by copies; nc_close_read frees it) */
} nc_reader;

/* Opens path read-only: the path checked (files.h, `what` names the kind of file), its
 * signature, for netCDF-4 every HDF5 object kept inside the file, then nc_open. Returns 0, or
 * -1 after a message naming path ("not a netCDF file", libnetcdf's reason, ...). */
int nc_open_read(nc_reader *rd, const char *path, const char *what);
void nc_close_read(nc_reader *rd);

/* The id of variable `name`, or -1 when the file has none (no message). */
int nc_var(const nc_reader *rd, const char *name);

/* A variable's shape: rank (at most NC_READ_MAXRANK) and each dimension's extent and name. */
#define NC_READ_MAXRANK 4
typedef struct {
    int rank;
    size_t len[NC_READ_MAXRANK];
    char dim[NC_READ_MAXRANK][257]; /* NC_MAX_NAME + 1 */
} nc_shape;

/* The shape of variable `name` into s. Returns 0, 1 when absent and optional, -1 after a
 * message (missing, rank above NC_READ_MAXRANK, a dimension above INT_MAX/4). */
int nc_var_shape(const nc_reader *rd, const char *name, int optional, nc_shape *s);

/* Reads variable `name` whole: integers (is_float 0) as long long, checked for the stored type
 * (characters, strings and floats refused; unsigned 64-bit values above LLONG_MAX refused, never
 * wrapped), or numbers (is_float 1, integer or floating point) as double. The shape must have
 * rank `rank` (1 or 2); s receives it. The variables read from one file may declare
 * IO_FREE_BYTES of values together (8 bytes each), beyond that at most IO_STORED_RATIO times the
 * file's size (files.h: a few bytes of header can declare billions of values). Returns 0, 1 when absent and optional, -1 after a message; *buf
 * (xfree) is NULL unless 0. */
int nc_read_var(const nc_reader *rd, const char *name, int optional, int is_float, int rank,
                nc_shape *s, void **buf);

/* The value nc_read_ints gives an entry that holds its variable's _FillValue or one of its
 * missing_value values. */
#define NC_READ_FILL INT_MIN

/* nc_read_var of integers into int. Entries equal to the variable's _FillValue (one value of
 * the variable's own type: another type is refused) or to one of its missing_value values (any
 * numeric type, compared by value) become NC_READ_FILL before anything is range-checked,
 * whatever their stored value (uxarray pads with INT64_MIN); the first other value outside
 * INT_MIN+1..INT_MAX is reported by its position. Same returns; *out (xfree) NULL unless 0. */
int nc_read_ints(const nc_reader *rd, const char *name, int optional, int rank, nc_shape *s,
                 int **out);

/* Text attribute `name` of variable varid (NC_GLOBAL for the file's) into buf (n bytes, NUL
 * terminated, surrounding blanks removed). Returns 0, 1 when absent, -1 when it is not text or
 * does not fit (no message: callers say what they expected). */
int nc_att_text(const nc_reader *rd, int varid, const char *name, char *buf, size_t n);

/* Integer attribute `name` of variable varid: exactly one integer value (any integer type; an
 * unsigned 64-bit one above LLONG_MAX is refused). Returns 0, 1 when absent, -1 when it is not
 * one integer (no message). */
int nc_att_int(const nc_reader *rd, int varid, const char *name, long long *v);

#endif
