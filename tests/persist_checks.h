/* persist_checks.h — what the GPU tests of the persistent kernels share (test_persistent.c,
 * test_persistent_graph.c): a refused run, and a compiled kernel held to the lean budget. */
#ifndef PILLAR_PERSIST_CHECKS_H
#define PILLAR_PERSIST_CHECKS_H

#include "check.h"
#include "src/exec/iterate.h"
#include "src/plan/persist_gpu.h"

#include <cuda_runtime_api.h>
#include <string.h>

/* A run of 2 steps with request r must be refused with a message naming `needle`, the state
 * left as it was. */
static void expect_refused(const problem *pb, persist_request r, const char *needle,
                           const char *what)
{
    fieldset st = iter_fields_copy(pb), before = iter_fields_copy(pb);
    persist_timing t;
    char msg[400] = "";
    perr_capture(msg, sizeof msg);
    int rc = persist_gpu_run(pb, st, 2, &r, &t);
    perr_capture(NULL, 0);
    CHECK(rc == -1 && strstr(msg, needle), "%s (%d blocks x %d threads, %d levels, lists %d): "
          "rc %d, message '%s' (expected '%s')", what, r.blocks, r.threads, r.levels, r.lists, rc,
          msg, needle);
    CHECK(iter_state_differ(pb, st, before, NULL) == 0, "%s: a refused run changed the state",
          what);
    iter_fields_free(pb, &st);
    iter_fields_free(pb, &before);
}

/* Kernel fn (of stencil st in precision prec, its variant named `kind` number v) as compiled is
 * lean: at most 64 registers a thread, no local memory (no spills), and an SM holds 4 of its
 * blocks of 256 threads and 8 of 128 (without shared memory). Returns 1, or 0 where fn is NULL
 * (no kernel to check). */
static int expect_lean(const void *fn, int st, int prec, const char *kind, int v)
{
    if (!fn)
        return 0;
    char what[80];
    snprintf(what, sizeof what, "%s %s %s %d", stencil_table[st].name, prec ? "float" : "double",
             kind, v);
    struct cudaFuncAttributes fa;
    int b256 = 0, b128 = 0;
    CHECK(cudaFuncGetAttributes(&fa, fn) == cudaSuccess &&
              cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b256, fn, 256, 0) == cudaSuccess &&
              cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b128, fn, 128, 0) == cudaSuccess,
          "%s: attributes", what);
    CHECK(fa.numRegs <= 64 && fa.localSizeBytes == 0 && b256 >= 4 && b128 >= 8,
          "%s: %d registers, %zu bytes of local memory, %d blocks of 256 / %d of 128 an SM", what,
          fa.numRegs, fa.localSizeBytes, b256, b128);
    return 1;
}

#endif
