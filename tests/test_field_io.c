/* Field files: what field_write stores equals the CPU result bit for bit, in the user's cell order
 * (checked through the regular grid's arithmetic, not through field_io's own mapping), whatever
 * the layout, storage or grid; inputs read from a file reach both grids and give the stencil
 * results they must (laplap of x^4 + 2y^4 + z is 72 exactly); mesh runs use the file's rows; bad
 * files are refused and failed writes leave nothing behind.
 *
 * usage: test_field_io                      run the tests
 *        test_field_io --bad-files DIR      write the bad input files into DIR and list them as
 *                                           "name<TAB>expected message" (for field_io_cli.sh)
 *        test_field_io --same A B NAME...   exit 0 when datasets NAME... of files A and B have
 *                                           the same type, shape and bits, else 1
 *        test_field_io --iterate FILE T STENCIL PRECISION GRID [INPUT]
 *                                           exit 0 when FILE, written by 'pillar run --steps T
 *                                           --output FILE' on GRID (NXxNYxNZ, or a mesh file
 *                                           of a regular patch) from the generated inputs (or
 *                                           INPUT), holds the state T steps on the regular
 *                                           grid give, folded here, bit for bit */
#include "check.h"
#include "h5_put.h"
#include "scratch.h"
#include "src/exec/cpu_exec.h"
#include "src/exec/field_io.h"
#include "src/io/mesh_io.h"
#include "src/exec/runner.h"
#include "src/exec/verify.h"

#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- reading files back with plain HDF5 calls ---- */

typedef struct {
    int rank;
    hsize_t dims[2];
    hid_t ftype;  /* the stored type (close with H5Tclose) */
    size_t es;    /* bytes per value in memory (the stored type's native size) */
    char *values; /* all values, level-major */
} dataset;

static int dataset_load(const char *path, const char *name, dataset *ds)
{
    memset(ds, 0, sizeof *ds);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return -1;
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0) {
        H5Fclose(f);
        return -1;
    }
    hid_t sp = H5Dget_space(d);
    ds->rank = H5Sget_simple_extent_ndims(sp);
    H5Sget_simple_extent_dims(sp, ds->dims, NULL);
    ds->ftype = H5Dget_type(d);
    hid_t mt = H5Tget_native_type(ds->ftype, H5T_DIR_ASCEND);
    ds->es = H5Tget_size(mt);
    size_t n = (size_t)H5Sget_simple_extent_npoints(sp);
    ds->values = xalloc(ds->es * n);
    int rc = H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, ds->values) < 0 ? -1 : 0;
    H5Tclose(mt);
    H5Sclose(sp);
    H5Dclose(d);
    H5Fclose(f);
    return rc;
}

static void dataset_free(dataset *ds)
{
    if (ds->ftype > 0)
        H5Tclose(ds->ftype);
    xfree(ds->values);
    memset(ds, 0, sizeof *ds);
}

static int same_datasets(const dataset *a, const dataset *b)
{
    return a->rank == b->rank && a->dims[0] == b->dims[0] && a->dims[1] == b->dims[1] &&
           H5Tequal(a->ftype, b->ftype) > 0 &&
           !memcmp(a->values, b->values, a->es * a->dims[0] * a->dims[1]);
}

static long long attr_int(const char *path, const char *name)
{
    long long v = -1;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), a = H5Aopen(f, name, H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_LLONG, &v);
    H5Aclose(a);
    H5Fclose(f);
    return v;
}

/* Whether string attribute name of the file at path is want. */
static int attr_is(const char *path, const char *name, const char *want)
{
    char v[256] = "";
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), a = H5Aopen(f, name, H5P_DEFAULT);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, sizeof v);
    H5Aread(a, t, v);
    H5Tclose(t);
    H5Aclose(a);
    H5Fclose(f);
    return !strcmp(v, want);
}

static int is_chunked(const char *path, const char *name)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, name, H5P_DEFAULT);
    hid_t pl = H5Dget_create_plist(d);
    int chunked = H5Pget_layout(pl) == H5D_CHUNKED;
    H5Pclose(pl);
    H5Dclose(d);
    H5Fclose(f);
    return chunked;
}

/* ---- writing input files the way a user would ---- */

/* Writes dataset name (values given as doubles, converted to ftype) into the file at path, which
 * is created when create is set. */
static void put_dataset(const char *path, int create, const char *name, hid_t ftype, int rank,
                        const hsize_t *dims, const double *v)
{
    hid_t f = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)
                     : H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    hid_t d = H5Dcreate2(f, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d);
    H5Sclose(sp);
    H5Fclose(f);
}

static problem_spec spec_of(stencil_t st, precision_t p, int nx, int ny, int nz, layout_t l)
{
    problem_spec s = {st, p, nx, ny, nz, stencil_table[st].radius, l, 4, 42, 1, 0};
    return s;
}

/* ---- emulated grids: round trip, user order, independence of the layout ---- */

/* Checks every dataset of the file at path against pb's regular-grid fields: inputs from pb->twin->rf,
 * outputs from ref; points without output must be NaN. */
static void check_against_regular(const problem *pb, fieldset ref, const char *path)
{
    const problem_spec *s = &pb->s;
    const stencil_info *si = &stencil_table[s->stencil];
    int h = s->halo, zend = stencil_zend(s->stencil, s->nz);
    CHECK(attr_int(path, "pillar_fields_version") == FIELD_FORMAT_VERSION && attr_int(path, "nz") == s->nz &&
              attr_int(path, "ncells") == (long long)s->nx * s->ny &&
              attr_int(path, "nx") == s->nx && attr_int(path, "ny") == s->ny &&
              attr_is(path, "stencil", si->name) && attr_is(path, "precision", prec_name(s->prec)) &&
              attr_is(path, "flags", "test_field_io"),
          "%s: attributes", path);
    for (int k = 0; k < pb->nf; k++) {
        dataset ds;
        if (dataset_load(path, si->field[k], &ds) != 0) {
            CHECK(0, "%s: dataset %s could not be read", path, si->field[k]);
            continue;
        }
        hid_t want = s->prec == PREC_FLOAT ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
        CHECK(ds.rank == 2 && ds.dims[0] == (hsize_t)s->nz &&
                  ds.dims[1] == (hsize_t)s->nx * s->ny && H5Tequal(ds.ftype, want) > 0,
              "%s: %s has the wrong rank, shape or type", path, si->field[k]);
        CHECK(is_chunked(path, si->field[k]), "%s: %s is not chunked", path, si->field[k]);
        const void *src = k < si->nin ? pb->twin->rf.p[k] : ref.p[k];
        long bad = 0;
        for (int z = 0; z < s->nz && ds.rank == 2; z++)
            for (int y = 0; y < s->ny; y++)
                for (int x = 0; x < s->nx; x++) {
                    size_t at = (size_t)z * (size_t)s->nx * s->ny + (size_t)y * s->nx + x;
                    int computed = x >= h && x < s->nx - h && y >= h && y < s->ny - h && z < zend;
                    if (k >= si->nin && !computed)
                        bad += !isnan(field_get(s->prec, ds.values, at));
                    else
                        bad += !field_same_bits(s->prec, ds.values, at, src,
                                                (size_t)rgrid_index(&pb->twin->rg, x, y, z));
                }
        CHECK(bad == 0, "%s: %s: %ld values differ from the CPU result", path, si->field[k], bad);
        dataset_free(&ds);
    }
}

/* Every dataset of file b equals file a's, bit for bit. */
static void check_same_files(const problem *pb, const char *a, const char *b, const char *what)
{
    for (int k = 0; k < pb->nf; k++) {
        const char *name = stencil_table[pb->s.stencil].field[k];
        dataset da = {0}, db = {0};
        int ok = dataset_load(a, name, &da) == 0 && dataset_load(b, name, &db) == 0 &&
                 same_datasets(&da, &db);
        CHECK(ok, "%s: dataset %s differs from the first layout's", what, name);
        dataset_free(&da);
        dataset_free(&db);
    }
}

static void test_round_trip(void)
{
    static const layout_t layouts[] = {LAYOUT_ROWMAJOR, LAYOUT_ZCURVE, LAYOUT_ZCURVE_W,
                                       LAYOUT_RANDOM};
    field_write_opts w = {1, "test_field_io", 0, 0, NULL};
    for (int st = 0; st < ST_QUAD_COUNT; st++) /* graphlap has no regular twin: see mesh tests */
        for (int p = 0; p < 2; p++) {
            char first[512], other[512], regular[512];
            snprintf(first, sizeof first, "%s", tmpname("first.h5"));
            snprintf(other, sizeof other, "%s", tmpname("other.h5"));
            snprintf(regular, sizeof regular, "%s", tmpname("regular.h5"));
            for (int li = 0; li < 4; li++)
                for (int chasing = 0; chasing < 2; chasing++) {
                    problem_spec s = spec_of((stencil_t)st, (precision_t)p, 23, 19, 5, layouts[li]);
                    s.chasing = chasing;
                    problem pb;
                    if (problem_make(&pb, &s) != 0) {
                        CHECK(0, "problem_make");
                        continue;
                    }
                    fieldset ref = runner_outputs(&pb, 0), out = runner_outputs(&pb, 1);
                    cpu_run_regular(&pb, ref);
                    cpu_run_unstructured(&pb, out);
                    char what[128];
                    snprintf(what, sizeof what, "%s %s %s %s", stencil_table[st].name,
                             prec_name(s.prec), layout_name[s.layout],
                             chasing ? "chasing" : "nonchasing");
                    const char *path = li == 0 && !chasing ? first : other;
                    CHECK(field_write(&pb, out, 1, &w, path) == 0, "%s: field_write", what);
                    check_against_regular(&pb, ref, path);
                    if (path != first)
                        check_same_files(&pb, first, path, what);
                    /* the regular twin's result (--grid regular) gives the same file */
                    CHECK(field_write(&pb, ref, 0, &w, regular) == 0, "%s: regular", what);
                    check_same_files(&pb, first, regular, what);
                    runner_free_outputs(&pb, &out);
                    runner_free_outputs(&pb, &ref);
                    problem_free(&pb);
                }
        }
}

/* ---- inputs from a file ---- */

/* laplap of in = x^4 + 2y^4 + z is 24 + 2*24 = 72 at every inner point, exactly in both
 * precisions; and a file stored as double is converted for a float run. */
static void test_known_input(void)
{
    for (int p = 0; p < 2; p++)
        for (layout_t l = LAYOUT_ROWMAJOR; l < LAYOUT_COUNT; l++) {
            int nx = 21, ny = 17, nz = 3;
            double *v = xalloc(sizeof(double) * (size_t)nx * ny * nz);
            for (int z = 0; z < nz; z++)
                for (int y = 0; y < ny; y++)
                    for (int x = 0; x < nx; x++)
                        v[((size_t)z * ny + y) * nx + x] =
                            pow(x, 4) + 2 * pow(y, 4) + z;
            hsize_t dims[2] = {(hsize_t)nz, (hsize_t)nx * ny};
            put_dataset(tmpname("in.h5"), 1, "in", H5T_IEEE_F64LE, 2, dims, v);
            xfree(v);
            if (p == 1) { /* a file of version 1 (plain HDF5, no dimensions) reads as well */
                hid_t f = H5Fopen(tmpname("in.h5"), H5F_ACC_RDWR, H5P_DEFAULT);
                put_attr(f, "pillar_fields_version", 1);
                H5Fclose(f);
            }

            problem_spec s = spec_of(ST_LAPLAP, (precision_t)p, nx, ny, nz, l);
            problem pb;
            CHECK(problem_make(&pb, &s) == 0, "problem_make");
            CHECK(field_read_inputs(&pb, tmpname("in.h5")) == 0, "field_read_inputs");
            /* the value of (x, y, z) landed at (x, y) of both grids */
            int placed = 1;
            for (int c = 0; c < pb.ug.nxy; c++) {
                int x = pb.ug.cx[c], y = pb.ug.cy[c];
                double want = pow(x, 4) + 2 * pow(y, 4) + 2;
                placed &= field_get(s.prec, pb.uf.p[0], (size_t)c + 2 * (size_t)pb.ug.zstride) ==
                              want &&
                          field_get(s.prec, pb.twin->rf.p[0], (size_t)rgrid_index(&pb.twin->rg, x, y, 2)) ==
                              want;
            }
            CHECK(placed, "%s %s: inputs not at their (x, y)", prec_name(s.prec), layout_name[l]);

            fieldset ref = runner_outputs(&pb, 0), out = runner_outputs(&pb, 1);
            cpu_run_regular(&pb, ref);
            cpu_run_unstructured(&pb, out);
            verify_result vr = verify_compare(&pb, out, 1, ref, 0);
            CHECK(vr.differ == 0 && vr.unwritten == 0, "unstructured != regular after --input");
            field_write_opts w = {0, NULL, 0, 0, NULL};
            CHECK(field_write(&pb, out, 1, &w, tmpname("out.h5")) == 0, "field_write");
            dataset ds;
            CHECK(dataset_load(tmpname("out.h5"), "out", &ds) == 0, "read back");
            long not72 = 0, nan = 0;
            for (size_t i = 0; i < (size_t)nx * ny * nz; i++) {
                int x = (int)(i % nx), y = (int)(i / nx % ny);
                if (x >= 2 && x < nx - 2 && y >= 2 && y < ny - 2)
                    not72 += field_get(s.prec, ds.values, i) != 72.0;
                else
                    nan += isnan(field_get(s.prec, ds.values, i));
            }
            CHECK(not72 == 0, "%s %s: %ld inner outputs are not 72", prec_name(s.prec),
                  layout_name[l], not72);
            CHECK(nan == (long)nz * (nx * ny - (nx - 4) * (ny - 4)), "halo outputs are not NaN");
            dataset_free(&ds);
            runner_free_outputs(&pb, &out);
            runner_free_outputs(&pb, &ref);
            problem_free(&pb);
        }
}

/* ---- meshes: the file's rows ---- */

/* A shuffled patch in METIS order: row i of every dataset is the mesh's cell i, whose regular
 * twin's result sits at its /patch_xy position. */
static void test_mesh_patch(void)
{
    mesh m;
    mesh_gen_spec g = {MESH_SHUFFLED, 30, 20, 0, 4, 16, 3, 0, 0};
    CHECK(mesh_generate(&m, &g) == 0 && mesh_write(tmpname("patch.h5"), &m) == 0, "mesh");
    problem_spec s = spec_of(ST_HDIFF, PREC_DOUBLE, 0, 0, 0, LAYOUT_ROWMAJOR);
    problem pb;
    CHECK(problem_make_mesh(&pb, &s, tmpname("patch.h5"), MESH_ORDER_METIS) == 0,
          "problem_make_mesh");
    fieldset ref = runner_outputs(&pb, 0), out = runner_outputs(&pb, 1);
    cpu_run_regular(&pb, ref);
    cpu_run_unstructured(&pb, out);
    field_write_opts w = {0, NULL, 0, 0, NULL};
    CHECK(field_write(&pb, out, 1, &w, tmpname("mout.h5")) == 0, "field_write");
    dataset ds;
    CHECK(dataset_load(tmpname("mout.h5"), "out", &ds) == 0 && ds.dims[0] == 4 &&
              ds.dims[1] == 600,
          "mesh output shape");
    long bad = 0;
    for (int z = 0; z < 4 && ds.values; z++)
        for (int i = 0; i < m.ncells; i++) {
            int x = m.xy[2 * i], y = m.xy[2 * i + 1];
            size_t at = (size_t)z * m.ncells + i;
            if (x >= 2 && x < 28 && y >= 2 && y < 18)
                bad += !field_same_bits(s.prec, ds.values, at, ref.p[2],
                                        (size_t)rgrid_index(&pb.twin->rg, x, y, z));
            else
                bad += !isnan(field_get(s.prec, ds.values, at));
        }
    CHECK(bad == 0, "mesh patch: %ld values not in the file's row order", bad);
    dataset_free(&ds);
    runner_free_outputs(&pb, &out);
    runner_free_outputs(&pb, &ref);
    problem_free(&pb);
    mesh_free(&m);
}

/* A cubed sphere (no regular twin, no halo): inputs by row reach the cells of those rows, and
 * outputs come back by row. */
static void test_mesh_sphere(void)
{
    mesh m;
    CHECK(mesh_gen_cubed_sphere(&m, 6, 3) == 0 && mesh_write(tmpname("sphere.h5"), &m) == 0,
          "mesh");
    int n = m.ncells;
    double *v = xalloc(sizeof(double) * 3 * (size_t)n);
    for (int i = 0; i < 3 * n; i++)
        v[i] = sin(0.37 * i);
    hsize_t dims[2] = {3, (hsize_t)n};
    put_dataset(tmpname("sin.h5"), 1, "in", H5T_IEEE_F64LE, 2, dims, v);
    problem_spec s = spec_of(ST_LAPLAP, PREC_DOUBLE, 0, 0, 0, LAYOUT_ROWMAJOR);
    problem pb;
    CHECK(problem_make_mesh(&pb, &s, tmpname("sphere.h5"), MESH_ORDER_METIS) == 0,
          "problem_make_mesh");
    CHECK(field_read_inputs(&pb, tmpname("sin.h5")) == 0, "field_read_inputs");
    long misplaced = 0;
    for (int z = 0; z < 3; z++)
        for (int c = 0; c < n; c++)
            misplaced += ((double *)pb.uf.p[0])[c + z * pb.ug.zstride] !=
                         v[(size_t)z * n + pb.ug.mesh_cell[c]];
    CHECK(misplaced == 0, "sphere: %ld inputs not at their row's cell", misplaced);
    fieldset out = runner_outputs(&pb, 1);
    cpu_run_unstructured(&pb, out);
    field_write_opts w = {1, NULL, 0, 0, NULL};
    CHECK(field_write(&pb, out, 1, &w, tmpname("sout.h5")) == 0, "field_write");
    dataset din, dout;
    CHECK(dataset_load(tmpname("sout.h5"), "in", &din) == 0 &&
              !memcmp(din.values, v, sizeof(double) * 3 * (size_t)n),
          "sphere: the inputs written back differ from the file read");
    CHECK(dataset_load(tmpname("sout.h5"), "out", &dout) == 0, "read back");
    long bad = 0;
    for (int z = 0; z < 3 && dout.values; z++)
        for (int c = 0; c < n; c++)
            bad += !field_same_bits(s.prec, dout.values, (size_t)z * n + pb.ug.mesh_cell[c],
                                    out.p[1], c + z * pb.ug.zstride);
    CHECK(bad == 0, "sphere: %ld outputs not in the file's row order", bad);
    CHECK(attr_int(tmpname("sout.h5"), "ncells") == n, "sphere: ncells attribute");
    dataset_free(&din);
    dataset_free(&dout);
    xfree(v);
    runner_free_outputs(&pb, &out);
    problem_free(&pb);
    mesh_free(&m);
}

/* ---- bad files ---- */

/* For an hdiff run of 16x12x3 (192 cells): each file is refused with the message given. */
#define BAD_NZ 3
#define BAD_NCELLS 192

typedef struct {
    const char *name, *needle;
} bad_file;

static const bad_file bad_files[] = {
    {"missing.h5", "dataset /coeff is missing"},
    {"rank1.h5", "dataset /in has rank 1; expected 2"},
    {"shape.h5", "dataset /in has shape [3][100]; expected [3][192]"},
    {"transposed.h5", "dataset /in has shape [192][3]; expected [3][192]"},
    {"integer.h5", "dataset /in has an integer type"},
    {"group.h5", "/in is not a dataset"},
    {"nan.h5", "dataset /coeff: the value at [1][5] is nan"},
    {"inf.h5", "dataset /in: the value at [2][191] is inf"},
    {"version.h5", "pillar_fields_version = 3: this pillar reads versions 1 to 2"},
    {"text.h5", "not an HDF5 file"},
};
#define NBAD (sizeof bad_files / sizeof bad_files[0])

static void write_bad_file(const char *d, int which)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", d, bad_files[which].name);
    const char *name = bad_files[which].name;
    double *v = xalloc(sizeof(double) * BAD_NZ * BAD_NCELLS);
    for (int i = 0; i < BAD_NZ * BAD_NCELLS; i++)
        v[i] = 0.5;
    hsize_t good[2] = {BAD_NZ, BAD_NCELLS};
    if (!strcmp(name, "text.h5")) {
        FILE *f = fopen(path, "w");
        fputs("not hdf5\n", f);
        fclose(f);
    } else if (!strcmp(name, "rank1.h5")) {
        hsize_t n = BAD_NZ * BAD_NCELLS;
        put_dataset(path, 1, "in", H5T_IEEE_F64LE, 1, &n, v);
    } else if (!strcmp(name, "shape.h5")) {
        hsize_t dims[2] = {BAD_NZ, 100};
        put_dataset(path, 1, "in", H5T_IEEE_F64LE, 2, dims, v);
    } else if (!strcmp(name, "transposed.h5")) {
        hsize_t dims[2] = {BAD_NCELLS, BAD_NZ};
        put_dataset(path, 1, "in", H5T_IEEE_F64LE, 2, dims, v);
    } else if (!strcmp(name, "integer.h5")) {
        put_dataset(path, 1, "in", H5T_STD_I32LE, 2, good, v);
    } else if (!strcmp(name, "group.h5")) {
        hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        H5Gclose(H5Gcreate2(f, "in", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        H5Fclose(f);
    } else {
        if (!strcmp(name, "inf.h5"))
            v[2 * BAD_NCELLS + 191] = INFINITY;
        put_dataset(path, 1, "in", H5T_IEEE_F32LE, 2, good, v);
        if (!strcmp(name, "nan.h5"))
            v[BAD_NCELLS + 5] = NAN;
        if (strcmp(name, "missing.h5"))
            put_dataset(path, 0, "coeff", H5T_IEEE_F64LE, 2, good, v);
        if (!strcmp(name, "version.h5")) {
            hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT), sp = H5Screate(H5S_SCALAR);
            hid_t a = H5Acreate2(f, "pillar_fields_version", H5T_STD_I32LE, sp, H5P_DEFAULT,
                                 H5P_DEFAULT);
            int unknown = FIELD_FORMAT_VERSION + 1;
            H5Awrite(a, H5T_NATIVE_INT, &unknown);
            H5Aclose(a);
            H5Sclose(sp);
            H5Fclose(f);
        }
    }
    xfree(v);
}

static void test_bad_files(void)
{
    problem_spec s = spec_of(ST_HDIFF, PREC_DOUBLE, 16, 12, BAD_NZ, LAYOUT_ZCURVE);
    problem pb;
    CHECK(problem_make(&pb, &s) == 0, "problem_make");
    for (size_t i = 0; i < NBAD; i++) {
        write_bad_file(dir, (int)i);
        CHECK(field_read_inputs(&pb, tmpname(bad_files[i].name)) != 0, "%s was accepted",
              bad_files[i].name);
    }
    CHECK(field_read_inputs(&pb, tmpname("none.h5")) != 0, "a missing file was accepted");
    /* a value beyond float's range is refused for a float run, accepted for a double one */
    double *v = xalloc(sizeof(double) * BAD_NZ * BAD_NCELLS);
    v[7] = 1e300;
    hsize_t dims[2] = {BAD_NZ, BAD_NCELLS};
    put_dataset(tmpname("big.h5"), 1, "in", H5T_IEEE_F64LE, 2, dims, v);
    put_dataset(tmpname("big.h5"), 0, "coeff", H5T_IEEE_F64LE, 2, dims, v);
    CHECK(field_read_inputs(&pb, tmpname("big.h5")) == 0, "1e300 refused for double");
    problem_free(&pb);
    s.prec = PREC_FLOAT;
    CHECK(problem_make(&pb, &s) == 0, "problem_make");
    CHECK(field_read_inputs(&pb, tmpname("big.h5")) != 0, "1e300 accepted for float");
    xfree(v);

    /* a failed write leaves nothing; the early check refuses the same path */
    fieldset out = runner_outputs(&pb, 1);
    cpu_run_unstructured(&pb, out);
    field_write_opts w = {0, NULL, 0, 0, NULL};
    CHECK(field_write(&pb, out, 1, &w, tmpname("no-such-dir/f.h5")) != 0, "write into nothing");
    CHECK(field_output_check(tmpname("no-such-dir/f.h5")) != 0, "output check of a bad path");
    CHECK(field_output_check(tmpname("f.h5")) == 0 && field_output_check("f.h5") == 0,
          "output check of good paths");
    CHECK(access(tmpname("no-such-dir"), F_OK) != 0, "something was created");
    runner_free_outputs(&pb, &out);
    problem_free(&pb);
}

/* ---- modes for field_io_cli.sh ---- */

static int list_bad_files(const char *d)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    for (size_t i = 0; i < NBAD; i++) {
        write_bad_file(d, (int)i);
        printf("%s\t%s\n", bad_files[i].name, bad_files[i].needle);
    }
    return 0;
}

static int compare_files(int argc, char **argv)
{
    int differ = 0;
    for (int i = 2; i < argc; i++) {
        dataset a = {0}, b = {0};
        int ok = dataset_load(argv[0], argv[i], &a) == 0 && dataset_load(argv[1], argv[i], &b) == 0 &&
                 same_datasets(&a, &b);
        if (!ok) {
            fprintf(stderr, "dataset %s differs between %s and %s (or is missing)\n", argv[i],
                    argv[0], argv[1]);
            differ = 1;
        }
        dataset_free(&a);
        dataset_free(&b);
    }
    return differ;
}

/* ---- iterated runs: the state 'pillar run --steps T --output' wrote, against T steps on the
 * regular grid (cpu_run_regular) with the fold of docs/out-of-core.md done here ---- */

/* One step's fold at the inner points of the regular grid: laplap in -= out/64, hdiff in = out,
 * fastwaves u_pos, v_pos = u_out, v_out, lap in -= out/8 (field numbers: inputs first, then
 * outputs; rows in the order of stencils/registry.h). */
static void fold_regular(const problem *pb, fieldset f)
{
    static const int carried[ST_QUAD_COUNT][2][2] = {{{0, 1}, {-1, -1}}, {{0, 2}, {-1, -1}},
                                                     {{0, 9}, {1, 10}}, {{0, 1}, {-1, -1}}};
    const problem_spec *s = &pb->s;
    int h = s->halo, zend = stencil_zend(s->stencil, s->nz);
    for (int j = 0; j < 2 && carried[s->stencil][j][0] >= 0; j++) {
        void *state = f.p[carried[s->stencil][j][0]];
        const void *out = f.p[carried[s->stencil][j][1]];
        for (int z = 0; z < zend; z++)
            for (int y = h; y < s->ny - h; y++)
                for (int x = h; x < s->nx - h; x++) {
                    size_t i = (size_t)rgrid_index(&pb->twin->rg, x, y, z);
                    /* the folds of docs/stencils.md: laplap damps by 1/64, lap by 1/8 */
                    int div = s->stencil == ST_LAPLAP ? 64 : s->stencil == ST_LAP ? 8 : 0;
                    if (!div)
                        field_set(s->prec, state, i, field_get(s->prec, out, i));
                    else if (s->prec == PREC_FLOAT)
                        ((float *)state)[i] = ((float *)state)[i] - ((const float *)out)[i] / (float)div;
                    else
                        ((double *)state)[i] = ((double *)state)[i] - ((const double *)out)[i] / (double)div;
                }
    }
}

static int check_iterated(int argc, char **argv)
{
    const char *path = argv[0], *grid = argv[4], *input = argc > 5 ? argv[5] : NULL;
    int steps = atoi(argv[1]), nx = 0, ny = 0, nz = 0, is_mesh = strstr(grid, ".h5") != NULL;
    stencil_t st;
    if (stencil_parse(argv[2], &st) != 0 || (int)st >= (int)ST_QUAD_COUNT ||
        (!is_mesh && sscanf(grid, "%dx%dx%d", &nx, &ny, &nz) != 3)) {
        fprintf(stderr, "--iterate: bad arguments\n");
        return 2;
    }
    problem_spec s = {st, strcmp(argv[3], "float") ? PREC_DOUBLE : PREC_FLOAT, nx, ny, nz, 2,
                      LAYOUT_ROWMAJOR, 32, 42, 1, 0};
    problem pb;
    if ((is_mesh ? problem_make_mesh(&pb, &s, grid, MESH_ORDER_FILE) : problem_make(&pb, &s)) != 0)
        return 2;
    if (!problem_has_regular(&pb) || (input && field_read_inputs(&pb, input) != 0)) {
        fprintf(stderr, "--iterate: no regular twin, or %s unreadable\n", input);
        problem_free(&pb);
        return 2;
    }
    fieldset f = runner_outputs(&pb, 0); /* its inputs are pb.twin->rf's: the state */
    for (int t = 0; t < steps; t++) {
        cpu_run_regular(&pb, f);
        fold_regular(&pb, f);
    }
    const stencil_info *si = &stencil_table[st];
    int ncells = is_mesh ? pb.mesh.ncells : nx * ny, bad = attr_int(path, "steps") != steps;
    if (bad)
        fprintf(stderr, "%s: attribute steps is not %d\n", path, steps);
    for (int k = 0; k < pb.nf; k++) {
        dataset ds;
        if (k >= si->nin) { /* an iterated run writes its state only */
            if (dataset_load(path, si->field[k], &ds) == 0) {
                fprintf(stderr, "%s: holds output dataset %s\n", path, si->field[k]);
                bad++;
            }
            dataset_free(&ds);
            continue;
        }
        if (dataset_load(path, si->field[k], &ds) != 0 || ds.dims[0] != (hsize_t)pb.s.nz ||
            ds.dims[1] != (hsize_t)ncells) {
            fprintf(stderr, "%s: dataset %s missing or of the wrong shape\n", path, si->field[k]);
            dataset_free(&ds);
            bad++;
            continue;
        }
        long differ = 0;
        for (int z = 0; z < pb.s.nz; z++)
            for (int i = 0; i < ncells; i++) {
                int x = is_mesh ? pb.mesh.xy[2 * i] : i % nx, y = is_mesh ? pb.mesh.xy[2 * i + 1] : i / nx;
                differ += !field_same_bits(pb.s.prec, ds.values, (size_t)z * ncells + i, f.p[k],
                                           (size_t)rgrid_index(&pb.twin->rg, x, y, z));
            }
        if (differ)
            fprintf(stderr, "%s: %s: %ld of %ld values differ from %d steps on the regular grid\n",
                    path, si->field[k], differ, (long)pb.s.nz * ncells, steps);
        bad += differ != 0;
        dataset_free(&ds);
    }
    runner_free_outputs(&pb, &f);
    problem_free(&pb);
    return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--bad-files"))
        return list_bad_files(argv[2]);
    if (argc >= 5 && !strcmp(argv[1], "--same"))
        return compare_files(argc - 2, argv + 2);
    if ((argc == 7 || argc == 8) && !strcmp(argv[1], "--iterate")) {
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        return check_iterated(argc - 2, argv + 2);
    }
    if (scratch_open("field-io", NULL) != 0)
        return 1;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    test_round_trip();
    test_known_input();
    test_mesh_patch();
    test_mesh_sphere();
    test_bad_files();
    scratch_remove();
    return check_done("test_field_io");
}
