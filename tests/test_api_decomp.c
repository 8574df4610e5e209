/* test_api_decomp.c — a model's own decomposition (pillar_set_decomposition, include/pillar.h)
 * under mpirun -np 4: every rank builds the same small grid (a cubed sphere; a rotated patch, with
 * a boundary), a METIS partition (rank 0's, broadcast) gives each rank its owned cells, the halo
 * is every cell within radius x F of them (breadth-first here), and the local order is shuffled
 * (owned first, then halo). Each rank gives pillar its local table, global ids and inputs (the
 * halo cells' values garbage: pillar's first exchange must replace them), steps, and its local
 * cells (owned and halo) equal, bit for bit, a handle without a communicator on the whole grid;
 * the owned cells gathered on rank 0 cover the grid once. The same with the model's own exchange
 * (pillar_set_halo_exchange, an Allreduce here, independent of pillar's lists), and pillar_apply.
 * Five bad decompositions and a bad argument are refused on every rank with the same status and
 * message, naming the cell and the rank. A plain MPI program. */
#include "include/pillar.h"

#include "grids/mesh.h"
#include "stencils/stencil.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, me, P;
#define CHECK(cond, ...)                                                                          \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            failures++;                                                                           \
            fprintf(stderr, "rank %d: %s:%d: FAILED %s: ", me, __FILE__, __LINE__, #cond);        \
            fprintf(stderr, __VA_ARGS__);                                                         \
            fputc('\n', stderr);                                                                  \
        }                                                                                         \
    } while (0)

enum { N_EDGE = 10, NZ = 4 };

static mesh whole; /* the whole grid, on every rank (the test's, not pillar's) */
static int *part;   /* its owner of every cell */

static double value(int g, int z, int k) /* input k at global cell g, level z */
{
    return 0.5 + 0.25 * ((g * 7919 + z * 31 + k * 104729) % 1000) / 1000.0;
}

/* The whole grid of spec s on every rank and its METIS partition (rank 0's, broadcast); NULL:
 * freed. */
static void use_grid(const mesh_gen_spec *s)
{
    if (part) {
        free(part);
        mesh_free(&whole);
        part = NULL;
    }
    if (!s)
        return;
    CHECK(mesh_generate(&whole, s) == 0 && whole.nbr, "the grid (%s)", mesh_kind_name[s->kind]);
    part = malloc(sizeof(int) * whole.ncells);
    int rc = me == 0 ? mesh_partition(&whole, P, part) : 0;
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(rc == 0, "METIS");
    MPI_Bcast(part, whole.ncells, MPI_INT, 0, MPI_COMM_WORLD);
}

/* A rank's decomposition: local cells (owned shuffled, then halo shuffled), ids, local table. */
typedef struct {
    int ncells, nown;
    int *gid, *nbr; /* nbr: 4 per local cell, local numbers, -1 for none or not held */
} local;

static uint64_t rng = 88172645463325252ull;
static int draw(int n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int)(rng % (uint64_t)n);
}

static void shuffle(int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = draw(i + 1), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* Rank r's cells: owned by part, the halo to `depth` rings (breadth-first on the whole grid). */
static local make_local(int r, int depth)
{
    int N = whole.ncells, *dist = malloc(sizeof(int) * N), *queue = malloc(sizeof(int) * N);
    int head = 0, tail = 0, nown = 0;
    for (int c = 0; c < N; c++) {
        dist[c] = part[c] == r ? 0 : -1;
        if (part[c] == r)
            queue[tail++] = c;
    }
    nown = tail;
    while (head < tail) {
        int u = queue[head++];
        if (dist[u] == depth)
            continue;
        for (int s = 0; s < 4; s++) {
            int v = whole.nbr[4 * u + s];
            if (v >= 0 && dist[v] < 0) {
                dist[v] = dist[u] + 1;
                queue[tail++] = v;
            }
        }
    }
    local l = {tail, nown, malloc(sizeof(int) * (tail + 1)), malloc(sizeof(int) * 4 * (tail + 1))};
    memcpy(l.gid, queue, sizeof(int) * tail);
    shuffle(l.gid, nown);
    shuffle(l.gid + nown, tail - nown);
    int *g2l = dist; /* reused */
    for (int c = 0; c < N; c++)
        g2l[c] = -1;
    for (int i = 0; i < tail; i++)
        g2l[l.gid[i]] = i;
    for (int i = 0; i < tail; i++)
        for (int s = 0; s < 4; s++) {
            int v = whole.nbr[4 * l.gid[i] + s];
            l.nbr[4 * i + s] = v >= 0 ? g2l[v] : -1;
        }
    free(dist);
    free(queue);
    return l;
}

static void local_free(local *l)
{
    free(l->gid);
    free(l->nbr);
}

static pillar_ctx *handle(const char *stencil, const char *fuse)
{
    pillar_ctx *ctx;
    if (pillar_create(&ctx) != PILLAR_OK)
        return NULL;
    int ok = pillar_set_option(ctx, "stencil", stencil) == PILLAR_OK &&
             pillar_set_option(ctx, "backend", getenv("API_MPI_BACKEND") ? getenv("API_MPI_BACKEND") : "cpu") == PILLAR_OK &&
             pillar_set_option(ctx, "fuse", fuse) == PILLAR_OK;
    if (ok && getenv("API_MPI_HALO")) /* a GPU run's halo path (tools/gpu-check.sh tries each) */
        ok = pillar_set_option(ctx, "halo", getenv("API_MPI_HALO")) == PILLAR_OK;
    CHECK(ok, "options: %s", pillar_last_error(ctx));
    return ctx;
}

/* The cells' centres at ids[0 .. n), for a stencil that reads them (fluxdiff's coefficients):
 * the whole grid's, in the local order, stretched by 1 + 0.4 x so that the cells shrink towards
 * x = -1: the least area over Σκ, fluxdiff's time step, lies in one rank's cells, and a rank that
 * took its own minimum would step differently. 1, or 0 when the call failed. */
static int set_centres(pillar_ctx *ctx, const char *stencil, const int *ids, int n)
{
    if (strcmp(stencil, "fluxdiff") != 0)
        return 1;
    int nc = whole.ncoord;
    double *xyz = malloc(sizeof(double) * (size_t)n * nc + 1);
    for (int i = 0; i < n; i++) {
        const double *c = whole.coord + (size_t)ids[i] * nc;
        for (int k = 0; k < nc; k++)
            xyz[(size_t)i * nc + k] = c[k] * (1 + 0.4 * c[0]);
    }
    int ok = pillar_set_coordinates(ctx, n, nc, xyz) == PILLAR_OK;
    free(xyz);
    return ok;
}

/* Every input set from value(), at the cells ids[0 .. n) (halo cells from nown on get garbage
 * when spoil: the exchange must overwrite it). */
static int set_inputs(pillar_ctx *ctx, const int *ids, int n, int nown, int spoil)
{
    int nin = 0, nout = 0, ok = pillar_field_count(ctx, &nin, &nout) == PILLAR_OK;
    double *v = malloc(sizeof(double) * n * NZ);
    for (int k = 0; ok && k < nin; k++) {
        const char *name;
        ok = pillar_field_name(ctx, k, &name) == PILLAR_OK;
        for (int z = 0; z < NZ; z++)
            for (int i = 0; i < n; i++)
                v[z * n + i] = spoil && i >= nown ? 1e3 + i : value(ids[i], z, k);
        ok = ok && pillar_set_field(ctx, name, v, (size_t)n * NZ) == PILLAR_OK;
    }
    free(v);
    return ok;
}

/* The reference: a handle without a communicator on the whole grid after T steps (field 0). */
static double *reference(const char *stencil, const char *fuse, int general, int T)
{
    int N = whole.ncells, *ids = malloc(sizeof(int) * N);
    for (int c = 0; c < N; c++)
        ids[c] = c;
    pillar_ctx *ctx = handle(stencil, fuse);
    double *out = malloc(sizeof(double) * N * NZ);
    int ok = (general ? pillar_grid_general(ctx, N, NZ, 4, whole.nbr)
                      : pillar_grid_quad(ctx, N, NZ, whole.nbr)) == PILLAR_OK &&
             set_centres(ctx, stencil, ids, N) &&
             pillar_setup(ctx) == PILLAR_OK && set_inputs(ctx, ids, N, N, 0) &&
             pillar_step(ctx, T) == PILLAR_OK;
    const char *name;
    ok = ok && pillar_field_name(ctx, 0, &name) == PILLAR_OK &&
         pillar_get_field(ctx, name, out, (size_t)N * NZ) == PILLAR_OK;
    CHECK(ok, "reference %s: %s", stencil, pillar_last_error(ctx));
    pillar_destroy(ctx);
    free(ids);
    return out;
}

/* The model's own exchange for pillar_set_halo_exchange: the owned values summed into a global
 * array over the ranks (each cell owned once, so the sum is the value), read back at the halo. */
typedef struct {
    const local *l;
    int calls;
} model;

static int model_exchange(void *user, const char *field, void *values, int nlevels, int ncells,
                          int on_device)
{
    model *mo = user;
    const local *l = mo->l;
    int N = whole.ncells;
    (void)field;
    if (on_device || ncells != l->ncells || nlevels != NZ)
        return 1;
    double *g = calloc((size_t)N * NZ, sizeof(double)), *sum = malloc(sizeof(double) * N * NZ);
    for (int z = 0; z < NZ; z++)
        for (int i = 0; i < l->nown; i++)
            g[z * N + l->gid[i]] = ((double *)values)[z * ncells + i];
    MPI_Allreduce(g, sum, N * NZ, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int z = 0; z < NZ; z++)
        for (int i = l->nown; i < ncells; i++)
            ((double *)values)[z * ncells + i] = sum[z * N + l->gid[i]];
    free(g);
    free(sum);
    mo->calls++;
    return 0;
}

/* One run over the decomposition (a halo of radius x F rings and `extra` more): every local cell
 * equals the reference; the owned cells gathered on rank 0 cover the grid once. own_exchange:
 * the model's exchange instead. */
static void run(const char *stencil, const char *fuse, int general, int T, int own_exchange,
                int extra)
{
    stencil_t s;
    CHECK(stencil_parse(stencil, &s) == 0, "stencil %s", stencil);
    int F = atoi(fuse), radius = stencil_table[s].radius;
    double *ref = reference(stencil, fuse, general, T);
    local l = make_local(me, radius * F + extra);
    pillar_ctx *ctx = handle(stencil, fuse);
    int comm = (int)MPI_Comm_c2f(MPI_COMM_WORLD);
    model mo = {&l, 0};
    int ok = (general ? pillar_grid_general(ctx, l.ncells, NZ, 4, l.nbr)
                      : pillar_grid_quad(ctx, l.ncells, NZ, l.nbr)) == PILLAR_OK &&
             set_centres(ctx, stencil, l.gid, l.ncells) &&
             pillar_set_decomposition(ctx, comm, l.nown, l.gid) == PILLAR_OK &&
             (!own_exchange ||
              pillar_set_halo_exchange(ctx, model_exchange, &mo) == PILLAR_OK) &&
             pillar_setup(ctx) == PILLAR_OK && set_inputs(ctx, l.gid, l.ncells, l.nown, 1) &&
             pillar_step(ctx, T) == PILLAR_OK;
    CHECK(ok, "%s fuse %s: %s", stencil, fuse, pillar_last_error(ctx));
    /* with pillar's exchange the CPU runs the passes on the rank's share (no note) */
    CHECK(!ok || own_exchange || !pillar_last_error(ctx)[0], "%s fuse %s: %s", stencil, fuse,
          pillar_last_error(ctx));
    double *got = malloc(sizeof(double) * l.ncells * NZ);
    const char *name;
    ok = ok && pillar_field_name(ctx, 0, &name) == PILLAR_OK &&
         pillar_get_field(ctx, name, got, (size_t)l.ncells * NZ) == PILLAR_OK;
    int bad = -1, N = whole.ncells;
    for (int z = 0; ok && z < NZ && bad < 0; z++)
        for (int i = 0; i < l.ncells && bad < 0; i++)
            if (memcmp(&got[z * l.ncells + i], &ref[z * N + l.gid[i]], sizeof(double)) != 0)
                bad = i;
    CHECK(ok && bad < 0, "%s fuse %s%s%s, %d steps: local cell %d (global %d, %s) differs from "
          "the one-rank run", stencil, fuse, general ? " general" : "",
          own_exchange ? " (model's exchange)" : "", T, bad, bad >= 0 ? l.gid[bad] : -1,
          bad >= 0 && bad < l.nown ? "owned" : "halo");
    if (own_exchange) { /* every input once, then the state (laplap: one field) after each pass */
        int passes = (T + F - 1) / F, nin = 0, nout = 0;
        pillar_field_count(ctx, &nin, &nout);
        CHECK(mo.calls == nin + passes, "the model's exchange ran %d times, expected %d",
              mo.calls, nin + passes);
    }
    /* the owned cells gathered on rank 0 cover the grid once and equal the reference */
    int *counts = malloc(sizeof(int) * P), *dis = malloc(sizeof(int) * P);
    MPI_Gather(&l.nown, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0;
    for (int q = 0; q < P; q++) {
        dis[q] = total;
        total += me == 0 ? counts[q] : 0;
    }
    int *ids = malloc(sizeof(int) * (total + 1));
    double *vals = malloc(sizeof(double) * (total + 1)), *mine = malloc(sizeof(double) * l.nown);
    MPI_Gatherv(l.gid, l.nown, MPI_INT, ids, counts, dis, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < l.nown; i++) /* the top level */
        mine[i] = got[(NZ - 1) * l.ncells + i];
    MPI_Gatherv(mine, l.nown, MPI_DOUBLE, vals, counts, dis, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (me == 0) {
        char *seen = calloc((size_t)N, 1);
        int dup = 0, diff = 0;
        for (int i = 0; i < total; i++) {
            dup += seen[ids[i]]++;
            diff += memcmp(&vals[i], &ref[(NZ - 1) * N + ids[i]], sizeof(double)) != 0;
        }
        CHECK(total == N && dup == 0 && diff == 0, "%s: gathered %d of %d cells, %d twice, %d "
              "differ", stencil, total, N, dup, diff);
        free(seen);
    }
    free(counts);
    free(dis);
    free(ids);
    free(vals);
    free(mine);
    free(got);
    free(ref);
    pillar_destroy(ctx);
    local_free(&l);
}

/* The first local cell (z-major) of got[] that differs from the one-rank run ref (whole grid),
 * or -1. */
static int first_differing(const local *l, const double *got, const double *ref)
{
    for (int z = 0; z < NZ; z++)
        for (int i = 0; i < l->ncells; i++)
            if (memcmp(&got[z * l->ncells + i], &ref[z * whole.ncells + l->gid[i]], sizeof(double)))
                return i;
    return -1;
}

/* A model's time loop: T calls of pillar_step(1) (T = 6 or less). The state stays where pillar
 * computes it between the calls. After the second step the model reads it (from there); after
 * the third too, and it must then equal the one-rank run after 3 steps. The model then sets
 * every input to its initial values again, with garbage in the halo cells: pillar takes them and
 * refreshes the halo. Every local cell must then equal the one-rank run after T - 3 steps. */
static void run_loop(const char *stencil, const char *fuse, int T)
{
    stencil_t s;
    CHECK(stencil_parse(stencil, &s) == 0, "stencil %s", stencil);
    double *ref = reference(stencil, fuse, 0, T - 3), *ref3 = reference(stencil, fuse, 0, 3);
    local l = make_local(me, stencil_table[s].radius * atoi(fuse));
    pillar_ctx *ctx = handle(stencil, fuse);
    int comm = (int)MPI_Comm_c2f(MPI_COMM_WORLD), n = l.ncells;
    const char *name = "";
    int ok = pillar_grid_quad(ctx, n, NZ, l.nbr) == PILLAR_OK &&
             pillar_set_decomposition(ctx, comm, l.nown, l.gid) == PILLAR_OK &&
             pillar_setup(ctx) == PILLAR_OK && set_inputs(ctx, l.gid, n, l.nown, 1) &&
             pillar_field_name(ctx, 0, &name) == PILLAR_OK;
    double *got = malloc(sizeof(double) * n * NZ);
    for (int t = 0; ok && t < T; t++) {
        ok = pillar_step(ctx, 1) == PILLAR_OK;
        if (ok && t >= 1 && t <= 2)
            ok = pillar_get_field(ctx, name, got, (size_t)n * NZ) == PILLAR_OK;
        if (ok && t == 2) {
            int b3 = first_differing(&l, got, ref3);
            CHECK(b3 < 0, "%s fuse %s, 3 calls of pillar_step(1): local cell %d (global %d, %s) "
                  "differs from the one-rank run", stencil, fuse, b3, b3 >= 0 ? l.gid[b3] : -1,
                  b3 >= 0 && b3 < l.nown ? "owned" : "halo");
            ok = set_inputs(ctx, l.gid, n, l.nown, 1);
        }
    }
    ok = ok && pillar_get_field(ctx, name, got, (size_t)n * NZ) == PILLAR_OK;
    CHECK(ok, "%s fuse %s, a loop of pillar_step(1): %s", stencil, fuse, pillar_last_error(ctx));
    int bad = ok ? first_differing(&l, got, ref) : -1;
    CHECK(bad < 0, "%s fuse %s, %d calls of pillar_step(1), the inputs set again after 3: local "
          "cell %d (global %d, %s) differs from the one-rank run", stencil, fuse, T, bad, bad >= 0 ? l.gid[bad] : -1,
          bad >= 0 && bad < l.nown ? "owned" : "halo");
    free(got);
    free(ref);
    free(ref3);
    pillar_destroy(ctx);
    local_free(&l);
}

/* A part that cannot be opened (halos through NCCL asked of a CPU run): pillar_step runs the
 * whole local grid instead, says so in a note on every rank, and the result is the same. CPU
 * backend only. */
static void run_fallback(void)
{
    const char *backend = getenv("API_MPI_BACKEND");
    if (backend && strcmp(backend, "cpu") != 0)
        return; /* on GPUs of their own the ranks' NCCL may well open */
    double *ref = reference("laplap", "1", 0, 3);
    local l = make_local(me, 2);
    pillar_ctx *ctx = handle("laplap", "1");
    int comm = (int)MPI_Comm_c2f(MPI_COMM_WORLD), n = l.ncells, N = whole.ncells;
    int ok = pillar_set_option(ctx, "halo", "nccl") == PILLAR_OK &&
             pillar_grid_quad(ctx, n, NZ, l.nbr) == PILLAR_OK &&
             pillar_set_decomposition(ctx, comm, l.nown, l.gid) == PILLAR_OK &&
             pillar_setup(ctx) == PILLAR_OK && set_inputs(ctx, l.gid, n, l.nown, 1) &&
             pillar_step(ctx, 3) == PILLAR_OK;
    CHECK(ok, "laplap, halo nccl on the CPU: %s", pillar_last_error(ctx));
    CHECK(!ok || (strstr(pillar_last_error(ctx), "each pass computes the whole local grid") &&
                  strstr(pillar_last_error(ctx), "--halo nccl")),
          "laplap, halo nccl on the CPU: no note of the fallback: '%s'", pillar_last_error(ctx));
    double *got = malloc(sizeof(double) * n * NZ);
    const char *name = "";
    ok = ok && pillar_field_name(ctx, 0, &name) == PILLAR_OK &&
         pillar_get_field(ctx, name, got, (size_t)n * NZ) == PILLAR_OK;
    int bad = -1;
    for (int z = 0; ok && z < NZ && bad < 0; z++)
        for (int i = 0; i < n && bad < 0; i++)
            if (memcmp(&got[z * n + i], &ref[z * N + l.gid[i]], sizeof(double)) != 0)
                bad = i;
    CHECK(ok && bad < 0, "laplap, the whole local grid's passes: local cell %d differs", bad);
    free(got);
    free(ref);
    pillar_destroy(ctx);
    local_free(&l);
}

/* pillar_apply over the decomposition (halo garbage again): the outputs at the owned cells equal
 * the handle's without a communicator on the whole grid, bit for bit. */
static void run_apply(const char *stencil)
{
    int N = whole.ncells, *ids = malloc(sizeof(int) * N), nin = 0, nout = 0;
    for (int c = 0; c < N; c++)
        ids[c] = c;
    const char *name;
    double *ref = malloc(sizeof(double) * N * NZ);
    pillar_ctx *ctx = handle(stencil, "1");
    int ok = pillar_grid_quad(ctx, N, NZ, whole.nbr) == PILLAR_OK &&
             pillar_setup(ctx) == PILLAR_OK && set_inputs(ctx, ids, N, N, 0) &&
             pillar_apply(ctx) == PILLAR_OK &&
             pillar_field_count(ctx, &nin, &nout) == PILLAR_OK &&
             pillar_field_name(ctx, nin, &name) == PILLAR_OK &&
             pillar_get_field(ctx, name, ref, (size_t)N * NZ) == PILLAR_OK;
    CHECK(ok, "apply %s, reference: %s", stencil, pillar_last_error(ctx));
    pillar_destroy(ctx);
    local l = make_local(me, 2);
    double *got = malloc(sizeof(double) * l.ncells * NZ);
    ctx = handle(stencil, "1");
    ok = pillar_grid_quad(ctx, l.ncells, NZ, l.nbr) == PILLAR_OK &&
         pillar_set_decomposition(ctx, (int)MPI_Comm_c2f(MPI_COMM_WORLD), l.nown, l.gid) ==
             PILLAR_OK &&
         pillar_setup(ctx) == PILLAR_OK && set_inputs(ctx, l.gid, l.ncells, l.nown, 1) &&
         pillar_apply(ctx) == PILLAR_OK && pillar_field_name(ctx, nin, &name) == PILLAR_OK &&
         pillar_get_field(ctx, name, got, (size_t)l.ncells * NZ) == PILLAR_OK;
    CHECK(ok, "apply %s: %s", stencil, pillar_last_error(ctx));
    int bad = -1;
    for (int z = 0; ok && z < NZ && bad < 0; z++)
        for (int i = 0; i < l.nown && bad < 0; i++)
            if (memcmp(&got[z * l.ncells + i], &ref[z * N + l.gid[i]], sizeof(double)) != 0)
                bad = i;
    CHECK(ok && bad < 0, "apply %s: owned cell %d differs from the one-rank run", stencil, bad);
    pillar_destroy(ctx);
    local_free(&l);
    free(got);
    free(ref);
    free(ids);
}

/* A bad decomposition (l, nown as given) refused on every rank with status want and a message
 * that contains each of the strings in has[] (NULL-terminated) and is the same on every rank. */
static void refused(const char *what, const char *fuse, local *l, int nown, pillar_status want,
                    const char *const *has)
{
    pillar_ctx *ctx = handle("laplap", fuse);
    int comm = (int)MPI_Comm_c2f(MPI_COMM_WORLD);
    int ok = pillar_grid_quad(ctx, l->ncells, NZ, l->nbr) == PILLAR_OK;
    CHECK(ok, "%s: the local table: %s", what, pillar_last_error(ctx));
    pillar_status st = pillar_set_decomposition(ctx, comm, nown, l->gid);
    const char *msg = pillar_last_error(ctx);
    CHECK(st == want, "%s: status %s, expected %s (%s)", what, pillar_status_name(st),
          pillar_status_name(want), msg);
    for (int i = 0; has[i]; i++)
        CHECK(strstr(msg, has[i]) != NULL, "%s: the message '%s' does not say '%s'", what, msg,
              has[i]);
    char first[1024] = "";
    if (me == 0)
        snprintf(first, sizeof first, "%s", msg);
    MPI_Bcast(first, sizeof first, MPI_CHAR, 0, MPI_COMM_WORLD);
    CHECK(strcmp(first, msg) == 0, "%s: rank 0 says '%s', this rank '%s'", what, first, msg);
    pillar_destroy(ctx);
}

static void refusals(void)
{
    int N = whole.ncells;
    char a[160], b[160], c[160];
    /* 1. a global id owned twice: rank 1's first owned cell takes an id rank 2 owns and rank 1
     * does not hold */
    {
        local l = make_local(me, 2);
        int g = -1;
        if (me == 1) {
            char *held = calloc((size_t)N, 1);
            for (int i = 0; i < l.ncells; i++)
                held[l.gid[i]] = 1;
            for (int x = 0; x < N && g < 0; x++)
                if (part[x] == 2 && !held[x])
                    g = x;
            free(held);
            l.gid[0] = g;
        }
        MPI_Bcast(&g, 1, MPI_INT, 1, MPI_COMM_WORLD);
        snprintf(a, sizeof a, "global id %d is owned by rank 1 (local cell 0) and rank 2 (local "
                 "cell ", g);
        const char *has[] = {a, NULL};
        refused("an id owned twice", "1", &l, l.nown, PILLAR_ERR_GRID, has);
        local_free(&l);
    }
    /* 2. a halo cell no rank owns: rank 0's last halo cell gets an id beyond the grid */
    {
        local l = make_local(me, 2);
        if (me == 0)
            l.gid[l.ncells - 1] = N + 7;
        int h = l.ncells - 1;
        MPI_Bcast(&h, 1, MPI_INT, 0, MPI_COMM_WORLD);
        snprintf(a, sizeof a, "rank 0's halo cell %d (global id %d) is owned by no rank", h, N + 7);
        const char *has[] = {a, NULL};
        refused("a halo cell owned by no rank", "1", &l, l.nown, PILLAR_ERR_GRID, has);
        local_free(&l);
    }
    /* 3. tables that disagree: rank 2 swaps W and E of a halo cell next to its owned cells */
    {
        local l = make_local(me, 2);
        int h = -1, g = -1;
        if (me == 2)
            for (int i = 0; i < l.nown && h < 0; i++)
                for (int s = 0; s < 4 && h < 0; s++) {
                    int v = l.nbr[4 * i + s];
                    if (v >= l.nown && l.nbr[4 * v] >= 0 && l.nbr[4 * v + 1] >= 0) {
                        h = v;
                        g = l.gid[v];
                        int t = l.nbr[4 * v];
                        l.nbr[4 * v] = l.nbr[4 * v + 1];
                        l.nbr[4 * v + 1] = t;
                    }
                }
        MPI_Bcast(&h, 1, MPI_INT, 2, MPI_COMM_WORLD);
        MPI_Bcast(&g, 1, MPI_INT, 2, MPI_COMM_WORLD);
        snprintf(a, sizeof a, "tables disagree at global id %d", g);
        snprintf(b, sizeof b, "rank 2's halo cell %d has global id", h);
        snprintf(c, sizeof c, "its owner rank %d", part[g]);
        const char *has[] = {a, b, c, NULL};
        refused("tables that disagree", "1", &l, l.nown, PILLAR_ERR_GRID, has);
        local_free(&l);
    }
    /* 4. a rank with no cells: rank 3 owns none (its cells all given as halo) */
    {
        local l = make_local(me, 2);
        const char *has[] = {"rank 3 owns no cell", NULL};
        refused("a rank with no cells", "1", &l, me == 3 ? 0 : l.nown, PILLAR_ERR_GRID, has);
        local_free(&l);
    }
    /* an argument one rank refuses alone: agreed too (rank 2's nowned beyond its cells) */
    {
        local l = make_local(me, 2);
        const char *has[] = {"rank 2: nowned = ", NULL};
        refused("nowned out of range", "1", &l, me == 2 ? l.ncells + 1 : l.nown, PILLAR_ERR_ARG,
                has);
        local_free(&l);
    }
    /* 5. a halo too thin: fuse 2 needs 4 rings for laplap, every rank holds 2 */
    {
        local l = make_local(me, 2);
        const char *has[] = {"halo is too thin", "radius x fuse = 4", NULL};
        refused("a halo too thin", "2", &l, l.nown, PILLAR_ERR_GRID, has);
        local_free(&l);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (P < 4) {
        if (me == 0)
            fprintf(stderr, "test_api_decomp: run with mpirun -np 4 (or more)\n");
        MPI_Finalize();
        return 77;
    }
    rng += (uint64_t)me * 0x9E3779B97F4A7C15ull; /* each rank its own shuffle */
    mesh_gen_spec sphere = {MESH_CUBED_SPHERE, 0, 0, N_EDGE, NZ, 0, 0, 0, 0};
    use_grid(&sphere);
    run("laplap", "1", 0, 3, 0, 0);
    run("laplap", "2", 0, 5, 0, 0); /* a last pass of one step */
    run("laplap", "1", 0, 4, 0, 3); /* a halo deeper than the stencil needs */
    run("lap", "3", 0, 7, 0, 0);
    run("hdiff", "2", 0, 4, 0, 0);
    run("graphlap", "2", 1, 4, 0, 0);
    run("fluxdiff", "2", 1, 5, 0, 0); /* coefficients: its time step the least over the ranks */
    run("fluxdiff", "1", 1, 3, 1, 0);
    run("laplap", "2", 0, 5, 1, 0); /* the model's own exchange */
    run_loop("laplap", "1", 6);
    run_loop("lap", "2", 5);
    run_fallback();
    run_apply("laplap");
    refusals();
    /* a patch with a boundary (halo cells of the grid, never computed: owned by some ranks, held
     * by others) whose W/E/S/N labels turn in a rotated square */
    mesh_gen_spec patch = {MESH_ROTATED, 23, 19, 0, NZ, 8, 7, 0, 0};
    use_grid(&patch);
    run("laplap", "2", 0, 5, 0, 0);
    run("hdiff", "1", 0, 3, 0, 1);
    run("laplap", "3", 0, 4, 1, 0);

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("test_api_decomp: %d ranks, %d failures\n", P, all);
    use_grid(NULL);
    MPI_Finalize();
    return all ? 1 : 0;
}
