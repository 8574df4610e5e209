/* h5_put.h — writing the small HDF5 files of the tests (good and deliberately bad ones), and
 * catching what a call prints on stderr. */
#ifndef PILLAR_H5_PUT_H
#define PILLAR_H5_PUT_H

#include <hdf5.h>
#include <stdio.h>
#include <unistd.h>

static inline void put_attr(hid_t f, const char *name, int v)
{
    hid_t sp = H5Screate(H5S_SCALAR),
          a = H5Acreate2(f, name, H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT, &v);
    H5Aclose(a);
    H5Sclose(sp);
}

/* Dataset of rank 1 (d0) or 2 (d0 x d1) holding v in memory type `type`. */
static inline void put_data(hid_t f, const char *name, hid_t type, int rank, hsize_t d0,
                            hsize_t d1, const void *v)
{
    hsize_t dims[2] = {d0, d1};
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    hid_t d = H5Dcreate2(f, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (d0)
        H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d);
    H5Sclose(sp);
}

/* stderr into file log until stderr_restore; returns the saved descriptor. */
static inline int stderr_to(const char *log)
{
    fflush(stderr);
    int saved = dup(2);
    FILE *f = freopen(log, "w", stderr);
    (void)f;
    return saved;
}

/* Puts stderr back and reads what was caught (at most n-1 bytes) into msg. */
static inline void stderr_restore(int saved, const char *log, char *msg, size_t n)
{
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *in = fopen(log, "r");
    size_t len = in ? fread(msg, 1, n - 1, in) : 0;
    msg[len] = 0;
    if (in)
        fclose(in);
}

#endif
