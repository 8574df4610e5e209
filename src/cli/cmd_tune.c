/* cmd_tune.c — `pillar tune`: its help and flags; the search is pillar_tool_tune's, the listing
 * pillar_tool_tune_show's. */
#include "commands.h"

#include <stdio.h>

static const help_part tune_help[] = {
    {"usage: pillar tune [--mesh FILE | --size NXxNYxNZ] [--stencil S | --stencil-file FILE]\n"
     "                   [--precision P] [--budget SECONDS] [--out PATH]\n"
     "       pillar tune --show\n"
     "\n"
     "Finds the fastest configuration of one problem on this GPU and remembers it as a plan, so\n"
     "that every later run of the same problem takes it by default (docs/tune.md).\n"
     "\n"
     "It measures the candidates: cell orders (file, metis, zcurve for a mesh file; rowmajor,\n"
     "zcurve, zcurve-w for a grid of --size) x storages (chasing or not, compressed or not) x\n"
     "access strategies x block shapes and level slices. Candidates without kernels for the\n"
     "stencil, shapes the strategy refuses, and variants that cannot win (naive, the random order,\n"
     "other shapes of a strategy whose first shape ran 1.5x slower than the best) are pruned; the\n"
     "most promising run first, pillar's built-in defaults first of all (the baseline). No\n"
     "candidate starts once the search would pass --budget. Progress is shown on stderr as it\n"
     "measures.\n"
     "\n"
     "The fastest is run once more and verified bit for bit against the CPU reference in the same\n"
     "order; then the plan is stored in the plan cache ($PILLAR_CACHE_DIR/plans, else\n"
     "$XDG_CACHE_HOME/pillar/plans, else ~/.cache/pillar/plans) under the problem's key: the\n"
     "mesh file's content hash (or the grid size), the stencil (or the stencil file's hash), the\n"
     "precision, the levels, the device and the pillar version. A plan is a small JSON file a\n"
     "person can read. 'pillar run' with the same problem then takes the plan's order, storage,\n"
     "strategy and shape for whatever its flags leave free ('pillar run --plan off': the untuned\n"
     "defaults). A plan of another pillar version or device is ignored, with a one-line note.\n"
     "\n"
     "Needs a CUDA device; without one it says so and exits 1. --show works anywhere.\n"
     "\n", 0},
    {NULL, HELP_MAIN | HELP_ALWAYS},
    {"\n"
     "example: pillar tune --size 512x512x64 --stencil laplap\n"
     "         pillar mesh generate hex.h5 --kind hexagons --size 1024x1024 --levels 64\n"
     "         pillar tune --mesh hex.h5 --stencil graphlap --budget 40\n"
     "         pillar run --mesh hex.h5 --stencil graphlap      # takes the plan\n"
     "         pillar tune --show\n", 0},
    {NULL, 0}};

int cmd_tune(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse(&a, CMD_TUNE, tune_help, argc, argv);
    if (rc != 0)
        return CLI_EXIT(rc);
    if (a.show) {
        if (argc != 1) {
            pillar_perr("tune: --show lists the plan cache and takes no other flag");
            return 2;
        }
        pillar_report_begin("tune", 0, 2, stdout);
        rc = pillar_tool_tune_show();
        pillar_report_end(rc == 0);
        return rc;
    }
    if (a.plan_out && !*a.plan_out) {
        pillar_perr("tune: --out '': the path is empty; name the file to write");
        return 2;
    }
    pillar_report_begin("tune", 0, 2, stdout);
    meter_start(1);
    pillar_tune_settings t = {a.o, a.budget, a.plan_out, a.top};
    pillar_run_extra x = {a.stencil_file, 0, argc, argv, &a.m};
    rc = pillar_tool_tune(&t, &x);
    meter_stop();
    pillar_report_end(rc == 0);
    return rc;
}
