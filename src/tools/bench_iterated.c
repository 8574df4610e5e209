/* cmd_bench_iterated.c — `pillar bench --iterated`: in-core iterated runs of every stencil that
 * has them, timed the ways pillar can run them (docs/benchmark.md#iterated-runs): the host loop
 * (one kernel launch a step), K = 2 and 3 steps per launch (laplap, hdiff, graphlap), the
 * persistent launch (laplap, hdiff, lap, graphlap), the persistent launch that keeps the state on
 * chip (laplap, hdiff, lap: src/plan/persist_onchip.h) and what --persistent auto picks. Kernels only, a
 * warm-up run that is verified bit for bit against the CPU in-core iteration, then the median of --runs runs; a table
 * on stdout, CSV and JSON into --out. On the CPU backend the host loop is the chunked CPU
 * iteration of one in-core chunk and the K-step variants its CPU twin, so that CI runs the command. */
#include "tools.h"
#include "src/engine/run_plan.h"
#include "bench_out.h"
#include "base/progress.h"
#include "src/exec/iterate.h"
#include "src/exec/runner.h"
#include "src/plan/ooc_cpu.h"
#include "src/plan/persist_plan.h"
#include "access/tiles_run.h"
#include "src/tune/plan_cache.h"
#include "src/tune/plan_defaults.h"
#include "src/tune/plan_use.h"

#ifdef PILLAR_HAVE_CUDA
#include "src/exec/gpu.h"
#include "src/plan/ooc_gpu.h"
#include "src/plan/persist_gpu.h"
#include "src/plan/persist_onchip.h"
#include "src/plan/regular_runs.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The default set: 512x512 x these levels, T steps, median of RUNS runs (after a warm-up). */
static const int default_levels[] = {16, 64, 128};
#define DEFAULT_STEPS 200
#define DEFAULT_RUNS 5
/* Threads per block of the host loop's kernel (idxvar 128x1x1, issue 19's configuration) and of
 * the K-step kernels (cmd_iterate.c's default). */
#define HOST_THREADS 128
#define TILE_THREADS 256
/* A CPU reference is computed up to this many host bytes of fields (as cmd_iterate.c). */
#define FULL_CHECK_BYTES (24.0 * (1u << 30))

typedef enum {
    V_HOST, V_K2, V_K3, V_PERSIST, V_ONCHIP,
    V_REG_HOST, V_REG_ONCHIP, /* the regular twin (src/plan/regular_runs.h) */
    V_AUTO, V_COUNT
} variant_t;
static const char *const variant_name[V_COUNT] = {
    "host-loop", "ksteps-2", "ksteps-3", "persistent", "onchip", "regular-host-loop",
    "regular-onchip", "auto"};

typedef struct {
    int stencil, prec, nx, ny, nz;
    variant_t v;
    variant_t as;      /* auto: the variant it runs as; else v */
    int K;             /* steps per launch (persistent: all of them) */
    int threads;       /* per block; 0: the executor's own choice (persistent) */
    double med, min, max; /* µs per step */
    double speedup;    /* the host loop's median / med; 0 when either is missing */
    int ran, ok;       /* ran: timed; ok: verified bit-exact (or not verifiable) */
    char verify[112];
    char note[160];    /* persistent: the launch's shape */
} irow;

typedef struct {
    const bench_opts *b;
    int backend, T, runs;
    irow *rows;
    int nrows, cap;
    long done, total;
    double t0;
    char grid[160];    /* the cells and tables of the current stencil */
    int planned;       /* the host loop's kernel is the built-in plan's (no --access, --storage,
                        * --compress: what `pillar run` takes), in hk */
    ooc_kernel hk;
    char device[256];
    char what[256];    /* the row measured last: the progress hook's phase */
} ibench;

/* Variants stencil st has on this backend. */
#ifdef PILLAR_HAVE_CUDA
/* An integer from the environment variable `name` (a tuning knob of the on-chip rows) into *v,
 * left as it is where the variable is unset. Returns 0, or -1 with a message naming the variable
 * where it holds something else than an integer. */
static int env_int(const char *name, int *v)
{
    const char *s = getenv(name);
    if (!s)
        return 0;
    char *end = NULL;
    long x = strtol(s, &end, 10);
    if (!*s || *end || x < -1 || x > 1 << 20) {
        perr("%s=%s: expected an integer (docs/benchmark.md)", name, s);
        return -1;
    }
    *v = (int)x;
    return 0;
}
#endif

/* The host-loop row's kernel: the built-in plan's where the flags left it free (make_problem),
 * else --access (idxvar), HOST_THREADS a block. */
static ooc_kernel host_kernel(const ibench *x)
{
    const bench_opts *b = x->b;
    ooc_kernel k = {b->access >= 0 ? (access_t)b->access : ACC_IDXVAR, HOST_THREADS, 1, 1, 8, 0};
    return x->planned ? x->hk : k;
}

/* 1 where --variants names v (or is not given). */
static int variant_wanted(const bench_opts *b, variant_t v)
{
    if (!b->variants)
        return 1;
    size_t n = strlen(variant_name[v]);
    for (const char *p = b->variants; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, variant_name[v], n) == 0 && (p[n] == ',' || p[n] == 0))
            return 1;
    return 0;
}

static int has_variant(const ibench *x, int st, variant_t v)
{
    char why[200];
    if (!variant_wanted(x->b, v))
        return 0;
    switch (v) {
    case V_HOST:
        return 1;
    case V_K2:
    case V_K3:
        return tiles_supported((stencil_t)st);
    case V_PERSIST:
        return x->backend == BACKEND_GPU && persist_supported((stencil_t)st, why, sizeof why);
    case V_ONCHIP: /* the state on chip (issue 35) */
        return x->backend == BACKEND_GPU &&
               (st == ST_LAPLAP || st == ST_HDIFF || st == ST_LAP || st == ST_GRAPHLAP);
    case V_REG_HOST: /* the regular twin: its host loop and its on-chip launch */
    case V_REG_ONCHIP:
        return x->backend == BACKEND_GPU && (st == ST_LAPLAP || st == ST_HDIFF || st == ST_LAP);
    default:
        return x->backend == BACKEND_GPU;
    }
}

/* The stencils of the run: --stencil, or every built-in one with iterated runs. */
static int stencil_in(const bench_opts *b, int st)
{
    return iter_carried((stencil_t)st)->n > 0 && (b->stencil >= 0 ? st == b->stencil : st < ST_COUNT);
}

/* The problem of stencil st at nz levels: the built-in grid (layout, storage of the flags;
 * default zcurve-w, non-chasing compressed) or, for a graph stencil, generated hexagons of
 * nx x ny cells in file order. Returns 0, or -1 after a message. */
static int make_problem(ibench *x, problem *pb, int st, int prec, int nx, int ny, int nz)
{
    const bench_opts *b = x->b;
    int chasing = b->storage == 1, comp = b->compress != 0;
    layout_t lay = b->nlayouts ? b->layouts[0] : LAYOUT_ZCURVE_W;
    /* no --access, --storage, --compress: the tables and the host loop's kernel `pillar run`
     * takes without flags (the built-in plan, src/tune/plan_defaults.h) */
    x->planned = b->access < 0 && b->storage < 0 && b->compress < 0 && !stencil_table[st].graph;
    if (x->planned) {
        char id[64];
        plan_problem pr;
        plan_config c;
        plan_size_id(nx, ny, id, sizeof id);
        plan_problem_set(&pr, id, st, NULL, (precision_t)prec, nz, x->backend == BACKEND_GPU);
        plan_config_builtin(&pr, st, 0, (long)nx * ny, &c);
        chasing = c.chasing;
        comp = c.compressed;
        ooc_kernel k = {c.access, c.bx, c.by, c.bz, c.zslice, 0};
        x->hk = k;
    }
    problem_spec s = {(stencil_t)st, (precision_t)prec, nx, ny, nz, 2, lay, 32, 42, chasing, comp};
    int outputs = x->backend == BACKEND_CPU;
    if (!stencil_table[st].graph) {
        snprintf(x->grid, sizeof x->grid, "%dx%d %s %s %s", nx, ny, layout_name[lay],
                 chasing ? "chasing" : "nonchasing", comp ? "compressed" : "uncompressed");
        if (x->planned && x->backend == BACKEND_GPU) {
            size_t len = strlen(x->grid);
            snprintf(x->grid + len, sizeof x->grid - len, ", host loop %s %dx%dx%d (the built-in plan)",
                     access_name[x->hk.access], x->hk.bx, x->hk.by, x->hk.bz);
        }
        return problem_make_lean(pb, &s, NULL, MESH_ORDER_FILE, outputs);
    }
    mesh m;
    mesh_gen_spec g;
    memset(&g, 0, sizeof g);
    g.kind = MESH_HEXAGONS;
    g.nx = nx;
    g.ny = ny;
    g.nlevels = nz;
    g.seed = 42;
    char err[256];
    if (mesh_generate(&m, &g) != 0)
        return -1;
    if (mesh_check(&m, err, sizeof err) != 0) {
        perr("bench: the generated hexagons: %s", err);
        mesh_free(&m);
        return -1;
    }
    snprintf(x->grid, sizeof x->grid, "hexagons %dx%d, file order, neighbour lists", nx, ny);
    return problem_make_lean_mesh(pb, &s, &m, "generated hexagons", MESH_ORDER_FILE, outputs);
}

/* What one variant needs between its runs. */
typedef struct {
    problem *pb;
    fieldset init;   /* the initial state (and fixed inputs) */
    fieldset spare;  /* GPU: the second array of each carried field */
    int nx, ny;      /* the size asked for (a graph stencil's problem counts its cells) */
    ooc_plan pl;     /* the in-core plan, with balls when K > 1 */
    rgrid rg;        /* the regular twin's grid and fields (regular rows; made on first use) */
    fieldset reg;
} ivar;


/* Steps of the verified warm-up run: T up to 30, else 24 + T mod 6, which leaves the same
 * remainder as T after steps per launch of 2 or 3 and has T's parity (which array holds the
 * result), so that it runs the same launches as a timed run, only fewer of them: the CPU
 * reference of 200 steps at 512x512x128 would take longer than the GPU runs. */
static int verify_steps(int T) { return T <= 30 ? T : 24 + T % 6; }

/* Restores the initial state into pb->uf and runs variant v once: `steps` steps. Returns the seconds
 * the steps took (GPU: the kernels, timed with events by the executor; CPU: the wall clock of the
 * chunked iteration), or -1 after a message. note gets the persistent launch's shape. */
static double run_once(const ibench *x, ivar *w, variant_t v, int steps, char *note, size_t nn)
{
    problem *pb = w->pb;
    const iter_carry *c = iter_carried(pb->s.stencil);
    size_t bytes = prec_size(pb->s.prec) * pb->ug.len;
    for (int j = 0; j < c->n; j++)
        memcpy(pb->uf.p[c->in[j]], w->init.p[c->in[j]], bytes);
    (void)v;
    (void)note;
    (void)nn;
#ifdef PILLAR_HAVE_CUDA
    if (v == V_REG_HOST || v == V_REG_ONCHIP) { /* the state there and back (not timed) */
        stencil_t st = pb->s.stencil;
        int nin = stencil_table[st].nin;
        if (!pb->ug.cx) {
            perr("bench: the regular rows need a grid emulated from a regular one");
            return -1;
        }
        size_t es = prec_size(pb->s.prec);
        if (!w->reg.p[0]) { /* the grid and its fixed inputs, once */
            w->rg = rgrid_make(pb->s.nx, pb->s.ny, pb->s.nz, pb->s.halo, es);
            for (int i = 0; i < nin; i++) {
                w->reg.p[i] = field_alloc(pb->s.prec, w->rg.len);
                ugrid_regular_copy(&pb->ug, &w->rg, es, pb->uf.p[i], w->reg.p[i], 1);
            }
        } else /* the initial state again */
            for (int j = 0; j < c->n; j++)
                ugrid_regular_copy(&pb->ug, &w->rg, es, pb->uf.p[c->in[j]], w->reg.p[c->in[j]], 1);
        regular_timing rt;
        const bench_opts *b = x->b;
        /* PILLAR_ONCHIP_PREFETCH=0, _THREADS, _BLOCKS, _LEVELS as for the unstructured rows;
         * laplap takes the walk variant (PILLAR_ONCHIP_WALK=0: the staged kernel), the others
         * the staged kernel; PILLAR_ONCHIP_COLS=1: the column variant */
        const char *pfs = getenv("PILLAR_ONCHIP_PREFETCH");
        regular_request rq = {-1, 0, 0, !(pfs && strcmp(pfs, "0") == 0), 0, -1};
        if (v == V_REG_ONCHIP && (env_int("PILLAR_ONCHIP_BLOCKS", &rq.blocks) != 0 ||
                                  env_int("PILLAR_ONCHIP_THREADS", &rq.threads) != 0 ||
                                  env_int("PILLAR_ONCHIP_LEVELS", &rq.levels) != 0 ||
                                  env_int("PILLAR_ONCHIP_COLS", &rq.cols) != 0 ||
                                  env_int("PILLAR_ONCHIP_WALK", &rq.walk) != 0))
            return -1;
        if (rq.walk < 0) /* unset: laplap walks unless the columns were asked for */
            rq.walk = st == ST_LAPLAP && !rq.cols;
        int rc = v == V_REG_ONCHIP
                     ? regular_onchip_run(st, pb->s.prec, &w->rg, w->reg, steps, &rq, &rt)
                     : regular_loop_run(st, pb->s.prec, &w->rg, w->reg, steps,
                                        b->access >= 0 ? (access_t)b->access : ACC_IDXVAR, 0, 0,
                                        0, &rt);
        if (rc != 0)
            return -1;
        for (int j = 0; j < c->n; j++) /* the state back (the other inputs are fixed) */
            ugrid_regular_copy(&pb->ug, &w->rg, es, pb->uf.p[c->in[j]], w->reg.p[c->in[j]], 0);
        if (v == V_REG_ONCHIP)
            snprintf(note, nn, "%d tiles of %dx%d x %d threads%s%s, %d of %d levels on chip, %zu "
                     "KB shared, %d values a thread loaded ahead", rt.blocks, rt.tx, rt.ty,
                     rt.threads, rt.cols ? " (columns)" : "",
                     rt.walk ? " (walk: a warp a strip and level)" : "", rt.levels,
                     stencil_zend(st, pb->ug.nz), rt.smem / 1024, rt.prefetch);
        else
            snprintf(note, nn, "%d blocks of %d threads a step", rt.blocks, rt.threads);
        return rt.kernel_s;
    }
#endif
    if (x->backend == BACKEND_CPU) {
        double t0 = now_ms();
        if (ooc_cpu_run(&w->pl, &pb->ug, pb->uf, steps) != 0)
            return -1;
        return (now_ms() - t0) * 1e-3;
    }
#ifdef PILLAR_HAVE_CUDA
    if (v == V_PERSIST) {
        persist_request rq = {0, 0, PERSIST_LEVELS_MODEL, 0, PERSIST_LISTS_AUTO};
        persist_timing pt;
        if (persist_gpu_run(pb, pb->uf, steps, &rq, &pt) != 0)
            return -1;
        persist_shape_describe(&pt.shape, note, nn);
        return pt.kernel_s;
    }
    if (v == V_ONCHIP) {
        /* PILLAR_ONCHIP_PREFETCH=0: the kernel that loads each level before it computes there;
         * PILLAR_ONCHIP_THREADS, _BLOCKS, _LEVELS, _PARTS, _ROWS: a block's threads, the blocks,
         * the cached levels, the parts (0 auto, 1 runs, 2 METIS), pass 1's rows a thread at once
         * instead of the defaults (1024, one a SM, as many as fit, auto as --persistent on, 1);
         * PILLAR_ONCHIP_CHART=0: the parts where laplap would walk the grid's flat chart, 1: the
         * walk or its refusal (onchip_request.walk; unset: auto) */
        const char *pf = getenv("PILLAR_ONCHIP_PREFETCH");
        onchip_request rq = {0, 0, -1, !(pf && strcmp(pf, "0") == 0), ONCHIP_PARTS_AUTO, 1,
                             ONCHIP_WALK_AUTO};
        if (env_int("PILLAR_ONCHIP_BLOCKS", &rq.blocks) != 0 ||
            env_int("PILLAR_ONCHIP_THREADS", &rq.threads) != 0 ||
            env_int("PILLAR_ONCHIP_LEVELS", &rq.levels) != 0 ||
            env_int("PILLAR_ONCHIP_PARTS", &rq.parts) != 0 ||
            env_int("PILLAR_ONCHIP_ROWS", &rq.rows) != 0 ||
            env_int("PILLAR_ONCHIP_CHART", &rq.walk) != 0)
            return -1;
        onchip_timing ot;
        if (persist_onchip_run(pb, pb->uf, steps, &rq, &ot) != 0)
            return -1;
        if (ot.walk)
            snprintf(note, nn, "walk over the grid's flat chart: %d blocks x %d threads, %d of %d "
                     "levels on chip, %zu KB shared", ot.blocks, ot.threads, ot.levels,
                     stencil_zend(pb->s.stencil, pb->ug.nz), ot.smem / 1024);
        else
            snprintf(note, nn,
                     "%d blocks x %d threads (%s), %d of %d levels on chip, %zu KB shared, %d "
                     "values a thread loaded ahead, %d row(s) at once; model %.1f us a step",
                     ot.blocks, ot.threads, ot.metis ? "METIS's parts" : "runs", ot.levels,
                     stencil_zend(pb->s.stencil, pb->ug.nz), ot.smem / 1024, ot.prefetch,
                     ot.rows, ot.predicted_s * 1e6);
        return ot.kernel_s;
    }
    ooc_kernel k = host_kernel(x);
    if (v != V_HOST)
        k.bx = TILE_THREADS;
    ooc_timing t;
    if (ooc_gpu_run(&w->pl, &pb->ug, &pb->uf, &w->spare, steps, &k, &t) != 0)
        return -1;
    return t.kernel_s;
#else
    return -1;
#endif
}

static irow *new_row(ibench *x)
{
    if (x->nrows == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 64;
        irow *r = xalloc(sizeof(irow) * (size_t)x->cap);
        if (x->rows)
            memcpy(r, x->rows, sizeof(irow) * (size_t)x->nrows);
        xfree(x->rows);
        x->rows = r;
    }
    irow *r = &x->rows[x->nrows++];
    memset(r, 0, sizeof *r);
    return r;
}

static void progress(ibench *x, const irow *r)
{
    x->done++;
    char us[48] = "";
    if (r->ran)
        snprintf(us, sizeof us, "%.1f us/step, ", r->med);
    snprintf(x->what, sizeof x->what, "bench --iterated %s %s %dx%dx%d %s %s%s",
             stencil_table[r->stencil].name, prec_name((precision_t)r->prec), r->nx, r->ny, r->nz,
             variant_name[r->v], us, r->verify);
    progress_phase(x->what);
    progress_update("rows", (double)x->done, (double)x->total);
}

/* Times variant v of pb (its plan in w->pl made): a warm-up run of verify_steps(T) steps checked
 * against ref (when given), then x->runs runs of T steps; the row goes into x. Returns 1 when verification failed, else 0. */
static int time_variant(ibench *x, ivar *w, variant_t v, fieldset *ref)
{
    problem *pb = w->pb;
    irow *r = new_row(x);
    r->stencil = pb->s.stencil;
    r->prec = pb->s.prec;
    r->nx = w->nx;
    r->ny = w->ny;
    r->nz = pb->s.nz;
    r->v = r->as = v;
    r->K = v == V_K2 ? 2 : v == V_K3 ? 3 : v == V_PERSIST || v == V_ONCHIP || v == V_REG_ONCHIP ? x->T : 1;
    r->threads = v == V_PERSIST || v == V_ONCHIP || v == V_REG_ONCHIP || v == V_REG_HOST ? 0
                 : v == V_HOST ? HOST_THREADS
                               : TILE_THREADS;
    if (x->backend == BACKEND_CPU)
        r->threads = 0;
    double *s = xalloc(sizeof(double) * (size_t)x->runs);
    double t = run_once(x, w, v, verify_steps(x->T), r->note, sizeof r->note);
    int ok = t >= 0;
    if (ok && ref) {
        long points, bad = iter_state_differ(pb, pb->uf, *ref, &points);
        r->ok = bad == 0;
        if (bad == 0)
            snprintf(r->verify, sizeof r->verify, "PASS (bit-exact, %d steps)", verify_steps(x->T));
        else
            snprintf(r->verify, sizeof r->verify, "FAIL: %ld of %ld points differ after %d steps",
                     bad, points, verify_steps(x->T));
    } else if (ok) {
        r->ok = 1;
        snprintf(r->verify, sizeof r->verify, "not verified (a CPU reference needs over 24 GiB)");
    }
    for (int i = 0; ok && i < x->runs; i++)
        ok = (s[i] = run_once(x, w, v, x->T, r->note, sizeof r->note)) >= 0;
    if (ok) {
        qsort(s, (size_t)x->runs, sizeof(double), cmp_double);
        r->ran = 1;
        r->med = s[x->runs / 2] / x->T * 1e6;
        r->min = s[0] / x->T * 1e6;
        r->max = s[x->runs - 1] / x->T * 1e6;
    } else {
        r->ok = 1; /* refused or failed to run: the message is on stderr; not a wrong result */
        snprintf(r->verify, sizeof r->verify, "not run (see the message above)");
    }
    xfree(s);
    progress(x, r);
    return r->ran && !r->ok;
}

/* Prepares w->pl for variant v (the in-core plan; K-step balls). Returns 0 or -1. */
static int plan_variant(const ibench *x, ivar *w, variant_t v)
{
    int K = v == V_K2 ? 2 : v == V_K3 ? 3 : 1;
    /* in core, all T steps in one pass; the host loop's strategy's lists (graph-twopass, pairs:
     * blocks of the launch's threads) on the GPU */
    const ooc_kernel hk = host_kernel(x);
    plan_request rq = {x->backend != BACKEND_CPU && v != V_PERSIST && v != V_ONCHIP &&
                           v != V_REG_HOST && v != V_REG_ONCHIP, 0, 0, hk.access,
                       v == V_HOST ? hk.bx : TILE_THREADS, x->T, K, 0, x->T, 0, NULL};
    return engine_plan(&w->pl, w->pb, &rq);
}

/* Every variant of stencil st in precision prec at nz levels. Returns the variants that failed
 * verification, or -1 when the problem could not be made. */
static int bench_grid(ibench *x, int st, int prec, int nx, int ny, int nz)
{
    problem pb;
    if (make_problem(x, &pb, st, prec, nx, ny, nz) != 0)
        return -1;
    ivar w;
    memset(&w, 0, sizeof w);
    w.pb = &pb;
    w.nx = nx;
    w.ny = ny;
    w.init = iter_fields_copy(&pb);
    const iter_carry *c = iter_carried(pb.s.stencil);
    for (int j = 0; j < c->n && x->backend == BACKEND_GPU; j++)
        w.spare.p[c->in[j]] = field_alloc(pb.s.prec, pb.ug.len);
    double es = (double)prec_size(pb.s.prec);
    int full = (double)(pb.nf + stencil_table[st].nin) * es * (double)pb.ug.len <= FULL_CHECK_BYTES;
    fieldset ref = {{0}};
    if (full) {
        ref = iter_fields_copy(&pb);
        iter_run_incore(&pb, ref, verify_steps(x->T));
    }
    int failures = 0, first = x->nrows, host = -1, rhost = -1;
    for (int v = 0; v < V_AUTO; v++) {
        if (!has_variant(x, st, (variant_t)v))
            continue;
        if (plan_variant(x, &w, (variant_t)v) != 0) {
            irow *r = new_row(x);
            r->stencil = st, r->prec = prec, r->nx = nx, r->ny = ny, r->nz = nz;
            r->v = r->as = (variant_t)v;
            r->ok = 1;
            snprintf(r->verify, sizeof r->verify, "not run (see the message above)");
            progress(x, r);
            continue;
        }
        failures += time_variant(x, &w, (variant_t)v, full ? &ref : NULL);
        if (v == V_HOST)
            host = x->nrows - 1;
        if (v == V_REG_HOST)
            rhost = x->nrows - 1;
        ooc_plan_free(&w.pl);
    }
    if (has_variant(x, st, V_AUTO)) { /* what --persistent auto runs: that variant's row again */
        ooc_kernel hk = host_kernel(x);
        variant_t as = !persistent_auto_picks(&pb, BACKEND_GPU, 0, NULL, &hk, NULL, 0) ? V_HOST
                       : st == ST_LAPLAP || st == ST_HDIFF || st == ST_LAP ? V_ONCHIP
                                                                           : V_PERSIST;
        for (int k = first; k < x->nrows; k++)
            if (x->rows[k].v == as) {
                irow copy = x->rows[k];
                irow *r = new_row(x);
                *r = copy;
                r->v = V_AUTO;
                r->as = as;
                progress(x, r);
                break;
            }
    }
    for (int k = first; k < x->nrows; k++) { /* the regular rows against the regular host loop */
        irow *r = &x->rows[k];
        int h = r->v == V_REG_HOST || r->v == V_REG_ONCHIP ? rhost : host;
        if (h >= 0 && r->ran && x->rows[h].ran && r->med > 0)
            r->speedup = x->rows[h].med / r->med;
    }
    for (int j = 0; j < c->n; j++)
        xfree(w.spare.p[c->in[j]]);
    for (int i = 0; i < PILLAR_MAXF; i++)
        xfree(w.reg.p[i]);
    iter_fields_free(&pb, &w.init);
    if (full)
        iter_fields_free(&pb, &ref);
    problem_free(&pb);
    return failures;
}

static void print_rows(const ibench *x, int first, int st, int prec)
{
    report_printf("\n%s %s on %s, %d steps, median of %d runs after a verified warm-up (%s; %s)\n",
           stencil_table[st].name, prec_name((precision_t)prec), x->grid, x->T, x->runs,
           x->backend == BACKEND_GPU ? "kernels only" : "the CPU iteration, wall clock", x->device);
    report_printf("  %-10s %6s  %-22s %12s %9s  %s\n", "stencil", "levels", "variant", "us/step",
           "speed-up", "verify");
    for (int k = first; k < x->nrows; k++) {
        const irow *r = &x->rows[k];
        char var[40], us[32] = "-", sp[32] = "-";
        if (r->v == V_AUTO)
            snprintf(var, sizeof var, "auto (= %s)", variant_name[r->as]);
        else
            snprintf(var, sizeof var, "%s", variant_name[r->v]);
        if (r->ran)
            snprintf(us, sizeof us, "%.1f", r->med);
        if (r->speedup > 0)
            snprintf(sp, sizeof sp, "%.2fx", r->speedup);
        report_printf("  %-10s %6d  %-22s %12s %9s  %s\n", stencil_table[r->stencil].name, r->nz, var, us,
               sp, r->verify);
    }
}

static int write_files(const ibench *x, const char *device_json)
{
    char stamp[32], iso[32];
    file_out tmp;
    const bench_opts *b = x->b;
    if (bench_stamp(b->out, stamp, iso) != 0)
        return -1;
    FILE *f = bench_open_in(b->out, "iterated", stamp, "csv", &tmp);
    if (!f)
        return -1;
    fprintf(f, "stencil,precision,nx,ny,nz,variant,runs_as,steps_per_launch,threads,steps,runs,"
               "median_us_per_step,min_us_per_step,max_us_per_step,speedup,verify,backend\n");
    for (int k = 0; k < x->nrows; k++) {
        const irow *r = &x->rows[k];
        fprintf(f, "%s,%s,%d,%d,%d,%s,%s,%d,%d,%d,%d,", stencil_table[r->stencil].name,
                prec_name((precision_t)r->prec), r->nx, r->ny, r->nz, variant_name[r->v],
                variant_name[r->as], r->K, r->threads, x->T, x->runs);
        if (r->ran)
            fprintf(f, "%.3f,%.3f,%.3f,", r->med, r->min, r->max);
        else
            fprintf(f, ",,,");
        if (r->speedup > 0)
            fprintf(f, "%.4f,", r->speedup);
        else
            fprintf(f, ",");
        fprintf(f, "%s,%s\n", !r->ran ? "not run" : strncmp(r->verify, "PASS", 4) == 0 ? "PASS"
                              : r->ok ? "not verified" : "FAIL",
                x->backend == BACKEND_GPU ? "gpu" : "cpu");
    }
    if (bench_close(f, &tmp) != 0)
        return -1;
    if (!(f = bench_open_in(b->out, "iterated", stamp, "json", &tmp)))
        return -1;
    fprintf(f, "{\n  ");
    bench_json_build(f, iso, b->command);
    fprintf(f, ",\n  %s,\n  \"backend\": \"%s\", \"steps\": %d, \"runs\": %d,\n  \"rows\": [\n",
            device_json, x->backend == BACKEND_GPU ? "gpu" : "cpu", x->T, x->runs);
    for (int k = 0; k < x->nrows; k++) {
        const irow *r = &x->rows[k];
        fprintf(f, "    {\"stencil\": \"%s\", \"precision\": \"%s\", \"nx\": %d, \"ny\": %d, "
                   "\"nz\": %d, \"variant\": \"%s\", \"runs_as\": \"%s\", \"steps_per_launch\": %d, "
                   "\"threads\": %d, ",
                stencil_table[r->stencil].name, prec_name((precision_t)r->prec), r->nx, r->ny,
                r->nz, variant_name[r->v], variant_name[r->as], r->K, r->threads);
        if (r->ran)
            fprintf(f, "\"median_us_per_step\": %.3f, \"min_us_per_step\": %.3f, "
                       "\"max_us_per_step\": %.3f, \"speedup\": %.4f, ",
                    r->med, r->min, r->max, r->speedup);
        bench_json_str(f, "shape", r->note, 1);
        bench_json_str(f, "verify", r->verify, 0);
        fprintf(f, "}%s\n", k + 1 < x->nrows ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return bench_close(f, &tmp);
}

/* Completes the defaults of --iterated and refuses what it does not take. 0 or -1. */
static int complete(bench_opts *b)
{
    const char *bad = b->sweep ? "--sweep" : b->mesh ? "--mesh" : b->quick ? "--quick" : NULL;
    if (bad) {
        perr("bench: --iterated does not go with %s (it times its own set: --stencil, --size, "
             "--levels, --precision, --steps, --runs)", bad);
        return -1;
    }
    if (b->stencil >= 0 && iter_carried((stencil_t)b->stencil)->n == 0) {
        perr("bench: --iterated --stencil %s: %s has no iterated runs", stencil_table[b->stencil].name,
             stencil_table[b->stencil].name);
        return -1;
    }
    for (const char *p = b->variants; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        size_t n = strcspn(p, ",");
        int known = 0;
        for (int v = 0; v < V_COUNT; v++)
            known |= strlen(variant_name[v]) == n && strncmp(p, variant_name[v], n) == 0;
        if (!known) {
            perr("bench: --variants: no row '%.*s' (host-loop, ksteps-2, ksteps-3, persistent, "
                 "onchip, regular-host-loop, regular-onchip, auto)", (int)n, p);
            return -1;
        }
    }
    if (!b->steps)
        b->steps = DEFAULT_STEPS;
    if (b->runs < 0)
        b->runs = DEFAULT_RUNS;
    if (!b->nlevels) {
        if (b->nsizes) {
            b->levels[b->nlevels++] = b->sizes[0][2];
        } else {
            for (size_t k = 0; k < sizeof default_levels / sizeof default_levels[0]; k++)
                b->levels[b->nlevels++] = default_levels[k];
        }
    }
    if (!b->nsizes) {
        b->sizes[0][0] = b->sizes[0][1] = 512;
        b->nsizes = 1;
    }
    return 0;
}

int bench_iterated(bench_opts *b)
{
    if (complete(b) != 0)
        return 2;
    options o;
    options_defaults(&o);
    o.backend = (backend_t)b->backend;
    ibench x;
    memset(&x, 0, sizeof x);
    x.b = b;
    x.backend = tools_backend(&o);
    if (x.backend < 0)
        return 1;
    x.T = b->steps;
    x.runs = b->runs;
    x.t0 = now_ms();
    char device_json[1024] = "\"device\": null";
    if (x.backend == BACKEND_CPU) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        snprintf(x.device, sizeof x.device, "cpu backend, %ld cores", n);
    }
#ifdef PILLAR_HAVE_CUDA
    else {
        gpu_info gi;
        gpu_describe(&gi);
        snprintf(x.device, sizeof x.device, "%s", gi.name);
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (m) {
            bench_json_device(m, &gi);
            fclose(m);
            snprintf(device_json, sizeof device_json, "%s", buf);
            free(buf);
        }
    }
#endif
    for (int st = 0; st < ST_COUNT; st++)
        for (int l = 0; l < b->nlevels && stencil_in(b, st); l++)
            if (b->levels[l] >= stencil_table[st].ztop + 1)
                for (int v = 0; v < V_COUNT; v++)
                    x.total += has_variant(&x, st, (variant_t)v) * b->nprecs;
    report_printf("pillar bench --iterated on %s, commit %s: %d steps a run, median of %d runs\n", x.device,
           PILLAR_COMMIT, x.T, x.runs);
    int failures = 0, rc = 0;
    for (int st = 0; st < ST_COUNT && rc == 0; st++) {
        if (!stencil_in(b, st))
            continue;
        for (int pi = 0; pi < b->nprecs && rc == 0; pi++) {
            int first = x.nrows;
            for (int l = 0; l < b->nlevels && rc == 0; l++) {
                if (b->levels[l] < stencil_table[st].ztop + 1)
                    continue; /* fastwaves needs a level above the computed ones */
                int f = bench_grid(&x, st, b->precs[pi], b->sizes[0][0], b->sizes[0][1], b->levels[l]);
                if (f < 0)
                    rc = 2; /* sizes the grid refuses */
                else
                    failures += f;
            }
            if (x.nrows > first)
                print_rows(&x, first, st, b->precs[pi]);
        }
    }
    if (rc == 0 && write_files(&x, device_json) != 0)
        rc = 1;
    report_printf("\n%d rows in %.0f s\n", x.nrows, (now_ms() - x.t0) / 1e3);
    xfree(x.rows);
    if (failures)
        perr("bench: %d variant(s) failed verification", failures);
    return rc ? rc : failures ? 1 : 0;
}
