/* persist_gpu.h — in-core iterated runs as one persistent launch (docs/persistent.md): the
 * fields and the neighbour table go to the device once, one cooperative launch of a persistent
 * kernel (access/persistent.cu) runs every step with a grid barrier between two, and the state
 * comes back. CUDA backend only. */
#ifndef PILLAR_PERSIST_GPU_H
#define PILLAR_PERSIST_GPU_H

#include "persist_plan.h"
#include "src/exec/problem.h"

typedef struct {
    int threads; /* per block; 0: PERSIST_THREADS */
    int blocks;  /* 0: as many as can be resident (persist_shape_make); else exactly these */
} persist_request;

typedef struct {
    persist_shape shape;
    int sms;          /* SMs of the device */
    double kernel_s;  /* the launch, timed with events */
    double total_s;   /* fields and table in, the launch, the state back */
} persist_timing;

/* Advances the state of f (host fields of pb's unstructured grid, inputs first; the output
 * fields are not used) by `steps` >= 1 steps of pb's stencil in one cooperative launch, on the
 * current device. Returns 0 with t filled, or -1 with a message, nothing changed: a stencil
 * without persistent kernels, a device without cooperative launches, a shape that cannot be
 * resident (persist_shape_make). A failed CUDA call raises FAULT_DEVICE. */
int persist_gpu_run(const problem *pb, fieldset f, int steps, const persist_request *r,
                    persist_timing *t);

#endif
