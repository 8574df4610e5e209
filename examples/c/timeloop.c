/* timeloop.c — a model's time loop calling libpillar (include/pillar.h, docs/api.md).
 *
 * The "model" owns a bounded NX x NY lattice with NZ levels whose cells it numbers in its own
 * scrambled order, and a field `in` in that order ([NZ][ncells]). It builds the quad neighbour
 * table itself, hands it to pillar, sets its field, and advances it T steps of laplap's
 * damping (in <- in - laplap(in)/64), one pillar_step per model step, printing a diagnostic now
 * and then. At the end it applies the stencil once more to read the output `out`.
 *
 * usage: timeloop [--steps T] [--backend cpu|gpu|auto] [--files PREFIX]
 *   --files PREFIX  also writes PREFIX.mesh.h5 (the grid), PREFIX.initial.h5 (the initial field)
 *                   and PREFIX.final.h5 (the field after T steps), all in the model's cell order,
 *                   so that `pillar run --steps T --mesh PREFIX.mesh.h5 --input
 *                   PREFIX.initial.h5 --output G` can be compared with PREFIX.final.h5. */
#include <pillar.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NX 24
#define NY 16
#define NZ 5
#define NCELLS (NX * NY)

/* A status that is not PILLAR_OK ends the program with pillar's message. */
static void check(pillar_ctx *ctx, pillar_status st, const char *what)
{
    if (st == PILLAR_OK)
        return;
    fprintf(stderr, "timeloop: %s: %s: %s\n", what, pillar_status_name(st),
            pillar_last_error(ctx));
    pillar_destroy(ctx);
    exit(1);
}

/* The model's numbering: lattice point (x, y) is cell id[y*NX + x], a permutation made by a
 * fixed multiplicative scramble (gcd(37, NCELLS) = 1). */
static int cell_of(int x, int y) { return (int)(((long)(y * NX + x) * 37 + 11) % NCELLS); }

int main(int argc, char **argv)
{
    int steps = 20;
    const char *backend = "auto", *prefix = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--steps") && i + 1 < argc)
            steps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc)
            backend = argv[++i];
        else if (!strcmp(argv[i], "--files") && i + 1 < argc)
            prefix = argv[++i];
        else {
            fprintf(stderr, "usage: timeloop [--steps T] [--backend cpu|gpu|auto] [--files P]\n");
            return 2;
        }
    }

    /* the model's grid: W, E, S, N of each of its cells, -1 beyond the lattice's edge */
    static int nbr[NCELLS][4];
    for (int y = 0; y < NY; y++)
        for (int x = 0; x < NX; x++) {
            int *r = nbr[cell_of(x, y)];
            r[0] = x > 0 ? cell_of(x - 1, y) : -1;
            r[1] = x < NX - 1 ? cell_of(x + 1, y) : -1;
            r[2] = y > 0 ? cell_of(x, y - 1) : -1;
            r[3] = y < NY - 1 ? cell_of(x, y + 1) : -1;
        }
    /* the model's state: a smooth bump plus a level-dependent ripple, in its own order */
    static double state[NZ * NCELLS];
    for (int z = 0; z < NZ; z++)
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++) {
                double dx = x - NX / 2.0, dy = y - NY / 2.0;
                state[z * NCELLS + cell_of(x, y)] =
                    exp(-(dx * dx + dy * dy) / 20.0) + 0.1 * (z + 1) * cos(1.3 * x + 0.7 * y);
            }

    pillar_ctx *ctx;
    pillar_status st = pillar_create(&ctx);
    if (st != PILLAR_OK) {
        fprintf(stderr, "timeloop: pillar_create: %s\n", pillar_status_name(st));
        return 1;
    }
    check(ctx, pillar_set_option(ctx, "stencil", "laplap"), "stencil");
    check(ctx, pillar_set_option(ctx, "order", "metis"), "order");
    check(ctx, pillar_set_option(ctx, "backend", backend), "backend");
    check(ctx, pillar_grid_quad(ctx, NCELLS, NZ, &nbr[0][0]), "grid");
    check(ctx, pillar_setup(ctx), "setup");

    int ncells, nlevels, nhalo;
    check(ctx, pillar_get_sizes(ctx, &ncells, &nlevels, &nhalo), "sizes");
    static int halo[NCELLS], perm[NCELLS];
    check(ctx, pillar_get_halo(ctx, halo, NCELLS), "halo");
    check(ctx, pillar_get_permutation(ctx, perm, NCELLS), "permutation");
    printf("grid: %d cells (%d halo) x %d levels; model cell 0 is pillar's cell %d\n", ncells,
           nhalo, nlevels, perm[0]);

    check(ctx, pillar_set_field(ctx, "in", state, (size_t)NZ * NCELLS), "set in");
    if (prefix) {
        char path[4096];
        snprintf(path, sizeof path, "%s.mesh.h5", prefix);
        check(ctx, pillar_write_mesh(ctx, path), path);
        snprintf(path, sizeof path, "%s.initial.h5", prefix);
        check(ctx, pillar_write_fields(ctx, path), path);
    }

    for (int t = 1; t <= steps; t++) {
        check(ctx, pillar_step(ctx, 1), "step");
        if (t % 5 == 0 || t == steps) { /* the model's diagnostic: inner cells, level 0 */
            check(ctx, pillar_get_field(ctx, "in", state, (size_t)NZ * NCELLS), "get in");
            double lo = INFINITY, hi = -INFINITY;
            for (int c = 0; c < NCELLS; c++)
                if (!halo[c]) {
                    lo = fmin(lo, state[c]);
                    hi = fmax(hi, state[c]);
                }
            printf("step %3d: level 0 inner cells in [%.6f, %.6f]\n", t, lo, hi);
        }
    }
    if (prefix) {
        char path[4096];
        snprintf(path, sizeof path, "%s.final.h5", prefix);
        check(ctx, pillar_write_fields(ctx, path), path);
    }

    /* one application of the stencil to the final state: laplap(in) at the inner cells */
    static double out[NZ * NCELLS];
    check(ctx, pillar_apply(ctx), "apply");
    check(ctx, pillar_get_field(ctx, "out", out, (size_t)NZ * NCELLS), "get out");
    double norm = 0;
    int nan_at_halo = 1;
    for (int z = 0; z < NZ; z++)
        for (int c = 0; c < NCELLS; c++) {
            double v = out[z * NCELLS + c];
            if (halo[c])
                nan_at_halo &= isnan(v);
            else
                norm += v * v;
        }
    printf("laplap of the final state: rms %.6e over the inner cells%s\n",
           sqrt(norm / ((double)NZ * (NCELLS - nhalo))),
           nan_at_halo ? "; NaN at the halo cells" : "; NOT NaN at some halo cell");
    pillar_destroy(ctx);
    return nan_at_halo ? 0 : 1;
}
