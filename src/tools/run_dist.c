/* cmd_dist.c — `mpirun -np P pillar run --steps T [--fuse F]`: an iterated run distributed over
 * MPI ranks (src/dist/dist_mpi.h), rank 0 printing, gathering, verifying against the CPU in-core
 * iteration and writing --output; and `pillar run --plan-only`, the model of such runs on P GPUs
 * (src/dist/dist_model.h). */
#include "tools.h"
#include "base/progress.h"
#include "base/sha256.h"
#include "src/dist/dist_model.h"
#include "src/dist/dist_mpi.h"
#include "src/dist/dist_read.h"
#include "src/dist/dist_sim.h"
#include "src/exec/field_io.h"
#include "src/exec/iterate.h"
#include "src/exec/runner.h"
#include "src/tune/plan_use.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* What a distributed run does not do: refused with exit 2 before anything starts. */
static int dist_flags_check(const options *o)
{
    const char *bad = o->ooc == OOC_ON       ? "--out-of-core on"
                      : o->device_mem        ? "--device-mem"
                      : o->kernel_steps > 1  ? "--kernel-steps"
                      : o->share             ? "--share"
                      : o->persistent == PERSIST_ON ? "--persistent on"
                                             : iterated_refuses(o);
    if (bad) {
        perr("run: %s does not go with a distributed run (each rank keeps its part in core and "
             "runs one step per kernel; docs/distributed.md)", bad);
        return -1;
    }
    return 0;
}

/* The status every rank agrees on when one may have failed alone (collective): the largest of
 * the ranks' rc, 0 when none failed. A rank that failed has said why; rank 0 says, when it did
 * not fail itself, that another rank did, so that the job ends with a message on every path. */
static int worst(int comm, int me, int rc, const char *what)
{
    double lo, hi;
    dist_minmax(comm, rc, &lo, &hi);
    if (hi != 0 && rc == 0 && me == 0)
        perr("run: another rank failed %s (its message above says why); every rank stops", what);
    return (int)hi;
}

/* Whether every rank was given the same command line (collective): a hash of the arguments
 * (48 bits of their SHA-256, exact in a double), its least and largest over the ranks compared.
 * Ranks given different --steps or --fuse would wait on each other for ever. 0, or -1 after a
 * message on rank 0. */
static int same_arguments(int comm, int me, int argc, char **argv)
{
    sha256_ctx c;
    sha256_init(&c);
    for (int i = 0; i < argc; i++)
        sha256_update_str(&c, argv[i]);
    unsigned char d[32];
    sha256_final(&c, d);
    double h = 0, lo, hi;
    for (int i = 0; i < 6; i++)
        h = h * 256 + d[i];
    dist_minmax(comm, h, &lo, &hi);
    if (lo == hi)
        return 0;
    if (me == 0)
        perr("run: the ranks were given different arguments (--steps, --fuse, files...); every "
             "rank must run the same command line (mpirun -np P pillar run ...)");
    return -1;
}

/* Every rank exits with rank 0's status. */
static int agreed(int comm, int me, int rc)
{
    double lo, hi;
    dist_minmax(comm, me == 0 ? rc : 0, &lo, &hi);
    return (int)hi;
}

/* The end of a distributed run (collective): every rank's peak resident memory gathered into
 * kb (n entries on rank 0; freed here) and reported by rank 0 when the run succeeded, MPI ended,
 * rank 0's status for every rank. */
static int finish(int comm, int me, int n, int rc, long *kb)
{
    dist_gather_long(comm, tools_peak_rss_kb(), kb);
    if (me == 0 && rc == 0)
        tools_report_memory(kb, n);
    xfree(kb);
    rc = agreed(comm, me, rc);
    dist_finalize();
    return rc;
}

/* The model's read-only bytes a cell column carries (dist_problem.coeff_bytes): the stencil's
 * coefficients (stencils/coeffs.h; fluxdiff's: 1 + list width values); 0 for most. */
static double coeff_bytes(const problem *pb)
{
    return (double)coef_desc_cell_bytes(&stencil_table[pb->s.stencil].coeffs, pb->s.prec,
                                        pb->ug.adjw);
}

/* The ring constant of this grid: its rings of F steps on a METIS partition into P parts. */
static double measured_ring_k(const problem *pb, int P, int F)
{
    const ugrid *g = &pb->ug;
    int *part = xalloc(sizeof(int) * (size_t)g->nxy);
    long *own = xalloc(sizeof(long) * (size_t)P), *ring = xalloc(sizeof(long) * (size_t)P);
    double k = 0;
    if (ugrid_partition(g, stencil_table[pb->s.stencil].graph, P, part) == 0) {
        int n = 0;
        for (int r = 0; r < P; r++) {
            dist_rank d;
            if (dist_rank_make(&d, g, &pb->coef, part, P, r, pb->s.stencil, pb->s.prec, 1, 0, F) != 0)
                continue;
            own[n] = d.nown;
            ring[n++] = d.pt.first[0] - d.pt.nfixed;
            dist_rank_free(&d);
        }
        k = dist_model_ring_k(own, ring, n, stencil_table[pb->s.stencil].radius * F);
    }
    xfree(part);
    xfree(own);
    xfree(ring);
    return k;
}

/* The R2B10-sized mesh of issue 20: 20,971,520 cells (20·4·4^9, which is ICON's R2B9 count;
 * R2B10 has 4x as many) x 90 levels. */
#define MODEL_CELLS 20971520.0
#define MODEL_LEVELS 90
#define MODEL_MAX_P 1024

/* The pieces measured on this run's grid and GPU, fed into the model's link l and compute rate
 * *pts: 2 METIS parts of the grid run one after the other on the device (dist_sim: no MPI, no
 * rank sharing the device with another), a warm-up pass, then `steps` steps (--steps, else 10
 * passes of F) timed piece by piece with CUDA events. Returns 0, or -1 with a message. */
static int measure_pieces(problem *pb, const options *o, int F, dist_link *l, double *pts)
{
    dist_sim sm;
    if (dist_sim_open(&sm, &pb->ug, &pb->coef, pb->s.stencil, pb->s.prec, pb->s.chasing,
                      pb->s.compressed, NULL, 2, F) != 0)
        return -1;
    int steps = o->steps ? o->steps : 10 * F;
    dist_pieces m;
    int rc = dist_sim_steps_gpu(&sm, pb->uf, F, o->access, NULL);
    if (rc == 0)
        rc = dist_sim_steps_gpu(&sm, pb->uf, steps, o->access, &m);
    dist_sim_close(&sm);
    if (rc != 0)
        return -1;
    if (m.pack <= 0 || m.unpack <= 0 || m.interior <= 0) {
        perr("run: --plan-only --backend gpu: the grid is too small for two parts with a ring");
        return -1;
    }
    double per = 1e3 / m.passes; /* ms per pass and rank */
    report_printf("  measured  on this GPU: 2 METIS parts of this grid, one after the other, %d steps "
           "(%s, access %s), per pass and part:\n", steps, prec_name(pb->s.prec),
           access_name[o->access]);
    report_printf("            pack %.3f ms (%.1f GB/s of messages), unpack %.3f ms (%.1f GB/s)",
           m.pack * per, m.sent / m.pack / 1e9, m.unpack * per, m.received / m.unpack / 1e9);
    if (m.d2h > 0 && m.h2d > 0)
        report_printf(", to the host %.3f ms (%.1f GB/s), from the host %.3f ms (%.1f GB/s)", m.d2h * per,
               m.sent / m.d2h / 1e9, m.h2d * per, m.received / m.h2d / 1e9);
    report_printf("\n            step 1's interior %.3f ms (%.1f G points/s), boundary %.3f ms, steps "
           "2..F %.3f ms\n", m.interior * per, m.interior_pts / m.interior / 1e9,
           m.boundary * per, m.rest * per);
    dist_rates r = dist_pieces_rates(&m);
    l->pack_bps = r.pack_bps;
    l->unpack_bps = r.unpack_bps;
    if (r.host_bps > 0) /* the staged exchange crosses the host link both ways */
        l->host_bps = r.host_bps;
    *pts = r.pts;
    return 0;
}

static int plan_only(const options *o)
{
    problem pb;
    if (problem_make_lean(&pb, &o->spec, o->mesh, o->mesh_order, 0) != 0)
        return o->mesh ? 1 : 2;
    int F = o->fuse ? o->fuse : 1, inner = pb.ug.nxy - pb.ug.nhalo;
    int P = inner / 2000 > 16 ? 16 : inner / 2000 > 2 ? inner / 2000 : 2;
    double k = measured_ring_k(&pb, P, F);
    dist_link l = dist_link_default();
    double pts = dist_measured_pts(pb.s.stencil, pb.s.prec);
    int measured = o->backend == BACKEND_GPU;
    char why[256];
    if (measured && runner_pick_backend(o, why, sizeof why) != BACKEND_GPU) {
        problem_free(&pb);
        return 1;
    }
    if (measured) {
        report_printf("%s %s on %d cells x %d levels: the single-GPU pieces of a distributed run\n",
               stencil_table[pb.s.stencil].name, prec_name(pb.s.prec), inner, pb.s.nz);
        if (measure_pieces(&pb, o, F, &l, &pts) != 0) {
            problem_free(&pb);
            return 1;
        }
    }
    dist_link staged = l;
    staged.staged = 1;
    dist_problem pr = {pb.s.stencil, pb.s.prec, MODEL_CELLS, MODEL_LEVELS, F, k, pts,
                       coeff_bytes(&pb)};
    report_printf("%s %s, %d step%s between exchanges; the model of docs/distributed.md\n",
           stencil_table[pb.s.stencil].name, prec_name(pb.s.prec), F, F == 1 ? "" : "s");
    report_printf("  ring      k = %.2f: rings of radius %d x %d measured on %d METIS parts of this run's "
           "grid (%d cells)\n", k, stencil_table[pb.s.stencil].radius, F, P, inner);
    if (measured)
        report_printf("  compute   %.1f G points/s (step 1's interior, measured above); packing and the "
               "host link as measured above\n", pts / 1e9);
    else if (pts > 0)
        report_printf("  compute   %.1f G points/s (measured on the H100)\n", pts / 1e9);
    else
        report_printf("  compute   the fields' bytes%s at %.2f x %.0f GB/s (the H100's measured copy "
               "rate)\n", pr.coeff_bytes > 0 ? " and the coefficients'" : "", l.dev_fraction,
               l.dev_bps / 1e9);
    report_printf("  links     NVLink %.0f GB/s, %.0f us within %d GPUs; InfiniBand %.0f GB/s, %.0f us "
           "beyond; %d peers; staged: + host link %.0f GB/s twice\n", l.nvlink_bps / 1e9,
           l.nvlink_lat_s * 1e6, l.gpus_per_node, l.ib_bps / 1e9, l.ib_lat_s * 1e6, l.peers,
           l.host_bps / 1e9);
    for (int weak = 0; weak < 2; weak++) {
        dist_problem w = pr;
        double per = MODEL_CELLS / 64;
        if (weak)
            report_printf("weak scaling: %.0f cells x %d levels per GPU\n", per, MODEL_LEVELS);
        else
            report_printf("strong scaling: %.0f cells x %d levels\n", MODEL_CELLS, MODEL_LEVELS);
        report_printf("  %6s %10s %8s %9s %10s %10s %10s %10s %7s %6s %6s\n", "GPUs", "cells/GPU",
               "ring", "halo MB", "exchange", "compute", "step", "staged", "hidden", "eff",
               "effst");
        w.cells = weak ? per : MODEL_CELLS;
        double one = dist_model(&w, &l, 1).step_s;
        for (int p = 1; p <= MODEL_MAX_P; p *= 2) {
            w.cells = weak ? per * p : MODEL_CELLS;
            dist_estimate e = dist_model(&w, &l, p), es = dist_model(&w, &staged, p);
            double ideal = weak ? one : one / p;
            report_printf("  %6d %10.0f %8.0f %9.3f %8.1fus %8.1fus %8.3fms %8.3fms %6.0f%% %5.0f%% "
                   "%5.0f%%%s\n", p, e.own, e.ring, e.halo_bytes / 1e6, e.exchange_s * 1e6,
                   (e.interior_s + e.boundary_s + e.rest_s) * 1e6 / F, e.step_s * 1e3,
                   es.step_s * 1e3, 100 * e.comm_hidden, 100 * ideal / e.step_s,
                   100 * ideal / es.step_s, e.ib ? "  IB" : "");
        }
    }
    problem_free(&pb);
    return 0;
}

/* The model's time per step for this run (its grid, P ranks, its parts' ring constant): on
 * paper (the H100's compute rate, the default links, staged through the host when this run was),
 * and with the rates this run measured (its slowest rank's interior, packing and host copies). */
static void print_model(const problem_spec *s, double inner, double coeffb, const dist_timing *t,
                        int F, int P)
{
    dist_problem pr = {s->stencil, s->prec, inner, s->nz, F, t->ring_k,
                       dist_measured_pts(s->stencil, s->prec), coeffb};
    dist_link l = dist_link_default();
    l.staged = t->host_bps > 0;
    double paper = dist_model(&pr, &l, P).step_s;
    pr.pts_per_s = t->pts_per_s;
    l.pack_bps = t->pack_bps;
    l.unpack_bps = t->unpack_bps;
    if (t->host_bps > 0)
        l.host_bps = t->host_bps;
    if (t->wire_bps > 0) /* through NCCL: the rate its grouped exchange measured */
        l.nvlink_bps = t->wire_bps;
    dist_estimate m = dist_model(&pr, &l, P);
    report_printf("  model     %.3f ms per step on paper (the H100's rates%s), %.3f ms with this run's "
           "rates (interior %.1f G points/s", paper * 1e3,
           P == 1 ? "" : l.staged ? ", NVLink staged through the host" : ", NVLink",
           m.step_s * 1e3, t->pts_per_s / 1e9);
    if (P > 1 && l.staged)
        report_printf(", host link %.1f GB/s", l.host_bps / 1e9);
    else if (P > 1)
        report_printf(", GPU to GPU %.1f GB/s", l.nvlink_bps / 1e9);
    if (P > 1)
        report_printf("; ring k = %.2f; %.0f%% of the exchange hidden", t->ring_k,
                      100 * m.comm_hidden);
    report_printf(")\n");
}

/* What the report says of a distributed run's grid and parts. */
typedef struct {
    const problem_spec *s;
    const char *mesh;
    int order;                /* mesh_order_t */
    int ncells, nhalo, nz;
    double coeffb;            /* coeff_bytes */
    const char *parts;        /* how the parts were made */
} dist_shape;

/* Rank 0's report of a distributed run, up to the state line. */
static void report_run(const dist_shape *sh, int n, int steps, int F, int backend, const options *o,
                       const dist_timing *tp, const char *plan_line, const char *note)
{
    const problem_spec *s = sh->s;
    dist_timing t = *tp;
    report_printf("%s %s, %d step%s on %d rank%s", stencil_table[s->stencil].name,
                  prec_name(s->prec), steps, steps == 1 ? "" : "s", n, n == 1 ? "" : "s");
    if (sh->mesh)
        report_printf(" on mesh %s (%s order): %d cells (%d halo) x %d levels\n", sh->mesh,
                      mesh_order_name[sh->order], sh->ncells, sh->nhalo, sh->nz);
    else
        report_printf(" on %dx%dx%d unstructured %s\n", s->nx, s->ny, s->nz,
                      layout_name[s->layout]);
    report_printf(
        "  plan      %s: %ld to %ld own cells, rings of up to %ld cells; exchange every %d "
        "step%s (%d exchanges)\n",
        sh->parts, t.own_min, t.own_max, t.ring_max, F, F == 1 ? "" : "s", t.exchanges);
    if (note && note[0])
        report_printf("  note      %s\n", note);
    if (plan_line && plan_line[0])
        report_printf("  tuned     %s\n", plan_line);
    report_printf("  rank 0    %s\n", t.rank0);
    report_printf("  backend   %s%s\n", backend == BACKEND_GPU ? "gpu, access " : "cpu",
                  backend == BACKEND_GPU ? access_name[o->access] : "");
    report_printf(
        "  halo      %.3f MB per exchange over all ranks, at most %.3f MB from one rank; "
        "through %s\n", t.sent_bytes / 1e6, t.max_rank_sent / 1e6, t.halo);
    double x = 1e3 / t.exchanges;
    report_printf("  time      %.3f ms per step, total %.3f s (slowest rank)\n",
                  t.total_s / steps * 1e3, t.total_s);
    report_printf(
        "  pieces    per exchange, slowest rank%s: pack %.3f ms, step 1's interior %.3f ms "
        "(while messages fly), waiting %.3f ms, unpack %.3f ms, the rest %.3f ms\n",
        backend == BACKEND_GPU ? " (device time; waiting: the host)" : "", t.pack_s * x,
        t.interior_s * x, t.wait_s * x, t.unpack_s * x, t.rest_s * x);
    if (n > 1)
        report_printf(
            "  exchange  alone %.3f ms (pack, the messages, unpack; staged: the host copies; the "
            "median of %d "
            "bare exchanges after the run, slowest rank); the passes hid %.0f%% of it "
            "behind step 1's interior\n",
            t.exchange_s * 1e3, DIST_BARE_EXCHANGES, 100 * t.hidden);
    if (t.alone_pts_per_s > 0 && t.interior_s > 0)
        report_printf("  interior  alone %.1f G points/s (step 1's interior on the idle device, the "
                      "median of %d launches after the run, slowest rank; %.1f and %.1f reading the "
                      "state from the input and from the output fields, as the passes do in turn); "
                      "%.1f while the messages flew (the median pass)\n",
                      t.alone_pts_per_s / 1e9, DIST_BARE_EXCHANGES,
                      t.alone_buffer_pts_per_s[0] / 1e9, t.alone_buffer_pts_per_s[1] / 1e9,
                      t.pts_per_s / 1e9);
    if (t.rank_rates[0])
        report_printf("  ranks     step 1's interior while the messages flew (the median pass) and "
                      "alone after the run, G points/s: %s\n", t.rank_rates);
    if (t.pass_median_s > 0)
        report_printf("  passes    step 1's interior a pass %.3f ms (the median, slowest rank); "
                      "reading the input fields %.3f, the output fields %.3f; the first quarter "
                      "of the passes %.3f, the last %.3f\n",
                      t.pass_median_s * 1e3, t.pass_parity_s[0] * 1e3, t.pass_parity_s[1] * 1e3,
                      t.pass_quarter_s[0] * 1e3, t.pass_quarter_s[1] * 1e3);
    report_printf("  devices   %s\n", t.devices);
    if (backend == BACKEND_GPU)
        print_model(s, (double)(sh->ncells - sh->nhalo), sh->coeffb, &t, F, n);
}

/* A configuration as one number, exact in a double, for the ranks to compare. */
static double config_sig(const options *o)
{
    double order = o->mesh ? (double)o->mesh_order : (double)o->spec.layout;
    return ((((order * 2 + o->spec.chasing) * 2 + o->spec.compressed) * 32 + o->access) * 513 +
            o->bx) * 513 * 513 * 8 + (o->by * 513 + o->bz) * 8 + (o->zslice & 7);
}

/* Whether every rank chose the same configuration (collective). Where they differ (GPUs of
 * different names) every rank runs without a plan: o is put back to before, line emptied, and
 * rank 0 says so. */
static int plans_agree(int comm, int me, options *o, const options *before, char *line)
{
    double lo, hi;
    dist_minmax(comm, config_sig(o), &lo, &hi);
    if (lo == hi)
        return 1;
    if (me == 0)
        perr("run: the ranks found different plans (GPUs of different names?): every rank runs "
             "without one");
    *o = *before;
    line[0] = 0;
    return 0;
}

/* The plan of a distributed run (collective): every rank looks up the plan of the whole mesh
 * (tools_plan: rank 0 shows the note), applies it and makes its problem again when the order or
 * storage changed (*made: whether pb holds one). Ranks whose plans differ all run without one.
 * 0, or the exit status after a message. */
static int dist_plan(int comm, int me, options *o, problem *pb, int backend, int bare, char *line,
                     size_t n, int *made)
{
    options before = *o;
    unsigned set = tools_plan(o, pb, backend, 1, me != 0, line, n);
    if (!plans_agree(comm, me, o, &before, line))
        set = before.mesh_order != (int)pb->mesh_order || before.spec.layout != pb->s.layout ||
                      before.spec.chasing != pb->s.chasing ||
                      before.spec.compressed != pb->s.compressed
                  ? PLAN_SET_LAYOUT
                  : 0;
    int rc = 0;
    if (set) {
        problem_free(pb);
        *made = (bare ? problem_make_bare(pb, &o->spec, o->mesh, o->mesh_order)
                      : problem_make_lean(pb, &o->spec, o->mesh, o->mesh_order, !o->no_verify)) == 0;
        rc = *made ? 0 : 1;
    }
    return worst(comm, me, rc, "to make its grid in the plan's order");
}

/* The inputs of a part-only run, by file index (dist_exec.fill). */
static void fill_by_id(const void *user, int k, const int *gid, int n, int z0, int z1, void *dst,
                       long zstride)
{
    problem_fill_inputs_ids(user, k, gid, n, z0, z1, dst, zstride);
}

/* Whether a distributed run reads only each rank's rows of the mesh file (collective: every rank
 * decides alike from the same arguments and file): --verify off without --input, a pillar mesh
 * file in file order whose /partition has one part per rank, without a patch's (x, y), a stencil
 * without coefficients or with coefficients a rank builds from its rows (fluxdiff's), without a
 * frame (fastwaves: the whole mesh is checked for turns), a
 * graph stencil on a general mesh. 1 with the header in h; 0 with why not in note (n bytes) where
 * the run could have, or an empty note; -1 after a message (a malformed mesh file). */
static int part_only_mode(const options *o, int nranks, mesh_header *h, char *note, size_t n)
{
    note[0] = 0;
    if (!o->mesh || !o->no_verify || o->input)
        return 0;
    int rc = mesh_read_header(o->mesh, h);
    if (rc < 0)
        return -1;
    const char *why = NULL;
    char buf[256];
    if (rc == 1) {
        why = "it is not a pillar mesh file";
    } else if (h->nparts != nranks) {
        snprintf(buf, sizeof buf, "the file stores %s (pillar mesh partition %s --parts %d)",
                 h->nparts ? "a partition into another number of parts" : "no partition", o->mesh,
                 nranks);
        why = buf;
    } else if (o->mesh_order != MESH_ORDER_FILE) {
        why = "--layout other than file (each rank reads its rows in the file's order)";
    } else if (h->patch) {
        why = "the mesh is a regular patch (/patch_xy: its inputs go by (x, y))";
    } else if (stencil_table[o->spec.stencil].framed ||
               (!h->quad && !stencil_table[o->spec.stencil].graph)) {
        snprintf(buf, sizeof buf, "%s is checked against the whole mesh (%s)",
                 stencil_table[o->spec.stencil].name,
                 h->quad ? "its W/E/S/N frame must not turn" : "a general mesh");
        why = buf;
    } else if (stencil_table[o->spec.stencil].coeffs.n &&
               !stencil_table[o->spec.stencil].coeffs.build_part) {
        snprintf(buf, sizeof buf, "%s reads coefficients, made from the whole mesh",
                 stencil_table[o->spec.stencil].name);
        why = buf;
    }
    if (why && nranks > 1)
        snprintf(note, n, "every rank holds the whole grid: %s", why);
    return why ? 0 : 1;
}

/* The part-only run (part_only_mode): each rank reads its block and its own rows with their ring
 * (dist_read_local), builds its part from them alone, fills its inputs by file index; rank 0
 * reports, with the state's checksum. 0 run, 1 failed (after a message). */
static int run_part_only(int comm, int me, int n, options *o, const mesh_header *h, int backend,
                         int steps, int F)
{
    /* the plan of the whole mesh, its cells kept in the file's order (each rank reads its part):
     * keyed on the file's content, which rank 0 alone reads through */
    char plan_line[1600] = "", id[80] = "";
    if (me == 0)
        tools_plan_mesh_id(o, id, sizeof id);
    dist_bcast_bytes(comm, id, (int)sizeof id);
    options before = *o;
    tools_plan_file_order(o, id, h->nlevels, h->ncells, h->has_coords, backend, me != 0,
                          plan_line, sizeof plan_line);
    plans_agree(comm, me, o, &before, plan_line);
    problem_spec spec = o->spec;
    spec.nz = h->nlevels;
    dist_local L;
    int *fixed = NULL, nfixed = 0;
    if (dist_read_local(comm, n, me, o->mesh, h, o->spec.stencil, F, &L, &fixed, &nfixed) != 0)
        return 1;
    /* what mesh_check verifies of a whole mesh and the rows alone cannot: symmetry */
    int asym = dist_local_symmetric(&L, me, o->mesh, h->quad ? "/neighbours" : "/cell_neighbours");
    if (worst(comm, me, asym ? 1 : 0, "to read its part of the mesh") != 0) {
        dist_local_free(&L);
        xfree(fixed);
        return 1;
    }
    dist_exec e = {backend == BACKEND_GPU, o->access, o->bx, o->by, o->bz, o->zslice, 1, NULL,
                   o->halo, fill_by_id, &spec, h->ncells, fixed, nfixed, 0};
    dist_timing t;
    int rc = dist_mpi_run_local(comm, &L, spec.stencil, spec.prec, spec.chasing, spec.compressed, F,
                                steps, &e, &t) == 0 ? 0 : 1;
    dist_local_free(&L);
    xfree(fixed);
    if (rc == 0 && me == 0) {
        dist_shape sh = {&spec, o->mesh, MESH_ORDER_FILE, h->ncells, nfixed, h->nlevels, 0,
                         "the file's partition, one part per rank, each rank reading only its "
                         "block and then its own rows and ring"};
        report_run(&sh, n, steps, F, backend, o, &t, plan_line, NULL);
        report_printf("  state     checksum %016llx (iter_state_hash: equal on equal states)\n",
                      (unsigned long long)t.hash);
        report_printf("  verify    skipped (--verify off); compare the checksum with a run of the "
                      "same grid on other ranks\n");
    }
    return rc;
}

int run_distributed(options *o, int argc, char **argv)
{
    if (o->plan_only)
        return plan_only(o);
    if (!dist_mpi_built()) {
        perr("run: %s, but pillar was built without MPI: configure with -DPILLAR_MPI=ON where an "
             "MPI is installed (Debian: apt-get install libopenmpi-dev openmpi-bin)",
             o->ranks ? "--ranks asks for a distributed run"
                      : "started by mpirun with several ranks");
        return 2;
    }
    if (dist_flags_check(o) != 0)
        return 2;
    if (dist_init(NULL, NULL) != 0)
        return 1;
    int comm = dist_world(), me = 0, n = 1;
    if (dist_comm_info(comm, &me, &n) != 0) {
        dist_finalize();
        return 1;
    }
    if (me != 0)
        report_silence(); /* rank 0 reports */
    if (o->ranks && o->ranks != n) {
        if (me == 0)
            perr("run: --ranks %d, but %d rank%s started (mpirun -np %d pillar run ...)", o->ranks,
                 n, n == 1 ? " was" : "s were", o->ranks);
        dist_finalize();
        return 2;
    }
    if (same_arguments(comm, me, argc, argv) != 0) {
        dist_finalize();
        return 2;
    }
    char why[256];
    int backend = me == 0 ? tools_backend(o) : runner_pick_backend(o, why, sizeof why);
    int steps = o->steps ? o->steps : 1, F = o->fuse ? o->fuse : 1, rc = 0;
    /* every rank's peak resident memory, gathered at the end (the whole run's peak) */
    long *kb = me == 0 ? xalloc(sizeof(long) * (size_t)n) : NULL;
    char note[512];
    mesh_header h;
    int po = backend < 0 ? 0 : part_only_mode(o, n, &h, note, sizeof note);
    rc = worst(comm, me, po < 0 ? 1 : 0, "to read its mesh file's header");
    if (rc == 0 && po == 1)
        rc = run_part_only(comm, me, n, o, &h, backend, steps, F);
    if (po == 1 || rc != 0)
        return finish(comm, me, n, rc, kb);
    problem pb;
    /* --verify off without --input: no rank holds more than its part (and one level on rank 0) */
    int bare = o->no_verify && !o->input;
    /* each rank reads the mesh and the inputs itself: one that fails alone must stop them all */
    int made = backend >= 0 &&
               (bare ? problem_make_bare(&pb, &o->spec, o->mesh, o->mesh_order)
                     : problem_make_lean(&pb, &o->spec, o->mesh, o->mesh_order, !o->no_verify)) == 0;
    rc = backend < 0 ? 1 : !made ? (o->mesh ? 1 : 2) : 0;
    rc = worst(comm, me, rc, "to read its grid");
    char plan_line[1600] = "";
    if (rc == 0) /* every rank takes the whole mesh's plan, and all the same one */
        rc = dist_plan(comm, me, o, &pb, backend, bare, plan_line, sizeof plan_line, &made);
    if (rc == 0 && o->input && field_read_inputs(&pb, o->input) != 0)
        rc = 1;
    rc = worst(comm, me, rc, "to read its grid or inputs");
    if (rc != 0) {
        if (made)
            problem_free(&pb);
        xfree(kb);
        dist_finalize();
        return rc;
    }
    int full = !o->no_verify && iterated_full_check(&pb);
    if (o->output && !full) {
        if (me == 0)
            perr("run: --output %s: not written: the state is too large for the CPU to verify "
                 "(the run prints its checksum instead); use a smaller grid or fewer levels",
                 o->output);
        problem_free(&pb);
        xfree(kb);
        dist_finalize();
        return 2;
    }
    fieldset ref = {{0}};
    if (me == 0 && full)
        ref = iter_fields_copy(&pb);
    _Static_assert((int)PILLAR_HALO_AUTO == (int)DIST_HALO_AUTO &&
                       (int)PILLAR_HALO_NCCL == (int)DIST_HALO_NCCL &&
                       (int)PILLAR_HALO_STAGED == (int)DIST_HALO_STAGED &&
                       (int)PILLAR_HALO_IPC == (int)DIST_HALO_IPC,
                   "--halo: the settings' values are dist_exec's");
    dist_exec e = {backend == BACKEND_GPU, o->access, o->bx, o->by, o->bz, o->zslice, 1,
                   bare ? &pb : NULL, o->halo, NULL, NULL, 0, NULL, 0, 0};
    dist_timing t;
    if (dist_mpi_run(comm, &pb.ug, &pb.coef, pb.s.stencil, pb.s.prec, pb.s.chasing,
                     pb.s.compressed, F, pb.uf, steps, &e, &t) != 0)
        rc = 1;
    if (rc == 0 && me == 0) {
        const problem_spec *s = &pb.s;
        dist_shape sh = {s, o->mesh, pb.mesh_order, pb.ug.nxy, pb.ug.nhalo, s->nz, coeff_bytes(&pb),
                         "METIS k-way parts, one per rank"};
        report_run(&sh, n, steps, F, backend, o, &t, plan_line, note);
        report_printf("  state     checksum %016llx (iter_state_hash: equal on equal states)\n",
                      (unsigned long long)(bare ? t.hash : iter_state_hash(&pb, pb.uf)));
        if (full) {
            progress_phase("verify");
            iter_run_incore(&pb, ref, steps);
            long points, bad = iter_state_differ(&pb, pb.uf, ref, &points);
            report_printf(
                "  verify    %s: %ld of %ld points differ from the CPU in-core iteration%s\n",
                bad == 0 ? "PASS" : "FAIL", bad, points, bad == 0 ? " (bit-exact)" : "");
            rc = bad == 0 ? 0 : 1;
        } else if (o->no_verify) {
            report_printf(
                "  verify    skipped (--verify off); compare the checksum with a run of the "
                "same grid on other ranks\n");
        } else {
            report_printf(
                "  verify    not verified here: too large for a CPU reference; compare the "
                "checksum with a run of the same grid on other ranks\n");
        }
        if (o->input)
            report_printf("  input     %s\n", o->input);
        if (o->output && run_write_output(&pb, o, pb.uf, 1, steps, rc == 0, NULL, argc, argv) != 0)
            rc = 1;
    }
    if (me == 0 && full)
        iter_fields_free(&pb, &ref);
    problem_free(&pb);
    return finish(comm, me, n, rc, kb);
}
