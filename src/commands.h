/* commands.h — pillar's subcommands. Each returns the process exit status. */
#ifndef PILLAR_COMMANDS_H
#define PILLAR_COMMANDS_H

int cmd_run(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_default(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_mesh(int argc, char **argv);

#endif
