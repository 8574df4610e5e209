/* tune_gpu.c — the GPU measurer of the search (tune.h, CUDA only): the GPU runner timing each
 * candidate on the problem rebuilt in its cell order and storage, and the winner verified
 * against the CPU reference. */
#include "tune.h"

#include "grids/grid.h"
#include "src/exec/cpu_exec.h"
#include "src/exec/gpu.h"
#include "src/exec/runner.h"
#include "src/exec/verify.h"

#include <stdio.h>
#include <string.h>

struct tune_gpu {
    problem *pb;
    int runs;
    gpu_ctx *ctx; /* the device copy of pb as it is laid out now; NULL: none yet */
};

tune_gpu *tune_gpu_open(problem *pb, int runs)
{
    tune_gpu *g = xalloc(sizeof *g);
    g->pb = pb;
    g->runs = runs > 0 ? runs : 1;
    return g;
}

/* pb laid out in c's cell order and storage, and on the device. 0 or -1 with a message. */
static int lay_out(tune_gpu *g, const plan_config *c)
{
    problem *pb = g->pb;
    int mesh = pb->mesh_path != NULL;
    int order = mesh ? (int)pb->mesh_order : (int)pb->s.layout;
    if (order != c->order || pb->s.chasing != c->chasing || pb->s.compressed != c->compressed) {
        if (g->ctx)
            gpu_close(g->ctx);
        g->ctx = NULL;
        if (mesh)
            pb->mesh_order = (mesh_order_t)c->order;
        if (problem_relayout(pb, mesh ? (layout_t)pb->s.layout : (layout_t)c->order, 32, c->chasing,
                             c->compressed) != 0)
            return -1;
    }
    if (!g->ctx)
        g->ctx = gpu_open(pb, 1, 0);
    return g->ctx ? 0 : -1;
}

int tune_gpu_measure(const plan_config *c, void *ctx, double *ms)
{
    tune_gpu *g = ctx;
    timing t;
    if (lay_out(g, c) != 0 ||
        gpu_time(g->ctx, c->access, c->bx, c->by, c->bz, c->zslice, 0, g->runs, &t) != 0)
        return -1;
    *ms = t.median_ms;
    return 0;
}

int tune_gpu_verify(tune_gpu *g, const plan_config *c, char *msg, size_t n)
{
    timing t;
    if (lay_out(g, c) != 0 || gpu_time(g->ctx, c->access, c->bx, c->by, c->bz, c->zslice, 0, 1, &t) != 0) {
        snprintf(msg, n, "FAIL: the plan's configuration did not run");
        return -1;
    }
    fieldset out = runner_outputs(g->pb, 1), ref = runner_outputs(g->pb, 1);
    gpu_fetch(g->ctx, out);
    cpu_run_unstructured(g->pb, ref);
    verify_result vr = verify_compare_cells(g->pb, out, ref);
    verify_describe(g->pb, &vr, 1, msg, n);
    int ok = verify_ok(g->pb, &vr, 1);
    runner_free_outputs(g->pb, &out);
    runner_free_outputs(g->pb, &ref);
    return ok ? 0 : -1;
}

void tune_gpu_close(tune_gpu *g)
{
    if (!g)
        return;
    if (g->ctx)
        gpu_close(g->ctx);
    xfree(g);
}
