/* commands.h — pillar's subcommands. Each returns the process exit status. */
#ifndef PILLAR_COMMANDS_H
#define PILLAR_COMMANDS_H

#include "options.h"

int cmd_run(int argc, char **argv);
/* `pillar run` with --steps or --out-of-core on: iterated runs (cmd_iterate.c). */
int run_iterated(options *o);
int cmd_info(int argc, char **argv);
int cmd_default(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_mesh(int argc, char **argv);

#endif
