/* persist_run.h — the persistent executor of an in-core iterated run on the GPU, one for the CLI
 * and the library: the on-chip kernels (persist_onchip.h) for laplap, hdiff and lap where they
 * can run, else the persistent kernels (persist_gpu.h). The on-chip kernels measured faster than
 * the persistent ones at every size tried on the H100 (512x512 x 16 and x 64, the three stencils:
 * 1.3-2.3x; bench/results/2026-11-27-h100-onchip). CUDA backend only. */
#ifndef PILLAR_PERSIST_RUN_H
#define PILLAR_PERSIST_RUN_H

#include "persist_gpu.h"
#include "persist_onchip.h"

typedef struct {
    int onchip;       /* 1: the on-chip kernels ran (o); 0: the persistent kernels (p) */
    onchip_timing o;
    persist_timing p;
    char why[400];    /* why the on-chip kernels did not run where the stencil has them (their
                       * refusal), else "" */
} persist_run_timing;

/* The on-chip request persist_run makes of r (its threads, blocks and cached levels; METIS's
 * parts where their rings hold under 3/4 of the runs' cells, else runs of the cell order;
 * prefetching, one row a thread), for predictions of the same launch and the library's. */
onchip_request persist_onchip_request(const persist_request *r);

/* Advances the state of f (host fields of pb's grid, inputs first) by `steps` >= 1 steps in one
 * cooperative launch: the on-chip kernels for laplap, hdiff and lap with r's threads, blocks and
 * cached levels (PERSIST_LEVELS_MODEL: as many as fit), falling back to the persistent kernels
 * (persist_gpu_run with r) where they refuse (their reason in t->why). Returns 0 with t filled,
 * or -1 with persist_gpu_run's message. A failed CUDA call raises FAULT_DEVICE. */
int persist_run(const problem *pb, fieldset f, int steps, const persist_request *r,
                persist_run_timing *t);

/* One line on what ran: the executor, its shape, the cached levels (into buf, n bytes). */
void persist_run_describe(const persist_run_timing *t, char *buf, size_t n);

#endif
