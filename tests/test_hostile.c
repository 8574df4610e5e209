/* Hostile files: HDF5 inputs built to slip past a reader that trusts the library's conversions
 * or follows data into other files. Each is written by this program (nothing committed), and
 * each must be refused with a message naming what is wrong — never loaded, never echoing a byte
 * of a file the user did not name, never blocking.
 *
 *   test_hostile            writes the files into a scratch directory and checks the readers
 *   test_hostile --make DIR writes them into DIR (tests/hostile_cli.sh runs pillar on them)
 *   test_hostile --write-fields PATH
 *                           writes a lap run's fields to PATH through the C API, on a full disk
 *                           (tests/hostile_cli.sh mounts a 16 KB tmpfs): pillar_write_fields must
 *                           fail saying so, leave nothing, and the program then exits 0 (libhdf5
 *                           once crashed in its exit handler, the file left open)
 *
 * The files (a 4x4 regular patch as the quad mesh unless said):
 *   mesh-u64be.h5 / mesh-u64le.h5  /neighbours as unsigned 64-bit big / little endian holding
 *                                  2^64 - 1 in one row (HDF5 would convert it to -1 or clamp it)
 *   mesh-i8.h5                     /neighbours as signed 8-bit: small types are fine (loads)
 *   mesh-nlevels-u64.h5            attribute nlevels unsigned 64-bit 2^64 - 1
 *   mesh-nlevels-huge.h5           nlevels = 2^31 - 1
 *   mesh-extstore.h5               /neighbours stored in secret.bin (external storage)
 *   mesh-extlink.h5                /neighbours an external link into other.h5
 *   mesh-extlink-fifo.h5           /neighbours an external link into fifo.h5 (made by the CLI
 *                                  test with mkfifo: following it would block)
 *   mesh-float128.h5               /coordinates as a 128-bit float
 *   icon-u64.nc                    neighbor_cell_index unsigned 64-bit holding 2^64 - 1
 *   icon-ok.nc                     a valid ICON file (a ring of triangles), the fuzzers' seed
 *   fields-extstore.h5             a field file whose /in lives in secret.bin
 *   mesh-bomb.h5 / icon-bomb.nc    a neighbour table declaring 2*10^7 rows that are never written
 *                                  (a few KB of file; reading it would allocate 640 MB)
 *   mesh-zbomb.h5 / icon-zbomb.nc  datasets of zeros, deflated, each under 64 MiB once read but
 *                                  together about 100 MB from a file of about 100 KB
 *   secret.bin                     the bytes "SECRET-BYTES..." that must never be printed */
#include "../include/pillar.h"
#include "check.h"
#include "h5_put.h"
#include "scratch.h"
#include "src/exec/field_io.h"
#include "src/io/h5_util.h"
#include "src/io/mesh_import.h"
#include "src/io/mesh_io.h"
#include "src/exec/problem.h"

#include <stdint.h>
#include <string.h>

#define N 16 /* cells of the 4x4 patch */

static const char secret[] = "SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-"
                             "SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-"
                             "SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-"
                             "SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-"
                             "SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-"
                             "SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-"
                             "SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-"
                             "SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-SECRET-BYTES-";

/* W, E, S, N of the 4x4 patch, row-major, -1 off the patch. */
static void patch(long long nb[N][4])
{
    for (int c = 0; c < N; c++) {
        int x = c % 4, y = c / 4;
        nb[c][0] = x > 0 ? c - 1 : -1;
        nb[c][1] = x < 3 ? c + 1 : -1;
        nb[c][2] = y > 0 ? c - 4 : -1;
        nb[c][3] = y < 3 ? c + 4 : -1;
    }
}

static void put_attr_type(hid_t f, const char *name, hid_t ftype, hid_t mtype, const void *v)
{
    hid_t sp = H5Screate(H5S_SCALAR), a = H5Acreate2(f, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, mtype, v);
    H5Aclose(a);
    H5Sclose(sp);
}

/* Dataset `name` [rows][cols] stored as ftype, written from memory type mtype. */
static void put_typed(hid_t f, const char *name, hid_t ftype, hid_t mtype, hsize_t rows,
                      hsize_t cols, const void *v)
{
    hsize_t dims[2] = {rows, cols};
    hid_t sp = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(f, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d);
    H5Sclose(sp);
}

/* A mesh file header: version 2, nlevels (an int), then the caller adds datasets. */
static hid_t mesh_file(const char *dir, const char *name, int nlevels)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    put_attr(f, "pillar_mesh_version", 2);
    if (nlevels > 0)
        put_attr(f, "nlevels", nlevels);
    return f;
}

/* /neighbours of the patch stored as ftype; row 5 column 1 set to `poison` when not 0 (written
 * through an unsigned memory type, so the stored bits are exactly the poison). */
static void put_neighbours(hid_t f, hid_t ftype, unsigned long long poison)
{
    long long nb[N][4];
    patch(nb);
    if (!poison) {
        put_typed(f, "/neighbours", ftype, H5T_NATIVE_LLONG, N, 4, nb);
        return;
    }
    unsigned long long u[N][4];
    for (int c = 0; c < N; c++)
        for (int j = 0; j < 4; j++)
            u[c][j] = nb[c][j] < 0 ? 0 : (unsigned long long)nb[c][j];
    u[5][1] = poison;
    put_typed(f, "/neighbours", ftype, H5T_NATIVE_ULLONG, N, 4, u);
}

/* Dataset `name` [rows][cols] of ftype whose raw data lives in dir/secret.bin. */
static void put_external(hid_t f, const char *name, hid_t ftype, hsize_t rows, hsize_t cols)
{
    hsize_t dims[2] = {rows, cols};
    hid_t sp = H5Screate_simple(2, dims, NULL), pl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_external(pl, "secret.bin", 0, (hsize_t)sizeof secret);
    hid_t d = H5Dcreate2(f, name, ftype, sp, H5P_DEFAULT, pl, H5P_DEFAULT);
    H5Dclose(d);
    H5Pclose(pl);
    H5Sclose(sp);
}

/* Dataset name of rows x cols (cols 0: rank 1) zeros stored as type, chunked and deflated. */
static void put_zeros(hid_t f, const char *name, hid_t type, hsize_t rows, hsize_t cols)
{
    hsize_t dims[2] = {rows, cols}, chunk[2] = {rows < 65536 ? rows : 65536, cols};
    int rank = cols ? 2 : 1;
    hid_t sp = H5Screate_simple(rank, dims, NULL), pl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(pl, rank, chunk);
    H5Pset_deflate(pl, 9);
    void *zeros = calloc((size_t)rows * (cols ? (size_t)cols : 1), 8);
    hid_t d = H5Dcreate2(f, name, type, sp, H5P_DEFAULT, pl, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE == type ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT, H5S_ALL, H5S_ALL,
             H5P_DEFAULT, zeros);
    free(zeros);
    H5Dclose(d);
    H5Pclose(pl);
    H5Sclose(sp);
}

static void make_all(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/secret.bin", dir);
    FILE *s = fopen(path, "wb");
    fwrite(secret, 1, sizeof secret, s);
    fclose(s);

    hid_t f = mesh_file(dir, "mesh-u64be.h5", 4);
    put_neighbours(f, H5T_STD_U64BE, UINT64_MAX);
    H5Fclose(f);
    f = mesh_file(dir, "mesh-u64le.h5", 4);
    put_neighbours(f, H5T_STD_U64LE, UINT64_MAX);
    H5Fclose(f);
    f = mesh_file(dir, "mesh-i8.h5", 4);
    put_neighbours(f, H5T_STD_I8BE, 0);
    H5Fclose(f);

    f = mesh_file(dir, "mesh-nlevels-u64.h5", 0);
    unsigned long long big = UINT64_MAX;
    put_attr_type(f, "nlevels", H5T_STD_U64BE, H5T_NATIVE_ULLONG, &big);
    put_neighbours(f, H5T_STD_I32LE, 0);
    H5Fclose(f);
    f = mesh_file(dir, "mesh-nlevels-huge.h5", 2147483647);
    put_neighbours(f, H5T_STD_I32LE, 0);
    H5Fclose(f);

    f = mesh_file(dir, "mesh-extstore.h5", 4);
    put_external(f, "/neighbours", H5T_STD_I32LE, N, 4);
    H5Fclose(f);

    f = mesh_file(dir, "other.h5", 4);
    put_neighbours(f, H5T_STD_I32LE, 0);
    H5Fclose(f);
    f = mesh_file(dir, "mesh-extlink.h5", 4);
    H5Lcreate_external("other.h5", "/neighbours", f, "/neighbours", H5P_DEFAULT, H5P_DEFAULT);
    H5Fclose(f);
    f = mesh_file(dir, "mesh-extlink-fifo.h5", 4);
    H5Lcreate_external("fifo.h5", "/neighbours", f, "/neighbours", H5P_DEFAULT, H5P_DEFAULT);
    H5Fclose(f);

    f = mesh_file(dir, "mesh-float128.h5", 4);
    put_neighbours(f, H5T_STD_I32LE, 0);
    hid_t t = H5Tcopy(H5T_IEEE_F64LE);
    H5Tset_fields(t, 127, 112, 15, 0, 112);
    H5Tset_size(t, 16);
    H5Tset_ebias(t, 16383);
    double xy[N][2] = {{0}};
    put_typed(f, "/coordinates", t, H5T_NATIVE_DOUBLE, N, 2, xy);
    H5Tclose(t);
    H5Fclose(f);

    snprintf(path, sizeof path, "%s/icon-u64.nc", dir);
    f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    unsigned long long idx[3][N];
    double lon[N], lat[N];
    for (int c = 0; c < N; c++) {
        for (int j = 0; j < 3; j++)
            idx[j][c] = (unsigned long long)((c + j + 1) % N + 1);
        lon[c] = 0.1 * c;
        lat[c] = 0.05 * c - 0.4;
    }
    idx[2][7] = UINT64_MAX;
    put_typed(f, "neighbor_cell_index", H5T_STD_U64BE, H5T_NATIVE_ULLONG, 3, N, idx);
    put_data(f, "clon", H5T_NATIVE_DOUBLE, 1, N, 0, lon);
    put_data(f, "clat", H5T_NATIVE_DOUBLE, 1, N, 0, lat);
    H5Fclose(f);

    /* a valid ICON file (a ring of triangles: neighbours c - 1 and c + 1, the third edge on the
     * boundary), the fuzzers' seed */
    snprintf(path, sizeof path, "%s/icon-ok.nc", dir);
    f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    for (int c = 0; c < N; c++) {
        idx[0][c] = (unsigned long long)((c + N - 1) % N + 1);
        idx[1][c] = (unsigned long long)((c + 1) % N + 1);
        idx[2][c] = 0;
    }
    put_typed(f, "neighbor_cell_index", H5T_STD_I32LE, H5T_NATIVE_ULLONG, 3, N, idx);
    put_data(f, "clon", H5T_NATIVE_DOUBLE, 1, N, 0, lon);
    put_data(f, "clat", H5T_NATIVE_DOUBLE, 1, N, 0, lat);
    H5Fclose(f);

    /* declared, chunked, never written: no storage at all */
    hsize_t bdims[2] = {20000000, 4}, chunk[2] = {65536, 4};
    hid_t bsp = H5Screate_simple(2, bdims, NULL), bpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(bpl, 2, chunk);
    f = mesh_file(dir, "mesh-bomb.h5", 4);
    H5Dclose(H5Dcreate2(f, "/neighbours", H5T_STD_I32LE, bsp, H5P_DEFAULT, bpl, H5P_DEFAULT));
    H5Fclose(f);
    snprintf(path, sizeof path, "%s/icon-bomb.nc", dir);
    f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t ibig[2] = {3, 30000000}, ichunk[2] = {3, 65536};
    hid_t isp = H5Screate_simple(2, ibig, NULL), ipl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(ipl, 2, ichunk);
    H5Dclose(H5Dcreate2(f, "neighbor_cell_index", H5T_STD_I32LE, isp, H5P_DEFAULT, ipl, H5P_DEFAULT));
    H5Fclose(f);
    H5Pclose(ipl);
    H5Sclose(isp);
    H5Pclose(bpl);
    H5Sclose(bsp);

    f = mesh_file(dir, "mesh-zbomb.h5", 4);
    put_zeros(f, "/neighbours", H5T_STD_I32LE, 2000000, 4);
    put_zeros(f, "/coordinates", H5T_NATIVE_DOUBLE, 2000000, 2);
    H5Fclose(f);
    snprintf(path, sizeof path, "%s/icon-zbomb.nc", dir);
    f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    put_zeros(f, "neighbor_cell_index", H5T_STD_I32LE, 3, 2600000);
    put_zeros(f, "clon", H5T_NATIVE_DOUBLE, 2600000, 0);
    put_zeros(f, "clat", H5T_NATIVE_DOUBLE, 2600000, 0);
    H5Fclose(f);

    /* a field file for an 8x8x2 laplap run (ncells 64, nz 2) whose /in lives in secret.bin */
    snprintf(path, sizeof path, "%s/fields-extstore.h5", dir);
    f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    put_attr(f, "pillar_fields_version", FIELD_FORMAT_VERSION);
    put_external(f, "/in", H5T_IEEE_F32LE, 2, 64);
    H5Fclose(f);
}

/* Reading path with mesh_read must fail, naming needle and never the secret. */
static void mesh_refused(const char *name, const char *needle)
{
    char log[600], msg[2048];
    snprintf(log, sizeof log, "%s/stderr.txt", dir);
    int saved = stderr_to(log);
    mesh m;
    int rc = mesh_read(tmpname(name), &m);
    stderr_restore(saved, log, msg, sizeof msg);
    CHECK(rc != 0, "%s was loaded", name);
    CHECK(strstr(msg, needle) != NULL, "%s: message does not say '%s': %s", name, needle, msg);
    CHECK(strstr(msg, "SECRET") == NULL, "%s: message echoes another file: %s", name, msg);
    if (rc == 0)
        mesh_free(&m);
}

/* pillar_write_fields of a lap run on the 4x4 patch to path, which must fail for a full disk. */
static int write_fields_full(const char *path)
{
    int nbr[N][4];
    for (int c = 0; c < N; c++) {
        int x = c % 4, y = c / 4;
        nbr[c][0] = x ? c - 1 : -1;
        nbr[c][1] = x < 3 ? c + 1 : -1;
        nbr[c][2] = y ? c - 4 : -1;
        nbr[c][3] = y < 3 ? c + 4 : -1;
    }
    double in[2 * N];
    for (int i = 0; i < 2 * N; i++)
        in[i] = i;
    pillar_ctx *ctx;
    CHECK(pillar_create(&ctx) == PILLAR_OK, "pillar_create");
    CHECK(pillar_set_option(ctx, "stencil", "lap") == PILLAR_OK &&
              pillar_set_option(ctx, "backend", "cpu") == PILLAR_OK &&
              pillar_grid_quad(ctx, N, 2, &nbr[0][0]) == PILLAR_OK &&
              pillar_setup(ctx) == PILLAR_OK &&
              pillar_set_field(ctx, "in", in, 2 * N) == PILLAR_OK && pillar_apply(ctx) == PILLAR_OK,
          "a lap run: %s", pillar_last_error(ctx));
    pillar_status st = pillar_write_fields(ctx, path);
    CHECK(st == PILLAR_ERR_ARG && strstr(pillar_last_error(ctx), "no space left on device"),
          "pillar_write_fields on a full disk: status %d, '%s'", (int)st, pillar_last_error(ctx));
    pillar_destroy(ctx);
    return check_done("test_hostile --write-fields");
}

int main(int argc, char **argv)
{
    h5_quiet();
    if (argc == 3 && !strcmp(argv[1], "--make")) {
        make_all(argv[2]);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "--write-fields"))
        return write_fields_full(argv[2]);
    if (scratch_open("hostile", NULL) != 0)
        return 1;
    make_all(dir);
    mesh_refused("mesh-u64be.h5", "holds 18446744073709551615, out of range");
    mesh_refused("mesh-u64le.h5", "holds 18446744073709551615, out of range");
    mesh_refused("mesh-nlevels-u64.h5", "nlevels");
    mesh_refused("mesh-nlevels-huge.h5", "nlevels");
    mesh_refused("mesh-extstore.h5", "external storage");
    mesh_refused("mesh-extlink.h5", "link to another file");
    mesh_refused("mesh-float128.h5", "floating-point numbers of at most 64 bits");
    mesh_refused("mesh-bomb.h5", "the file stores only 0 bytes of them");
    mesh_refused("mesh-zbomb.h5", "compressed more than 256:1");

    mesh m;
    CHECK(mesh_read(tmpname("mesh-i8.h5"), &m) == 0 && m.ncells == N && m.nbr[4 * 5 + 1] == 6,
          "an 8-bit big-endian table loads as the same mesh");
    mesh_free(&m);

    char log[600], msg[2048];
    snprintf(log, sizeof log, "%s/stderr.txt", dir);
    int saved = stderr_to(log);
    int rc = mesh_import_icon(tmpname("icon-u64.nc"), &(mesh_import_opts){.nlevels = 2}, &m);
    stderr_restore(saved, log, msg, sizeof msg);
    CHECK(rc != 0 && strstr(msg, "out of range"), "ICON uint64 2^64 - 1: %s", msg);
    CHECK(mesh_import_icon(tmpname("icon-ok.nc"), &(mesh_import_opts){.nlevels = 2}, &m) == 0 &&
              m.ncells == N,
          "icon-ok.nc");
    mesh_free(&m);
    scratch_remove();
    return check_done("test_hostile");
}
