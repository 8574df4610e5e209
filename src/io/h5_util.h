/* h5_util.h — the HDF5 reading that mesh files, ICON grid files and field files share, with the
 * HDF5 C API: silencing HDF5's own error printing, opening a file for reading with one clear
 * message, checked reading of attributes and datasets (kind and shape checked, every failure
 * reported once, naming the file and the dataset or attribute). Files are written as netCDF-4
 * (nc_write.h). */
#ifndef PILLAR_H5_UTIL_H
#define PILLAR_H5_UTIL_H

#include <hdf5.h>

/* Turns off HDF5's error stack printing: pillar reports every failure itself, once. */
void h5_quiet(void);

/* ---- reading ---- */

/* Opens an existing HDF5 file read-only. `what` names the kind of file in the message
 * ("mesh file"). Returns the file id, or -1 after a message naming the path. */
hid_t h5_open_read(const char *path, const char *what);

/* Reads the integer attribute `name` of obj. Returns 0, 1 when it is absent, or -1 when it is
 * not exactly one integer (no message). */
int h5_read_attr_int(hid_t obj, const char *name, long long *v);

/* A file being read: its path (for messages) and id. */
typedef struct {
    const char *path;
    hid_t file;
    double declared; /* bytes the datasets read so far declare, 8 per value (h5_read's budget) */
} h5_reader;

/* h5_open_read into rd; 0, or -1 after a message (missing, unreadable, not HDF5). */
int h5_open(h5_reader *rd, const char *path, const char *what);
void h5_close(h5_reader *rd);

/* h5_read_attr_int with messages: `where` is obj's path for them (e.g. "/"). Returns 0; -1 if
 * absent (a message unless optional); -2 after a message if it is not one integer. */
int h5_reader_attr_int(h5_reader *rd, hid_t obj, const char *where, const char *name,
                       int optional, long long *out);

/* Positive integer attribute `name` of dataset `dset`. Returns 0, or -1 after a message. */
int h5_dataset_attr(h5_reader *rd, const char *dset, const char *name, int *out);

/* The shape a dataset must have. */
typedef struct {
    int rank;                /* 1 or 2 */
    long rows;               /* extent of dimension 0, or -1: any */
    long cols_min, cols_max; /* rank 2: allowed extent of dimension 1 */
    const char *rows_are;    /* what dimension 0 counts, for messages ("one per cell") */
} h5_shape;

/* Reads dataset `name` of the given shape, integers as long long or (is_float) numbers as
 * double, into a new *buf; its extents go to dims. The stored type's range is checked before
 * any conversion (unsigned 64-bit values above LLONG_MAX are refused, never wrapped); datasets
 * whose values live in another file (external links, external storage, virtual datasets) are
 * refused before anything is read. Returns 0, 1 if absent and optional, -1 after a message
 * (then *buf is NULL). */
int h5_read(h5_reader *rd, const char *name, int optional, int is_float, const h5_shape *want,
            long dims[2], void **buf);

/* h5_read of integers converted to int (the first value that does not fit is reported by its
 * row). Returns 0, 1 if absent and optional, -1 after a message (then *out is NULL). */
int h5_read_int(h5_reader *rd, const char *name, int optional, const h5_shape *want, long dims[2],
                int **out);

/* The extents of dataset `name`, checked as h5_read checks it (type: integers), nothing read.
 * Returns 0, 1 if absent and optional, -1 after a message. */
int h5_dims(h5_reader *rd, const char *name, int optional, const h5_shape *want, long dims[2]);

/* Rows [row0, row0 + nrows) of integer dataset `name` (checked as h5_read checks it) as int into
 * a new *out (nrows x columns, row-major), read by hyperslabs of at most 65536 rows through a
 * buffer of long long, every value range-checked (the first that does not fit an int is reported
 * by its row); only the rows read count against the stored-bytes budget. The dataset's extents
 * go to dims. Returns 0, 1 if absent and optional, -1 after a message (rows out of range too;
 * then *out is NULL). */
int h5_read_int_rows(h5_reader *rd, const char *name, int optional, const h5_shape *want,
                     long row0, long nrows, long dims[2], int **out);

/* The same rows of a dataset of floating-point numbers (or integers) as double, as read. */
int h5_read_double_rows(h5_reader *rd, const char *name, int optional, const h5_shape *want,
                        long row0, long nrows, long dims[2], double **out);

/* Whether link `name` of file stays inside the file (hard or soft), not an external link into
 * another file; check it before opening the object. 1, or 0 after a message naming path. */
int h5_link_local(const char *path, hid_t file, const char *name);

/* Whether dataset d keeps its values inside the file: external storage (raw data in other
 * files) and virtual datasets (views of other datasets) are refused before anything is read,
 * so no byte of a file the user did not name is read or echoed. 1, or 0 after a message. */
int h5_data_local(const char *path, const char *name, hid_t d);

/* Whether every object of the HDF5 file at path keeps its data inside the file, checked before
 * another library (libnetcdf) reads it: no external or user-defined link anywhere in it (the
 * links are visited from the root group down), no dataset with external storage or a virtual
 * layout. 1, or 0 after a message naming path and the first such object. */
int h5_file_local(const char *path);

#endif
