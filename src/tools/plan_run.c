/* plan_run.c — the plan of a `pillar run` (tools.h: tools_plan): keyed, looked up, shown and
 * applied the same way by one application, iterated and out-of-core runs and every MPI rank. */
#include "tools.h"
#include "src/tune/plan_use.h"

#include <stdio.h>
#include <string.h>

unsigned tools_plan(options *o, const problem *pb, int backend, int iterated, int quiet,
                    char *line, size_t n)
{
    line[0] = 0;
    plan_free f = plan_free_fields(o);
    int gpu = backend == BACKEND_GPU;
    const char *file;
    if (o->regular || plan_source(o->plan, &file) == PLAN_FROM_OFF)
        return 0; /* the regular twin has no cell order or table to choose */
    if (!f.order && !f.storage && !f.compress && (!gpu || (!f.access && !f.threads && !f.zslice)))
        return 0; /* the flags chose everything a plan could */
    plan_problem pr;
    if (plan_problem_of(&pr, o->mesh, o->spec.nx, o->spec.ny, o->spec.stencil,
                        tools_stencil_id(o->spec.stencil), o->spec.prec, pb->s.nz, gpu) != 0)
        return 0; /* the mesh file read a moment ago cannot be hashed: the defaults */
    plan_choice ch;
    int has_coords = pb->mesh.coord != NULL;
    if (plan_choose(o->plan, &pr, o->spec.stencil, has_coords, &ch) != PLAN_FOUND) {
        if (ch.note[0] && !quiet)
            perr("%s", ch.note);
        return 0;
    }
    unsigned set = plan_apply(o, &pr, &ch.p.c, f, gpu, iterated);
    char what[200];
    plan_describe(&pr, &ch.p.c, gpu, what, sizeof what);
    snprintf(line, n, "%s: %s%s (%.3f ms on %s, %s)", ch.path, what,
             gpu ? (set & PLAN_SET_KERNEL ? "" : "; the strategy stays the run's")
                 : "; the CPU backend takes the order and storage",
             ch.p.ms, ch.p.pr.device, ch.p.measured);
    return set & PLAN_SET_LAYOUT;
}
