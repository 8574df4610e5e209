/* run_plan.h — the plan of an iterated run, made once for every front door: the library's
 * session (resident or streamed), `pillar run --steps` and `pillar bench --iterated` all ask
 * engine_plan, which makes the whole grid one part (in core) or chunks under a device budget
 * (out of core: F given, or chosen by the model from the link's rates), then adds what the run's
 * kernels read besides the fields: the K-step balls, a strategy's own lists (graph-twopass), the
 * stencil's coefficients. */
#ifndef PILLAR_RUN_PLAN_H
#define PILLAR_RUN_PLAN_H

#include "src/exec/problem.h"
#include "access/access.h"
#include "src/plan/ooc_plan.h"

typedef struct {
    int gpu;            /* the GPU backend (else the CPU's chunked loops) */
    int ooc;            /* out of core: chunks under `budget`; else the whole grid, one part */
    int persistent;     /* out of core on the GPU: each chunk's steps in one cooperative launch */
    access_t access;    /* the GPU strategy */
    int bx;             /* threads per block asked for (0: the strategy's default) */
    int fuse;           /* steps per transfer (0: in core all `steps`; out of core the model's) */
    int kernel_steps;   /* steps per launch (0 or 1: one) */
    int share;          /* consecutive chunks share their overlap on the device */
    int steps;          /* the run's steps */
    size_t budget;      /* device bytes the chunks may take */
    const ooc_rates *rates; /* the link's and device's rates for the model (NULL: F = K) */
} plan_request;

/* The plan of rq's run of pb, with every part's lists and coefficients. Returns 0, or -1 after
 * a message naming what does not fit. */
int engine_plan(ooc_plan *pl, const problem *pb, const plan_request *rq);

/* Device bytes of the whole grid as one part: every field and the table (and a stencil's
 * coefficients). */
double engine_whole_bytes(const problem *pb);

#endif
