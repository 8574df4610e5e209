/* route.h — the one decision tree of an iterated run: which engine path runs T steps of a
 * stencil on a grid. The library's session (session.c) and the `pillar run --steps` tool
 * (src/tools/run_iterated.c) both ask engine_route and run what it names; they differ only in
 * what they measure and print around it.
 *
 *   over MPI ranks                                   ROUTE_RANKS       src/dist/dist_mpi.h
 *   CPU, in core, one step per sweep                 ROUTE_CPU         src/exec/iterate.h
 *   CPU, out of core or K steps per sweep            ROUTE_CPU_CHUNKS  src/plan/ooc_cpu.h
 *   GPU, persistent on (or auto and the model's pick)
 *        in core: one cooperative launch             ROUTE_PERSISTENT  src/plan/persist_gpu.h
 *   GPU, the grid fits the device budget             ROUTE_IN_CORE     resident.h / ooc_gpu.h
 *   GPU, larger than the budget (or out of core on)  ROUTE_STREAMED    src/plan/ooc_gpu.h
 *        (persistent on: each chunk in one cooperative launch)
 */
#ifndef PILLAR_ROUTE_H
#define PILLAR_ROUTE_H

#include "src/exec/run_options.h"

typedef enum {
    ROUTE_RANKS,
    ROUTE_CPU,
    ROUTE_CPU_CHUNKS,
    ROUTE_PERSISTENT,
    ROUTE_IN_CORE,
    ROUTE_STREAMED
} route_t;

typedef struct {
    int ranks;           /* a run over MPI ranks */
    int gpu;             /* the GPU backend */
    ooc_mode ooc;        /* out of core: auto, on, off */
    persist_mode persistent;
    int persist_picks;   /* persistent auto: the model predicts a gain (run_iterated.c) */
    int kernel_steps;    /* steps per launch or sweep (0, 1: one) */
    double need;         /* device bytes of the whole grid in core (engine_whole_bytes) */
    size_t budget;       /* device bytes the run may take (0: unbounded, the CPU) */
} route_in;

/* The path of the run; *ooc (when not NULL) whether it runs out of core (in chunks under the
 * budget). The callers have refused what cannot run at all (out of core off on a grid over the
 * budget, persistent on the CPU). */
route_t engine_route(const route_in *in, int *ooc);

/* Its name, for reports ("in core", "streamed", ...). */
const char *engine_route_name(route_t r);

#endif
