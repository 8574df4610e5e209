/* field_io.c — reading input fields from field files with the HDF5 C API (files of every version
 * and any HDF5 writer alike) and writing results as netCDF-4 through libnetcdf (src/io/nc_write.h),
 * with the UGRID view of the mesh they lie on (src/io/ugrid_write.h).
 *
 * Datasets are read and written one level at a time through a hyperslab, so the memory beyond
 * the problem's own fields is one level of one field. The user's cell order is mapped onto the
 * grids' internal orders through a user_order: for every user cell, its cell in the unstructured
 * grid and, when there is a regular twin, its position there. */
#include "field_io.h"

#include "src/io/h5_util.h"
#include "src/io/nc_write.h"
#include "src/io/ugrid_write.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CHUNK_CELLS 65536 /* cells of one level per chunk */

int field_ncells(const problem *pb) { return pb->ug.nxy; }

void user_order_make(const problem *pb, user_order *u)
{
    const ugrid *g = &pb->ug;
    u->ncells = g->nxy;
    u->cell = xalloc(sizeof(int) * (size_t)g->nxy);
    u->roff = problem_has_regular(pb) ? xalloc(sizeof(long) * (size_t)g->nxy) : NULL;
    for (int c = 0; c < g->nxy; c++) {
        /* a mesh: the file's row; an emulated grid (or a mesh's patch position): y*nx + x */
        int i = g->mesh_cell ? g->mesh_cell[c] : g->cy[c] * g->nx + g->cx[c];
        u->cell[i] = c;
        if (u->roff)
            u->roff[i] = rgrid_index(&pb->twin->rg, g->cx[c], g->cy[c], 0);
    }
}

void user_order_free(user_order *u)
{
    xfree(u->cell);
    xfree(u->roff);
}

int user_order_computed(const problem *pb, const user_order *u, int i, int z)
{
    return u->cell[i] >= pb->ug.nhalo && z < stencil_zend(pb->s.stencil, pb->s.nz);
}

size_t user_order_element(const problem *pb, const user_order *u, int uns, int i, int z)
{
    if (uns)
        return (size_t)u->cell[i] + (size_t)z * (size_t)pb->ug.zstride;
    return (size_t)(u->roff[i] + (long)z * pb->twin->rg.zstride);
}

/* The file dataspace with level z of a [nz][ncells] dataset selected, or of a [ntime][nz][ncells]
 * one (a time axis of states, --output-every) at its last time. */
static void select_level(hid_t space, int z, int ncells)
{
    hsize_t dims[3] = {1, 0, 0};
    int lead = H5Sget_simple_extent_ndims(space) == 3;
    if (lead)
        H5Sget_simple_extent_dims(space, dims, NULL);
    hsize_t start[3] = {dims[0] - 1, (hsize_t)z, 0}, count[3] = {1, 1, (hsize_t)ncells};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start + !lead, NULL, count + !lead, NULL);
}

/* ---- reading ---- */

/* Opens input dataset `name` and checks its type and shape. Returns its id, or -1 after a
 * message. */
static hid_t open_input(hid_t f, const char *path, const problem *pb, const char *name)
{
    if (H5Lexists(f, name, H5P_DEFAULT) <= 0) {
        perr("%s: dataset /%s is missing: %s reads %d input field%s from --input (see "
             "docs/field-format.md)", path, name, stencil_table[pb->s.stencil].name,
             stencil_table[pb->s.stencil].nin, stencil_table[pb->s.stencil].nin > 1 ? "s" : "");
        return -1;
    }
    if (!h5_link_local(path, f, name))
        return -1;
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0) {
        perr("%s: /%s is not a dataset", path, name);
        return -1;
    }
    hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
    H5T_class_t cls = H5Tget_class(t);
    int rank = H5Sget_simple_extent_ndims(sp), ok = 0;
    hsize_t all[3] = {0, 0, 0}, *dims = all + (rank == 3); /* [time] first: its last state */
    if (!h5_data_local(path, name, d)) {
        /* message given */
    } else if (cls != H5T_FLOAT || H5Tget_size(t) > 8) {
        perr("%s: dataset /%s has %s type; expected floating point (float or double)", path, name,
             cls == H5T_INTEGER ? "an integer" : cls == H5T_FLOAT ? "a wider than 64-bit" : "a non-numeric");
    } else if (rank != 2 && rank != 3) {
        perr("%s: dataset /%s has rank %d; expected 2 ([nz][ncells]) or 3 ([time][nz][ncells])",
             path, name, rank);
    } else {
        H5Sget_simple_extent_dims(sp, all, NULL);
        if (rank == 3 && all[0] == 0)
            perr("%s: dataset /%s has no state along its time axis", path, name);
        else if (dims[0] != (hsize_t)pb->s.nz || dims[1] != (hsize_t)field_ncells(pb))
            perr("%s: dataset /%s has shape [%llu][%llu]; expected [%d][%d] ([nz][ncells] of "
                 "this run)", path, name, (unsigned long long)dims[0],
                 (unsigned long long)dims[1], pb->s.nz, field_ncells(pb));
        else
            ok = 1;
    }
    H5Sclose(sp);
    H5Tclose(t);
    if (!ok) {
        H5Dclose(d);
        return -1;
    }
    return d;
}

/* Reads dataset d into input field k of pb, level by level, checking every value. */
static int read_input(const problem *pb, const user_order *u, hid_t d, int k, const char *path)
{
    const char *name = stencil_table[pb->s.stencil].field[k];
    precision_t p = pb->s.prec;
    int n = u->ncells, rc = 0;
    hsize_t mdim = (hsize_t)n;
    hid_t fsp = H5Dget_space(d), msp = H5Screate_simple(1, &mdim, NULL);
    double *level = xalloc(sizeof(double) * (size_t)n);
    for (int z = 0; z < pb->s.nz && rc == 0; z++) {
        select_level(fsp, z, n);
        if (H5Dread(d, H5T_NATIVE_DOUBLE, msp, fsp, H5P_DEFAULT, level) < 0) {
            perr("%s: dataset /%s could not be read at level %d", path, name, z);
            rc = -1;
            break;
        }
        for (int i = 0; i < n; i++) {
            double v = level[i];
            if (!isfinite(v) || (p == PREC_FLOAT && fabs(v) > FLT_MAX)) {
                perr("%s: dataset /%s: the value at [%d][%d] is %g; input values must be finite%s",
                     path, name, z, i, v, p == PREC_FLOAT ? " and fit in float" : "");
                rc = -1;
                break;
            }
            field_set(p, pb->uf.p[k], user_order_element(pb, u, 1, i, z), v);
            if (u->roff)
                field_set(p, pb->twin->rf.p[k], user_order_element(pb, u, 0, i, z), v);
        }
    }
    xfree(level);
    H5Sclose(msp);
    H5Sclose(fsp);
    return rc;
}

int field_read_inputs(problem *pb, const char *path)
{
    hid_t f = h5_open_read(path, "field file");
    if (f < 0)
        return -1;
    const stencil_info *si = &stencil_table[pb->s.stencil];
    long long version;
    int rc = h5_read_attr_int(f, "pillar_fields_version", &version);
    if (rc < 0) {
        perr("%s: attribute /pillar_fields_version: expected one integer", path);
    } else if (rc == 0 && (version < 1 || version > FIELD_FORMAT_VERSION)) {
        perr("%s: attribute /pillar_fields_version = %lld: this pillar reads versions 1 to %d",
             path, version, FIELD_FORMAT_VERSION);
        rc = -1;
    } else {
        rc = 0;
    }
    /* every dataset is checked before any value is replaced */
    hid_t d[PILLAR_MAXF];
    int opened = 0;
    while (rc == 0 && opened < si->nin) {
        d[opened] = open_input(f, path, pb, si->field[opened]);
        if (d[opened] < 0)
            rc = -1;
        else
            opened++;
    }
    if (rc == 0) {
        user_order u;
        user_order_make(pb, &u);
        for (int k = 0; k < si->nin && rc == 0; k++)
            rc = read_input(pb, &u, d[k], k, path);
        user_order_free(&u);
    }
    for (int k = 0; k < opened; k++)
        H5Dclose(d[k]);
    H5Fclose(f);
    return rc;
}

/* ---- writing ---- */

typedef struct {
    const problem *pb;
    const user_order *u;
    fieldset out;
    int uns;
    const field_write_opts *w;
    const mesh *m; /* the cells the fields lie on, in the user's order; NULL if unknown */
} write_job;

static int write_attrs(int nc, const write_job *j)
{
    const problem *pb = j->pb;
    NCW_TRY(ncw_int(nc, NC_GLOBAL, "pillar_fields_version", FIELD_FORMAT_VERSION));
    NCW_TRY(ncw_text(nc, NC_GLOBAL, "stencil", stencil_table[pb->s.stencil].name));
    NCW_TRY(ncw_text(nc, NC_GLOBAL, "precision", prec_name(pb->s.prec)));
    NCW_TRY(ncw_text(nc, NC_GLOBAL, "flags", j->w->flags));
    NCW_TRY(ncw_text(nc, NC_GLOBAL, "commit", PILLAR_COMMIT));
    NCW_TRY(ncw_int(nc, NC_GLOBAL, "nz", pb->s.nz));
    NCW_TRY(ncw_int(nc, NC_GLOBAL, "ncells", j->u->ncells));
    if (j->w->steps)
        NCW_TRY(ncw_int(nc, NC_GLOBAL, "steps", j->w->steps));
    if (pb->mesh_path) {
        NCW_TRY(ncw_text(nc, NC_GLOBAL, "mesh", pb->mesh_path));
    } else {
        NCW_TRY(ncw_int(nc, NC_GLOBAL, "nx", pb->s.nx));
        NCW_TRY(ncw_int(nc, NC_GLOBAL, "ny", pb->s.ny));
    }
    NCW_TRY(ncw_text(nc, NC_GLOBAL, "Conventions", "CF-1.8 UGRID-1.0"));
    return ncw_text(nc, NC_GLOBAL, "title", "pillar field file (docs/field-format.md)");
}

/* Whether output fields of pb hold NaN somewhere: a halo, or top levels left out. */
static int outputs_have_holes(const problem *pb)
{
    return pb->ug.nhalo > 0 || stencil_zend(pb->s.stencil, pb->s.nz) < pb->s.nz;
}

/* Defines field k over dims ([time][nLevels][nCells] or [nLevels][nCells]: ndims) with its CF
 * and UGRID attributes. An output field that holds NaN declares it as its _FillValue; a state
 * (w->steps) says after which steps it is, and names the coordinate `time`. */
static int define_field(int nc, const write_job *j, int k, int ndims, const int *dims, int *var)
{
    const problem *pb = j->pb;
    const stencil_info *si = &stencil_table[pb->s.stencil];
    int n = j->u->ncells, output = k >= si->nin, steps = j->w->steps;
    nc_type type = pb->s.prec == PREC_FLOAT ? NC_FLOAT : NC_DOUBLE;
    size_t chunk[3] = {1, 1, (size_t)(n < CHUNK_CELLS ? n : CHUNK_CELLS)};
    NCW_TRY(ncw_var(nc, si->field[k], type, ndims, dims, chunk + 3 - ndims, 1, 1, var));
    char text[256];
    if (steps && j->w->snaps)
        snprintf(text, sizeof text, "state %s of %s after the steps of time", si->field[k],
                 si->name);
    else if (steps)
        snprintf(text, sizeof text, "state %s of %s after %d step%s", si->field[k], si->name,
                 steps, steps == 1 ? "" : "s");
    else
        snprintf(text, sizeof text, "%s %s of %s%s", output ? "output" : "input", si->field[k],
                 si->name, output ? " (NaN where the stencil computes nothing: halo cells)" : "");
    NCW_TRY(ncw_text(nc, *var, "long_name", text));
    if (output && outputs_have_holes(pb)) {
        double fill_d = NAN;
        float fill_f = NAN;
        NCW_TRY(nc_put_att(nc, *var, "_FillValue", type, 1,
                           type == NC_FLOAT ? (const void *)&fill_f : (const void *)&fill_d));
    }
    text[0] = 0;
    if (j->m)
        ugrid_face_coordinates(j->m, text, sizeof text);
    if (steps && !j->w->snaps) /* the scalar coordinate of the state's time */
        snprintf(text + strlen(text), sizeof text - strlen(text), "%stime", text[0] ? " " : "");
    NCW_TRY(ncw_text(nc, *var, "coordinates", text));
    if (!j->m)
        return NC_NOERR;
    NCW_TRY(ncw_text(nc, *var, "mesh", UGRID_TOPOLOGY));
    return ncw_text(nc, *var, "location", "face");
}

/* Writes field k of src (on the unstructured grid when uns) into var, at time index t when the
 * variable has a time dimension (t >= 0). For an output field, points the stencil does not
 * compute are written as NaN. */
static int write_field(int nc, int var, const write_job *j, fieldset src, int uns, int k, int t)
{
    const problem *pb = j->pb;
    const user_order *u = j->u;
    precision_t p = pb->s.prec;
    size_t es = prec_size(p);
    int n = u->ncells, nz = pb->s.nz, output = k >= stencil_table[pb->s.stencil].nin;
    char *level = xalloc(es * (size_t)n);
    int st = NC_NOERR, lead = t >= 0;
    for (int z = 0; z < nz && st == NC_NOERR; z++) {
        for (int i = 0; i < n; i++) {
            if (output && !user_order_computed(pb, u, i, z))
                field_set(p, level, (size_t)i, NAN);
            else
                memcpy(level + (size_t)i * es,
                       (const char *)src.p[k] + user_order_element(pb, u, uns, i, z) * es, es);
        }
        size_t start[3] = {(size_t)t, (size_t)z, 0}, count[3] = {1, 1, (size_t)n};
        st = nc_put_vara(nc, var, start + !lead, count + !lead, level); /* in the variable's type */
    }
    xfree(level);
    return st;
}

/* The vertical coordinate: variable nLevels(nLevels), the level index, counted upwards from 0. */
static int write_levels(int nc, int dim, int nz)
{
    int var;
    NCW_TRY(ncw_var(nc, "nLevels", NC_INT, 1, &dim, NULL, 0, 0, &var));
    NCW_TRY(ncw_text(nc, var, "long_name", "level index, 0 the lowest level"));
    NCW_TRY(ncw_text(nc, var, "standard_name", "model_level_number"));
    NCW_TRY(ncw_text(nc, var, "units", "1"));
    NCW_TRY(ncw_text(nc, var, "positive", "up"));
    NCW_TRY(ncw_text(nc, var, "axis", "Z"));
    int *z = xalloc(sizeof(int) * (size_t)nz);
    for (int i = 0; i < nz; i++)
        z[i] = i;
    int st = nc_put_var_int(nc, var, z);
    xfree(z);
    return st;
}

/* The time coordinate of a state: `time`, the steps done, over dimension dim (an unlimited
 * `time` of the snapshots' steps) or scalar (dim < 0: the state after `steps`). No units: a step
 * has no length pillar knows. */
static int write_time(int nc, int dim, const field_snapshots *sn, int steps)
{
    int var;
    NCW_TRY(ncw_var(nc, "time", NC_INT, dim >= 0, &dim, NULL, 0, 0, &var));
    NCW_TRY(ncw_text(nc, var, "long_name", "time steps done: the state after this many steps"));
    NCW_TRY(ncw_text(nc, var, "axis", "T"));
    if (dim < 0)
        return nc_put_var_int(nc, var, &steps);
    size_t start = 0, count = (size_t)sn->n;
    return nc_put_vara_int(nc, var, &start, &count, sn->step);
}

static int write_all(int nc, const void *arg)
{
    const write_job *j = arg;
    const stencil_info *si = &stencil_table[j->pb->s.stencil];
    const field_snapshots *sn = j->w->steps ? j->w->snaps : NULL;
    int dims[3], *level_dims = dims + 1, ndims = sn ? 3 : 2;
    NCW_TRY(write_attrs(nc, j));
    if (sn) {
        NCW_TRY(nc_def_dim(nc, "time", NC_UNLIMITED, &dims[0]));
        NCW_TRY(write_time(nc, dims[0], sn, j->w->steps));
    } else if (j->w->steps) {
        NCW_TRY(write_time(nc, -1, NULL, j->w->steps));
    }
    NCW_TRY(ncw_dim(nc, "nLevels", (size_t)j->pb->s.nz, &level_dims[0]));
    NCW_TRY(write_levels(nc, level_dims[0], j->pb->s.nz));
    if (j->m)
        NCW_TRY(ugrid_write(nc, j->m, 0));
    NCW_TRY(ncw_dim(nc, UGRID_CELLS, (size_t)j->u->ncells, &level_dims[1]));
    int inputs = j->w->steps || j->w->inputs_only; /* an iterated run: its state */
    int end = inputs ? si->nin : j->pb->nf;
    for (int k = j->w->with_inputs || inputs ? 0 : si->nin; k < end; k++) {
        int is_input = k < si->nin, var;
        NCW_TRY(define_field(nc, j, k, ndims, sn ? dims : level_dims, &var));
        for (int t = 0; sn && t < sn->n; t++)
            NCW_TRY(write_field(nc, var, j, sn->state[t], 1, k, t));
        if (!sn)
            NCW_TRY(write_field(nc, var, j, is_input ? j->pb->uf : j->out, is_input ? 1 : j->uns,
                                k, -1));
    }
    return NC_NOERR;
}

void field_snapshot_add(field_snapshots *s, const problem *pb, int step)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        s->step = xgrow(s->step, sizeof(int) * (size_t)s->n, sizeof(int) * (size_t)cap);
        s->state = xgrow(s->state, sizeof(fieldset) * (size_t)s->n, sizeof(fieldset) * (size_t)cap);
        s->cap = cap;
    }
    size_t bytes = prec_size(pb->s.prec) * pb->ug.len;
    fieldset *f = &s->state[s->n];
    memset(f, 0, sizeof *f);
    for (int k = 0; k < stencil_table[pb->s.stencil].nin; k++) {
        f->p[k] = field_alloc(pb->s.prec, pb->ug.len);
        memcpy(f->p[k], pb->uf.p[k], bytes);
    }
    s->step[s->n++] = step;
}

void field_snapshots_free(field_snapshots *s, const problem *pb)
{
    for (int i = 0; i < s->n; i++)
        for (int k = 0; k < stencil_table[pb->s.stencil].nin; k++)
            xfree(s->state[i].p[k]);
    xfree(s->step);
    xfree(s->state);
    memset(s, 0, sizeof *s);
}

int field_write(const problem *pb, fieldset out, int uns, const field_write_opts *w,
                const char *path)
{
    user_order u;
    user_order_make(pb, &u);
    write_job j = {pb, &u, out, uns, w, NULL};
    mesh patch;
    memset(&patch, 0, sizeof patch);
    if (pb->mesh.ncells == u.ncells) { /* a mesh file's or the API's cells, in their order */
        j.m = &pb->mesh;
    } else if (!pb->mesh_path && (long)pb->s.nx * pb->s.ny == u.ncells) { /* y*nx + x */
        mesh_gen_spec g = {.kind = MESH_REGULAR, .nx = pb->s.nx, .ny = pb->s.ny, .nlevels = pb->s.nz};
        if (mesh_generate(&patch, &g) != 0) {
            user_order_free(&u);
            return -1;
        }
        j.m = &patch;
    }
    int rc = ncw_create(path, "the fields", write_all, &j);
    mesh_free(&patch);
    user_order_free(&u);
    return rc;
}

int field_output_check(const char *path)
{
    size_t len = strlen(path) + 1;
    char *dir = xalloc(len);
    memcpy(dir, path, len);
    char *slash = strrchr(dir, '/');
    if (!slash)
        strcpy(dir, ".");
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
    int rc = 0;
    if (access(dir, W_OK | X_OK) != 0) {
        perr("--output %s: cannot create a file in %s (does the directory exist and is it "
             "writable?)", path, dir);
        rc = -1;
    }
    xfree(dir);
    return rc;
}
