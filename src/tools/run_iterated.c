/* cmd_iterate.c — `pillar run --steps T`: a stencil iterated T time steps (src/exec/iterate.h), in
 * core or streamed through the device in chunks (src/plan/ooc_plan.h), timed and verified against
 * the CPU in-core iteration. */
#include "tools.h"
#include "access/hooks.h"
#include "src/engine/route.h"
#include "src/engine/run_plan.h"
#include "base/progress.h"
#include "src/exec/field_io.h"
#include "src/exec/iterate.h"
#include "src/exec/runner.h"
#include "src/plan/ooc_cpu.h"
#include "src/plan/persist_plan.h"
#include "access/tiles_run.h"

#ifdef PILLAR_HAVE_CUDA
#include "src/exec/gpu.h"
#include "src/plan/ooc_gpu.h"
#include "src/plan/persist_gpu.h"
#include "src/plan/onchip_model.h"
#include "src/plan/persist_run.h"
#endif

#include <stdio.h>
#include <string.h>

/* A CPU reference of the whole run is computed up to this many host bytes (its fields); beyond,
 * single-pass runs are checked on sampled chunks. */
#define FULL_CHECK_BYTES (24.0 * (1u << 30))
#define SAMPLED_CHUNKS 8

int iterated_full_check(const problem *pb)
{
    double es = (double)prec_size(pb->s.prec);
    return (double)(pb->nf + stencil_table[pb->s.stencil].nin) * es * (double)pb->ug.len <=
           FULL_CHECK_BYTES;
}

const char *iterated_refuses(const options *o)
{
    static char strategy[64]; /* a strategy without iterated kernels (access.h) */
    snprintf(strategy, sizeof strategy, "--access %s", access_name[o->access]);
    return o->regular                          ? "--grid regular"
           : o->aos                            ? "--aos"
           : o->constant_tables                ? "--constant-tables"
           : o->packed_rows                    ? "--packed-rows"
           : !access_table[o->access].iterated ? strategy
                                               : NULL;
}

static int flags_check(const options *o)
{
    if (stencil_table[o->spec.stencil].carry.n == 0) {
        perr("run: %s has no iterated runs (%s carries no state from step to step); run it "
             "without --steps / --out-of-core", stencil_table[o->spec.stencil].name,
             stencil_is_user(o->spec.stencil) ? "its file has no '#pragma pillar carry(...)'"
                                              : "its line in stencils/registry.h");
        return -1;
    }
    if (o->kernel_steps > 1 && stencil_table[o->spec.stencil].coeffs.n) {
        perr("run: --kernel-steps %d: %s has no K-step kernel: the balls of a K-step launch stage "
             "the state only, and %s reads per-cell and per-edge coefficients besides "
             "(docs/out-of-core.md); use --kernel-steps 1 (with --fuse F out of core)",
             o->kernel_steps, stencil_table[o->spec.stencil].name,
             stencil_table[o->spec.stencil].name);
        return -1;
    }
    if (o->kernel_steps > 1 && !tiles_supported(o->spec.stencil)) {
        perr("run: --kernel-steps %d: %s has no K-step kernel (laplap, hdiff and graphlap have: "
             "one state field read across the horizontal neighbourhood); use --kernel-steps 1",
             o->kernel_steps, stencil_table[o->spec.stencil].name);
        return -1;
    }
    if (o->fuse && o->kernel_steps > o->fuse) {
        perr("run: --kernel-steps %d is more than --fuse %d: a launch cannot advance more steps "
             "than a transfer carries", o->kernel_steps, o->fuse);
        return -1;
    }
    const char *bad = iterated_refuses(o);
    char names[256];
    if (bad) {
        perr("run: %s does not go with --steps / --out-of-core: iterated runs use the "
             "unstructured grid's tables in global memory and, for %s, the %s strategy", bad,
             stencil_table[o->spec.stencil].name, access_iterating(o->spec.stencil, names, sizeof names));
        return -1;
    }
    if (!access_supports(o->access, o->spec.stencil)) {
        perr("run: --access %s has no kernels for %s; iterated runs of it take %s",
             access_name[o->access], stencil_table[o->spec.stencil].name,
             access_iterating(o->spec.stencil, names, sizeof names));
        return -1;
    }
    if (access_table[o->access].prep->prepare && o->kernel_steps > 1) {
        perr("run: --access %s runs one step per launch (it reads lists of its own, built for "
             "single steps); it does not go with --kernel-steps %d", access_name[o->access],
             o->kernel_steps);
        return -1;
    }
    return 0;
}

/* persistent_check's refusals, each with its message. */
static int persistent_refuses(const options *o, int backend, int ooc, char *why, size_t nwhy)
{
    if (backend != BACKEND_GPU) {
        perr("run: --persistent on runs on the GPU; this run is on the CPU backend");
        return -1;
    }
    if (!persist_supported(o->spec.stencil, why, nwhy)) {
        perr("run: --persistent on: %s", why);
        return -1;
    }
    if (ooc && persist_is_graph(o->spec.stencil)) {
        perr("run: --persistent on out of core runs the quad stencils' kernel on each chunk; %s "
             "has a persistent kernel in core only", stencil_table[o->spec.stencil].name);
        return -1;
    }
    if (ooc && (o->kernel_steps > 1 || o->persist_levels > 0)) {
        perr("run: --persistent on out of core runs each chunk's steps one per grid barrier, no "
             "level on chip; it does not go with %s",
             o->kernel_steps > 1 ? "--kernel-steps" : "--persistent-levels N > 0");
        return -1;
    }
    if (persist_is_graph(o->spec.stencil) && o->persist_levels > 0) {
        perr("run: --persistent-levels %d: %s keeps no level of its state on chip (its persistent "
             "kernel streams every level; docs/persistent.md); give 0 or leave it out",
             o->persist_levels, stencil_table[o->spec.stencil].name);
        return -1;
    }
    const char *bad = ooc                   ? NULL
                      : o->fuse             ? "--fuse"
                      : o->kernel_steps > 1 ? "--kernel-steps"
                      : o->share            ? "--share"
                                            : NULL;
    if (bad) {
        perr("run: --persistent on in core runs all the steps, one per barrier; it does not go "
             "with %s (out of core it does: --out-of-core on)", bad);
        return -1;
    }
    if (!o->threads_planned &&
        ((o->by && o->by != 1) || (o->bz && o->bz != 1) || o->bx > PERSIST_MAX_THREADS)) {
        perr("run: --persistent on: --threads BXx1x1 with BX at most %d (threads per block, "
             "one cell each)", PERSIST_MAX_THREADS);
        return -1;
    }
    return 0;
}

/* --persistent on: what it does not go with (exit 2). ooc: the run was planned out of core.
 * quiet: say nothing (auto asks whether the persistent launch may run at all). */
static int persistent_check(const options *o, int backend, int ooc, int quiet)
{
    char why[200], msg[8];
    if (quiet)
        perr_capture(msg, sizeof msg);
    int rc = persistent_refuses(o, backend, ooc, why, sizeof why);
    if (quiet)
        perr_capture(NULL, 0);
    return rc;
}

#ifdef PILLAR_HAVE_CUDA
/* The seconds a step of pb's host loop (one launch of kernel k a step, in core) takes on the
 * current device: after a run of 2 steps that warms up, runs of 2 and 2 + steps steps on one copy
 * of pb's state (each run goes on from the last: the values do not change the time), the step
 * their kernels' difference over `steps`. pb is not changed. Returns 0, or -1 with a message. */
static int host_time_step(const problem *pb, const ooc_kernel *k, int steps, double *step_s)
{
    plan_request rq = {1, 0, 0, k->access, k->bx, 0, 1, 0, 2 + steps, 0, NULL};
    ooc_plan pl;
    if (engine_plan(&pl, pb, &rq) != 0)
        return -1;
    const iter_carry *c = iter_carried(pb->s.stencil);
    fieldset f = iter_fields_copy(pb), spare = {{0}};
    for (int j = 0; j < c->n; j++)
        spare.p[c->in[j]] = field_alloc(pb->s.prec, pb->ug.len);
    double kernel_s[3] = {0, 0, 0};
    int rc = 0;
    for (int run = 0; run < 3 && rc == 0; run++) {
        ooc_timing t;
        rc = ooc_gpu_run(&pl, &pb->ug, &f, &spare, run == 2 ? 2 + steps : 2, k, &t);
        kernel_s[run] = t.kernel_s;
    }
    for (int j = 0; j < c->n; j++)
        xfree(spare.p[c->in[j]]);
    iter_fields_free(pb, &f);
    ooc_plan_free(&pl);
    *step_s = rc == 0 ? (kernel_s[2] - kernel_s[1]) / steps : 0;
    return rc;
}
#endif

int persistent_auto_picks(const problem *pb, int backend, int ooc, const persist_request *request,
                          const ooc_kernel *host, char *pred, size_t n)
{
    if (pred && n)
        pred[0] = 0;
#ifdef PILLAR_HAVE_CUDA
    persist_request dflt = {0, 0, PERSIST_LEVELS_MODEL, 0, PERSIST_LISTS_AUTO};
    const persist_request *rq = request ? request : &dflt;
    if (backend != BACKEND_GPU || ooc)
        return 0;
    stencil_t st = pb->s.stencil;
    if (st == ST_LAPLAP || st == ST_HDIFF || st == ST_LAP) { /* on chip: the models decide */
        onchip_request oq = persist_onchip_request(rq);
        onchip_forecast fc;
        char why[256] = "";
        perr_capture(why, sizeof why);
        int refused = onchip_predict_run(pb, &oq, &fc);
        perr_capture(NULL, 0);
        if (refused) {
            if (pred && n)
                snprintf(pred, n, "%s", why[0] ? why : "the on-chip kernels refuse this run");
            return 0;
        }
        double gain = fc.host_s / fc.onchip_s;
        if (pred && n)
            snprintf(pred, n,
                     "on chip (%s%d blocks x %d threads, %d level%s cached) %.1f us a step "
                     "against %.1f us for the host loop, %.2fx; on from %.2fx",
                     fc.walk ? "the walk over the grid's flat chart, " : "", fc.blocks,
                     fc.threads, fc.levels, fc.levels == 1 ? "" : "s",
                     fc.onchip_s * 1e6, fc.host_s * 1e6, gain, ONCHIP_AUTO_GAIN);
        if (gain < ONCHIP_AUTO_GAIN || !host)
            return gain >= ONCHIP_AUTO_GAIN;
        /* the model's constants are the H100's: where it says on, both are timed on this
         * device before the run (the H200 ran the on-chip launch at 512x512x64 0.8x its host
         * loop where the model said 1.27x) */
        double on_s, host_s;
        perr_capture(why, sizeof why);
        int bad = onchip_time_step(pb, &oq, ONCHIP_TRIAL_STEPS, &on_s) != 0 ||
                  host_time_step(pb, host, ONCHIP_TRIAL_STEPS, &host_s) != 0 || on_s <= 0;
        perr_capture(NULL, 0);
        size_t len = pred && n ? strlen(pred) : 0;
        if (bad) {
            if (pred && n)
                snprintf(pred + len, n - len, "; not timed here (%s): off",
                         why[0] ? why : "a trial launch failed");
            return 0;
        }
        if (pred && n)
            snprintf(pred + len, n - len,
                     "; timed here over %d steps: on chip %.1f us, the host loop %.1f us, %.2fx; on "
                     "from %.2fx", ONCHIP_TRIAL_STEPS, on_s * 1e6, host_s * 1e6, host_s / on_s,
                     ONCHIP_TRIAL_GAIN);
        return host_s / on_s >= ONCHIP_TRIAL_GAIN;
    }
    persist_cache pc;
    char msg[256] = "";
    perr_capture(msg, sizeof msg);
    int rc = persist_gpu_plan(pb, rq, &pc);
    perr_capture(NULL, 0);
    if (rc != 0) {
        if (pred && n)
            snprintf(pred, n, "%s", msg[0] ? msg : "not for this run");
        return 0;
    }
    if (pred && n) {
        persist_cache_describe(&pc, pred, n);
        if (!PERSIST_AUTO_TRUSTED) {
            size_t len = strlen(pred);
            snprintf(pred + len, n - len, "; not trusted: the launch measured slower than the host "
                     "loop on the H100, docs/persistent.md");
        }
    }
    return PERSIST_AUTO_TRUSTED && pc.host_s / pc.persist_s >= PERSIST_AUTO_GAIN;
#else
    (void)pb, (void)backend, (void)ooc, (void)request, (void)host;
    return 0;
#endif
}

#ifdef PILLAR_HAVE_CUDA
/* Bytes that must cross the link per step: every input once in, the state once out. */
static void must_cross(const problem *pb, double *in, double *out)
{
    double es = (double)prec_size(pb->s.prec);
    const stencil_info *si = &stencil_table[pb->s.stencil];
    *in = (double)si->nin * (double)pb->ug.nxy * pb->ug.nz * es;
    *out = (double)iter_carried(pb->s.stencil)->n * (double)(pb->ug.nxy - pb->ug.nhalo) *
           stencil_zend(pb->s.stencil, pb->ug.nz) * es;
}
#endif

static void print_header(const problem *pb, const options *o, int steps, int ooc)
{
    const problem_spec *s = &pb->s;
    report_printf("%s %s, %d step%s", stencil_table[s->stencil].name, prec_name(s->prec), steps,
                  steps == 1 ? "" : "s");
    if (o->mesh)
        report_printf(" on mesh %s (%s order): %d cells (%d halo) x %d levels", o->mesh,
                      mesh_order_name[pb->mesh_order], pb->ug.nxy, pb->ug.nhalo, s->nz);
    else
        report_printf(" on %dx%dx%d unstructured %s", s->nx, s->ny, s->nz, layout_name[s->layout]);
    if (stencil_table[s->stencil].graph)
        report_printf(", neighbour lists (ELL, up to %d per cell), %s\n", pb->ell.maxdeg,
                      ooc ? "out of core" : "in core");
    else
        report_printf(", %s %s, %s\n", s->chasing ? "chasing" : "nonchasing",
                      s->compressed ? "compressed" : "uncompressed",
                      ooc ? "out of core" : "in core");
}

/* One pass of an iterated run of pb on the backend: `steps` steps from pb's state (after `done`
 * steps of the whole run), printed and verified as a run of its own. Leaves the state after them
 * in pb's input fields; *ok: whether verification passed; *t_step, *total_s: the time per step
 * and of the pass. Returns 0, 1 after a failed run or 2 after flags that do not fit (with a
 * message). */
static int iterate_pass(problem *pb, options *o, int backend, int steps, int done, int *ok_out,
                        double *t_step_out, double *total_out)
{
    size_t budget = o->device_mem;
    double dev = 0;
#ifdef PILLAR_HAVE_CUDA
    gpu_link link;
    memset(&link, 0, sizeof link);
    if (backend == BACKEND_GPU) {
        size_t freeb = gpu_free_bytes();
        if (!budget || budget > freeb)
            budget = budget ? freeb : freeb / 100 * 95;
        gpu_link_bandwidth((size_t)256 << 20, 5, &link);
        dev = gpu_copy_bandwidth((size_t)256 << 20, 5);
    }
#endif
    double need = engine_whole_bytes(pb);
    if (o->ooc == OOC_OFF && backend == BACKEND_GPU && need > (double)budget) {
        perr("run: --out-of-core off: the grid needs %.3f GB on the device, more than the %.3f GB "
             "budget; use --out-of-core auto or on", need / 1e9, budget / 1e9);
        return 2;
    }
    if (o->persist_levels >= 0 && o->persistent == PERSIST_OFF) {
        perr("run: --persistent-levels goes with --persistent on or auto, not off");
        return 2;
    }
    /* the engine's one decision (src/engine/route.h); persistent auto asks the model first */
    route_in ri = {0, backend == BACKEND_GPU, o->ooc, o->persistent, 0, o->kernel_steps, need,
                   backend == BACKEND_GPU ? budget : o->device_mem};
    int ooc;
    engine_route(&ri, &ooc);
    if (o->persistent == PERSIST_ON && persistent_check(o, backend, ooc, 0) != 0)
        return 2;
#ifdef PILLAR_HAVE_CUDA
    char pick[600] = "";
    /* the persistent launch's block: --threads where given, else its own (the plan's shape is
     * the host loop's: 256 threads took the on-chip kernel's prefetch away, 3x slower) */
    persist_request prq = {o->threads_planned ? 0 : o->bx, 0,
                           o->persist_levels < 0    ? PERSIST_LEVELS_MODEL
                           : o->persist_levels == 0 ? PERSIST_LEVELS_NONE
                                                    : o->persist_levels,
                           dev, PERSIST_LISTS_AUTO};
    if (backend == BACKEND_GPU && !ooc && o->persistent == PERSIST_AUTO) {
        /* auto: the model's prediction decides (docs/persistent.md) */
        char pred[512];
        if (persistent_check(o, backend, ooc, 1) != 0) {
            snprintf(pick, sizeof pick, "  persistent off (auto: not for this run)\n");
        } else if (o->auto_picked) { /* a later pass (--output-every): the first pass's choice */
            ri.persist_picks = o->auto_picked - 1;
            snprintf(pick, sizeof pick, "  persistent %s (auto, as the first pass chose)\n",
                     ri.persist_picks ? "on" : "off");
        } else {
            ooc_kernel hk = {o->access, o->bx, o->by, o->bz, o->zslice, 0}; /* the host loop's */
            ri.persist_picks = persistent_auto_picks(pb, backend, ooc, &prq, &hk, pred, sizeof pred);
            o->auto_picked = 1 + ri.persist_picks;
            snprintf(pick, sizeof pick, "  persistent %s (auto, the model: %s)\n",
                     ri.persist_picks ? "on" : "off", pred);
        }
    }
#else
    (void)dev;
#endif
    route_t route = engine_route(&ri, &ooc);
    int persistent = route == ROUTE_PERSISTENT ||
                     (route == ROUTE_STREAMED && o->persistent == PERSIST_ON);
    ooc_plan pl;
    plan_request rq = {backend == BACKEND_GPU, ooc, persistent, o->access, o->bx, o->fuse,
                       o->kernel_steps, o->share, steps, budget, NULL};
#ifdef PILLAR_HAVE_CUDA
    ooc_rates rates = {link.duplex_h2d, link.duplex_d2h, dev};
    rq.rates = &rates;
#endif
    if (engine_plan(&pl, pb, &rq) != 0)
        return 2;
    print_header(pb, o, steps, ooc);
    if (o->output_every)
        report_printf("  pass      steps %d to %d of %d (--output-every %d)\n", done + 1, done + steps,
                      o->steps, o->output_every);
    char line[512];
    ooc_plan_describe(&pl, line, sizeof line);
    report_printf("  plan      %s\n", line);
#ifdef PILLAR_HAVE_CUDA
    if (pick[0]) {
        report_printf("%s", pick);
    } else if (backend == BACKEND_GPU && ooc && o->persistent == PERSIST_AUTO) {
        report_printf(
            "  persistent off (auto, out of core: no model of a chunk's launch; in core the "
            "launch measured slower than the host loop on the H100, docs/persistent.md)\n");
    } else if (backend == BACKEND_GPU && ooc && persistent) {
        report_printf(
            "  persistent on: each chunk's steps (up to %d) in one cooperative launch, a grid "
            "barrier between two, blocks of %d threads, no level on chip\n",
            pl.F, o->bx ? o->bx : PERSIST_THREADS);
    } else if (backend == BACKEND_GPU && !persistent) {
        report_printf("  persistent off\n");
    }
#endif
    if (backend == BACKEND_GPU && !ooc && pl.K > 1)
        report_printf(
            "  note      in core, K = 2 steps per launch measured 3.6x slower than one at 512x512 "
            "on the H100 (docs/out-of-core.md); nothing picks K = %d, it runs because "
            "--kernel-steps asked\n",
            pl.K);

    /* the CPU reference of the whole run, when it fits */
    int full = !o->no_verify && iterated_full_check(pb);
    if (o->output && !full && !(steps <= pl.F && backend == BACKEND_GPU)) {
        perr("run: --output %s: not written: a state this large is checked on sampled chunks, "
             "which holds for one pass only, and %d steps take more than one pass of %d; give "
             "--steps %d or less, or --fuse %d", o->output, steps, pl.F, pl.F, steps);
        ooc_plan_free(&pl);
        return 2;
    }
    fieldset ref = {{0}};
    if (full)
        ref = iter_fields_copy(pb);

    const iter_carry *c = iter_carried(pb->s.stencil);
    fieldset spare = {{0}};
    double t_step = 0, total_s = 0;
    int rc = 0;
    progress_phase("run");
    if (route == ROUTE_CPU || route == ROUTE_CPU_CHUNKS) {
        double t0 = now_ms();
        if (route == ROUTE_CPU_CHUNKS)
            rc = ooc_cpu_run(&pl, &pb->ug, pb->uf, steps);
        else
            iter_run_incore(pb, pb->uf, steps);
        total_s = (now_ms() - t0) * 1e-3;
        t_step = total_s / steps;
        report_printf("  backend   cpu\n");
    }
#ifdef PILLAR_HAVE_CUDA
    else if (route == ROUTE_PERSISTENT) {
        persist_run_timing pr;
        for (int j = 0; j < c->n; j++) { /* the initial state, for the sampled check below */
            spare.p[c->in[j]] = field_alloc(pb->s.prec, pb->ug.len);
            memcpy(spare.p[c->in[j]], pb->uf.p[c->in[j]], prec_size(pb->s.prec) * pb->ug.len);
        }
        rc = persist_run(pb, pb->uf, steps, &prq, &pr);
        if (rc == 0) {
            char dev_name[128], shape[600];
            gpu_probe(dev_name, sizeof dev_name);
            double kernel_s = pr.onchip ? pr.o.kernel_s : pr.p.kernel_s;
            total_s = pr.onchip ? pr.o.total_s : pr.p.total_s;
            t_step = kernel_s / steps;
            report_printf("  backend   %s, persistent: one cooperative launch on %d blocks\n",
                          dev_name, pr.onchip ? pr.o.blocks : pr.p.shape.nblocks);
            persist_run_describe(&pr, shape, sizeof shape);
            report_printf("  persistent %s\n", shape);
            if (!pr.onchip) {
                persist_cache_describe(&pr.p.cache, shape, sizeof shape);
                report_printf("  cache     %s\n", shape);
            }
            report_printf(
                "  time      %.3f ms per step (the launch: %.3f ms for %d step%s, %d grid "
                "barrier%s), total %.3f s with the copies\n",
                t_step * 1e3, kernel_s * 1e3, steps, steps == 1 ? "" : "s", steps - 1,
                steps == 2 ? "" : "s", total_s);
        }
    } else {
        for (int j = 0; j < c->n; j++)
            spare.p[c->in[j]] = field_alloc(pb->s.prec, pb->ug.len);
        ooc_kernel k = {o->access, o->bx, o->by, o->bz, o->zslice, persistent};
        ooc_timing t;
        rc = ooc_gpu_run(&pl, &pb->ug, &pb->uf, &spare, steps, &k, &t);
        if (rc == 0) {
            char dev_name[128];
            gpu_probe(dev_name, sizeof dev_name);
            total_s = t.total_s;
            t_step = t.pass_median_s / pl.F;
            double in, out;
            must_cross(pb, &in, &out);
            double lim_in = in / link.duplex_h2d, lim_out = out / link.duplex_d2h;
            /* a pass carries F steps: the bytes that must cross a step are a pass's / F */
            double limit = (lim_in > lim_out ? lim_in : lim_out) / pl.F;
            char acc[64];
            if (persistent)
                snprintf(acc, sizeof acc, "persistent, a chunk's steps per launch");
            else if (pl.K > 1)
                snprintf(acc, sizeof acc, "tiles, %d steps per launch", pl.K);
            else
                snprintf(acc, sizeof acc, "%s", access_name[o->access]);
            report_printf("  backend   %s, access %s%s\n", dev_name, acc,
                          t.pinned ? ", host fields registered (pinned)"
                                   : ", host fields NOT pinned");
            report_printf(
                "  link      pinned host->device %.1f GB/s, device->host %.1f GB/s alone; "
                "%.1f / %.1f GB/s duplex\n",
                link.h2d / 1e9, link.d2h / 1e9, link.duplex_h2d / 1e9, link.duplex_d2h / 1e9);
            report_printf(
                "  time      %.3f ms per step (median pass %.3f ms / %d step%s, of %d pass%s%s), "
                "total %.3f s\n",
                t_step * 1e3, t.pass_median_s * 1e3, pl.F, pl.F == 1 ? "" : "s", t.steady_passes,
                t.steady_passes == 1 ? "" : "es",
                t.steady_passes < t.passes ? " after the first, which fills the pipeline" : "",
                total_s);
            if (pl.nparts * pl.nslabs == 1)
                report_printf("  kernels   %.3f ms per step (the steps alone, copies excluded)\n",
                              t.kernel_s / steps * 1e3);
            else
                report_printf(
                    "  kernels   %.3f ms per step while some chunk's steps ran; the host thread "
                    "%.3f ms per step staging chunks (%.3f gathering ring cells)\n",
                    t.kernel_s / steps * 1e3, t.stage_s / steps * 1e3, t.gather_s / steps * 1e3);
            report_printf(
                "  moved     per step host->device %.1f MB, device->host %.1f MB; must cross "
                "%.1f + %.1f MB\n",
                t.h2d_bytes / steps / 1e6, t.d2h_bytes / steps / 1e6, in / pl.F / 1e6,
                out / pl.F / 1e6);
            report_printf(
                "  link use  %.3f ms per step at the duplex rates for the bytes that must cross "
                "= %.1f%% of the link limit\n",
                limit * 1e3, 100.0 * limit / t_step);
        }
    }
#endif
    if (rc != 0)
        return 1;
    if (backend == BACKEND_CPU)
        report_printf("  time      %.3f ms per step, total %.3f s\n", t_step * 1e3, total_s);

    int ok = 1;
    if (o->no_verify) {
        report_printf("  verify    skipped (--verify off)\n");
    } else if (full && (ooc || pl.K > 1 || backend == BACKEND_GPU)) {
        progress_phase("verify");
        iter_run_incore(pb, ref, steps);
        long points, bad = iter_state_differ(pb, pb->uf, ref, &points);
        ok = bad == 0;
        report_printf("  verify    %s: %ld of %ld points differ from the CPU in-core iteration%s\n",
                      ok ? "PASS" : "FAIL", bad, points, ok ? " (bit-exact)" : "");
    } else if (full) {
        report_printf("  verify    this is the CPU in-core reference itself\n");
    } else if (steps <= pl.F && backend == BACKEND_GPU) {
        fieldset initial = pb->uf;
        for (int j = 0; j < c->n; j++)
            initial.p[c->in[j]] = spare.p[c->in[j]];
        long points, bad = ooc_cpu_check_chunks(&pl, &pb->ug, initial, pb->uf, steps, SAMPLED_CHUNKS,
                                                &points);
        ok = bad == 0;
        report_printf(
            "  verify    %s: %ld of %ld points of %d sampled chunks differ from the CPU%s\n",
            ok ? "PASS" : "FAIL", bad, points, SAMPLED_CHUNKS, ok ? " (bit-exact)" : "");
    } else {
        report_printf(
            "  verify    not verified: too large for a CPU reference, and more steps than one "
            "pass\n");
    }
    *ok_out = ok;
    *t_step_out = t_step;
    *total_out = total_s;
    for (int j = 0; j < c->n; j++)
        xfree(spare.p[c->in[j]]);
    if (full)
        iter_fields_free(pb, &ref);
    ooc_plan_free(&pl);
    return 0;
}

int run_iterated(options *o, int argc, char **argv)
{
    o->auto_picked = 0; /* --persistent auto chooses at this run's first pass */
    if (flags_check(o) != 0)
        return 2;
    int backend = tools_backend(o);
    if (backend < 0)
        return 1;
    if (backend == BACKEND_CPU && o->ooc == OOC_ON && !o->device_mem) {
        perr("run: --out-of-core on with the CPU backend needs --device-mem SIZE (the budget the "
             "chunks must fit)");
        return 2;
    }
    int steps = o->steps ? o->steps : 1;
    problem pb;
    if (problem_make_lean(&pb, &o->spec, o->mesh, o->mesh_order, backend == BACKEND_CPU) != 0)
        return o->mesh ? 1 : 2; /* a mesh file that cannot be used, or flags that do not fit */
    char plan_line[1600];
    if (tools_plan(o, &pb, backend, 1, 0, plan_line, sizeof plan_line)) { /* another order */
        problem_free(&pb);
        if (problem_make_lean(&pb, &o->spec, o->mesh, o->mesh_order, backend == BACKEND_CPU) != 0)
            return 1;
    }
    if (plan_line[0])
        report_printf("  tuned     %s\n", plan_line);
    if (o->input && field_read_inputs(&pb, o->input) != 0) { /* the initial state */
        problem_free(&pb);
        return 1;
    }

    int every = o->output_every ? o->output_every : steps, ok = 1, rc = 0;
    double t_step = 0, total_s = 0;
    field_snapshots snaps = {0};
    for (int done = 0; done < steps && rc == 0 && ok;) {
        int n = steps - done < every ? steps - done : every;
        double pass_step, pass_s;
        rc = iterate_pass(&pb, o, backend, n, done, &ok, &pass_step, &pass_s);
        done += n;
        total_s += pass_s;
        t_step = total_s / done;
        if (rc == 0 && ok && o->output && o->output_every)
            field_snapshot_add(&snaps, &pb, done);
    }
    if (rc != 0) {
        field_snapshots_free(&snaps, &pb);
        problem_free(&pb);
        return rc;
    }
    if (o->input)
        report_printf("  input     %s\n", o->input);
    report_printf("  state     checksum %016llx (iter_state_hash: equal on equal states)\n",
                  (unsigned long long)iter_state_hash(&pb, pb.uf));
    long kb = tools_peak_rss_kb();
    tools_report_memory(&kb, 1);
    report_number("cells", pb.ug.nxy);
    report_number("levels", pb.s.nz);
    report_number("steps", steps);
    report_number("ms_per_step", t_step * 1e3);
    report_number("total_s", total_s);
    if (!o->no_verify)
        report_bool("verified", ok);
    if (o->output && run_write_output(&pb, o, pb.uf, 1, steps, ok, snaps.n ? &snaps : NULL, argc,
                                      argv) != 0)
        ok = 0;
    field_snapshots_free(&snaps, &pb);
    problem_free(&pb);
    return ok ? 0 : 1;
}
