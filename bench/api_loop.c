/* api_loop.c — a model's time loop through the public API (include/pillar.h), timed: what a
 * model developer gets from libpillar on the GPU, to set beside the kernels of `pillar run`.
 *
 * usage: api_loop (--lattice NXxNYxNZ | --mesh FILE) [--stencil S] [--precision P]
 *                 [--persistent on|off|auto] [--steps T] [--runs R] [--csv FILE]
 *
 * The grid: a bounded NX x NY lattice with NZ levels, its cells in row-major order (the
 * quad table built here, as a model would), or a pillar mesh file (pillar_grid_file). The
 * options are the library's defaults (auto storage and strategy). Each figure is the median of
 * R runs after one warm-up run, wall clock on the host around the calls and a device
 * synchronisation (cudaDeviceSynchronize), so it is what the model waits for:
 *
 *   step(T)         one pillar_step(T), per step
 *   step(1) loop    T calls of pillar_step(1), per step
 *   host loop       T times: pillar_set_field + pillar_step(1) + pillar_get_field with host
 *                   arrays, per step; beside it one cudaMemcpy host->device and one back of the
 *                   same (pageable) arrays, the floor of "one copy each way"
 *   device set/get  pillar_set_field_device, pillar_get_field_device of one field, against a
 *                   cudaMemcpy device->device of it
 *   first call      the first pillar_step(1) of a handle: what is made once (plan, device
 *                   images, the upload of the fields)
 *   bound loop      T calls of pillar_step(1) with the state bound to a device array
 *                   (pillar_bind_field_device): renumbered on the device before and after each
 *                   call, as the caller's order is not pillar's
 *   bound in place  the same on the lattice given in pillar's own order (its cells renumbered
 *                   by pillar_get_permutation): the bound array is the state, used in place
 *
 * Verification: the state after each mode's last run (T steps from the initial state) against
 * a handle on the CPU backend that ran the same T steps: the count of points whose bits differ
 * (0 = bit-exact). Exit 0 when every mode is bit-exact, 1 otherwise, 2 for bad arguments. */
#include <pillar.h>

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void die_api(pillar_ctx *ctx, pillar_status st, const char *what)
{
    if (st == PILLAR_OK)
        return;
    fprintf(stderr, "api_loop: %s: %s: %s\n", what, pillar_status_name(st),
            pillar_last_error(ctx));
    exit(1);
}

static void die_cuda(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return;
    fprintf(stderr, "api_loop: %s: %s\n", what, cudaGetErrorString(e));
    exit(1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

typedef struct {
    const char *stencil, *precision, *mesh, *backend, *persistent;
    int nx, ny, nz;
} setup_args;

static int *lattice_table(int nx, int ny)
{
    int *nbr = malloc(sizeof(int) * 4 * (size_t)nx * (size_t)ny);
    if (!nbr)
        exit(1);
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++) {
            int *r = nbr + 4 * ((size_t)y * nx + x);
            r[0] = x > 0 ? y * nx + x - 1 : -1;
            r[1] = x < nx - 1 ? y * nx + x + 1 : -1;
            r[2] = y > 0 ? (y - 1) * nx + x : -1;
            r[3] = y < ny - 1 ? (y + 1) * nx + x : -1;
        }
    return nbr;
}

static pillar_ctx *make(const setup_args *a, const int *nbr)
{
    pillar_ctx *ctx;
    if (pillar_create(&ctx) != PILLAR_OK)
        exit(1);
    die_api(ctx, pillar_set_option(ctx, "stencil", a->stencil), "stencil");
    die_api(ctx, pillar_set_option(ctx, "precision", a->precision), "precision");
    die_api(ctx, pillar_set_option(ctx, "backend", a->backend), "backend");
    die_api(ctx, pillar_set_option(ctx, "persistent", a->persistent), "persistent");
    if (a->mesh)
        die_api(ctx, pillar_grid_file(ctx, a->mesh), "pillar_grid_file");
    else
        die_api(ctx, pillar_grid_quad(ctx, a->nx * a->ny, a->nz, nbr), "pillar_grid_quad");
    die_api(ctx, pillar_setup(ctx), "pillar_setup");
    return ctx;
}

/* The initial state: smooth in the caller's cell index and level. */
static void initial(double *v, size_t n, int ncells)
{
    for (size_t j = 0; j < n; j++) {
        int c = (int)(j % (size_t)ncells), z = (int)(j / (size_t)ncells);
        v[j] = sin(0.001 * c + 0.1 * z) + 0.25 * cos(0.0007 * c * (1 + z % 3));
    }
}

/* Points whose bits differ (NaN equal to NaN). */
static long differ(const double *a, const double *b, size_t n)
{
    long bad = 0;
    for (size_t j = 0; j < n; j++)
        if (memcmp(&a[j], &b[j], sizeof(double)) != 0 && !(isnan(a[j]) && isnan(b[j])))
            bad++;
    return bad;
}

int main(int argc, char **argv)
{
    setup_args a = {"laplap", "double", NULL, "gpu", "auto", 0, 0, 0};
    int steps = 100, runs = 10;
    const char *csv = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--lattice") && i + 1 < argc &&
            sscanf(argv[i + 1], "%dx%dx%d", &a.nx, &a.ny, &a.nz) == 3)
            i++;
        else if (!strcmp(argv[i], "--mesh") && i + 1 < argc)
            a.mesh = argv[++i];
        else if (!strcmp(argv[i], "--stencil") && i + 1 < argc)
            a.stencil = argv[++i];
        else if (!strcmp(argv[i], "--precision") && i + 1 < argc)
            a.precision = argv[++i];
        else if (!strcmp(argv[i], "--persistent") && i + 1 < argc)
            a.persistent = argv[++i];
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc)
            steps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv = argv[++i];
        else {
            fprintf(stderr, "usage: api_loop (--lattice NXxNYxNZ | --mesh FILE) [--stencil S] "
                            "[--precision P] [--persistent on|off|auto] [--steps T] [--runs R] "
                            "[--csv FILE]\n");
            return 2;
        }
    }
    if ((!a.mesh && (a.nx < 5 || a.ny < 5 || a.nz < 1)) || steps < 1 || runs < 1 || runs > 1000) {
        fprintf(stderr, "api_loop: give --lattice NXxNYxNZ (at least 5x5x1) or --mesh FILE, "
                        "--steps >= 1, --runs 1..1000\n");
        return 2;
    }
    int *nbr = a.mesh ? NULL : lattice_table(a.nx, a.ny);
    pillar_ctx *ctx = make(&a, nbr);
    int ncells, nlevels;
    die_api(ctx, pillar_get_sizes(ctx, &ncells, &nlevels, NULL), "sizes");
    size_t n = (size_t)ncells * (size_t)nlevels, bytes = n * sizeof(double);
    double *v0 = malloc(bytes), *host = malloc(bytes), *ref = malloc(bytes), *got = malloc(bytes);
    double *d_state, *d_copy;
    if (!v0 || !host || !ref || !got)
        return 1;
    die_cuda(cudaMalloc((void **)&d_state, bytes), "cudaMalloc");
    die_cuda(cudaMalloc((void **)&d_copy, bytes), "cudaMalloc");
    initial(v0, n, ncells);
    die_cuda(cudaMemcpy(d_state, v0, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");

    /* the CPU reference: T steps from v0 */
    a.backend = "cpu";
    pillar_ctx *cpu = make(&a, nbr);
    die_api(cpu, pillar_set_field(cpu, "in", v0, n), "set (cpu)");
    double c0 = now_s();
    die_api(cpu, pillar_step(cpu, steps), "step (cpu)");
    double cpu_s = now_s() - c0;
    die_api(cpu, pillar_get_field(cpu, "in", ref, n), "get (cpu)");
    pillar_destroy(cpu);

    /* the first call: what a handle makes once */
    die_api(ctx, pillar_set_field(ctx, "in", v0, n), "set");
    double f0 = now_s();
    die_api(ctx, pillar_step(ctx, 1), "first step");
    die_cuda(cudaDeviceSynchronize(), "sync");
    double first_s = now_s() - f0;
    char note[1024]; /* the library's note on the path it took ("" when none) */
    snprintf(note, sizeof note, "%s", pillar_last_error(ctx) ? pillar_last_error(ctx) : "");

    /* the lattice in pillar's own order, for the state bound in place */
    int *perm = malloc(sizeof(int) * (size_t)ncells), *nbrp = NULL;
    pillar_ctx *pctx = NULL;
    double *d_bound, *v0p = malloc(bytes);
    if (!perm || !v0p)
        return 1;
    die_cuda(cudaMalloc((void **)&d_bound, bytes), "cudaMalloc");
    die_api(ctx, pillar_get_permutation(ctx, perm, ncells), "permutation");
    if (!a.mesh) {
        nbrp = malloc(sizeof(int) * 4 * (size_t)ncells);
        if (!nbrp)
            return 1;
        for (int c = 0; c < ncells; c++)
            for (int d = 0; d < 4; d++)
                nbrp[4 * perm[c] + d] = nbr[4 * c + d] < 0 ? -1 : perm[nbr[4 * c + d]];
        setup_args ga = a;
        ga.backend = "gpu";
        pctx = make(&ga, nbrp);
        for (size_t j = 0; j < n; j++) /* v0 in pillar's order */
            v0p[(j / ncells) * ncells + perm[j % ncells]] = v0[j];
    }

    enum { STEP_T, STEP_1, HOST_LOOP, BOUND, IN_PLACE, MODES };
    const char *mode_name[MODES] = {"step(T)", "step(1) loop", "host set+step(1)+get loop",
                                    "step(1) loop with the state bound", "step(1) loop bound in place"};
    double per_step[MODES];
    long bad[MODES];
    double *t = malloc(sizeof(double) * (size_t)(runs + 1));
    for (int m = 0; m < MODES; m++) {
        if (m == IN_PLACE && !pctx) { /* a mesh file: its cells stay in the file's order */
            per_step[m] = 0;
            bad[m] = 0;
            continue;
        }
        pillar_ctx *h = m == IN_PLACE ? pctx : ctx;
        /* the host loop crosses the link twice a step: 3 runs, after the others' warm-up */
        int mruns = m == HOST_LOOP && runs > 3 ? 3 : runs;
        for (int r = m == HOST_LOOP ? 0 : -1; r < mruns; r++) { /* r = -1: the warm-up */
            if (m >= BOUND) {
                die_cuda(cudaMemcpy(d_bound, m == IN_PLACE ? v0p : v0, bytes,
                                    cudaMemcpyHostToDevice), "cudaMemcpy");
                die_api(h, pillar_bind_field_device(h, "in", d_bound, n), "bind");
            } else {
                die_api(ctx, pillar_set_field_device(ctx, "in", d_state, n), "set_field_device");
            }
            die_cuda(cudaDeviceSynchronize(), "sync");
            double s0 = now_s();
            if (m >= BOUND)
                for (int k = 0; k < steps; k++)
                    die_api(h, pillar_step(h, 1), "step(1), bound");
            else if (m == STEP_T) {
                die_api(ctx, pillar_step(ctx, steps), "step(T)");
                if (!note[0]) /* persistent auto says its choice at the second call */
                    snprintf(note, sizeof note, "%s", pillar_last_error(ctx));
            }
            else if (m == STEP_1)
                for (int k = 0; k < steps; k++)
                    die_api(ctx, pillar_step(ctx, 1), "step(1)");
            else
                for (int k = 0; k < steps; k++) {
                    if (k > 0)
                        die_api(ctx, pillar_set_field(ctx, "in", host, n), "set_field");
                    die_api(ctx, pillar_step(ctx, 1), "step(1)");
                    die_api(ctx, pillar_get_field(ctx, "in", host, n), "get_field");
                }
            die_cuda(cudaDeviceSynchronize(), "sync");
            if (r >= 0)
                t[r] = (now_s() - s0) / steps;
        }
        per_step[m] = median(t, mruns);
        if (m >= BOUND) { /* the state is in the bound array, in the caller's order */
            die_cuda(cudaMemcpy(host, d_bound, bytes, cudaMemcpyDeviceToHost), "d2h");
            for (size_t j = 0; j < n; j++)
                got[j] = m == IN_PLACE ? host[(j / ncells) * ncells + perm[j % ncells]] : host[j];
            die_api(h, pillar_bind_field_device(h, "in", NULL, 0), "unbind");
        } else {
            die_api(ctx, pillar_get_field(ctx, "in", got, n), "get_field");
        }
        bad[m] = differ(got, ref, n);
    }

    /* one field across: the API's calls against plain copies of the same bytes */
    enum { DSET, DGET, D2D, HSETAPPLY, APPLY, HGET, H2D, D2H, COPIES };
    const char *copy_name[COPIES] = {"set_field_device",        "get_field_device",
                                     "cudaMemcpy device->device", "set_field (host) + apply",
                                     "apply (state on the device)", "get_field (host) after a step",
                                     "cudaMemcpy host->device",   "cudaMemcpy device->host"};
    double copy_s[COPIES];
    for (int c = 0; c < COPIES; c++) {
        for (int r = -1; r < runs; r++) {
            if (c == HGET) { /* the state is on the device only: it crosses back */
                die_api(ctx, pillar_step(ctx, 1), "step");
            }
            die_cuda(cudaDeviceSynchronize(), "sync");
            double s0 = now_s();
            switch (c) {
            case DSET: die_api(ctx, pillar_set_field_device(ctx, "in", d_state, n), "set"); break;
            case DGET: die_api(ctx, pillar_get_field_device(ctx, "in", d_copy, n), "get"); break;
            case D2D: die_cuda(cudaMemcpy(d_copy, d_state, bytes, cudaMemcpyDeviceToDevice), "d2d"); break;
            case HSETAPPLY: /* the host field goes up at the next run */
                die_api(ctx, pillar_set_field(ctx, "in", v0, n), "set");
                die_api(ctx, pillar_apply(ctx), "apply");
                break;
            case APPLY: die_api(ctx, pillar_apply(ctx), "apply"); break;
            case HGET: die_api(ctx, pillar_get_field(ctx, "in", host, n), "get"); break;
            case H2D: die_cuda(cudaMemcpy(d_copy, v0, bytes, cudaMemcpyHostToDevice), "h2d"); break;
            case D2H: die_cuda(cudaMemcpy(host, d_copy, bytes, cudaMemcpyDeviceToHost), "d2h"); break;
            }
            die_cuda(cudaDeviceSynchronize(), "sync");
            if (r >= 0)
                t[r] = now_s() - s0;
        }
        copy_s[c] = median(t, runs);
    }
    /* device arrays round trip: set then get gives the caller's values back, bit for bit */
    die_api(ctx, pillar_set_field_device(ctx, "in", d_state, n), "set");
    die_api(ctx, pillar_get_field_device(ctx, "in", d_copy, n), "get");
    die_cuda(cudaMemcpy(got, d_copy, bytes, cudaMemcpyDeviceToHost), "d2h");
    long bad_round = differ(got, v0, n);

    struct cudaDeviceProp prop;
    die_cuda(cudaGetDeviceProperties(&prop, 0), "device");
    const char *grid = a.mesh ? a.mesh : "lattice";
    int ok = bad_round == 0;
    for (int m = 0; m < MODES; m++)
        ok = ok && bad[m] == 0;
    double host_floor = per_step[STEP_1] + copy_s[H2D] + copy_s[D2H];
    if (csv) {
        FILE *f = fopen(csv, "w");
        if (!f) {
            fprintf(stderr, "api_loop: cannot write %s\n", csv);
            return 1;
        }
        fprintf(f, "grid,cells,levels,stencil,precision,steps,what,ms,ratio,against,differ\n");
        for (int m = 0; m < MODES; m++) {
            if (per_step[m] <= 0)
                continue;
            fprintf(f, "%s,%d,%d,%s,%s,%d,%s,%.4f,%.4f,%s,%ld\n", grid, ncells, nlevels, a.stencil,
                   a.precision, steps, mode_name[m], per_step[m] * 1e3,
                   m == HOST_LOOP ? per_step[m] / host_floor : per_step[m] / per_step[STEP_T],
                   m == HOST_LOOP ? "step(1) + h2d + d2h" : "step(T)", bad[m]);
        }
        for (int c = 0; c < COPIES; c++)
            fprintf(f, "%s,%d,%d,%s,%s,%d,%s,%.4f,%.4f,%s,%ld\n", grid, ncells, nlevels, a.stencil,
                   a.precision, steps, copy_name[c], copy_s[c] * 1e3,
                   c <= D2D ? copy_s[c] / copy_s[D2D] : 0.0, c <= D2D ? "device->device" : "",
                   c == DGET ? bad_round : 0L);
        fclose(f);
    }
    {
        printf("api_loop on %s: %s (%d cells x %d levels), %s, %s, %d steps, median of %d runs\n",
               prop.name, grid, ncells, nlevels, a.stencil, a.precision, steps, runs);
        printf("  first pillar_step(1) of the handle  %9.3f ms  (plan, device images, upload)\n",
               first_s * 1e3);
        if (note[0])
            printf("  note: %s\n", note);
        printf("  CPU reference                        %9.3f s   (%d steps)\n", cpu_s, steps);
        for (int m = 0; m < MODES; m++) {
            if (per_step[m] <= 0)
                continue;
            printf("  %-34s %9.4f ms a step  %.3fx %s  %s\n", mode_name[m], per_step[m] * 1e3,
                   m == HOST_LOOP ? per_step[m] / host_floor : per_step[m] / per_step[STEP_T],
                   m == HOST_LOOP ? "step(1) + h2d + d2h" : "step(T)",
                   bad[m] ? "DIFFERS from the CPU" : "bit-exact vs CPU");
        }
        for (int c = 0; c < COPIES; c++)
            printf("  %-34s %9.4f ms  (%.1f MB)\n", copy_name[c], copy_s[c] * 1e3, bytes / 1e6);
        printf("  device set / d2d copy %.2fx, get / d2d copy %.2fx; round trip %s\n",
               copy_s[DSET] / copy_s[D2D], copy_s[DGET] / copy_s[D2D],
               bad_round ? "DIFFERS" : "bit-exact");
    }
    pillar_destroy(ctx);
    if (pctx)
        pillar_destroy(pctx);
    cudaFree(d_bound);
    free(perm);
    free(nbrp);
    free(v0p);
    cudaFree(d_state);
    cudaFree(d_copy);
    free(v0);
    free(host);
    free(ref);
    free(got);
    free(t);
    free(nbr);
    return ok ? 0 : 1;
}
