/* tools.h — what the files of the tools layer share: the jobs behind include/pillar_tools.h
 * (run, iterated and distributed runs, bench, mesh, info) over the engine. Each job reports
 * through report.h and returns an exit status (0, 1, 2: include/pillar_tools.h). */
#ifndef PILLAR_TOOLS_INTERNAL_H
#define PILLAR_TOOLS_INTERNAL_H

#include "include/pillar_tools.h"
#include "report.h"
#include "src/exec/field_io.h"
#include "src/exec/run_options.h"
#include "src/plan/ooc_gpu.h"
#include "src/plan/persist_gpu.h"

/* The settings as the engine reads them (the same struct). */
typedef pillar_bench_settings bench_opts;
typedef pillar_mesh_settings mesh_args;

/* `pillar run` with --steps or --out-of-core on: iterated runs (run_iterated.c); argc/argv: the
 * command line, recorded in an --output file. */
int run_iterated(options *o, int argc, char **argv);
/* The first setting of o that iterated runs do not take ("--aos", ...), or NULL. */
const char *iterated_refuses(const options *o);
/* Whether the CPU recomputes the whole of an iterated run on pb to verify it: its fields (and a
 * copy of the inputs) fit FULL_CHECK_BYTES of host memory (run_iterated.c). */
int iterated_full_check(const problem *pb);
/* A run distributed over MPI ranks, or the model of one (run_dist.c). */
int run_distributed(options *o, int argc, char **argv);
/* --output of a run whose verification passed (ok; else nothing is written, -1): the output
 * fields of out (on the unstructured grid when uns), with --output-inputs the inputs too; for
 * an iterated run of `steps` > 0 steps the state after them (pb's input fields), or with snaps
 * (--output-every) the states of snaps along a time axis. Returns 0 or -1 after a message. */
int run_write_output(const problem *pb, const options *o, fieldset out, int uns, int steps, int ok,
                     const field_snapshots *snaps, int argc, char **argv);
/* `pillar bench --iterated` (bench_iterated.c): completes its defaults, refuses the settings it
 * does not take (2), times and verifies (1 when a variant failed verification or a file could
 * not be written), else 0. */
int bench_iterated(bench_opts *b);
/* Whether `--persistent auto` runs an in-core iterated run of pb on the backend as one persistent
 * launch (run_iterated.c; bench --iterated reports it): on the GPU in core; laplap, hdiff and
 * lap on chip where the on-chip launch is predicted at least ONCHIP_AUTO_GAIN faster than the
 * host loop (src/plan/onchip_model.h), the other stencils' lean launch where docs/persistent.md's
 * model predicts PERSIST_AUTO_GAIN and is trusted (PERSIST_AUTO_TRUSTED: not yet, so never).
 * Where the on-chip model says on and host (the host loop's kernel) is given, both launches are
 * timed on this device first (ONCHIP_TRIAL_STEPS steps each on copies of the state), and on chip
 * runs only from ONCHIP_TRIAL_GAIN: the model's constants are the H100's.
 * request: NULL for the model's shape and levels; the models' line (or why not) into pred
 * (n bytes) when pred is not NULL. */
int persistent_auto_picks(const problem *pb, int backend, int ooc, const persist_request *request,
                          const ooc_kernel *host, char *pred, size_t n);
/* The backend of a run (runner_pick_backend), with the one-line notice on stderr when auto falls
 * back to the CPU. BACKEND_CPU, BACKEND_GPU, or -1 after a message. */
int tools_backend(const options *o);

/* This process's peak resident memory so far, in KB (getrusage ru_maxrss; 0 where unknown). */
long tools_peak_rss_kb(void);
/* The memory line of a run's report: the peak resident memory of each of n processes (kb[r],
 * rank r's; a plain run: n = 1), "memory    peak resident: largest N MB (rank r); ranks a, b, ...
 * MB", and in JSON the values peak_rss_kb (an array, rank by rank) and peak_rss_max_kb. */
void tools_report_memory(const long *kb, int n);

/* Loads stencil file `path` (checked mode: check_reads) into the registry as *s, with a line in
 * the report saying whether it was compiled or found in the cache and how long that took. 0, or
 * -1 after a message. */
int tools_stencil_file(const char *path, int check_reads, stencil_t *s);

/* Loads the stencil file of x (when given: run and tune) and makes it o's stencil, with a line in
 * the report saying whether it was compiled or found in the cache and how long that took. 0, or
 * -1 after a message. */
int tools_run_stencil(options *o, const pillar_run_extra *x);
/* How the mesh files of run and tune are read from now on: x's --format, --levels, --merge-nodes
 * (mesh_read_options), when x->grid is set. */
void tools_grid_options(const pillar_run_extra *x);

/* The content id ("sha256:<hex>") of the stencil file stencil s was loaded from by
 * tools_stencil_file, or NULL for a built-in stencil: what plans key a stencil file on. */
const char *tools_stencil_id(stencil_t s);

/* The plan of a run (plan_run.c, docs/tune.md): o's problem as made in pb (its cells and levels),
 * keyed on its mesh (file content or grid size), stencil, precision, levels and the backend's
 * device, looked up from o->plan and applied to o where no flag set the field (plan_use.h;
 * iterated: strategies with iterated kernels only). A stale or bad plan's note goes through perr
 * (the same words in every command) unless quiet (the ranks of a distributed run but 0); a plan
 * found is described in line (n bytes; "" when none: the caller puts it in its report as
 * "tuned"). Returns PLAN_SET_LAYOUT when o's cell order or storage changed (the caller makes its
 * problem again), else 0. An unusable plan never fails a run: the defaults run. */
unsigned tools_plan(options *o, const problem *pb, int backend, int iterated, int quiet,
                    char *line, size_t n);

/* The content id of o's mesh file that its plan is keyed on (plan_content_id: the file read
 * through once), into id (n >= 80 bytes); "" when the run takes no plan from the cache (--plan
 * off, no mesh file) or the file cannot be hashed (the defaults then run). */
void tools_plan_mesh_id(const options *o, char *id, size_t n);

/* The same as tools_plan for an iterated run on o's mesh file that no process holds whole (a
 * part-only distributed run): mesh_id its content id (tools_plan_mesh_id, made once by one rank;
 * NULL or "": the file is hashed here), nz levels, ncells cells per level, has_coords whether
 * they have centres; the cells stay in the file's order whatever the plan says (line says so),
 * the storage and the kernel are the plan's. Returns as tools_plan (never PLAN_SET_LAYOUT for the
 * order). */
unsigned tools_plan_file_order(options *o, const char *mesh_id, int nz, long ncells,
                               int has_coords, int backend, int quiet, char *line, size_t n);

/* Runs job(arg) under the fault guard (base/common.h): host memory exhausted or a failed CUDA
 * call ends it with its message and status 1. */
int tools_guarded(int (*job)(void *arg), void *arg);

#endif
