/* run.c — `pillar run` (pillar_tool_run): a stencil file loaded when given, then the one decision
 * of what runs — over MPI ranks (run_dist.c), iterated or out of core (run_iterated.c), or one
 * application timed and verified (here). */
#include "tools.h"
#include "src/dist/dist_mpi.h"
#include "src/exec/cpu_exec.h"
#include "src/exec/runner.h"
#include "src/exec/verify.h"
#include "src/io/mesh_import.h"
#include "src/io/mesh_io.h"
#include "base/progress.h"
#include "src/jit/jit.h"

#include <stdio.h>
#include <string.h>

void tools_grid_options(const pillar_run_extra *x)
{
    if (x->grid) { /* --format, --levels: how --mesh FILE is read */
        const pillar_mesh_settings *g = x->grid;
        mesh_load_opts lo = {g->format >= 0 ? mesh_importers[g->format].name : NULL,
                             g->gen.nlevels, g->merge_tol};
        mesh_read_options(&lo);
    }
}

int tools_run_stencil(options *o, const pillar_run_extra *x)
{
    if (!x->stencil_file)
        return 0;
    if (o->stencil_set) {
        perr("--stencil-file: give either --stencil or --stencil-file");
        return -1;
    }
    stencil_t s;
    if (tools_stencil_file(x->stencil_file, x->check_reads, &s) != 0)
        return -1;
    if (stencil_table[s].graph && !o->mesh) {
        perr("--stencil-file %s: %s is a graph stencil and runs on the cells of a mesh file: add "
             "--mesh FILE (e.g. from 'pillar mesh generate F --kind hexagons')", x->stencil_file,
             stencil_table[s].name);
        return -1;
    }
    o->spec.stencil = s;
    o->stencil_set = 1;
    return 0;
}

/* After a run of a stencil file in checked mode: rc, or 1 with a message when the run read
 * outside the stencil's declared extent. */
static int check_reads(const options *o, const pillar_run_extra *x, int rc)
{
    if (!x->stencil_file || !x->check_reads)
        return rc;
    char msg[512];
    long n = jit_violations(o->spec.stencil, msg, sizeof msg);
    if (n) {
        perr("--check-reads: %ld reads outside the declared extent; the first: %s", n, msg);
        return 1;
    }
    report_printf("  checked   every read within the declared radius and levels\n");
    return rc;
}

static int run_one(options o, int argc, char **argv);

typedef struct {
    const options *o;
    const pillar_run_extra *x;
} run_job;

static int run_guarded(void *arg)
{
    const run_job *j = arg;
    options o = *j->o;
    if (tools_run_stencil(&o, j->x) != 0)
        return 1;
    return check_reads(&o, j->x, run_one(o, j->x->argc, j->x->argv));
}

int pillar_tool_run(const pillar_run_settings *o, const pillar_run_extra *x)
{
    pillar_run_extra none = {0};
    if (!x)
        x = &none;
    tools_grid_options(x);
    run_job j = {o, x};
    return tools_guarded(run_guarded, &j);
}

/* One application, T steps, out of core or over MPI ranks: the run the settings ask for. */
static int run_one(options o, int argc, char **argv)
{
    if (o.output && o.no_verify) {
        perr("run: --output %s: written after a verified run only; drop --verify off", o.output);
        return 2;
    }
    if (o.output_every && (!o.steps || !o.output || o.output_every > o.steps)) {
        perr("run: --output-every %d: the states of --steps T every N steps (N at most T) into "
             "the --output FILE: %s", o.output_every,
             !o.steps ? "give --steps" : !o.output ? "give --output" : "N is more than T");
        return 2;
    }
    if (o.output && field_output_check(o.output) != 0)
        return 1;
    if (o.ranks || o.plan_only || dist_launcher_ranks() > 1) {
        if (o.output_every) {
            perr("run: --output-every: distributed runs write the last state only");
            return 2;
        }
        return run_distributed(&o, argc, argv);
    }
    if (o.steps || o.ooc == OOC_ON || o.device_mem || o.fuse || o.kernel_steps || o.share ||
        o.persistent == PERSIST_ON)
        return run_iterated(&o, argc, argv);
    int backend = tools_backend(&o);
    if (backend < 0)
        return 1;

    problem pb;
    if (problem_make_mesh(&pb, &o.spec, o.mesh, o.mesh_order) != 0)
        return o.mesh ? 1 : 2; /* a mesh file that cannot be used, or flags that do not fit */
    char plan_line[1600];
    if (tools_plan(&o, &pb, backend, 0, 0, plan_line, sizeof plan_line)) { /* another order */
        problem_free(&pb);
        if (problem_make_mesh(&pb, &o.spec, o.mesh, o.mesh_order) != 0)
            return 1;
    }
    const problem_spec *s = &pb.s;
    int uns = !o.regular, twin = problem_has_regular(&pb), lat = problem_has_lattice(&pb);
    int graph = stencil_table[s->stencil].graph;
    if (!uns && !twin && !lat) {
        if (graph && (stencil_table[s->stencil].radius < 1 || stencil_table[s->stencil].radius > 2))
            perr("run: --grid regular: %s has radius(%d); lattice twins are made for radius 1 and "
                 "2 (the inner cells of a lattice are known for those)",
                 stencil_table[s->stencil].name, stencil_table[s->stencil].radius);
        else if (graph)
            perr("run: --grid regular: %s has a regular twin on bounded hexagon and triangle meshes "
                 "made by pillar mesh generate only; %s is not one", stencil_table[s->stencil].name,
                 o.mesh);
        else
            perr("run: --grid regular: the mesh %s is not a regular patch (no /patch_xy)", o.mesh);
        problem_free(&pb);
        return 2;
    }
    if (o.input && field_read_inputs(&pb, o.input) != 0) {
        problem_free(&pb);
        return 1;
    }

    /* the reference: the regular grid, or for a mesh without one the CPU unstructured executor */
    fieldset ref = {{0}};
    if (!o.no_verify) {
        progress_phase("verify");
        ref = runner_outputs(&pb, !twin);
        if (twin)
            cpu_run_regular(&pb, ref);
        else
            cpu_run_unstructured(&pb, ref);
    }
    fieldset out = runner_outputs(&pb, uns);
    timing t;
    progress_phase("run");
    if (runner_execute(&pb, &o, backend, uns, out, &t) != 0) {
        runner_free_outputs(&pb, &out);
        runner_free_outputs(&pb, &ref);
        problem_free(&pb);
        return 1;
    }
    int exact = backend == BACKEND_CPU, ok = 1;
    char line[256] = "";
    if (!o.no_verify) {
        verify_result vr = twin  ? verify_compare(&pb, out, uns, ref, 0)
                           : lat ? verify_compare(&pb, out, uns, ref, 1) /* the lattice or mesh */
                                 : verify_compare_cells(&pb, out, ref);
        ok = verify_ok(&pb, &vr, exact);
        verify_describe(&pb, &vr, exact, line, sizeof line);
    }

    if (o.mesh)
        report_printf("%s %s on mesh %s: %d cells (%d halo, %d inner) x %d levels, ",
                      stencil_table[s->stencil].name, prec_name(s->prec), o.mesh, pb.ug.nxy,
                      pb.ug.nhalo, pb.ug.nxy - pb.ug.nhalo, s->nz);
    else
        report_printf("%s %s on %dx%dx%d (%dx%d inner cells), ", stencil_table[s->stencil].name,
                      prec_name(s->prec), s->nx, s->ny, s->nz, s->nx - 2 * s->halo,
                      s->ny - 2 * s->halo);
    if (uns && o.mesh)
        report_printf("%s order", mesh_order_name[pb.mesh_order]);
    if (uns && pb.mesh_parts)
        report_printf(" (%d parts)", pb.mesh_parts);
    if (uns && !o.mesh)
        report_printf("unstructured %s", layout_name[s->layout]);
    if (uns && graph)
        report_printf(", %s %s offset table (up to %d neighbours per cell)",
                      s->chasing ? "chasing" : "nonchasing",
                      s->compressed ? "compressed" : "uncompressed", pb.gt.maxdeg);
    else if (!uns && lat)
        report_printf("its lattice addressed by arithmetic (regular twin)");
    else if (uns)
        report_printf(", %s %s", s->chasing ? "chasing" : "nonchasing",
                      s->compressed ? "compressed" : "uncompressed");
    else if (!lat)
        report_printf("regular grid");
    report_printf("\n  backend   %s", t.backend);
    if (backend == BACKEND_GPU)
        report_printf(", access %s, threads %dx%dx%d", access_name[o.access], t.bx, t.by, t.bz);
    if (plan_line[0])
        report_printf("\n  tuned     %s", plan_line);
    double bytes = problem_min_bytes(&pb);
    report_printf("\n  time      median %.3f ms of %d runs (min %.3f, max %.3f)\n", t.median_ms,
                  t.runs, t.min_ms, t.max_ms);
    report_printf("  moved     %.1f MB at least (%d fields x %zu B per point) = %.1f GB/s\n",
                  bytes / 1e6, pb.nf, prec_size(s->prec), bytes / (t.median_ms * 1e6));
    const char *against = twin ? (exact ? "regular grid" : "CPU reference (regular grid)")
                               : "CPU unstructured executor (same cells)";
    if (o.no_verify)
        report_printf("  verify    skipped (--verify off)\n");
    else
        report_printf("  verify    %s against the %s: %s\n", ok ? "PASS" : "FAIL", against, line);
    report_number("cells", pb.ug.nxy);
    report_number("levels", s->nz);
    report_number("median_ms", t.median_ms);
    report_number("min_ms", t.min_ms);
    report_number("max_ms", t.max_ms);
    report_number("runs", t.runs);
    report_number("gb_per_s", bytes / (t.median_ms * 1e6));
    if (!o.no_verify)
        report_bool("verified", ok);
    if (o.input)
        report_printf("  input     %s\n", o.input);
    if (o.output && run_write_output(&pb, &o, out, uns, 0, ok, NULL, argc, argv) != 0)
        ok = 0;

    runner_free_outputs(&pb, &out);
    runner_free_outputs(&pb, &ref);
    problem_free(&pb);
    return ok ? 0 : 1;
}
