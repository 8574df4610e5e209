/* runner.h — runs one configured stencil on a backend (CPU or GPU) and times it. */
#ifndef PILLAR_RUNNER_H
#define PILLAR_RUNNER_H

#include "problem.h"
#include "run_options.h"

typedef struct {
    double median_ms, min_ms, max_ms;
    int runs;
    int bx, by, bz;    /* launch shape used (GPU) */
    char backend[128]; /* "cpu (8 threads)" or the device name */
} timing;

/* Whether a CUDA device can be used; if not, why (one line) in `why`. */
int gpu_available(char *why, size_t n);

/* Resolves --backend auto/cpu/gpu. Returns BACKEND_CPU or BACKEND_GPU, or -1 after a message if
 * gpu was asked for and is absent. When auto fell back to the CPU, fallback (n bytes) says why,
 * else it is empty (the caller decides whether to tell anyone). */
int runner_pick_backend(const options *o, char *fallback, size_t n);

/* New output arrays for the regular (uns = 0) or unstructured grid, inputs shared with pb. */
fieldset runner_outputs(const problem *pb, int uns);
void runner_free_outputs(const problem *pb, fieldset *f);

/* Runs o->runs times (plus a warm-up on the GPU) into `out`, poisoning outputs before each run.
 * Returns 0, or -1 with a message. */
int runner_execute(const problem *pb, const options *o, int backend, int uns, fieldset out, timing *t);

/* CPU wall clock in milliseconds. */
double now_ms(void);
int cmp_double(const void *a, const void *b);

#endif
