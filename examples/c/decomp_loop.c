/* decomp_loop.c — a model that owns its decomposition runs its time loop through libpillar
 * (pillar_set_decomposition: include/pillar.h, docs/api.md, docs/distributed.md).
 *
 * The "model" is an NX x NY lattice with NZ levels, cut into strips of rows, one strip a rank.
 * Each rank holds its rows (owned cells first) and two rows of halo on each side (laplap's
 * radius): their global ids are y * NX + x, their neighbour table is in local numbers, -1 for a
 * cell the rank does not hold and beyond the lattice's edge. pillar derives the exchange from
 * the ids. The model sets its field, then advances it T steps, one pillar_step(ctx, 1) a model
 * step, and reads it back at the end.
 *
 * It prints the time a step of the loop and, for comparison, of one pillar_step(ctx, T) call on a
 * second handle. Then it checks the result: rank 0 runs the whole lattice on a handle without a
 * communicator, and every rank's owned cells must equal it bit for bit.
 *
 * usage: mpirun -np P decomp_loop [--size NXxNYxNZ] [--steps T] [--backend cpu|gpu|auto]
 *                                 [--no-check]
 *   --no-check  times only (no whole-lattice run on rank 0: for lattices larger than one node)
 * Exit 0 when the check passes (or with --no-check), 1 when it fails or a call fails, 2 on a
 * usage error. */
#include <pillar.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HALO 2 /* rows of halo a side: laplap's radius x fuse 1 */

static int nx = 256, ny = 256, nz = 16, rank, nranks;

/* A status that is not PILLAR_OK ends the program with pillar's message. */
static void check(pillar_ctx *ctx, pillar_status st, const char *what)
{
    if (st == PILLAR_OK)
        return;
    fprintf(stderr, "decomp_loop: rank %d: %s: %s: %s\n", rank, what, pillar_status_name(st),
            pillar_last_error(ctx));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The initial field at global cell g, level z. */
static double initial(int g, int z) { return (double)((g * 7 + z * 13) % 31) / 31.0 - 0.5; }

/* This rank's cells: rows [y0, y1) owned, then the halo rows below and above. */
typedef struct {
    int ncells, nown, *gid, *nbr;
} strip;

static strip make_strip(void)
{
    strip s;
    int y0 = ny * rank / nranks, y1 = ny * (rank + 1) / nranks;
    int h0 = y0 - HALO < 0 ? 0 : y0 - HALO, h1 = y1 + HALO > ny ? ny : y1 + HALO;
    s.nown = (y1 - y0) * nx;
    s.ncells = (h1 - h0) * nx;
    s.gid = malloc(sizeof(int) * (size_t)s.ncells);
    s.nbr = malloc(sizeof(int) * 4 * (size_t)s.ncells);
    int *local = malloc(sizeof(int) * (size_t)nx * (size_t)ny), k = 0;
    for (int i = 0; i < nx * ny; i++)
        local[i] = -1;
    for (int y = y0; y < y1; y++) /* owned first */
        for (int x = 0; x < nx; x++)
            local[y * nx + x] = k, s.gid[k++] = y * nx + x;
    for (int y = h0; y < h1; y++)
        for (int x = 0; x < nx; x++)
            if (y < y0 || y >= y1)
                local[y * nx + x] = k, s.gid[k++] = y * nx + x;
    for (int c = 0; c < s.ncells; c++) { /* W, E, S, N in local numbers */
        int x = s.gid[c] % nx, y = s.gid[c] / nx;
        int w[4][2] = {{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}};
        for (int d = 0; d < 4; d++) {
            int in = w[d][0] >= 0 && w[d][0] < nx && w[d][1] >= 0 && w[d][1] < ny;
            s.nbr[4 * c + d] = in ? local[w[d][1] * nx + w[d][0]] : -1;
        }
    }
    free(local);
    return s;
}

/* A handle on the rank's strip (decomposed) or on the whole lattice (whole: rank 0 alone), its
 * field set from initial(). */
static pillar_ctx *open_handle(const strip *s, const char *backend, int whole)
{
    pillar_ctx *ctx;
    if (pillar_create(&ctx) != PILLAR_OK) {
        fprintf(stderr, "decomp_loop: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    check(ctx, pillar_set_option(ctx, "stencil", "laplap"), "stencil");
    check(ctx, pillar_set_option(ctx, "backend", backend), "backend");
    int n = whole ? nx * ny : s->ncells;
    int *nbr = s->nbr, *all = NULL;
    if (whole) {
        all = malloc(sizeof(int) * 4 * (size_t)n);
        for (int c = 0; c < n; c++) {
            int x = c % nx, y = c / nx;
            all[4 * c + 0] = x > 0 ? c - 1 : -1;
            all[4 * c + 1] = x < nx - 1 ? c + 1 : -1;
            all[4 * c + 2] = y > 0 ? c - nx : -1;
            all[4 * c + 3] = y < ny - 1 ? c + nx : -1;
        }
        nbr = all;
    }
    check(ctx, pillar_grid_quad(ctx, n, nz, nbr), "grid");
    if (!whole)
        check(ctx, pillar_set_decomposition(ctx, (int)MPI_Comm_c2f(MPI_COMM_WORLD), s->nown, s->gid),
              "decomposition");
    check(ctx, pillar_setup(ctx), "setup");
    double *v = malloc(sizeof(double) * (size_t)n * (size_t)nz);
    for (int z = 0; z < nz; z++)
        for (int c = 0; c < n; c++)
            v[(size_t)z * n + c] = initial(whole ? c : s->gid[c], z);
    check(ctx, pillar_set_field(ctx, "in", v, (size_t)n * nz), "set in");
    free(v);
    free(all);
    return ctx;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int steps = 20, verify = 1;
    const char *backend = "auto";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc &&
            sscanf(argv[i + 1], "%dx%dx%d", &nx, &ny, &nz) == 3 && nx > 0 && nz > 0 &&
            ny >= nranks * HALO) {
            i++;
        } else if (!strcmp(argv[i], "--steps") && i + 1 < argc && atoi(argv[i + 1]) > 0) {
            steps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            backend = argv[++i];
        } else if (!strcmp(argv[i], "--no-check")) {
            verify = 0;
        } else {
            if (rank == 0)
                fprintf(stderr, "usage: mpirun -np P decomp_loop [--size NXxNYxNZ (NY >= 2P)] "
                        "[--steps T > 0] [--backend cpu|gpu|auto] [--no-check]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (verify && (double)nx * ny * nz > 2147483647.0) {
        if (rank == 0)
            fprintf(stderr, "decomp_loop: --size %dx%dx%d: the check sends the whole lattice, "
                    "more than 2^31 values; give --no-check\n", nx, ny, nz);
        MPI_Finalize();
        return 2;
    }
    strip s = make_strip();

    /* the model's loop: one pillar_step a model step */
    pillar_ctx *ctx = open_handle(&s, backend, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int t = 0; t < steps; t++)
        check(ctx, pillar_step(ctx, 1), "step");
    double *got = malloc(sizeof(double) * (size_t)s.ncells * (size_t)nz);
    check(ctx, pillar_get_field(ctx, "in", got, (size_t)s.ncells * nz), "get in");
    MPI_Barrier(MPI_COMM_WORLD);
    double loop = (MPI_Wtime() - t0) / steps;
    pillar_destroy(ctx);

    /* the same T steps in one call, on a second handle */
    ctx = open_handle(&s, backend, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    check(ctx, pillar_step(ctx, steps), "steps");
    double *once = malloc(sizeof(double) * (size_t)s.ncells * (size_t)nz);
    check(ctx, pillar_get_field(ctx, "in", once, (size_t)s.ncells * nz), "get in");
    MPI_Barrier(MPI_COMM_WORLD);
    double call = (MPI_Wtime() - t0) / steps;
    pillar_destroy(ctx);

    /* the reference: the whole lattice on rank 0, its values sent to every rank */
    long bad = 0, all_bad = 0;
    double *ref = verify ? malloc(sizeof(double) * (size_t)nx * (size_t)ny * (size_t)nz) : NULL;
    if (verify && rank == 0) {
        pillar_ctx *w = open_handle(&s, backend, 1);
        check(w, pillar_step(w, steps), "whole lattice");
        check(w, pillar_get_field(w, "in", ref, (size_t)nx * ny * nz), "whole lattice");
        pillar_destroy(w);
    }
    if (verify)
        MPI_Bcast(ref, nx * ny * nz, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int z = 0; verify && z < nz; z++)
        for (int c = 0; c < s.ncells; c++) { /* every local cell, the halo's too */
            double r = ref[(size_t)z * nx * ny + s.gid[c]];
            bad += memcmp(&got[(size_t)z * s.ncells + c], &r, sizeof r) != 0 ||
                   memcmp(&once[(size_t)z * s.ncells + c], &r, sizeof r) != 0;
        }
    MPI_Reduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("decomp_loop: laplap on %dx%dx%d, %d ranks (strips of rows), %d steps, backend %s\n",
               nx, ny, nz, nranks, steps, backend);
        printf("  loop of pillar_step(1)   %.3f ms a step\n", loop * 1e3);
        printf("  one pillar_step(%d)      %.3f ms a step\n", steps, call * 1e3);
        if (verify)
            printf("  check     %s (every local cell against the whole lattice on one rank: %ld "
                   "differ)\n", all_bad ? "FAIL" : "PASS", all_bad);
        else
            printf("  check     skipped (--no-check)\n");
    }
    free(ref);
    free(got);
    free(once);
    free(s.gid);
    free(s.nbr);
    MPI_Finalize();
    return all_bad ? 1 : 0;
}
