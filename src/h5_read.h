/* h5_read.h — reading HDF5 files a user brings (mesh files, ICON grid files) with the HDF5 C API:
 * attributes and datasets checked for kind and shape, every failure reported once, naming the
 * file and the dataset or attribute. HDF5's own error printing is silenced. */
#ifndef PILLAR_H5_READ_H
#define PILLAR_H5_READ_H

#include <hdf5.h>

typedef struct {
    const char *path;
    hid_t file;
} h5_reader;

/* Opens path read-only; 0, or -1 after a message (missing, unreadable, not HDF5). */
int h5_open(h5_reader *rd, const char *path, const char *what);
void h5_close(h5_reader *rd);

/* Integer scalar attribute `name` of obj (where: its path for messages, e.g. "/"). Returns 0; -1
 * if absent (a message unless optional); -2 after a message if it is not one integer. */
int h5_attr_int(h5_reader *rd, hid_t obj, const char *where, const char *name, int optional,
                long long *out);

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
 * double, into a new *buf; its extents go to dims. Returns 0, 1 if absent and optional, -1 after
 * a message. */
int h5_read(h5_reader *rd, const char *name, int optional, int is_float, const h5_shape *want,
            long dims[2], void **buf);

/* h5_read of integers converted to int (the first value that does not fit is reported by its
 * row). Returns 0, 1 if absent and optional, -1 after a message. */
int h5_read_int(h5_reader *rd, const char *name, int optional, const h5_shape *want, long dims[2],
                int **out);

#endif
