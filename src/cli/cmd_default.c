/* cmd_default.c — `pillar` with no subcommand: its help and flags; the job is
 * pillar_tool_default's. */
#include "commands.h"

static const help_part default_help[] = {
    {"usage: pillar [flags]\n"
     "\n"
     "The default job: every W/E/S/N stencil (laplap, hdiff, fastwaves, lap) on the built-in\n"
     "512x512x64 z-curve grid (double, non-chasing compressed neighbour table), each run on the\n"
     "regular grid and on its unstructured twin, verified and summarised in one table. These\n"
     "flags of 'pillar run' change it, e.g. 'pillar --size 128x128x32 --layout zcurve-w'\n"
     "(defaults in brackets are run's; here the grid is 512x512x64, non-chasing, compressed, and\n"
     "--runs is 3 on the CPU, 20 on the GPU):\n"
     "\n", 0},
    {NULL, HELP_MAIN | HELP_ALWAYS},
    {"\n"
     "Other commands ('pillar help' lists them all):\n"
     "  pillar run    one stencil with one layout/storage/access (pillar run --help)\n"
     "  pillar info   grid and neighbour-table statistics       (pillar info --help)\n", 0},
    {NULL, 0}};

int cmd_default(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse(&a, CMD_DEFAULT, default_help, argc, argv);
    if (rc != 0)
        return CLI_EXIT(rc);
    return pillar_tool_default(&a.o);
}
