/* gpu.h — the CUDA backend (src/gpu_runner.cu), present when pillar is built with CUDA. */
#ifndef PILLAR_GPU_H
#define PILLAR_GPU_H

#include "runner.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if a CUDA device is usable (its name in msg), else 0 and the reason in msg. */
int gpu_probe(char *msg, size_t n);

/* Copies pb's inputs to the device, runs the configured strategy o->runs times after a warm-up
 * (outputs poisoned on the device before each run), times each with CUDA events and copies the
 * outputs back into `out`. Returns 0, or -1 with a message. */
int gpu_execute(const problem *pb, const options *o, int uns, fieldset out, timing *t);

#ifdef __cplusplus
}
#endif
#endif
