/* tune.h — the search of `pillar tune`: the candidate configurations of one problem (cell orders
 * x storages x strategies x block shapes x zslice), pruned by the registries and by heuristics,
 * ordered most promising first, measured through a callback within a time budget; the fastest
 * becomes the plan (plan_file.h). The measuring is the caller's: the GPU's with CUDA
 * (tune_gpu_*, below), a deterministic fake in the CPU tests. */
#ifndef PILLAR_TUNE_H
#define PILLAR_TUNE_H

#include "plan_file.h"

/* A strategy's other shapes are measured only when its first shape, in the same order and
 * storage, ran within this factor of the best time so far: block shapes and slices move a
 * strategy's time by less than that. */
#define TUNE_SHAPE_SPREAD 1.5
/* What computing a METIS cell order costs a search that has not entered one yet, seconds per
 * cell (13 s for 1M triangles on a 2-core build machine, about 10 s on the H100's host). */
#define TUNE_METIS_S_PER_CELL 1.3e-5
/* Another cell order's further table storages are probed only where its first probe came
 * within this of the best so far (tune_search). */
#define TUNE_ORDER_SPREAD 1.1
/* Shapes a strategy gets in the search's first round over the groups (tune_search). */
#define TUNE_FIRST_VARIANTS 4

/* The problem as the search sees it. */
typedef struct {
    plan_problem pr;  /* what it is for (emulated or a mesh file: pr.mesh) */
    int stencil;      /* stencil_t, built-in or loaded from a file */
    int has_coords;   /* a mesh file with cell coordinates: the z-curve order exists */
    int iterated;     /* for iterated runs: only strategies that have them (access_desc.iterated) */
    long ncells;      /* cells per level (0: not known), for the built-in plan */
} tune_problem;

/* One candidate: a configuration and the search's prior (lower: tried earlier). */
typedef struct {
    plan_config c;
    double prior;
    int tier;   /* 0: the default configuration; 1: a strategy's first shape in an order and
                 * storage; 2: its other shapes and slices */
    int parent; /* tier 2: the index of its tier-0/1 candidate (same order, storage, strategy) */
} tune_candidate;

/* Every candidate of p after pruning, most promising first, into a new array (*out, xfree;
 * *n of them); *pruned counts the combinations left out (registries and heuristics). The run's
 * built-in plan (plan_config_builtin, src/tune/plan_defaults.h) is always the first: the baseline. 0, or -1 with
 * a message (no candidate at all). */
int tune_candidates(const tune_problem *p, tune_candidate **out, int *n, int *pruned);

/* Measures candidate c: the median time of one application in *ms. 0, or -1 when the candidate
 * cannot run (too much shared memory, a launch refused: the search skips it). */
typedef int (*tune_measure_fn)(const plan_config *c, void *ctx, double *ms);

typedef struct {
    double budget_s;  /* no measurement starts once the elapsed time plus its estimate would
                       * pass it: the mean timing so far within a group, the longest move so
                       * far to another storage or order (a relayout; a METIS order not yet
                       * entered at least TUNE_METIS_S_PER_CELL a cell); the first always
                       * runs; <= 0: none */
    int max_measure;  /* at most this many measurements (0: no limit) */
    /* the clock in seconds (NULL: the monotonic clock); the tests' fake measurer advances its
     * own */
    double (*now)(void *clock_ctx);
    void *clock_ctx;
} tune_opts;

/* One measured candidate. */
typedef struct {
    plan_config c;
    double prior;
    int ok;           /* measured (else the measurer refused it) */
    double ms;
} tune_row;

typedef struct {
    tune_row *rows;   /* measured (or refused) candidates in the order tried (xfree) */
    int nrows;
    int candidates;   /* after pruning */
    int pruned;       /* by the registries and heuristics, and by measurement (slow parents) */
    int best;         /* the fastest row, -1 if none ran */
    int baseline;     /* the default configuration's row (0), -1 if it did not run */
    int out_of_budget;/* candidates left unmeasured when the budget ran out */
    double elapsed_s;
} tune_result;

/* Enumerates p's candidates and measures them through measure(ctx), reporting progress
 * (base/progress.h: "candidates") after each, until they are all measured or pruned, or the
 * budget (o) is spent. Group by group (a group: one cell order and table storage, which costs a
 * relayout to enter): the default first, then in the default's group every strategy's first
 * shape; then one probe in each other group (the best configuration so far in that order and
 * storage), with that group's first shapes where the probe ran within TUNE_SHAPE_SPREAD of the
 * best; then the groups by the best each measured: their first shapes, and the other shapes of
 * each strategy whose first shape ran within TUNE_SHAPE_SPREAD of the best so far, fastest
 * parent first (the others are pruned), at most TUNE_FIRST_VARIANTS a strategy in a first
 * round over the groups and the rest in a second. A move that does not fit the budget is
 * skipped; the search stops when a timing does not. A graph stencil's candidates keep the built-in table
 * storage (its kernels read their lists, not the table). Every candidate ends
 * measured, pruned or left out by the budget (out_of_budget). 0, or -1 with a message when
 * there is no candidate or none could be measured. */
int tune_search(const tune_problem *p, const tune_opts *o, tune_measure_fn measure, void *ctx,
                tune_result *r);

void tune_result_free(tune_result *r);

/* The plan the search found (r->best): p's problem, the best row's configuration and time,
 * the baseline's time, now as when. */
void tune_make_plan(const tune_problem *p, const tune_result *r, plan *out);

#ifdef PILLAR_HAVE_CUDA
#include "src/exec/problem.h"

/* The GPU measurer: times each candidate with the GPU runner (src/exec/gpu.h), rebuilding pb's
 * unstructured grid in the candidate's cell order and storage (problem_relayout) when they
 * change. pb: made by the caller (problem_make for an emulated grid, problem_make_mesh), stays
 * the caller's; runs: timed launches a candidate (their median). */
typedef struct tune_gpu tune_gpu;
tune_gpu *tune_gpu_open(problem *pb, int runs);
int tune_gpu_measure(const plan_config *c, void *ctx, double *ms); /* ctx: a tune_gpu */
/* Runs c once more on the GPU and compares its outputs with the CPU reference in the same cell
 * order, bit for bit (src/exec/verify.h). 0, or -1 with the verdict in msg (n bytes). */
int tune_gpu_verify(tune_gpu *g, const plan_config *c, char *msg, size_t n);
void tune_gpu_close(tune_gpu *g);
#endif

#endif
