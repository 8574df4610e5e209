/* commands.h — pillar's subcommands. Each parses its flags (options.h) and hands the work to a
 * job of include/pillar_tools.h; each returns the process exit status. */
#ifndef PILLAR_COMMANDS_H
#define PILLAR_COMMANDS_H

#include "options.h"
#include "meter.h"

int cmd_run(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_default(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_mesh(int argc, char **argv);
int cmd_tune(int argc, char **argv);

#endif
