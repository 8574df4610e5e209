/* nc_write.h — netCDF-4 output files written whole, through libnetcdf (mesh and field files,
 * docs/mesh-format.md, docs/field-format.md). A netCDF-4 file is an HDF5 file: every netCDF
 * variable is an HDF5 dataset of the same name and every attribute an HDF5 attribute, so pillar's
 * HDF5 readers read these files as before, while netCDF tools (xarray, ncdump, ParaView) see
 * named dimensions instead of HDF5's anonymous ones.
 *
 * The helpers below return netCDF status codes (NC_NOERR = 0 on success) so that a writer can
 * chain them and ncw_create reports the first failure once, naming the file. */
#ifndef PILLAR_NC_WRITE_H
#define PILLAR_NC_WRITE_H

#include <netcdf.h>
#include <stddef.h>

/* Returns the status of `call` from the calling function unless it is NC_NOERR. */
#define NCW_TRY(call)                                                                              \
    do {                                                                                           \
        int ncw_st_ = (call);                                                                      \
        if (ncw_st_ != NC_NOERR)                                                                   \
            return ncw_st_;                                                                        \
    } while (0)

/* Creates path as a netCDF-4 file: write(ncid, arg) fills it in define mode (nc_put_* of data
 * switch to data mode by themselves in netCDF-4), under the temporary name of files.h; the file
 * is closed and renamed over path only when every call succeeded. `what` names the contents in
 * messages ("the mesh"). Returns 0, or -1 after one message naming path (nothing is left
 * behind). */
int ncw_create(const char *path, const char *what, int (*write)(int ncid, const void *arg),
                    const void *arg);

/* The dimension `name` of length len: the existing one when the file already has a dimension of
 * that name and length, else a new one. A dimension of that name with another length is an
 * error (NC_EDIMSIZE). */
int ncw_dim(int ncid, const char *name, size_t len, int *dimid);

/* A variable of ndims (0..2) dimensions; chunk (ndims extents) NULL: stored contiguously, else
 * chunked so and, when `level` > 0, deflated at that level (after the shuffle filter when
 * shuffle is set). */
int ncw_var(int ncid, const char *name, nc_type type, int ndims, const int *dimids,
            const size_t *chunk, int shuffle, int level, int *varid);

/* Attributes of a variable (or NC_GLOBAL): text (nothing is written for an empty string), one
 * int, one double. */
int ncw_text(int ncid, int varid, const char *name, const char *s);
int ncw_int(int ncid, int varid, const char *name, long long v);
int ncw_double(int ncid, int varid, const char *name, double v);

#endif
