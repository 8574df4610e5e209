/* persist_onchip.h — iterated laplap, hdiff and lap as one persistent launch that keeps the state on chip
 * (issue 35; access/persist_onchip.h, src/plan/persist_parts.h): the parts built on the host,
 * the fields, parts and export buffers to the device once, one cooperative launch, the state
 * back. CUDA backend only. `--persistent on` takes it (src/plan/persist_run.c), auto where the
 * models predict a gain (onchip_predict_run); tests/test_persist_onchip.c runs it against the
 * CPU iteration. */
#ifndef PILLAR_PERSIST_ONCHIP_HOST_H
#define PILLAR_PERSIST_ONCHIP_HOST_H

#include "src/exec/problem.h"

typedef struct {
    int blocks;  /* 0: one a SM (one a cell where the grid has fewer inner cells) */
    int threads; /* per block; 0: ONCHIP_MAX_THREADS (1024) */
    int levels;  /* cached levels; -1: as many as fit the shared memory (at most the grid's) */
    int prefetch; /* 1: load the next level while one computes, where the slots allow
                   * (access/persist_onchip.h); 0: not */
    int parts;    /* which cells a block owns: ONCHIP_PARTS_AUTO (METIS's parts where their rings
                   * hold under 3/4 of the cells the runs' do), _RUNS (runs of the storage
                   * order) or _METIS (src/plan/persist_parts.h) */
    int rows;     /* rows of pass 1 a thread computes at once: 2 asks for the kernel that issues
                   * two rows' loads together (an experiment; with prefetch, up to 1024 threads);
                   * else 1 */
    int walk;     /* laplap's walk over a flat chart (src/plan/onchip_walk.h) instead of the parts:
                   * ONCHIP_WALK_AUTO where the grid's inner cells form one flat chart, else the
                   * parts; ONCHIP_WALK_ON: the walk or a refusal; ONCHIP_WALK_OFF: the parts
                   * (the walk takes blocks and levels as asked, its own threads) */
} onchip_request;

enum { ONCHIP_PARTS_AUTO, ONCHIP_PARTS_RUNS, ONCHIP_PARTS_METIS };
enum { ONCHIP_WALK_OFF, ONCHIP_WALK_ON, ONCHIP_WALK_AUTO };

typedef struct {
    int blocks, threads, levels; /* what ran */
    int prefetch;                /* values a thread loaded ahead (0: none) */
    int metis;                   /* 1: the blocks owned METIS's parts; 0: runs of the order */
    int rows;                    /* rows of pass 1 a thread computed at once */
    int walk;                    /* 1: laplap walked over the grid's flat chart (metis 0,
                                  * rows 1; kernel_s the copies to and from the chart's order
                                  * and the launch) */
    double predicted_s;          /* the model's step (src/plan/onchip_model.h, the H100's
                                  * figures and the design's assumptions) */
    size_t smem;                 /* shared memory a block */
    double kernel_s;             /* the launch, timed with events */
    double total_s;              /* tables and fields in, the launch, the state back */
} onchip_timing;

/* Advances the state of f (host fields of pb's grid, inputs first; laplap, hdiff or lap) by
 * `steps` >= 1 steps in one
 * cooperative launch on the current device. Returns 0 with t filled, or -1 with a message,
 * nothing changed: another stencil, steps < 1, a device without cooperative launches, parts the
 * 16-bit slots cannot number, an own entry (laplap, hdiff: or ring-1 entry) without its four neighbours
 * (a boundary the body cannot read), levels or blocks that do not fit; with r->walk, another
 * stencil than laplap or a grid that is not one flat chart (the message says where). A failed
 * CUDA call raises FAULT_DEVICE. With r->walk, t's metis and predicted_s are 0 and its rows 1. */
int persist_onchip_run(const problem *pb, fieldset f, int steps, const onchip_request *r,
                       onchip_timing *t);

/* What the models predict of pb's on-chip run with request r on the current device, before
 * anything is put on it: the blocks, parts, shared memory and cached levels onchip_open would
 * take, the on-chip step (onchip_predict) and the host loop's (onchip_host_step) for
 * --persistent auto (src/plan/onchip_model.h). 0 with f filled, or -1 with onchip_open's
 * refusal as the message. */
typedef struct {
    double onchip_s, host_s;          /* predicted seconds a step: on chip, the host loop */
    int blocks, threads, levels, metis; /* the launch (metis: the blocks own METIS's parts) */
    int walk;                         /* 1: the walk over the grid's flat chart (its model,
                                       * onchip_walk_step) */
} onchip_forecast;
int onchip_predict_run(const problem *pb, const onchip_request *r, onchip_forecast *f);

/* The seconds a step of the on-chip launch of pb's input state takes on the current device,
 * timed and left behind: after a launch of 2 steps that warms up, launches of 2 and 2 + k steps
 * (k >= 1) on device copies, the step their difference over k (the tables, the uploads and a launch's prologue and epilogue excluded).
 * pb's fields are not changed. Returns 0, or -1 with a message (refused as persist_onchip_run). */
int onchip_time_step(const problem *pb, const onchip_request *r, int k, double *step_s);

/* The same in three parts, for fields that stay on the device between runs (the library's
 * resident fields, src/engine/session.c): onchip_open builds the parts and puts the launch's
 * tables and export buffers on the device, refusing as persist_onchip_run does (NULL after a
 * message); onchip_steps advances the state held in the device array `state` (the grid's layout;
 * `other` its twin, holding the same values wherever no step writes: the halo cells, the levels
 * no step computes; coeff: hdiff's coefficients on the device, else NULL) by `steps` >= 1 steps in
 * one cooperative launch and waits: the new state is in `other` after an odd number of steps,
 * else in `state`; 0 with t filled (its total_s 0), or -1 after a message (the launch refused:
 * nothing changed). onchip_close frees the device tables. */
typedef struct onchip_run onchip_run;
onchip_run *onchip_open(const problem *pb, const onchip_request *r);
int onchip_steps(onchip_run *h, void *state, void *other, const void *coeff, int steps,
                 onchip_timing *t);
void onchip_close(onchip_run *h);

#endif
