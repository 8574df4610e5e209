/* nc_write.c — netCDF-4 output files written whole (nc_write.h), through libnetcdf. */
#define _GNU_SOURCE /* memfd_create */
#include "nc_write.h"

#include "base/common.h"
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The HDF5 file under the netCDF-4 file being written at `name`, or -1. */
static hid_t h5_file_named(const char *name)
{
    ssize_t n = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE);
    if (n <= 0)
        return -1;
    hid_t *ids = xalloc(sizeof(hid_t) * (size_t)n), found = -1;
    n = H5Fget_obj_ids(H5F_OBJ_ALL, H5F_OBJ_FILE, (size_t)n, ids);
    size_t len = strlen(name) + 2;
    char *got = xalloc(len);
    for (ssize_t k = 0; k < n && found < 0; k++)
        if (H5Fget_name(ids[k], got, len) == (ssize_t)len - 2 && !strcmp(got, name))
            found = ids[k];
    xfree(got);
    xfree(ids);
    return found;
}

/* Lets the netCDF-4 file ncid, written at tmp, whose writing failed, be closed and released.
 * libhdf5 cannot close a file whose cache it cannot flush (a full disk): H5Fclose then fails and
 * leaves the file half destroyed, and libhdf5 crashes at exit closing it again (H5F__close_cb),
 * after pillar has reported the error. The contents are dropped anyway, so the file's descriptor
 * is pointed at an anonymous file in memory (sparse: only what is still to flush takes memory):
 * the flush then succeeds and the close releases everything. Returns nc_close's status. */
static int close_failed(int ncid, const char *tmp)
{
    hid_t f = h5_file_named(tmp);
    int *fd = NULL, sink = memfd_create("pillar-dropped-output", MFD_CLOEXEC);
    if (f >= 0 && sink >= 0) {
        hid_t fapl = H5Fget_access_plist(f);
        if (fapl >= 0 && H5Pget_driver(fapl) == H5FD_SEC2 &&
            H5Fget_vfd_handle(f, H5P_DEFAULT, (void **)&fd) >= 0 && fd)
            dup2(sink, *fd);
        if (fapl >= 0)
            H5Pclose(fapl);
    }
    if (sink >= 0)
        close(sink);
    return nc_close(ncid);
}

int ncw_create(const char *path, const char *what, int (*write)(int ncid, const void *arg),
               const void *arg)
{
    file_out o;
    if (file_out_begin(&o, path) != 0)
        return -1;
    int ncid, st = nc_create(o.tmp, NC_NETCDF4 | NC_CLOBBER, &ncid);
    if (st != NC_NOERR) {
        perr("%s: netCDF cannot create the file (%s); nothing was written", path, nc_strerror(st));
        file_out_abort(&o);
        return -1;
    }
    st = nc_set_fill(ncid, NC_NOFILL, NULL); /* every value is written */
    if (st == NC_NOERR)
        st = write(ncid, arg);
    if (st == NC_NOERR)
        st = nc_sync(ncid); /* a write that fails (a full disk) fails here, not in nc_close */
    int err = errno;
    const char *full = st != NC_NOERR ? file_out_full(&o, err) : NULL;
    int closed = st == NC_NOERR ? nc_close(ncid) : close_failed(ncid, o.tmp);
    if (st == NC_NOERR)
        st = closed;
    if (st != NC_NOERR) {
        if (!full)
            full = file_out_full(&o, errno);
        if (full)
            perr("%s: cannot write %s: %s; nothing was written", path, what, full);
        else
            perr("%s: netCDF failed writing %s (%s); nothing was written", path, what,
                 nc_strerror(st));
        file_out_abort(&o);
        return -1;
    }
    return file_out_commit(&o);
}

int ncw_dim(int ncid, const char *name, size_t len, int *dimid)
{
    if (nc_inq_dimid(ncid, name, dimid) == NC_NOERR) {
        size_t have;
        int st = nc_inq_dimlen(ncid, *dimid, &have);
        return st != NC_NOERR ? st : have == len ? NC_NOERR : NC_EDIMSIZE;
    }
    return nc_def_dim(ncid, name, len, dimid);
}

int ncw_var(int ncid, const char *name, nc_type type, int ndims, const int *dimids,
            const size_t *chunk, int shuffle, int level, int *varid)
{
    int st = nc_def_var(ncid, name, type, ndims, dimids, varid);
    if (st != NC_NOERR || !chunk || ndims == 0)
        return st;
    st = nc_def_var_chunking(ncid, *varid, NC_CHUNKED, chunk);
    if (st == NC_NOERR && level > 0)
        st = nc_def_var_deflate(ncid, *varid, shuffle, 1, level);
    return st;
}

int ncw_text(int ncid, int varid, const char *name, const char *s)
{
    return s && s[0] ? nc_put_att_text(ncid, varid, name, strlen(s), s) : NC_NOERR;
}

int ncw_int(int ncid, int varid, const char *name, long long v)
{
    int i = (int)v;
    return v == i ? nc_put_att_int(ncid, varid, name, NC_INT, 1, &i) : NC_ERANGE;
}

int ncw_double(int ncid, int varid, const char *name, double v)
{
    return nc_put_att_double(ncid, varid, name, NC_DOUBLE, 1, &v);
}
