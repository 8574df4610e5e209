/* onchip_walk.h — iterated laplap on chip over an unstructured grid whose inner cells form one
 * flat chart (src/plan/onchip_chart.h; issue 35): the state copied into the chart's order, a
 * regular grid's layout, the regular twin's walk (access/onchip_walk.cu) run there, the inner
 * cells copied back. On a flat chart the grid's relations are the lattice's, so the result is the
 * grid's CPU iteration bit for bit (tests/test_persist_onchip.c). The copies take one read and
 * one write of the state each way a launch; the walk keeps most levels in shared memory and its
 * values in registers, where the parts' kernel (persist_onchip.h) stages every level through
 * slot buffers. src/plan/persist_onchip.c opens it for onchip_request.walk. CUDA backend only. */
#ifndef PILLAR_ONCHIP_WALK_HOST_H
#define PILLAR_ONCHIP_WALK_HOST_H

#include "regular_runs.h"

#include "src/exec/problem.h"

typedef struct onchip_walk onchip_walk;

/* The walk of pb's grid (laplap only), `levels` cached (-1: as many as fit) over at most
 * `blocks` tiles (0: one a SM): the chart built and the launch laid out on the host, nothing on
 * the device yet. NULL after a message: another stencil, a grid that is not one flat chart (the
 * message says where), a launch that does not fit (regular_onchip_open's refusals), or the
 * state's two copies in the chart's order (with the export buffers) over 95% of the device's
 * free memory: auto then takes the parts (src/plan/persist_onchip.c). */
onchip_walk *onchip_walk_open(const problem *pb, int levels, int blocks);

/* Advances the device array `state` (pb's grid layout; `other` its twin, equal to it wherever no
 * step writes) by `steps` >= 1 steps in one cooperative launch between the two copies, and waits:
 * the new state is in `other` after an odd number of steps, else in `state`. The first call puts
 * the chart and its two arrays on the device. 0 with t filled (its kernel_s the copies and the
 * launch, timed with events), or -1 after a message. */
int onchip_walk_steps(onchip_walk *w, void *state, void *other, int steps, regular_timing *t);

/* What the walk's launch is, before it runs: its blocks, threads and cached levels. */
void onchip_walk_shape(const onchip_walk *w, int *blocks, int *threads, int *levels);

void onchip_walk_close(onchip_walk *w);

#endif
