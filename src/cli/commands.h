/* commands.h — pillar's subcommands. Each returns the process exit status. */
#ifndef PILLAR_COMMANDS_H
#define PILLAR_COMMANDS_H

#include "options.h"
#include "meter.h"
#include "report.h"
#include "src/exec/field_io.h"
#include "src/ooc/persist_gpu.h"

int cmd_run(int argc, char **argv);
/* `pillar run` with --steps or --out-of-core on: iterated runs (cmd_iterate.c); argv is run's
 * command line, recorded in an --output file. */
int run_iterated(options *o, int argc, char **argv);
/* The first flag of o that iterated runs do not take ("--aos", ...), or NULL. */
const char *iterated_refuses(const options *o);
/* Whether the CPU recomputes the whole of an iterated run on pb to verify it: its fields (and a
 * copy of the inputs) fit FULL_CHECK_BYTES of host memory (cmd_iterate.c). */
int iterated_full_check(const problem *pb);
/* `pillar run` started by mpirun with several ranks, or with --ranks or --plan-only: a run
 * distributed over MPI ranks, or the model of one (cmd_dist.c). */
int run_distributed(options *o, int argc, char **argv);
/* --output of a run whose verification passed (ok; else nothing is written, -1): the output
 * fields of out (on the unstructured grid when uns), with --output-inputs the inputs too; for
 * an iterated run of `steps` > 0 steps the state after them (pb's input fields), or with snaps
 * (--output-every) the states of snaps along a time axis. Returns 0 or -1 after a message. */
int run_write_output(const problem *pb, const options *o, fieldset out, int uns, int steps, int ok,
                     const field_snapshots *snaps, int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_default(int argc, char **argv);
int cmd_bench(int argc, char **argv);
/* `pillar bench --iterated` (cmd_bench_iterated.c), b as cmd_bench parsed it: completes its
 * defaults, refuses the flags it does not take (2), times and verifies (1 when a variant failed
 * verification or a file could not be written), else 0. */
int bench_iterated(bench_opts *b);
/* Whether `--persistent auto` runs an in-core iterated run of pb on the backend as one persistent
 * launch (cmd_iterate.c; bench --iterated reports it): on the GPU in core, where the model of
 * docs/persistent.md predicts at least PERSIST_AUTO_GAIN over the host loop and the model is
 * trusted (PERSIST_AUTO_TRUSTED: not yet, so never). request: NULL for
 * the model's shape and levels; the model's line (or why not) into
 * pred (n bytes) when pred is not NULL. */
int persistent_auto_picks(const problem *pb, int backend, int ooc, const persist_request *request,
                          char *pred, size_t n);
int cmd_mesh(int argc, char **argv);

#endif
