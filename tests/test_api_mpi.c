/* test_api_mpi.c — libpillar's pillar_set_comm (include/pillar.h) under mpirun: every rank makes
 * its handle on the same scrambled lattice (nbr table written here) or general mesh and steps it
 * over MPI_COMM_WORLD, then over the halves of a split communicator; each rank's final state
 * equals, bit for bit, the same handle stepped without a communicator (the in-core iteration;
 * fluxdiff on the lattice as a general grid with its centres' coefficients too);
 * bad handles are refused with a status. A plain MPI program: it includes mpi.h, pillar.h does
 * not. Run with mpirun -np P (P >= 2 for the split). */
#include "include/pillar.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(cond, ...)                                                                          \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            failures++;                                                                           \
            fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond);                     \
            fprintf(stderr, __VA_ARGS__);                                                         \
            fputc('\n', stderr);                                                                  \
        }                                                                                         \
    } while (0)

enum { NX = 26, NY = 21, NZ = 5, NC = NX * NY };

static double xy[2 * NC]; /* the cells' centres (x, y), for fluxdiff's coefficients */

/* A lattice in a scrambled cell order: perm[y*NX + x] = the caller's cell; nbr W/E/S/N; xy. */
static void lattice(int *perm, int *nbr)
{
    uint64_t s = 12345;
    for (int i = 0; i < NC; i++)
        perm[i] = i;
    for (int i = NC - 1; i > 0; i--) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int j = (int)((s >> 33) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int y = 0; y < NY; y++)
        for (int x = 0; x < NX; x++) {
            int c = perm[y * NX + x], *r = nbr + 4 * c;
            xy[2 * c] = x;
            xy[2 * c + 1] = y;
            r[0] = x > 0 ? perm[y * NX + x - 1] : -1;
            r[1] = x < NX - 1 ? perm[y * NX + x + 1] : -1;
            r[2] = y > 0 ? perm[(y - 1) * NX + x] : -1;
            r[3] = y < NY - 1 ? perm[(y + 1) * NX + x] : -1;
        }
}

/* A handle for `stencil` on the lattice with seeded inputs (fluxdiff: the lattice as a general
 * grid with its centres); NULL after a message. */
static pillar_ctx *make(const char *stencil, const char *fuse, const int *nbr)
{
    pillar_ctx *ctx;
    if (pillar_create(&ctx) != PILLAR_OK)
        return NULL;
    int ok = pillar_set_option(ctx, "stencil", stencil) == PILLAR_OK &&
             pillar_set_option(ctx, "backend", getenv("API_MPI_BACKEND") ? getenv("API_MPI_BACKEND") : "cpu") == PILLAR_OK &&
             pillar_set_option(ctx, "fuse", fuse) == PILLAR_OK &&
             (strcmp(stencil, "fluxdiff")
                  ? pillar_grid_quad(ctx, NC, NZ, nbr) == PILLAR_OK
                  : pillar_grid_general(ctx, NC, NZ, 4, nbr) == PILLAR_OK &&
                        pillar_set_coordinates(ctx, NC, 2, xy) == PILLAR_OK) &&
             pillar_setup(ctx) == PILLAR_OK;
    int nin = 0, nout = 0;
    ok = ok && pillar_field_count(ctx, &nin, &nout) == PILLAR_OK;
    double *v = malloc(sizeof(double) * NC * NZ);
    for (int k = 0; ok && k < nin; k++) {
        const char *name;
        ok = pillar_field_name(ctx, k, &name) == PILLAR_OK;
        for (int i = 0; i < NC * NZ; i++)
            v[i] = 0.5 + 0.25 * ((i * 7919 + k * 104729) % 1000) / 1000.0;
        ok = ok && pillar_set_field(ctx, name, v, NC * NZ) == PILLAR_OK;
    }
    free(v);
    if (!ok) {
        fprintf(stderr, "setup of %s: %s\n", stencil, pillar_last_error(ctx));
        pillar_destroy(ctx);
        return NULL;
    }
    return ctx;
}

/* A model's loop over comm: T calls of pillar_step(1) (the rank's part kept between them), the
 * state read after every call and set again, halved, after the third; the same calls on a
 * handle without a communicator: the same bits after every call. */
static void compare_loop(MPI_Comm comm, const char *stencil, int T, const int *nbr)
{
    pillar_ctx *a = make(stencil, "1", nbr), *b = make(stencil, "1", nbr);
    CHECK(a && b, "%s: handles", stencil);
    if (!a || !b)
        return;
    CHECK(pillar_set_comm(a, (int)MPI_Comm_c2f(comm)) == PILLAR_OK, "set_comm: %s",
          pillar_last_error(a));
    double *x = malloc(sizeof(double) * NC * NZ), *y = malloc(sizeof(double) * NC * NZ);
    int ok = 1, same = 1;
    for (int t = 0; ok && same && t < T; t++) {
        ok = pillar_step(a, 1) == PILLAR_OK && pillar_step(b, 1) == PILLAR_OK;
        if (ok && t == 2) {
            ok = pillar_get_field(b, "in", y, NC * NZ) == PILLAR_OK;
            for (int i = 0; i < NC * NZ; i++)
                y[i] *= 0.5;
            ok = ok && pillar_set_field(a, "in", y, NC * NZ) == PILLAR_OK &&
                 pillar_set_field(b, "in", y, NC * NZ) == PILLAR_OK;
        }
        ok = ok && pillar_get_field(a, "in", x, NC * NZ) == PILLAR_OK &&
             pillar_get_field(b, "in", y, NC * NZ) == PILLAR_OK;
        same = ok && memcmp(x, y, sizeof(double) * NC * NZ) == 0;
        CHECK(ok && same, "%s, a loop of pillar_step(1), call %d: %s", stencil, t + 1,
              ok ? "the state differs from the run without a communicator"
                 : pillar_last_error(a));
    }
    free(x);
    free(y);
    pillar_destroy(a);
    pillar_destroy(b);
}

/* Steps a handle over comm and one without a communicator; their states must be the same bits. */
static void compare(MPI_Comm comm, const char *stencil, const char *fuse, int steps, const int *nbr)
{
    pillar_ctx *a = make(stencil, fuse, nbr), *b = make(stencil, fuse, nbr);
    CHECK(a && b, "%s: handles", stencil);
    if (!a || !b)
        return;
    CHECK(pillar_set_comm(a, (int)MPI_Comm_c2f(comm)) == PILLAR_OK, "set_comm: %s",
          pillar_last_error(a));
    CHECK(pillar_step(a, steps) == PILLAR_OK, "%s distributed: %s", stencil, pillar_last_error(a));
    CHECK(pillar_step(b, steps) == PILLAR_OK, "%s alone: %s", stencil, pillar_last_error(b));
    const char *state = strcmp(stencil, "fastwaves") ? "in" : "u_pos";
    double *x = malloc(sizeof(double) * NC * NZ), *y = malloc(sizeof(double) * NC * NZ);
    CHECK(pillar_get_field(a, state, x, NC * NZ) == PILLAR_OK &&
              pillar_get_field(b, state, y, NC * NZ) == PILLAR_OK, "get");
    int size;
    MPI_Comm_size(comm, &size);
    CHECK(memcmp(x, y, sizeof(double) * NC * NZ) == 0,
          "%s, fuse %s, %d steps over %d ranks: the state differs from the run without a "
          "communicator", stencil, fuse, steps, size);
    free(x);
    free(y);
    pillar_destroy(a);
    pillar_destroy(b);
}

int main(int argc, char **argv)
{
    pillar_ctx *early;
    if (pillar_create(&early) == PILLAR_OK) { /* before MPI_Init: a state error, not a crash */
        CHECK(pillar_set_comm(early, 0) == PILLAR_ERR_STATE, "set_comm before MPI_Init: %s",
              pillar_last_error(early));
        pillar_destroy(early);
    }
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int *perm = malloc(sizeof(int) * NC), *nbr = malloc(sizeof(int) * 4 * NC);
    lattice(perm, nbr);

    compare(MPI_COMM_WORLD, "laplap", "1", 4, nbr);
    compare(MPI_COMM_WORLD, "hdiff", "2", 5, nbr);
    compare(MPI_COMM_WORLD, "fastwaves", "3", 4, nbr);
    compare(MPI_COMM_WORLD, "fluxdiff", "2", 5, nbr); /* each rank's coefficients */
    compare_loop(MPI_COMM_WORLD, "laplap", 7, nbr);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    compare(half, "lap", "2", 3, nbr);
    MPI_Comm_free(&half);

    pillar_ctx *ctx;
    if (pillar_create(&ctx) == PILLAR_OK) {
        CHECK(pillar_set_comm(ctx, (int)MPI_Comm_c2f(MPI_COMM_NULL)) == PILLAR_ERR_ARG,
              "MPI_COMM_NULL: %s", pillar_last_error(ctx));
        CHECK(pillar_set_comm(NULL, 0) == PILLAR_ERR_NULL, "NULL handle");
        CHECK(pillar_set_option(ctx, "fuse", "0") == PILLAR_ERR_ARG, "fuse 0");
        pillar_destroy(ctx);
    }
    free(perm);
    free(nbr);
    int bad = 0;
    MPI_Allreduce(&failures, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("test_api_mpi on %d ranks: %s\n", n, bad ? "FAILED" : "all checks passed");
    MPI_Finalize();
    return bad ? 1 : 0;
}
