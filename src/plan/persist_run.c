/* persist_run.c — the persistent executor of an in-core iterated run (src/plan/persist_run.h). */
#include "persist_run.h"

#include <stdio.h>
#include <string.h>

onchip_request persist_onchip_request(const persist_request *r)
{
    onchip_request oq = {r->blocks, r->threads,
                         r->levels == PERSIST_LEVELS_MODEL  ? -1
                         : r->levels == PERSIST_LEVELS_NONE ? 0
                                                            : r->levels,
                         1, ONCHIP_PARTS_AUTO, 1, ONCHIP_WALK_AUTO}; /* the walk over a flat
                                                       * chart, else METIS's parts where their
                                                       * rings are smaller (persist_onchip.h) */
    return oq;
}

int persist_run(const problem *pb, fieldset f, int steps, const persist_request *r,
                persist_run_timing *t)
{
    memset(t, 0, sizeof *t);
    stencil_t st = pb->s.stencil;
    if (st == ST_LAPLAP || st == ST_HDIFF || st == ST_LAP) {
        onchip_request oq = persist_onchip_request(r);
        perr_saved saved = perr_capture_save();
        perr_capture(t->why, sizeof t->why);
        int rc = persist_onchip_run(pb, f, steps, &oq, &t->o);
        perr_capture_restore(saved);
        if (rc == 0) {
            t->onchip = 1;
            t->why[0] = 0;
            return 0;
        }
        if (!t->why[0])
            snprintf(t->why, sizeof t->why, "the on-chip kernels refused this run");
    }
    return persist_gpu_run(pb, f, steps, r, &t->p);
}

void persist_run_describe(const persist_run_timing *t, char *buf, size_t n)
{
    if (t->onchip && t->o.walk) {
        const onchip_timing *o = &t->o;
        snprintf(buf, n,
                 "%d blocks x %d threads on chip, walking the grid's flat chart as a regular grid: "
                 "the state in the chart's order, the %d lowest level%s in %zu KB of shared memory "
                 "a block; the model: %.1f us a step",
                 o->blocks, o->threads, o->levels, o->levels == 1 ? "" : "s", o->smem / 1024,
                 o->predicted_s * 1e6);
        return;
    }
    if (t->onchip) {
        const onchip_timing *o = &t->o;
        snprintf(buf, n,
                 "%d blocks x %d threads on chip: each owns %s and keeps their "
                 "state at the %d lowest level%s in %zu KB of shared memory, %d value%s a thread "
                 "loaded ahead; the model: %.1f us a step",
                 o->blocks, o->threads, o->metis ? "a METIS part" : "a run of the cell order",
                 o->levels, o->levels == 1 ? "" : "s", o->smem / 1024,
                 o->prefetch, o->prefetch == 1 ? "" : "s", o->predicted_s * 1e6);
        return;
    }
    char shape[300];
    persist_shape_describe(&t->p.shape, shape, sizeof shape);
    snprintf(buf, n, "%s%s%s", shape, t->why[0] ? "; not on chip: " : "", t->why);
}
