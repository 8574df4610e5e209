/* cmd_run.c — `pillar run`: its help and flags; the run is pillar_tool_run's. */
#include "commands.h"

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

int cmd_run(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse(&a, CMD_RUN, run_help, argc, argv);
    if (rc != 0)
        return CLI_EXIT(rc);
    if (a.check_reads && !a.stencil_file) {
        pillar_perr("run: --check-reads checks a stencil file: give --stencil-file FILE");
        return 2;
    }
    if (a.json && a.o.plan_only) {
        pillar_perr("run: --json does not go with --plan-only (its tables have no JSON form)");
        return 2;
    }
    pillar_report_begin("run", a.json, 2, stdout);
    meter_start(a.progress);
    pillar_run_extra x = {a.stencil_file, a.check_reads, argc, argv, &a.m};
    rc = pillar_tool_run(&a.o, &x);
    meter_stop();
    pillar_report_end(rc == 0);
    return rc;
}
