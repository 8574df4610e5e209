/* mesh_io.c — mesh files: read with the HDF5 C API (through h5_util.c), so that files of every
 * version and of any HDF5 writer are read alike, and written as netCDF-4 through libnetcdf
 * (nc_write.h, ugrid_write.h). HDF5's own error printing is silenced; every failure is reported
 * once, naming the file and the dataset or attribute. */
#include "mesh_io.h"

#include "base/common.h"
#include "files.h"
#include "h5_util.h"
#include "mesh_import.h"
#include "nc_write.h"
#include "ugrid_write.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading ---- */

/* Per-cell dataset shapes: ncells rows of `cols_min`..`cols_max` columns (0: rank 1). */
static h5_shape per_cell(long ncells, int cols_min, int cols_max)
{
    h5_shape s = {cols_min ? 2 : 1, ncells, cols_min, cols_max, "one per cell"};
    return s;
}

/* The neighbour table: /neighbours (quad mesh) or, from version 2 on, /cell_neighbours (general
 * mesh, with optional /cell_sides). Exactly one of them. */
static int read_neighbours(h5_reader *rd, mesh *m, int version)
{
    long dims[2];
    int quad = H5Lexists(rd->file, "/neighbours", H5P_DEFAULT) > 0;
    int general = version >= 2 && H5Lexists(rd->file, "/cell_neighbours", H5P_DEFAULT) > 0;
    if (quad && general) {
        perr("%s: both /neighbours and /cell_neighbours are present; a mesh is either a quad mesh "
             "or a general one", rd->path);
        return -1;
    }
    if (!quad && !general) {
        perr("%s: dataset /neighbours is missing%s (see docs/mesh-format.md)", rd->path,
             version >= 2 ? ", and so is /cell_neighbours: a mesh needs one of them" : "");
        return -1;
    }
    const char *name = quad ? "/neighbours" : "/cell_neighbours";
    h5_shape want = per_cell(-1, quad ? 4 : 1, quad ? 4 : MESH_MAXDEG);
    if (h5_read_int(rd, name, 0, &want, dims, quad ? &m->nbr : &m->adj) != 0)
        return -1;
    if (dims[0] == 0) {
        perr("%s: dataset %s is empty: the mesh has no cells", rd->path, name);
        return -1;
    }
    m->ncells = (int)dims[0];
    if (quad)
        return 0;
    m->maxdeg = (int)dims[1];
    want = per_cell(m->ncells, 0, 0);
    return h5_read_int(rd, "/cell_sides", 1, &want, dims, &m->sides) < 0 ? -1 : 0;
}

/* The optional nodes: /node_coordinates [nnodes][2|3] and /cell_nodes [ncells][3..16]. */
static int read_nodes(h5_reader *rd, mesh *m)
{
    long dims[2];
    void *buf;
    h5_shape want = {2, -1, 2, 3, "one per node"};
    int rc = h5_read(rd, "/node_coordinates", 1, 1, &want, dims, &buf);
    if (rc < 0)
        return -1;
    if (rc == 0) { /* either of the two alone is refused by mesh_check */
        m->node_coord = buf;
        m->nnode_coord = (int)dims[1];
        if (dims[0] > INT_MAX / 4) {
            perr("%s: dataset /node_coordinates has %ld rows; at most %d nodes", rd->path,
                 dims[0], INT_MAX / 4);
            return -1;
        }
        m->nnodes = (int)dims[0];
    }
    want = per_cell(m->ncells, 3, MESH_MAXDEG);
    rc = h5_read_int(rd, "/cell_nodes", 1, &want, dims, &m->cell_nodes);
    m->node_width = rc == 0 ? (int)dims[1] : 0;
    return rc < 0 ? -1 : 0;
}

static int read_all(h5_reader *rd, mesh *m)
{
    long long v;
    if (h5_reader_attr_int(rd, rd->file, "/", "pillar_mesh_version", 0, &v) != 0)
        return -1;
    if (v < 1 || v > MESH_FORMAT_VERSION) {
        perr("%s: attribute /pillar_mesh_version = %lld: this pillar reads versions 1 to %d",
             rd->path, v, MESH_FORMAT_VERSION);
        return -1;
    }
    int version = (int)v;
    if (h5_reader_attr_int(rd, rd->file, "/", "nlevels", 0, &v) != 0)
        return -1;
    if (v < 1 || v > 100000) {
        perr("%s: attribute /nlevels = %lld: expected 1 to 100000", rd->path, v);
        return -1;
    }
    m->nlevels = (int)v;
    if (read_neighbours(rd, m, version) != 0)
        return -1;
    long dims[2];
    void *buf;
    h5_shape want = per_cell(m->ncells, 2, 3);
    int rc = h5_read(rd, "/coordinates", 1, 1, &want, dims, &buf);
    if (rc < 0)
        return -1;
    m->coord = buf;
    m->ncoord = rc == 1 ? 0 : (int)dims[1];
    want = per_cell(m->ncells, 2, 2);
    rc = h5_read_int(rd, "/patch_xy", 1, &want, dims, &m->xy);
    if (rc < 0 || (rc == 0 && (h5_dataset_attr(rd, "/patch_xy", "nx", &m->nx) != 0 ||
                               h5_dataset_attr(rd, "/patch_xy", "ny", &m->ny) != 0)))
        return -1;
    want = per_cell(m->ncells, 0, 0);
    rc = h5_read_int(rd, "/partition", 1, &want, dims, &m->part);
    if (rc < 0 || (rc == 0 && h5_dataset_attr(rd, "/partition", "nparts", &m->nparts) != 0))
        return -1;
    if (read_nodes(rd, m) != 0)
        return -1;
    if (H5Aexists(rd->file, "kind") > 0) {
        hid_t a = H5Aopen(rd->file, "kind", H5P_DEFAULT), t = H5Aget_type(a);
        hid_t sp = H5Aget_space(a); /* one string: more would overrun m->kind */
        if (H5Tget_class(t) == H5T_STRING && !H5Tis_variable_str(t) &&
            H5Tget_size(t) < sizeof m->kind && H5Sget_simple_extent_npoints(sp) == 1) {
            hid_t mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, sizeof m->kind);
            H5Aread(a, mt, m->kind);
            m->kind[sizeof m->kind - 1] = 0;
            H5Tclose(mt);
        }
        H5Sclose(sp);
        H5Tclose(t);
        H5Aclose(a);
    }
    char err[512];
    if (mesh_check(m, err, sizeof err) != 0) {
        perr("%s: %s", rd->path, err);
        return -1;
    }
    return 0;
}

/* Reads and checks the mesh of an opened file (file < 0: the open failed), then closes it. */
static int read_opened(h5_reader *rd, mesh *m)
{
    if (rd->file < 0) {
        perr("%s: HDF5 could not open the file", rd->path);
        return -1;
    }
    int rc = read_all(rd, m);
    h5_close(rd);
    if (rc != 0)
        mesh_free(m);
    return rc;
}

int mesh_read_pillar(const char *path, mesh *m)
{
    memset(m, 0, sizeof *m);
    h5_reader rd;
    if (h5_open(&rd, path, "mesh file") != 0)
        return -1;
    return read_opened(&rd, m);
}

/* Whether path (checked by file_input_check) is an HDF5 file with the root attribute
 * pillar_mesh_version: a pillar mesh file, though perhaps a bad one (no message). */
static int is_mesh_file(const char *path)
{
    h5_quiet();
    if (H5Fis_hdf5(path) <= 0)
        return 0;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    int yes = f >= 0 && H5Aexists(f, "pillar_mesh_version") > 0;
    if (f >= 0)
        H5Fclose(f);
    return yes;
}

/* The importer of a file that is not a pillar mesh file: the one named by format, else the one
 * its content shows; -1 when none, after a message that says so and why it is not a mesh file
 * either. */
static int grid_importer(const char *path, const char *format)
{
    if (format) {
        int k = mesh_importer_find(format);
        if (k < 0)
            perr("%s: format '%s': pillar has no importer of that name", path, format);
        return k;
    }
    char why_not_mesh[512], why_not_grid[512];
    perr_saved saved = perr_capture_save();
    perr_capture(why_not_grid, sizeof why_not_grid);
    int k = mesh_importer_detect(path);
    if (k < 0) {
        mesh m; /* read only for its message: is_mesh_file found no pillar_mesh_version */
        perr_capture(why_not_mesh, sizeof why_not_mesh);
        if (mesh_read_pillar(path, &m) == 0)
            mesh_free(&m);
    }
    perr_capture_restore(saved);
    if (k < 0) {
        const char *grid = strstr(why_not_grid, "which format?");
        perr("%s; nor is it a grid file of another tool's format: %s", why_not_mesh,
             grid ? grid : why_not_grid);
    }
    return k;
}

int mesh_load(const char *path, const mesh_load_opts *o, mesh *m)
{
    static const mesh_load_opts defaults = {NULL, 0, 0};
    o = o ? o : &defaults;
    memset(m, 0, sizeof *m);
    if (file_input_check(path, "mesh file") != 0)
        return -1;
    int rc;
    if (!o->format && is_mesh_file(path)) {
        rc = mesh_read_pillar(path, m);
    } else {
        int k = grid_importer(path, o->format);
        mesh_import_opts io = {o->nlevels ? o->nlevels : 64, o->merge_tol, 0, 0};
        rc = k < 0 ? -1 : mesh_import(path, k, &io, m);
    }
    if (rc == 0 && o->nlevels)
        m->nlevels = o->nlevels;
    return rc;
}

static mesh_load_opts read_options; /* mesh_read's (mesh_read_options); zeroed: the defaults */

void mesh_read_options(const mesh_load_opts *o)
{
    static const mesh_load_opts defaults = {NULL, 0, 0};
    read_options = o ? *o : defaults;
}

int mesh_read(const char *path, mesh *m) { return mesh_load(path, &read_options, m); }

/* ---- a rank's share: the header and blocks of rows ---- */

/* The neighbour dataset of a pillar mesh file: its name and its rows' shape (quad or general). */
static int header_neighbours(h5_reader *rd, int version, mesh_header *h)
{
    int quad = H5Lexists(rd->file, "/neighbours", H5P_DEFAULT) > 0;
    int general = version >= 2 && H5Lexists(rd->file, "/cell_neighbours", H5P_DEFAULT) > 0;
    if (quad == general) {
        perr("%s: %s", rd->path, quad ? "both /neighbours and /cell_neighbours are present"
                                       : "dataset /neighbours is missing (see docs/mesh-format.md)");
        return -1;
    }
    long dims[2];
    h5_shape want = per_cell(-1, quad ? 4 : 1, quad ? 4 : MESH_MAXDEG);
    if (h5_dims(rd, quad ? "/neighbours" : "/cell_neighbours", 0, &want, dims) != 0)
        return -1;
    if (dims[0] < 1 || dims[0] > INT_MAX / 4) {
        perr("%s: the neighbour table has %ld rows; expected 1 to %d cells", rd->path, dims[0],
             INT_MAX / 4);
        return -1;
    }
    h->quad = quad;
    h->ncells = (int)dims[0];
    h->width = (int)dims[1];
    want = per_cell(h->ncells, 0, 0);
    int rc = general ? h5_dims(rd, "/cell_sides", 1, &want, dims) : 1;
    h->has_sides = rc == 0;
    return rc < 0 ? -1 : 0;
}

int mesh_read_header(const char *path, mesh_header *h)
{
    memset(h, 0, sizeof *h);
    if (read_options.format)
        return 1;
    if (file_input_check(path, "mesh file") != 0)
        return -1;
    if (!is_mesh_file(path))
        return 1;
    h5_reader rd;
    if (h5_open(&rd, path, "mesh file") != 0)
        return -1;
    long long v = 0;
    int rc = h5_reader_attr_int(&rd, rd.file, "/", "pillar_mesh_version", 0, &v) == 0 ? 0 : -1;
    if (rc == 0 && (v < 1 || v > MESH_FORMAT_VERSION)) {
        perr("%s: attribute /pillar_mesh_version = %lld: this pillar reads versions 1 to %d", path,
             v, MESH_FORMAT_VERSION);
        rc = -1;
    }
    int version = (int)v;
    if (rc == 0 && h5_reader_attr_int(&rd, rd.file, "/", "nlevels", 0, &v) != 0)
        rc = -1;
    if (rc == 0 && (v < 1 || v > 100000)) {
        perr("%s: attribute /nlevels = %lld: expected 1 to 100000", path, v);
        rc = -1;
    }
    h->nlevels = read_options.nlevels ? read_options.nlevels : (int)v;
    if (rc == 0)
        rc = header_neighbours(&rd, version, h);
    long dims[2];
    h5_shape want = per_cell(h->ncells, 0, 0);
    int got = rc == 0 ? h5_dims(&rd, "/partition", 1, &want, dims) : 1;
    if (got < 0 || (got == 0 && h5_dataset_attr(&rd, "/partition", "nparts", &h->nparts) != 0))
        rc = -1;
    h->patch = rc == 0 && H5Lexists(rd.file, "/patch_xy", H5P_DEFAULT) > 0;
    h->has_coords = rc == 0 && H5Lexists(rd.file, "/coordinates", H5P_DEFAULT) > 0;
    h5_close(&rd);
    return rc;
}

int mesh_read_block(const char *path, const mesh_header *h, int row0, int n, int **nbr,
                    int **sides, int **part, double **coord, int *ncoord)
{
    *nbr = *sides = *part = NULL;
    if (coord) {
        *coord = NULL;
        *ncoord = 0;
    }
    h5_reader rd;
    if (h5_open(&rd, path, "mesh file") != 0)
        return -1;
    long dims[2];
    const char *name = h->quad ? "/neighbours" : "/cell_neighbours";
    h5_shape want = per_cell(h->ncells, h->width, h->width);
    int rc = h5_read_int_rows(&rd, name, 0, &want, row0, n, dims, nbr);
    want = per_cell(h->ncells, 0, 0);
    if (rc == 0 && h->has_sides)
        rc = h5_read_int_rows(&rd, "/cell_sides", 0, &want, row0, n, dims, sides);
    if (rc == 0 && h->nparts)
        rc = h5_read_int_rows(&rd, "/partition", 0, &want, row0, n, dims, part);
    if (rc == 0 && coord) {
        want = per_cell(h->ncells, 2, 3);
        int got = h5_read_double_rows(&rd, "/coordinates", 1, &want, row0, n, dims, coord);
        rc = got < 0 ? -1 : 0;
        *ncoord = got == 0 ? (int)dims[1] : 0;
    }
    h5_close(&rd);
    for (size_t i = 0; rc == 0 && i < (size_t)n * (size_t)h->width; i++)
        if ((*nbr)[i] < -1 || (*nbr)[i] >= h->ncells) {
            perr("%s: dataset %s: cell %d has neighbour %d, not a cell (0 to %d) or -1", path, name,
                 row0 + (int)(i / (size_t)h->width), (*nbr)[i], h->ncells - 1);
            rc = -1;
        }
    for (int i = 0; rc == 0 && *sides && i < n; i++)
        if ((*sides)[i] < 1 || (*sides)[i] > h->width) {
            perr("%s: dataset /cell_sides: cell %d has %d sides; expected 1 to %d", path, row0 + i,
                 (*sides)[i], h->width);
            rc = -1;
        }
    for (int i = 0; rc == 0 && *part && i < n; i++)
        if ((*part)[i] < 0 || (*part)[i] >= h->nparts) {
            perr("%s: dataset /partition: cell %d is in part %d; expected 0 to %d", path, row0 + i,
                 (*part)[i], h->nparts - 1);
            rc = -1;
        }
    if (rc != 0) {
        xfree(*nbr);
        xfree(*sides);
        xfree(*part);
        *nbr = *sides = *part = NULL;
        if (coord) {
            xfree(*coord);
            *coord = NULL;
            *ncoord = 0;
        }
    }
    return rc;
}

int mesh_read_image(const void *image, size_t size, const char *name, mesh *m)
{
    memset(m, 0, sizeof *m);
    h5_quiet();
    if (size == 0) { /* the core driver would open the file `name` instead */
        perr("%s: not an HDF5 file (empty)", name);
        return -1;
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    int ok = fapl >= 0 && H5Pset_fapl_core(fapl, 65536, 0) >= 0 &&
             H5Pset_file_image(fapl, (void *)image, size) >= 0;
    h5_reader rd = {name, ok ? H5Fopen(name, H5F_ACC_RDONLY, fapl) : -1, 0};
    if (fapl >= 0)
        H5Pclose(fapl);
    return read_opened(&rd, m);
}

/* ---- writing ---- */

static int write_all(int nc, const void *arg)
{
    const mesh *m = arg;
    NCW_TRY(ncw_int(nc, NC_GLOBAL, "pillar_mesh_version", MESH_FORMAT_VERSION));
    NCW_TRY(ncw_int(nc, NC_GLOBAL, "nlevels", m->nlevels));
    NCW_TRY(ncw_text(nc, NC_GLOBAL, "kind", m->kind));
    NCW_TRY(ncw_text(nc, NC_GLOBAL, "Conventions", "CF-1.8 UGRID-1.0"));
    NCW_TRY(ncw_text(nc, NC_GLOBAL, "title", "pillar mesh file (docs/mesh-format.md)"));
    return ugrid_write(nc, m, 1);
}

int mesh_write(const char *path, const mesh *m)
{
    return ncw_create(path, "the mesh", write_all, m);
}
