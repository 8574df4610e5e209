/* h5_util.h — the pieces of HDF5 handling that mesh files and field files share: silencing
 * HDF5's own error printing, opening a file for reading with one clear message, scalar
 * attributes, chunked (and deflated) dataset creation, and atomic writing. */
#ifndef PILLAR_H5_UTIL_H
#define PILLAR_H5_UTIL_H

#include <hdf5.h>

/* Turns off HDF5's error stack printing: pillar reports every failure itself, once. */
void h5_quiet(void);

/* Opens an existing HDF5 file read-only. `what` names the kind of file in the message
 * ("mesh file"). Returns the file id, or -1 after a message naming the path. */
hid_t h5_open_read(const char *path, const char *what);

/* Reads the integer attribute `name` of obj. Returns 0, 1 when it is absent, or -1 when it is
 * not exactly one integer (no message). */
int h5_read_attr_int(hid_t obj, const char *name, long long *v);

/* Scalar attributes on obj, stored as 32-bit little-endian integers / fixed-length strings.
 * Return 0 or -1. */
int h5_attr_int(hid_t obj, const char *name, long long v);
int h5_attr_str(hid_t obj, const char *name, const char *s);

/* A dataset-creation property list chunked as `chunk` (rank dimensions), with the shuffle filter
 * (when shuffle is set) and deflate at `level` when the library has zlib. Close with H5Pclose. */
hid_t h5_chunked(int rank, const hsize_t *chunk, int shuffle, int level);

/* Creates path atomically: writes into PATH.tmp-<pid> with write(file, arg) and renames it over
 * path only when everything succeeded. `what` names the contents in messages ("the mesh").
 * Returns 0, or -1 after a message; no file (temporary or not) is left behind. `write` may
 * print its own message and return -1. */
int h5_write_atomic(const char *path, const char *what, int (*write)(hid_t file, const void *arg),
                    const void *arg);

#endif
