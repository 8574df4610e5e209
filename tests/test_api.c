/* test_api.c — the C API (include/pillar.h) on its own:
 *   - lap applied and iterated through the API on a scrambled lattice equals an independent
 *     reference written here, bit for bit, in the caller's order; halo outputs are NaN, halo
 *     state unchanged; the permutation is one, halo cells first; metis order = file order;
 *     float precision through the float calls;
 *   - fluxdiff on the lattice as a general grid with coordinates: pillar_step equals repeated
 *     pillar_apply with the outputs fed back, and the largest |value| never grows;
 *   - bad arguments (NULL pointers, wrong sizes, unknown names, an asymmetric or out-of-range
 *     neighbour table, calls out of order, unsupported combinations) return the documented
 *     status with a message, and the handle still works afterwards;
 *   - nothing is printed on stdout or stderr by any of it;
 *   - with --gpu (a CUDA build, exit 77 without a device): lap applied and iterated on the GPU
 *     (also with option persistent on: one cooperative launch per pillar_step; and auto: the
 *     first call on chip, the second in core, then the faster, with its note)
 *     with the fields handed over and read back as device arrays equals the same reference, bit
 *     for bit; host arrays given as device arrays and device arrays on a CPU handle are refused.
 * Leaks: every handle is destroyed; the sanitizer build (.ci/run) checks that nothing is left. */
#include "../include/pillar.h"
#include "check.h"
#include "base/common.h"

#define T(cond) CHECK(cond, "(status/message test)")

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef TEST_API_CUDA
#include <cuda_runtime.h>
#endif

#define NX 9
#define NY 7
#define NZ 3
#define N (NX * NY)

static int cell_of(int x, int y) { return ((y * NX + x) * 17 + 5) % N; } /* gcd(17, 63) = 1 */

static int nbr[N][4];
static int xof[N], yof[N];

static void make_lattice(void)
{
    for (int y = 0; y < NY; y++)
        for (int x = 0; x < NX; x++) {
            int c = cell_of(x, y);
            xof[c] = x;
            yof[c] = y;
            nbr[c][0] = x > 0 ? cell_of(x - 1, y) : -1;
            nbr[c][1] = x < NX - 1 ? cell_of(x + 1, y) : -1;
            nbr[c][2] = y > 0 ? cell_of(x, y - 1) : -1;
            nbr[c][3] = y < NY - 1 ? cell_of(x, y + 1) : -1;
        }
}

static int is_halo(int c) { return xof[c] == 0 || yof[c] == 0 || xof[c] == NX - 1 || yof[c] == NY - 1; }

/* lap's output, written from its definition: 4c - (w + e + s + n) at the inner cells */
static void ref_lap(const double *in, double *out)
{
    for (int z = 0; z < NZ; z++)
        for (int c = 0; c < N; c++) {
            const double *l = in + z * N;
            out[z * N + c] = is_halo(c) ? NAN
                                        : 4.0 * l[c] - (((l[nbr[c][0]] + l[nbr[c][1]]) +
                                                         l[nbr[c][2]]) + l[nbr[c][3]]);
        }
}

/* one iterated step of lap: in <- in - lap(in) / 8 at the inner cells */
static void ref_step(double *in)
{
    double out[NZ * N];
    ref_lap(in, out);
    for (int i = 0; i < NZ * N; i++)
        if (!is_halo(i % N))
            in[i] = in[i] - out[i] / 8.0;
}

static int same_bits(const double *a, const double *b, int n)
{
    for (int i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(double)) != 0 && !(isnan(a[i]) && isnan(b[i])))
            return 0;
    return 1;
}

/* A handle of lap on the lattice, set up, on `backend` with option key = value. */
static pillar_ctx *lap_handle(const char *backend, const char *key, const char *value)
{
    pillar_ctx *ctx = NULL;
    T(pillar_create(&ctx) == PILLAR_OK);
    T(pillar_set_option(ctx, "stencil", "lap") == PILLAR_OK);
    T(pillar_set_option(ctx, "backend", backend) == PILLAR_OK);
    T(pillar_set_option(ctx, key, value) == PILLAR_OK);
    T(pillar_grid_quad(ctx, N, NZ, &nbr[0][0]) == PILLAR_OK);
    T(pillar_setup(ctx) == PILLAR_OK);
    return ctx;
}

static pillar_ctx *lap_ctx(const char *order) { return lap_handle("cpu", "order", order); }

/* fout == lap(fin) in float, the sum in the stencil's order; NaN at the halo */
static void check_float_lap(const float *fin, const float *fout)
{
    for (int i = 0; i < NZ * N; i++) {
        int c = i % N, b = i - c;
        if (is_halo(c))
            T(isnan(fout[i]));
        else
            T(fout[i] == 4.0f * fin[i] - (((fin[b + nbr[c][0]] + fin[b + nbr[c][1]]) +
                                               fin[b + nbr[c][2]]) + fin[b + nbr[c][3]]));
    }
}

static void test_results(void)
{
    double in[NZ * N], ref[NZ * N], got[NZ * N];
    for (int i = 0; i < NZ * N; i++)
        in[i] = sin(0.37 * i) + 0.01 * (i % 11);
    const char *orders[] = {"file", "metis"};
    for (int o = 0; o < 2; o++) {
        pillar_ctx *ctx = lap_ctx(orders[o]);
        int nc, nl, nh, perm[N], halo[N], seen[N] = {0};
        T(pillar_get_sizes(ctx, &nc, &nl, &nh) == PILLAR_OK && nc == N && nl == NZ);
        T(nh == 2 * NX + 2 * NY - 4);
        T(pillar_get_permutation(ctx, perm, N) == PILLAR_OK);
        T(pillar_get_halo(ctx, halo, N) == PILLAR_OK);
        for (int c = 0; c < N; c++) {
            T(perm[c] >= 0 && perm[c] < N && !seen[perm[c]]);
            seen[perm[c]] = 1;
            T(halo[c] == is_halo(c) && (perm[c] < nh) == halo[c]);
        }
        T(pillar_set_field(ctx, "in", in, NZ * N) == PILLAR_OK);
        /* one application */
        T(pillar_apply(ctx) == PILLAR_OK);
        T(pillar_get_field(ctx, "out", got, NZ * N) == PILLAR_OK);
        ref_lap(in, ref);
        T(same_bits(got, ref, NZ * N));
        T(pillar_get_field(ctx, "in", got, NZ * N) == PILLAR_OK);
        T(same_bits(got, in, NZ * N)); /* inputs unchanged */
        /* 7 steps as 3 + 4 */
        memcpy(ref, in, sizeof ref);
        for (int t = 0; t < 7; t++)
            ref_step(ref);
        T(pillar_step(ctx, 3) == PILLAR_OK && pillar_step(ctx, 0) == PILLAR_OK &&
              pillar_step(ctx, 4) == PILLAR_OK);
        T(pillar_get_field(ctx, "in", got, NZ * N) == PILLAR_OK);
        T(same_bits(got, ref, NZ * N));
        for (int i = 0; i < NZ * N; i++)
            if (is_halo(i % N))
                T(got[i] == in[i]); /* the halo keeps its values */
        T(pillar_get_field(ctx, "out", got, NZ * N) == PILLAR_ERR_STATE);
        pillar_destroy(ctx);
    }

    /* float precision through the float calls */
    pillar_ctx *ctx;
    T(pillar_create(&ctx) == PILLAR_OK);
    T(pillar_set_option(ctx, "stencil", "lap") == PILLAR_OK);
    T(pillar_set_option(ctx, "precision", "float") == PILLAR_OK);
    T(pillar_set_option(ctx, "backend", "cpu") == PILLAR_OK);
    T(pillar_grid_quad(ctx, N, NZ, &nbr[0][0]) == PILLAR_OK);
    T(pillar_setup(ctx) == PILLAR_OK);
    float fin[NZ * N], fout[NZ * N];
    for (int i = 0; i < NZ * N; i++)
        fin[i] = (float)(i % 5);
    T(pillar_set_field_float(ctx, "in", fin, NZ * N) == PILLAR_OK);
    T(pillar_apply(ctx) == PILLAR_OK);
    T(pillar_get_field_float(ctx, "out", fout, NZ * N) == PILLAR_OK);
    check_float_lap(fin, fout);
    pillar_destroy(ctx);
}

/* st is the expected status and the handle holds a message containing `word` */
#define EXPECT(call, status, word)                                                                \
    do {                                                                                          \
        pillar_status st_ = (call);                                                               \
        T(st_ == (status));                                                                   \
        T(strlen(pillar_last_error(ctx)) > 0 && strstr(pillar_last_error(ctx), (word)));      \
    } while (0)

/* Whether the files at a and b hold the same bytes. */
static int same_file_bytes(const char *a, const char *b)
{
    FILE *f = fopen(a, "rb"), *g = fopen(b, "rb");
    int same = f && g;
    for (int x, y; same;) {
        x = fgetc(f);
        y = fgetc(g);
        same = x == y;
        if (x == EOF)
            break;
    }
    if (f)
        fclose(f);
    if (g)
        fclose(g);
    return same;
}

/* pillar_write_fields and pillar_write_mesh never write over the grid file the handle read
 * (by its name or through a hard link), which stays byte-identical. */
static void test_output_is_input(const char *dir)
{
    char grid[4096], copy[4100], link_[4100];
    snprintf(grid, sizeof grid, "%s/grid.h5", dir);
    snprintf(copy, sizeof copy, "%s/grid-copy.h5", dir);
    snprintf(link_, sizeof link_, "%s/grid-link.h5", dir);
    pillar_ctx *ctx = lap_ctx("file");
    T(pillar_write_mesh(ctx, grid) == PILLAR_OK && pillar_write_mesh(ctx, copy) == PILLAR_OK);
    pillar_destroy(ctx);
    T(link(grid, link_) == 0);
    T(pillar_create(&ctx) == PILLAR_OK);
    T(pillar_set_option(ctx, "stencil", "lap") == PILLAR_OK);
    T(pillar_set_option(ctx, "backend", "cpu") == PILLAR_OK);
    T(pillar_grid_file(ctx, grid) == PILLAR_OK);
    T(pillar_setup(ctx) == PILLAR_OK);
    double in[NZ * N] = {0};
    T(pillar_set_field(ctx, "in", in, NZ * N) == PILLAR_OK);
    EXPECT(pillar_write_fields(ctx, grid), PILLAR_ERR_ARG, "never writes over an input");
    EXPECT(pillar_write_fields(ctx, link_), PILLAR_ERR_ARG, "never writes over an input");
    EXPECT(pillar_write_mesh(ctx, link_), PILLAR_ERR_ARG, "never writes over an input");
    T(same_file_bytes(grid, copy));
    pillar_destroy(ctx);
}

static void test_errors(const char *dir)
{
    pillar_ctx *ctx = NULL;
    T(pillar_create(NULL) == PILLAR_ERR_NULL);
    T(pillar_set_option(NULL, "stencil", "lap") == PILLAR_ERR_NULL);
    T(pillar_setup(NULL) == PILLAR_ERR_NULL);
    T(strcmp(pillar_last_error(NULL), "no handle") == 0);
    T(strcmp(pillar_status_name(PILLAR_ERR_GRID), "PILLAR_ERR_GRID") == 0);
    pillar_destroy(NULL);

    T(pillar_create(&ctx) == PILLAR_OK);
    EXPECT(pillar_set_option(ctx, "stencil", "laplace"), PILLAR_ERR_UNKNOWN, "laplap");
    EXPECT(pillar_set_option(ctx, "colour", "red"), PILLAR_ERR_UNKNOWN, "colour");
    EXPECT(pillar_set_option(ctx, NULL, "x"), PILLAR_ERR_NULL, "key");
    EXPECT(pillar_set_option(ctx, "order", "hilbert"), PILLAR_ERR_UNKNOWN, "zcurve");
    EXPECT(pillar_set_option(ctx, "part_cells", "0"), PILLAR_ERR_ARG, "part_cells");
    EXPECT(pillar_set_option(ctx, "access", "magic"), PILLAR_ERR_UNKNOWN, "idxvar");
    EXPECT(pillar_set_option(ctx, "fuse", "65"), PILLAR_ERR_ARG, "fuse");
    EXPECT(pillar_set_option(ctx, "halo", "nvlink"), PILLAR_ERR_UNKNOWN, "staged");
    T(pillar_set_option(ctx, "halo", "staged") == PILLAR_OK);
    T(pillar_set_option(ctx, "halo", "ipc") == PILLAR_OK);
    EXPECT(pillar_set_option(ctx, "persistent", "maybe"), PILLAR_ERR_UNKNOWN, "auto");
    T(pillar_set_option(ctx, "persistent", "off") == PILLAR_OK);
#ifdef PILLAR_HAVE_MPI /* MPI is not initialised in this program (test_api_mpi runs under mpirun) */
    EXPECT(pillar_set_comm(ctx, 0), PILLAR_ERR_STATE, "MPI_Init");
    EXPECT(pillar_set_decomposition(ctx, 0, 1, &nbr[0][0]), PILLAR_ERR_STATE, "MPI_Init");
#else
    EXPECT(pillar_set_comm(ctx, 0), PILLAR_ERR_UNSUPPORTED, "no MPI");
    EXPECT(pillar_set_decomposition(ctx, 0, 1, &nbr[0][0]), PILLAR_ERR_UNSUPPORTED, "no MPI");
#endif
    EXPECT(pillar_set_halo_exchange(ctx, NULL, NULL), PILLAR_ERR_STATE,
           "pillar_set_decomposition first");
    T(pillar_set_option(ctx, "stencil", "laplap") == PILLAR_OK && !pillar_last_error(ctx)[0]);
    T(pillar_set_option(ctx, "backend", "cpu") == PILLAR_OK);
    EXPECT(pillar_setup(ctx), PILLAR_ERR_STATE, "grid");
    EXPECT(pillar_grid_quad(ctx, N, NZ, NULL), PILLAR_ERR_NULL, "nbr");
    EXPECT(pillar_grid_quad(ctx, 0, NZ, &nbr[0][0]), PILLAR_ERR_ARG, "ncells");
    EXPECT(pillar_grid_quad(ctx, N, 0, &nbr[0][0]), PILLAR_ERR_ARG, "nlevels");
    int bad[N][4];
    memcpy(bad, nbr, sizeof bad);
    int c = cell_of(4, 3);
    bad[c][1] = cell_of(6, 3); /* E of (4,3) is (6,3), whose neighbours do not include it */
    EXPECT(pillar_grid_quad(ctx, N, NZ, &bad[0][0]), PILLAR_ERR_GRID, "");
    memcpy(bad, nbr, sizeof bad);
    bad[c][2] = N + 3; /* out of range */
    EXPECT(pillar_grid_quad(ctx, N, NZ, &bad[0][0]), PILLAR_ERR_GRID, "");
    EXPECT(pillar_grid_general(ctx, N, NZ, 17, &nbr[0][0]), PILLAR_ERR_ARG, "maxdeg");
    char missing[4096];
    snprintf(missing, sizeof missing, "%s/no-such-mesh.h5", dir);
    EXPECT(pillar_grid_file(ctx, missing), PILLAR_ERR_GRID, "no-such-mesh.h5");
    EXPECT(pillar_set_coordinates(ctx, N, 2, (const double *)nbr), PILLAR_ERR_STATE, "grid");
    /* a general table: laplap refused at setup, the handle still usable */
    T(pillar_grid_general(ctx, N, NZ, 4, &nbr[0][0]) == PILLAR_OK);
    EXPECT(pillar_grid_quad(ctx, N, NZ, &nbr[0][0]), PILLAR_ERR_STATE, "already");
    EXPECT(pillar_setup(ctx), PILLAR_ERR_UNSUPPORTED, "graphlap");
    EXPECT(pillar_set_option(ctx, "order", "zcurve") == PILLAR_OK ? pillar_setup(ctx)
                                                                  : PILLAR_ERR_ARG,
           PILLAR_ERR_UNSUPPORTED, "graphlap");
    T(pillar_set_option(ctx, "stencil", "graphlap") == PILLAR_OK);
    EXPECT(pillar_setup(ctx), PILLAR_ERR_STATE, "coordinates");
    T(pillar_set_option(ctx, "order", "file") == PILLAR_OK);
    T(pillar_setup(ctx) == PILLAR_OK);
    EXPECT(pillar_set_option(ctx, "stencil", "lap"), PILLAR_ERR_STATE, "pillar_setup");
    EXPECT(pillar_setup(ctx), PILLAR_ERR_STATE, "set up already");
    double v[NZ * N];
    for (int i = 0; i < NZ * N; i++)
        v[i] = i;
    EXPECT(pillar_apply(ctx), PILLAR_ERR_STATE, "never set");
    EXPECT(pillar_set_field(ctx, "in", v, NZ * N - 1), PILLAR_ERR_ARG, "count");
    EXPECT(pillar_set_field(ctx, "inn", v, NZ * N), PILLAR_ERR_UNKNOWN, "inn");
    EXPECT(pillar_set_field(ctx, "in", NULL, NZ * N), PILLAR_ERR_NULL, "values");
    EXPECT(pillar_set_field(ctx, "out", v, NZ * N), PILLAR_ERR_ARG, "output");
    v[5] = NAN;
    EXPECT(pillar_set_field(ctx, "in", v, NZ * N), PILLAR_ERR_ARG, "finite");
    v[5] = 5;
    T(pillar_set_field(ctx, "in", v, NZ * N) == PILLAR_OK);
    EXPECT(pillar_get_field(ctx, "out", v, NZ * N), PILLAR_ERR_STATE, "pillar_apply");
    T(pillar_step(ctx, 1) == PILLAR_OK); /* graphlap iterates (in -= graphlap(in)/1024) */
    int perm[N];
    EXPECT(pillar_get_permutation(ctx, perm, N + 1), PILLAR_ERR_ARG, "ncells");
    EXPECT(pillar_get_permutation(ctx, NULL, N), PILLAR_ERR_NULL, "NULL");
    const char *name;
    EXPECT(pillar_field_name(ctx, 2, &name), PILLAR_ERR_ARG, "graphlap");
    T(pillar_field_name(ctx, 1, &name) == PILLAR_OK && !strcmp(name, "out"));
    T(pillar_apply(ctx) == PILLAR_OK);
    T(pillar_get_field(ctx, "out", v, NZ * N) == PILLAR_OK);
    pillar_destroy(ctx);

    /* laplap: steps < 0; a mesh with too few levels for fastwaves */
    T(pillar_create(&ctx) == PILLAR_OK);
    T(pillar_set_option(ctx, "backend", "cpu") == PILLAR_OK);
    EXPECT(pillar_get_sizes(ctx, NULL, NULL, NULL), PILLAR_ERR_STATE, "pillar_setup");
    T(pillar_grid_quad(ctx, N, NZ, &nbr[0][0]) == PILLAR_OK);
    T(pillar_setup(ctx) == PILLAR_OK);
    for (int i = 0; i < NZ * N; i++)
        v[i] = i % 7;
    T(pillar_set_field(ctx, "in", v, NZ * N) == PILLAR_OK);
    EXPECT(pillar_step(ctx, -1), PILLAR_ERR_ARG, "steps");
    pillar_destroy(ctx);

    T(pillar_create(&ctx) == PILLAR_OK);
    T(pillar_set_option(ctx, "stencil", "fastwaves") == PILLAR_OK);
    T(pillar_set_option(ctx, "backend", "cpu") == PILLAR_OK);
    T(pillar_grid_quad(ctx, N, 1, &nbr[0][0]) == PILLAR_OK);
    EXPECT(pillar_setup(ctx), PILLAR_ERR_UNSUPPORTED, "levels");
    EXPECT(pillar_setup(ctx), PILLAR_ERR_STATE, "grid"); /* the grid went with the failure */
    pillar_destroy(ctx);
}

/* Host memory running out at each allocation in turn (xalloc_fail_after, base/common.h), through
 * a whole use of the API — grid, setup, fields, two steps: every call returns PILLAR_OK, or
 * PILLAR_ERR_NOMEM once and PILLAR_ERR_STATE ("an earlier call ...") afterwards; the process
 * goes on. Returns the number of calls that went wrong, or -1 when no allocation was left to fail
 * (the sequence ran through). Run as `test_api --faults` without leak checking: a faulted handle
 * abandons what the interrupted call had allocated (the contract of include/pillar.h). */
/* Device arrays on a CPU handle: refused in every build (no GPU backend behind the handle). */
static void test_device_on_cpu(void)
{
    pillar_ctx *ctx = lap_ctx("file");
    double v[NZ * N] = {0};
    EXPECT(pillar_set_field_device(ctx, "in", v, NZ * N), PILLAR_ERR_UNSUPPORTED, "backend");
    EXPECT(pillar_get_field_device_float(ctx, "in", (float *)v, NZ * N), PILLAR_ERR_UNSUPPORTED,
           "backend");
    EXPECT(pillar_set_field_device(ctx, "nope", v, NZ * N), PILLAR_ERR_UNKNOWN, "nope");
    pillar_destroy(ctx);
}

#ifdef TEST_API_CUDA
/* A GPU handle of lap on the lattice with option persistent `mode`, its state `in`. */
static pillar_ctx *persistent_lap(const double *in, const char *mode)
{
    pillar_ctx *ctx = lap_handle("gpu", "persistent", mode);
    T(pillar_set_field(ctx, "in", in, NZ * N) == PILLAR_OK);
    return ctx;
}

/* lap on the GPU through device arrays == the reference of this file, bit for bit. */
static int test_device(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("test_api --gpu: no CUDA device: skipped\n");
        return 77;
    }
    enum { M = NZ * N };
    double in[M], ref[M], got[M], *d_in, *d_out;
    for (int i = 0; i < M; i++)
        in[i] = cos(0.29 * i) - 0.02 * (i % 7);
    T(cudaMalloc((void **)&d_in, sizeof in) == cudaSuccess);
    T(cudaMalloc((void **)&d_out, sizeof in) == cudaSuccess);
    T(cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice) == cudaSuccess);
    pillar_ctx *ctx;
    T(pillar_create(&ctx) == PILLAR_OK);
    T(pillar_set_option(ctx, "stencil", "lap") == PILLAR_OK);
    T(pillar_set_option(ctx, "backend", "gpu") == PILLAR_OK);
    T(pillar_set_option(ctx, "order", "metis") == PILLAR_OK);
    T(pillar_grid_quad(ctx, N, NZ, &nbr[0][0]) == PILLAR_OK);
    T(pillar_setup(ctx) == PILLAR_OK);
    EXPECT(pillar_set_field_device(ctx, "in", in, M), PILLAR_ERR_ARG, "not device memory");
    T(pillar_set_field_device(ctx, "in", d_in, M) == PILLAR_OK);
    T(pillar_apply(ctx) == PILLAR_OK);
    T(cudaMemset(d_out, 0xff, sizeof in) == cudaSuccess);
    T(pillar_get_field_device(ctx, "out", d_out, M) == PILLAR_OK);
    T(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess);
    ref_lap(in, ref);
    T(same_bits(got, ref, M));
    /* 5 steps as 2 + 3, read back as a device array */
    memcpy(ref, in, sizeof ref);
    for (int t = 0; t < 5; t++)
        ref_step(ref);
    T(pillar_step(ctx, 2) == PILLAR_OK && pillar_step(ctx, 3) == PILLAR_OK);
    T(pillar_get_field_device(ctx, "in", d_out, M) == PILLAR_OK);
    T(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess);
    T(same_bits(got, ref, M));
    /* the state stays on the device between calls: read on the host, it is the same */
    T(pillar_get_field(ctx, "in", got, M) == PILLAR_OK);
    T(same_bits(got, ref, M));
    /* a model's loop: one step a call, 4 more; then apply reads the resident state */
    for (int t = 0; t < 4; t++) {
        T(pillar_step(ctx, 1) == PILLAR_OK);
        ref_step(ref);
    }
    T(pillar_apply(ctx) == PILLAR_OK);
    T(pillar_get_field(ctx, "in", got, M) == PILLAR_OK);
    T(same_bits(got, ref, M));
    double lref[M];
    ref_lap(ref, lref);
    T(pillar_get_field(ctx, "out", got, M) == PILLAR_OK);
    T(same_bits(got, lref, M));
    /* a host set replaces the device state: steps start from it */
    T(pillar_set_field(ctx, "in", in, M) == PILLAR_OK);
    T(pillar_step(ctx, 3) == PILLAR_OK);
    memcpy(ref, in, sizeof ref);
    for (int t = 0; t < 3; t++)
        ref_step(ref);
    T(pillar_get_field_device(ctx, "in", d_out, M) == PILLAR_OK);
    T(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess);
    T(same_bits(got, ref, M));
    /* a device set with a NaN is refused, naming its place, and leaves the state unchanged */
    double bad[M];
    memcpy(bad, in, sizeof bad);
    bad[2 * N + 7] = NAN;
    T(cudaMemcpy(d_out, bad, sizeof bad, cudaMemcpyHostToDevice) == cudaSuccess);
    EXPECT(pillar_set_field_device(ctx, "in", d_out, M), PILLAR_ERR_ARG, "level 2, cell 7");
    T(pillar_get_field(ctx, "in", got, M) == PILLAR_OK);
    T(same_bits(got, ref, M));
    /* outputs are undefined after steps, on the device too */
    T(pillar_step(ctx, 1) == PILLAR_OK);
    EXPECT(pillar_get_field_device(ctx, "out", d_out, M), PILLAR_ERR_STATE, "pillar_apply");
    pillar_destroy(ctx);

    /* a strategy without iterated kernels (staged): apply on the benchmark runner, the same bits */
    T(pillar_create(&ctx) == PILLAR_OK);
    T(pillar_set_option(ctx, "stencil", "lap") == PILLAR_OK);
    T(pillar_set_option(ctx, "backend", "gpu") == PILLAR_OK);
    T(pillar_set_option(ctx, "access", "staged") == PILLAR_OK);
    T(pillar_grid_quad(ctx, N, NZ, &nbr[0][0]) == PILLAR_OK);
    T(pillar_setup(ctx) == PILLAR_OK);
    T(pillar_set_field_device(ctx, "in", d_in, M) == PILLAR_OK);
    T(pillar_apply(ctx) == PILLAR_OK);
    T(pillar_get_field_device(ctx, "out", d_out, M) == PILLAR_OK);
    T(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess);
    ref_lap(in, lref);
    T(same_bits(got, lref, M));
    pillar_destroy(ctx);

    /* the same 5 steps, each call one persistent launch (option persistent on) */
    memcpy(ref, in, sizeof ref);
    for (int t = 0; t < 5; t++)
        ref_step(ref);
    ctx = persistent_lap(in, "on");
    T(pillar_step(ctx, 2) == PILLAR_OK);
    /* on chip on the handle's device arrays: no note of another path */
    CHECK(pillar_last_error(ctx)[0] == 0, "persistent on: %s", pillar_last_error(ctx));
    T(pillar_step(ctx, 3) == PILLAR_OK);
    T(pillar_get_field(ctx, "in", got, M) == PILLAR_OK);
    T(same_bits(got, ref, M));
    pillar_destroy(ctx);

    /* persistent auto, per step count: call 1 (2 steps) on chip, call 2 (2 steps) in core, its
     * note says which is faster; call 3 (1 step, a new count) on chip again without a note,
     * call 4 (1 step) in core with the note for calls of 1 step, call 5 (2 steps) takes call 2's
     * choice; 2 + 2 + 1 + 1 + 2 steps, the same bits as the formula's 8 */
    double ref8[M];
    memcpy(ref8, in, sizeof ref8);
    for (int t = 0; t < 8; t++)
        ref_step(ref8);
    ctx = persistent_lap(in, "auto");
    T(pillar_step(ctx, 2) == PILLAR_OK);
    CHECK(pillar_last_error(ctx)[0] == 0, "persistent auto, call 1: %s", pillar_last_error(ctx));
    T(pillar_step(ctx, 2) == PILLAR_OK);
    CHECK(strstr(pillar_last_error(ctx), "persistent auto, calls of 2 steps: on chip") &&
              strstr(pillar_last_error(ctx), "from now on"),
          "persistent auto, call 2: '%s'", pillar_last_error(ctx));
    T(pillar_step(ctx, 1) == PILLAR_OK);
    CHECK(pillar_last_error(ctx)[0] == 0, "persistent auto, call 3: %s", pillar_last_error(ctx));
    T(pillar_step(ctx, 1) == PILLAR_OK);
    CHECK(strstr(pillar_last_error(ctx), "persistent auto, calls of 1 step: on chip") &&
              strstr(pillar_last_error(ctx), "from now on"),
          "persistent auto, call 4: '%s'", pillar_last_error(ctx));
    T(pillar_step(ctx, 2) == PILLAR_OK);
    CHECK(pillar_last_error(ctx)[0] == 0, "persistent auto, call 5: %s", pillar_last_error(ctx));
    T(pillar_get_field(ctx, "in", got, M) == PILLAR_OK);
    T(same_bits(got, ref8, M));
    pillar_destroy(ctx);

    /* float: set and get through float device arrays; the same values as the host calls */
    float fin[M], fgot[M], fhost[M], *d_f;
    for (int i = 0; i < M; i++)
        fin[i] = (float)(i % 5) - 1.5f;
    T(cudaMalloc((void **)&d_f, sizeof fin) == cudaSuccess);
    T(cudaMemcpy(d_f, fin, sizeof fin, cudaMemcpyHostToDevice) == cudaSuccess);
    T(pillar_create(&ctx) == PILLAR_OK);
    T(pillar_set_option(ctx, "stencil", "lap") == PILLAR_OK);
    T(pillar_set_option(ctx, "precision", "float") == PILLAR_OK);
    T(pillar_set_option(ctx, "backend", "gpu") == PILLAR_OK);
    T(pillar_grid_quad(ctx, N, NZ, &nbr[0][0]) == PILLAR_OK);
    T(pillar_setup(ctx) == PILLAR_OK);
    T(pillar_set_field_device_float(ctx, "in", d_f, M) == PILLAR_OK);
    T(pillar_apply(ctx) == PILLAR_OK);
    T(pillar_get_field_float(ctx, "out", fhost, M) == PILLAR_OK);
    T(pillar_get_field_device_float(ctx, "out", d_f, M) == PILLAR_OK);
    T(cudaMemcpy(fgot, d_f, sizeof fgot, cudaMemcpyDeviceToHost) == cudaSuccess);
    T(memcmp(fgot, fhost, sizeof fgot) == 0);
    check_float_lap(fin, fgot);
    pillar_destroy(ctx);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_f);
    return check_done("test_api --gpu");
}
#endif

#ifdef TEST_API_CUDA
/* pillar_bind_field_device on a lattice of BX x BY cells (q: its neighbour table, the caller's
 * order) against the CPU backend on the same table: a model's loop of step(1) with the state
 * bound (written into between calls, as a model sets boundary values), then an application
 * with the output bound, then unbound. */
enum { BX = 16, BY = 8, BN = BX * BY, BM = NZ * BN };

static void bind_case(const int (*q)[4], const char *label)
{
    pillar_ctx *g, *c;
    const char *backend[2] = {"gpu", "cpu"};
    pillar_ctx **h[2] = {&g, &c};
    for (int b = 0; b < 2; b++) {
        T(pillar_create(h[b]) == PILLAR_OK);
        T(pillar_set_option(*h[b], "stencil", "lap") == PILLAR_OK);
        T(pillar_set_option(*h[b], "backend", backend[b]) == PILLAR_OK);
        T(pillar_grid_quad(*h[b], BN, NZ, &q[0][0]) == PILLAR_OK);
        T(pillar_setup(*h[b]) == PILLAR_OK);
    }
    static double in[BM], more[BM], got[BM], want[BM];
    for (int i = 0; i < BM; i++) {
        in[i] = sin(0.37 * i) + 0.01 * (i % 11);
        more[i] = cos(0.21 * i);
    }
    double *d_state, *d_out;
    T(cudaMalloc((void **)&d_state, sizeof in) == cudaSuccess);
    T(cudaMalloc((void **)&d_out, sizeof in) == cudaSuccess);
    T(cudaMemcpy(d_state, in, sizeof in, cudaMemcpyHostToDevice) == cudaSuccess);
    pillar_ctx *ctx = g; /* EXPECT's handle */
    EXPECT(pillar_bind_field_device(ctx, "in", in, BM), PILLAR_ERR_ARG, "not device memory");
    ctx = c;
    EXPECT(pillar_bind_field_device(ctx, "in", d_state, BM), PILLAR_ERR_UNSUPPORTED, "CPU backend");
    T(pillar_bind_field_device(g, "in", d_state, BM) == PILLAR_OK);
    T(pillar_set_field(c, "in", in, BM) == PILLAR_OK);
    for (int t = 0; t < 7; t++) {
        if (t == 3) { /* the model writes the state between two calls */
            T(cudaMemcpy(d_state, more, sizeof more, cudaMemcpyHostToDevice) == cudaSuccess);
            T(pillar_set_field(c, "in", more, BM) == PILLAR_OK);
        }
        CHECK(pillar_step(g, 1) == PILLAR_OK, "%s: step: %s", label, pillar_last_error(g));
        T(pillar_step(c, 1) == PILLAR_OK);
    }
    T(cudaMemcpy(got, d_state, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess);
    T(pillar_get_field(c, "in", want, BM) == PILLAR_OK);
    CHECK(same_bits(got, want, BM), "%s: the bound state after 7 steps of one", label);
    T(pillar_step(g, 2) == PILLAR_OK && pillar_step(c, 2) == PILLAR_OK); /* an even count */
    T(cudaMemcpy(got, d_state, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess);
    T(pillar_get_field(c, "in", want, BM) == PILLAR_OK);
    CHECK(same_bits(got, want, BM), "%s: the bound state after 2 more", label);
    T(pillar_bind_field_device(g, "out", d_out, BM) == PILLAR_OK);
    T(pillar_apply(g) == PILLAR_OK && pillar_apply(c) == PILLAR_OK);
    T(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess);
    T(pillar_get_field(c, "out", want, BM) == PILLAR_OK);
    CHECK(same_bits(got, want, BM), "%s: the bound output of an application", label);
    /* unbound: the handle keeps the state; the array is the caller's again */
    T(pillar_bind_field_device(g, "in", NULL, 0) == PILLAR_OK);
    T(cudaMemset(d_state, 0xff, sizeof in) == cudaSuccess);
    T(pillar_step(g, 1) == PILLAR_OK && pillar_step(c, 1) == PILLAR_OK);
    T(pillar_get_field(g, "in", got, BM) == PILLAR_OK);
    T(pillar_get_field(c, "in", want, BM) == PILLAR_OK);
    CHECK(same_bits(got, want, BM), "%s: the state after unbinding", label);
    pillar_destroy(g);
    pillar_destroy(c);
    cudaFree(d_state);
    cudaFree(d_out);
}

static void test_device_bind(void)
{
    static int q[BN][4], qp[BN][4], perm[BN];
    int at[BX][BY];
    for (int y = 0; y < BY; y++) /* a scrambled order: (x, y) -> (7 (y BX + x) + 3) mod BN */
        for (int x = 0; x < BX; x++)
            at[x][y] = (7 * (y * BX + x) + 3) % BN;
    for (int y = 0; y < BY; y++)
        for (int x = 0; x < BX; x++) {
            int *n = q[at[x][y]];
            n[0] = x > 0 ? at[x - 1][y] : -1;
            n[1] = x < BX - 1 ? at[x + 1][y] : -1;
            n[2] = y > 0 ? at[x][y - 1] : -1;
            n[3] = y < BY - 1 ? at[x][y + 1] : -1;
        }
    bind_case((const int (*)[4])q, "bound, renumbered on the device");
    /* the same lattice in pillar's own order: the array is used in place */
    pillar_ctx *p;
    T(pillar_create(&p) == PILLAR_OK);
    T(pillar_set_option(p, "stencil", "lap") == PILLAR_OK);
    T(pillar_grid_quad(p, BN, NZ, &q[0][0]) == PILLAR_OK);
    T(pillar_setup(p) == PILLAR_OK);
    T(pillar_get_permutation(p, perm, BN) == PILLAR_OK);
    pillar_destroy(p);
    for (int i = 0; i < BN; i++)
        for (int d = 0; d < 4; d++)
            qp[perm[i]][d] = q[i][d] < 0 ? -1 : perm[q[i][d]];
    T(pillar_create(&p) == PILLAR_OK);
    T(pillar_set_option(p, "stencil", "lap") == PILLAR_OK);
    T(pillar_grid_quad(p, BN, NZ, &qp[0][0]) == PILLAR_OK);
    T(pillar_setup(p) == PILLAR_OK);
    T(pillar_get_permutation(p, perm, BN) == PILLAR_OK);
    int identity = 1;
    for (int i = 0; i < BN; i++)
        identity &= perm[i] == i;
    CHECK(identity, "a grid given in pillar's order keeps it (the in-place case)");
    pillar_destroy(p);
    bind_case((const int (*)[4])qp, "bound in place");
}
#endif

static int fault_try(long k)
{
    pillar_ctx *ctx = NULL;
    static double f[NZ * N];
    int faults = 0, bad = 0;
    pillar_status st[6];
    xalloc_fail_after(k);
    if (pillar_create(&ctx) != PILLAR_OK)
        return 1;
    st[0] = pillar_set_option(ctx, "stencil", "lap");
    st[1] = pillar_grid_quad(ctx, N, NZ, &nbr[0][0]);
    st[2] = pillar_setup(ctx);
    st[3] = pillar_set_field(ctx, "in", f, (size_t)NZ * N);
    st[4] = pillar_step(ctx, 2);
    st[5] = pillar_get_field(ctx, "in", f, (size_t)NZ * N);
    xalloc_fail_after(-1);
    for (int i = 0; i < 6; i++) {
        if (st[i] == PILLAR_ERR_NOMEM)
            faults++;
        else if (st[i] != PILLAR_OK && !(faults && st[i] == PILLAR_ERR_STATE))
            bad++;
    }
    if (faults && !strstr(pillar_last_error(ctx), "an earlier call on this handle"))
        bad++;
    pillar_destroy(ctx);
    return faults == 0 ? -1 : bad + (faults > 1);
}

static void test_faults(void)
{
    long k = 0;
    for (; k < 100000; k++) {
        int bad = fault_try(k);
        if (bad < 0)
            break; /* every allocation of the sequence has failed once */
        CHECK(bad == 0, "host memory running out at allocation %ld: %d call(s) did not report it",
              k, bad);
    }
    CHECK(k > 10, "only %ld allocations on the way: the injection did not reach the engine", k);
    printf("test_api --faults: the sequence allocates %ld times; each allocation failed once\n", k);
}

/* fluxdiff through the API on the lattice as a general grid with its coordinates: pillar_step(5)
 * (the engine's iteration, in <- out) equals five pillar_apply calls with the outputs fed back by
 * this test (the halo state held), bit for bit; and the step is stable: the largest |value|
 * never grows (each step a convex combination, docs/stencils.md). */
/* A graph stencil on the lattice as a general grid with coordinates, on a backend and strategy. */
static pillar_ctx *graph_ctx(const char *stencil, const char *backend, const char *access)
{
    pillar_ctx *ctx;
    double xy[2 * N];
    for (int c = 0; c < N; c++) {
        xy[2 * c] = xof[c];
        xy[2 * c + 1] = yof[c];
    }
    T(pillar_create(&ctx) == PILLAR_OK);
    T(pillar_set_option(ctx, "stencil", stencil) == PILLAR_OK);
    T(pillar_set_option(ctx, "backend", backend) == PILLAR_OK);
    T(pillar_set_option(ctx, "access", access) == PILLAR_OK);
    T(pillar_grid_general(ctx, N, NZ, 4, &nbr[0][0]) == PILLAR_OK);
    T(pillar_set_coordinates(ctx, N, 2, xy) == PILLAR_OK);
    CHECK(pillar_setup(ctx) == PILLAR_OK, "%s setup: %s", stencil, pillar_last_error(ctx));
    return ctx;
}

static pillar_ctx *fluxdiff_ctx(void) { return graph_ctx("fluxdiff", "cpu", "auto"); }

static double max_abs(const double *v)
{
    double m = 0;
    for (int i = 0; i < NZ * N; i++)
        m = fabs(v[i]) > m ? fabs(v[i]) : m;
    return m;
}

static void test_fluxdiff_steps(void)
{
    double v0[NZ * N], a[NZ * N], b[NZ * N], out[NZ * N];
    for (int i = 0; i < NZ * N; i++)
        v0[i] = (double)((i * 37) % 11) - 5.0;
    pillar_ctx *ctx = fluxdiff_ctx();
    T(pillar_set_field(ctx, "in", v0, NZ * N) == PILLAR_OK);
    CHECK(pillar_step(ctx, 5) == PILLAR_OK, "fluxdiff step: %s", pillar_last_error(ctx));
    T(pillar_get_field(ctx, "in", a, NZ * N) == PILLAR_OK);
    pillar_destroy(ctx);
    ctx = fluxdiff_ctx();
    memcpy(b, v0, sizeof b);
    double m = max_abs(b);
    for (int t = 0; t < 5; t++) {
        T(pillar_set_field(ctx, "in", b, NZ * N) == PILLAR_OK);
        T(pillar_apply(ctx) == PILLAR_OK);
        T(pillar_get_field(ctx, "out", out, NZ * N) == PILLAR_OK);
        for (int z = 0; z < NZ; z++)
            for (int c = 0; c < N; c++)
                if (!is_halo(c))
                    b[z * N + c] = out[z * N + c];
        CHECK(max_abs(b) <= m, "fluxdiff step %d: max |value| grew from %g to %g", t + 1, m,
              max_abs(b));
        m = max_abs(b);
    }
    pillar_destroy(ctx);
    CHECK(same_bits(a, b, NZ * N), "fluxdiff: pillar_step(5) differs from five pillar_apply");
    CHECK(memcmp(a, v0, sizeof a) != 0, "fluxdiff: five steps left the state unchanged");
}

#ifdef TEST_API_CUDA
/* graphlap and fluxdiff on the GPU, fields resident, with the ELL kernel and graph-twopass: a
 * step(1) loop, a step(T) and an application equal the CPU backend's, bit for bit. */
static void test_device_graph(void)
{
    const char *stencils[] = {"graphlap", "fluxdiff"}, *access[] = {"idxvar", "graph-twopass"};
    double v0[NZ * N], a[NZ * N], b[NZ * N];
    for (int i = 0; i < NZ * N; i++)
        v0[i] = sin(0.37 * i) + (double)(i % 5);
    for (int st = 0; st < 2; st++)
        for (int ac = 0; ac < 2; ac++) {
            pillar_ctx *cpu = graph_ctx(stencils[st], "cpu", "auto");
            pillar_ctx *gpu = graph_ctx(stencils[st], "gpu", access[ac]);
            T(pillar_set_field(cpu, "in", v0, NZ * N) == PILLAR_OK);
            T(pillar_set_field(gpu, "in", v0, NZ * N) == PILLAR_OK);
            T(pillar_step(cpu, 7) == PILLAR_OK && pillar_apply(cpu) == PILLAR_OK);
            for (int t = 0; t < 3; t++)
                T(pillar_step(gpu, 1) == PILLAR_OK);
            CHECK(pillar_step(gpu, 4) == PILLAR_OK && pillar_apply(gpu) == PILLAR_OK,
                  "%s %s on the GPU: %s", stencils[st], access[ac], pillar_last_error(gpu));
            for (int f = 0; f < 2; f++) {
                const char *name = f ? "out" : "in";
                T(pillar_get_field(cpu, name, a, NZ * N) == PILLAR_OK);
                T(pillar_get_field(gpu, name, b, NZ * N) == PILLAR_OK);
                CHECK(same_bits(a, b, NZ * N), "%s %s: field %s on the GPU differs from the CPU",
                      stencils[st], access[ac], name);
                if (f == 0)
                    CHECK(memcmp(a, v0, sizeof a) != 0, "%s: the steps left the state unchanged",
                          stencils[st]);
            }
            pillar_destroy(cpu);
            pillar_destroy(gpu);
        }
}
#endif

#ifdef TEST_API_CUDA
/* Every quad stencil on the GPU, fields resident, against the CPU backend bit for bit: every
 * input set (the coefficients and fixed inputs too, one of them as a device array), a step(1)
 * loop and a step(2), an application, then every field read back. */
static void test_device_quad(void)
{
    const char *stencils[] = {"laplap", "hdiff", "fastwaves", "lap"};
    enum { M = NZ * N };
    double v[M], a[M], b[M], *d_v;
    T(cudaMalloc((void **)&d_v, sizeof v) == cudaSuccess);
    for (int st = 0; st < 4; st++) {
        pillar_ctx *ctx[2];
        for (int g = 0; g < 2; g++) {
            T(pillar_create(&ctx[g]) == PILLAR_OK);
            T(pillar_set_option(ctx[g], "stencil", stencils[st]) == PILLAR_OK);
            T(pillar_set_option(ctx[g], "backend", g ? "gpu" : "cpu") == PILLAR_OK);
            T(pillar_grid_quad(ctx[g], N, NZ, &nbr[0][0]) == PILLAR_OK);
            CHECK(pillar_setup(ctx[g]) == PILLAR_OK, "%s setup: %s", stencils[st],
                  pillar_last_error(ctx[g]));
        }
        int nin, nout;
        T(pillar_field_count(ctx[0], &nin, &nout) == PILLAR_OK);
        for (int k = 0; k < nin; k++) {
            const char *name;
            T(pillar_field_name(ctx[0], k, &name) == PILLAR_OK);
            for (int i = 0; i < M; i++)
                v[i] = 0.5 + 0.25 * sin(0.7 * i + k) + 0.01 * k;
            T(pillar_set_field(ctx[0], name, v, M) == PILLAR_OK);
            if (k == nin - 1) { /* the last input as a device array */
                T(cudaMemcpy(d_v, v, sizeof v, cudaMemcpyHostToDevice) == cudaSuccess);
                T(pillar_set_field_device(ctx[1], name, d_v, M) == PILLAR_OK);
            } else
                T(pillar_set_field(ctx[1], name, v, M) == PILLAR_OK);
        }
        for (int g = 0; g < 2; g++) {
            for (int t = 0; t < 3; t++)
                T(pillar_step(ctx[g], 1) == PILLAR_OK);
            CHECK(pillar_step(ctx[g], 2) == PILLAR_OK && pillar_apply(ctx[g]) == PILLAR_OK,
                  "%s: %s", stencils[st], pillar_last_error(ctx[g]));
        }
        for (int k = 0; k < nin + nout; k++) {
            const char *name;
            T(pillar_field_name(ctx[0], k, &name) == PILLAR_OK);
            T(pillar_get_field(ctx[0], name, a, M) == PILLAR_OK);
            T(pillar_get_field(ctx[1], name, b, M) == PILLAR_OK);
            CHECK(same_bits(a, b, M), "%s: field %s on the GPU differs from the CPU",
                  stencils[st], name);
        }
        pillar_destroy(ctx[0]);
        pillar_destroy(ctx[1]);
    }
    cudaFree(d_v);
}
#endif

int main(int argc, char **argv)
{
    make_lattice();
#ifdef TEST_API_CUDA
    if (argc == 2 && !strcmp(argv[1], "--gpu")) {
        int rc = test_device();
        if (rc == 77)
            return rc;
        test_device_graph();
        test_device_quad();
        test_device_bind();
        return check_done("test_api --gpu (graph and quad stencils)") || rc;
    }
#endif
    if (argc == 2 && !strcmp(argv[1], "--faults")) {
        test_faults();
        return check_done("test_api --faults");
    }
    char dir[] = "/tmp/pillar_api_XXXXXX";
    T(mkdtemp(dir) != NULL);
    /* everything the library does goes on with stdout and stderr in a file, which stays empty */
    char log[4200];
    snprintf(log, sizeof log, "%s/printed", dir);
    fflush(stdout);
    fflush(stderr);
    int out = dup(1), err = dup(2);
    FILE *f = fopen(log, "w");
    T(f != NULL);
    dup2(fileno(f), 1);
    dup2(fileno(f), 2);
    test_results();
    test_errors(dir);
    test_output_is_input(dir);
    test_fluxdiff_steps();
    test_device_on_cpu();
    fflush(stdout);
    fflush(stderr);
    dup2(out, 1);
    dup2(err, 2);
    close(out);
    close(err);
    fclose(f);
    struct stat sb;
    T(stat(log, &sb) == 0);
    if (sb.st_size != 0) {
        fprintf(stderr, "test_api: the library printed %lld bytes:\n", (long long)sb.st_size);
        char cmd[4300];
        snprintf(cmd, sizeof cmd, "cat %s >&2", log);
        if (system(cmd) != 0)
            fprintf(stderr, "(could not show them)\n");
    }
    T(sb.st_size == 0);
    unlink(log);
    rmdir(dir);
    return check_done("test_api");
}
