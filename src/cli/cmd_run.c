/* cmd_run.c — `pillar run`: one stencil with one layout/storage/access, timed and verified. */
#include "commands.h"
#include "src/dist/dist_mpi.h"
#include "src/exec/cpu_exec.h"
#include "src/exec/field_io.h"
#include "src/exec/runner.h"
#include "src/exec/verify.h"

#include <stdio.h>
#include <string.h>

static const help_part run_help[] = {
    {"usage: pillar run [flags]\n"
     "\n"
     "Runs one stencil on an unstructured grid (or its regular twin), times it and verifies the\n"
     "output: on the CPU backend bit for bit against the regular grid, on the GPU against the CPU\n"
     "reference (max error within 1e-12 double / 1e-5 float, bit-exact where the arithmetic is).\n"
     "\n", 0},
    {NULL, HELP_MAIN},
    {"\n"
     "Iterated runs (docs/out-of-core.md): the output becomes the next input (laplap:\n"
     "in -= laplap(in)/64, hdiff: in = out, fastwaves: u_pos, v_pos = u_out, v_out); verified\n"
     "bit for bit against the CPU in-core iteration (on sampled chunks for grids too large for a\n"
     "CPU reference). --input gives the initial state; --output writes the state after the last\n"
     "step (as the input fields, in the user's cell order), so a run of T1 steps and one of T2\n"
     "steps from its output give the run of T1 + T2 steps bit for bit:\n", 0},
    {NULL, HELP_ITER},
    {"\n", 0},
    {NULL, HELP_ALWAYS},
    {"\n"
     "example: pillar run --stencil hdiff --layout zcurve --storage nonchasing --compress \\\n"
     "                    --size 64x64x16\n"
     "         pillar run --mesh sphere.h5 --stencil laplap --layout metis --backend cpu\n"
     "         pillar run --mesh hex.h5 --stencil graphlap --precision float\n"
     "         pillar run --size 2048x2048x64 --steps 10 --out-of-core on --device-mem 2G\n"
     "         pillar run --size 1024x1024x64 --steps 16 --fuse 8 --kernel-steps 2\n"
     "         pillar run --stencil hdiff --input start.h5 --output result.h5\n"
     "         pillar run --steps 100 --input start.h5 --output state100.h5\n", 0},
    {NULL, 0}};

static int run_one(const cli_args *a, int argc, char **argv);

int cmd_run(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse(&a, CMD_RUN, run_help, argc, argv);
    if (rc != 0)
        return CLI_EXIT(rc);
    mesh_load_opts grid = cli_grid_opts(&a.m); /* --format, --levels: how --mesh FILE is read */
    mesh_read_options(&grid);
    if (a.check_reads && !a.stencil_file) {
        perr("run: --check-reads checks a stencil file: give --stencil-file FILE");
        return 2;
    }
    if (a.json && a.o.plan_only) {
        perr("run: --json does not go with --plan-only (its tables have no JSON form)");
        return 2;
    }
    report_begin("run", a.json, 2);
    meter_start(a.progress);
    rc = cli_stencil_file(&a) != 0 ? 1 : cli_check_reads(&a, run_one(&a, argc, argv));
    meter_stop();
    report_end(rc == 0);
    return rc;
}

static int run_one(const cli_args *a, int argc, char **argv)
{
    options o = a->o;
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
    int backend = cli_backend(&o);
    if (backend < 0)
        return 1;

    problem pb;
    if (problem_make_mesh(&pb, &o.spec, o.mesh, o.mesh_order) != 0)
        return o.mesh ? 1 : 2; /* a mesh file that cannot be used, or flags that do not fit */
    const problem_spec *s = &pb.s;
    int uns = !o.regular, twin = pb.regular_twin, lat = pb.lattice_twin;
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
        meter_phase("verify");
        ref = runner_outputs(&pb, !twin);
        if (twin)
            cpu_run_regular(&pb, ref);
        else
            cpu_run_unstructured(&pb, ref);
    }
    fieldset out = runner_outputs(&pb, uns);
    timing t;
    meter_phase("run");
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
