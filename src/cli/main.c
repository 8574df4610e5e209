/* main.c — the pillar command: dispatch to subcommands. */
#include "commands.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
    "pillar — stencils on unstructured grids with regular vertical levels, on the GPU\n"
    "\n"
    "usage: pillar [command] [flags]\n"
    "\n"
    "commands:\n"
    "  (none)   the default job: every W/E/S/N stencil on a 512x512x64 z-curve grid,\n"
    "           each against the regular baseline, one summary table\n"
    "  run      one stencil with one layout / storage / access strategy, timed and verified\n"
    "  info     grid, neighbour-table and compression statistics\n"
    "  mesh     mesh files (netCDF-4/HDF5): generate, import, info, partition (docs/mesh-format.md)\n"
    "  bench    the experiment matrix on the GPU: tables, CSV, JSON (plots: tools/plot)\n"
    "  tune     find the fastest configuration of one problem on this GPU and store it as the\n"
    "           plan later runs take by default; 'pillar tune --show' lists the plans\n"
    "  help     this text; 'pillar help COMMAND' (or 'help mesh SUBCOMMAND') a command's help\n"
    "\n"
    "'pillar COMMAND --help' explains a command and lists its flags; 'pillar --version' (or\n"
    "'pillar COMMAND --version') prints the version. Every flag that takes a value takes it as\n"
    "'--flag VALUE' or '--flag=VALUE'. Without a CUDA device every command runs on the CPU\n"
    "backend and says so.\n"
    "\n"
    "exit codes: 0 done (and verified), 1 a failed check or a file that could not be read or\n"
    "written (the message names it), 2 a bad command line.\n";

static int dispatch(int argc, char **argv);
static int help_command(int argc, char **argv);

/* Each command's job runs under the engine's fault guard (include/pillar_tools.h): host memory
 * exhausted or a failed CUDA call ends it with its message and exit status 1. */
int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    return dispatch(argc, argv);
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-') {
        if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
            fputs(usage, stdout);
            return 0;
        }
        return cmd_default(argc - 1, argv + 1);
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 2, argv + 2);
    if (!strcmp(cmd, "bench"))
        return cmd_bench(argc - 2, argv + 2);
    if (!strcmp(cmd, "info"))
        return cmd_info(argc - 2, argv + 2);
    if (!strcmp(cmd, "mesh"))
        return cmd_mesh(argc - 2, argv + 2);
    if (!strcmp(cmd, "tune"))
        return cmd_tune(argc - 2, argv + 2);
    if (!strcmp(cmd, "help"))
        return help_command(argc - 2, argv + 2);
    fprintf(stderr, "pillar: unknown command '%s' (commands: run, info, mesh, bench, tune, help; see 'pillar help')\n",
            cmd);
    return 2;
}

/* `pillar help [COMMAND [SUBCOMMAND]]` (argv: what follows "help"): the top-level help, or the
 * command's own, as 'pillar COMMAND [SUBCOMMAND] --help' prints it. An unknown command, or more
 * words than a command has, is a bad command line (2). */
static int help_command(int argc, char **argv)
{
    if (argc == 0 || (argc == 1 && !strcmp(argv[0], "help"))) {
        fputs(usage, stdout);
        return 0;
    }
    static const char *const simple[] = {"run", "info", "bench", "tune"};
    int words = !strcmp(argv[0], "mesh") ? 2 : 1; /* mesh takes a subcommand */
    int known = words == 2;
    for (size_t k = 0; k < sizeof simple / sizeof simple[0]; k++)
        known |= !strcmp(argv[0], simple[k]);
    if (!known || argc > words) {
        fprintf(stderr, "pillar: help: %s '%s' (commands: run, info, mesh [SUBCOMMAND], bench, tune)\n",
                known ? "one command, or 'mesh SUBCOMMAND', not" : "unknown command",
                known ? argv[words] : argv[0]);
        return 2;
    }
    char *args[4] = {"pillar", argv[0], NULL, NULL};
    args[argc + 1] = "--help";
    if (argc == 2)
        args[2] = argv[1];
    return dispatch(argc + 2, args);
}
