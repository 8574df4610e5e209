/* h5_util.c — HDF5 helpers shared by mesh_io.c and field_io.c. */
#include "h5_util.h"

#include "common.h"

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
