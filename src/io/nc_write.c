/* nc_write.c — netCDF-4 output files written whole (nc_write.h), through libnetcdf. */
#include "nc_write.h"

#include "base/common.h"
#include "files.h"

#include <string.h>

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
    int closed = nc_close(ncid);
    if (st == NC_NOERR)
        st = closed;
    if (st != NC_NOERR) {
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
