/* cmd_bench.c — `pillar bench`: its help and flags; the benchmark is pillar_tool_bench's. */
#include "commands.h"

#include <stdio.h>
#include <string.h>

static const help_part bench_help[] = {
    {"usage: pillar bench [flags]\n"
     "\n"
     "Runs the experiment matrix on the GPU: per stencil, precision and size, the regular-grid\n"
     "twins and, per layout and neighbour-table storage, every access strategy x block shape\n"
     "(powers of two, 32 to 512 threads, x >= 32, as thesis §6.5; shared-warp also x = 8, 16).\n"
     "Each configuration: 2 warm-up launches, then the median of --runs CUDA-event timings with\n"
     "outputs poisoned before each. The fastest configuration of each row is verified against the\n"
     "CPU reference. Prints Table 6.2 (storage -> fastest access, runtime, slowdown against the\n"
     "fastest regular run, GB/s and share of the device copy ceiling measured at start) and\n"
     "Table 6.7 (compression statistics); writes every run to CSV and JSON.\n"
     "\n", 0},
    {NULL, HELP_MAIN | HELP_ALWAYS},
    {"\n"
     "example: pillar bench --quick --stencil laplap\n", 0},
    {NULL, 0}};

int cmd_bench(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse(&a, CMD_BENCH, bench_help, argc, argv);
    if (rc != 0)
        return CLI_EXIT(rc);
    if (a.b.iterated && a.stencil_file) {
        pillar_perr("bench: --iterated times the built-in stencils; for a stencil file use "
                    "'pillar run --stencil-file %s --steps T'", a.stencil_file);
        return 2;
    }
    if (!a.b.iterated && (a.b.steps || a.b.nlevels || a.b.backend)) {
        pillar_perr("bench: --steps, --levels and --backend go with --iterated");
        return 2;
    }
    snprintf(a.b.command, sizeof a.b.command, "pillar bench");
    for (int i = 0; i < argc; i++) {
        strncat(a.b.command, " ", sizeof a.b.command - strlen(a.b.command) - 1);
        strncat(a.b.command, argv[i], sizeof a.b.command - strlen(a.b.command) - 1);
    }
    meter_start(1);
    rc = pillar_tool_bench(&a.b, a.stencil_file);
    meter_stop();
    return rc;
}
