/* plan_run.c — the plan of a `pillar run` (tools.h: tools_plan): keyed, looked up, shown and
 * applied the same way by one application, iterated and out-of-core runs and every MPI rank. */
#include "tools.h"
#include "src/tune/plan_defaults.h"
#include "src/tune/plan_use.h"

#include <stdio.h>
#include <string.h>

/* What a run's plan is chosen for: its mesh file (NULL: an emulated grid of o's size), levels,
 * cells per level, whether the cells have centres, and whether the cell order is fixed (a
 * part-only distributed run reads its cells in the file's order). */
typedef struct {
    const char *mesh;
    const char *mesh_id; /* the mesh file's content id when known (NULL: hashed here) */
    int nz;
    long ncells;
    int has_coords;
    int order_fixed;
} plan_grid;

/* c as the run takes it once applied: the order and the table storage the flags chose stay
 * the run's (plan_apply left them), so the plan's line names what runs. */
static plan_config as_run(const options *o, const plan_problem *pr, const plan_config *c)
{
    plan_config r = *c;
    r.order = plan_emulated(pr) ? (int)o->spec.layout : (int)o->mesh_order;
    r.chasing = o->spec.chasing;
    r.compressed = o->spec.compressed;
    return r;
}

/* The built-in plan applied to the fields the flags left free (GPU runs only: the CPU keeps the
 * run's defaults), described in line. */
static unsigned builtin_plan(options *o, const plan_problem *pr, const plan_grid *g, plan_free f,
                             int gpu, int iterated, const char *why, char *line, size_t n)
{
    if (!gpu)
        return 0;
    plan_config c;
    plan_config_builtin(pr, o->spec.stencil, g->has_coords, g->ncells, &c);
    unsigned set = plan_apply(o, pr, &c, f, gpu, iterated);
    if (!set)
        return 0;
    char what[200];
    plan_config shown = as_run(o, pr, &c);
    plan_describe(pr, &shown, gpu, what, sizeof what);
    snprintf(line, n, "no (%s): the built-in defaults, %s (docs/tune.md)", why, what);
    return set & PLAN_SET_LAYOUT;
}

static unsigned grid_plan(options *o, const plan_grid *g, int backend, int iterated, int quiet,
                          char *line, size_t n)
{
    line[0] = 0;
    plan_free f = plan_free_fields(o);
    if (g->order_fixed)
        f.order = 0;
    int gpu = backend == BACKEND_GPU;
    const char *file;
    if (o->regular)
        return 0; /* the regular twin has no cell order or table to choose */
    if (!f.order && !f.storage && !f.compress && (!gpu || (!f.access && !f.threads && !f.zslice)))
        return 0; /* the flags chose everything a plan could */
    plan_problem pr;
    if (plan_source(o->plan, &file) == PLAN_FROM_OFF) {
        char id[64];
        plan_size_id(o->spec.nx, o->spec.ny, id, sizeof id);
        plan_problem_set(&pr, g->mesh ? "sha256:-" : id, o->spec.stencil, NULL, o->spec.prec, g->nz,
                         gpu);
        return builtin_plan(o, &pr, g, f, gpu, iterated, "--plan off", line, n);
    }
    if (g->mesh_id)
        plan_problem_set(&pr, g->mesh_id, o->spec.stencil, tools_stencil_id(o->spec.stencil),
                         o->spec.prec, g->nz, gpu);
    else if (plan_problem_of(&pr, g->mesh, o->spec.nx, o->spec.ny, o->spec.stencil,
                             tools_stencil_id(o->spec.stencil), o->spec.prec, g->nz, gpu) != 0)
        return 0; /* the mesh file read a moment ago cannot be hashed: the defaults */
    plan_choice ch;
    if (plan_choose(o->plan, &pr, o->spec.stencil, g->has_coords, &ch) != PLAN_FOUND) {
        if (ch.note[0] && !quiet)
            perr("%s", ch.note);
        return builtin_plan(o, &pr, g, f, gpu, iterated,
                            ch.st == PLAN_NONE ? "none made by pillar tune for this run"
                                               : "the plan found is not usable",
                            line, n);
    }
    unsigned set = plan_apply(o, &pr, &ch.p.c, f, gpu, iterated);
    char what[200];
    plan_config shown = as_run(o, &pr, &ch.p.c);
    plan_describe(&pr, &shown, gpu, what, sizeof what);
    snprintf(line, n, "%s: %s%s%s (%.3f ms on %s, %s)", ch.path, what,
             gpu ? (set & PLAN_SET_KERNEL ? "" : "; the strategy stays the run's")
                 : "; the CPU backend takes the order and storage",
             g->order_fixed && ch.p.c.order != MESH_ORDER_FILE
                 ? "; the cells stay in the file's order (each rank reads its part)"
                 : "",
             ch.p.ms, ch.p.pr.device, ch.p.measured);
    return set & PLAN_SET_LAYOUT;
}

unsigned tools_plan(options *o, const problem *pb, int backend, int iterated, int quiet,
                    char *line, size_t n)
{
    plan_grid g = {o->mesh, NULL, pb->s.nz, pb->ug.nxy, pb->mesh.coord != NULL, 0};
    return grid_plan(o, &g, backend, iterated, quiet, line, n);
}

void tools_plan_mesh_id(const options *o, char *id, size_t n)
{
    const char *file;
    id[0] = 0;
    if (o->mesh && plan_source(o->plan, &file) != PLAN_FROM_OFF &&
        plan_content_id(o->mesh, "mesh file", id, n) != 0)
        id[0] = 0;
}

unsigned tools_plan_file_order(options *o, const char *mesh_id, int nz, long ncells,
                               int has_coords, int backend, int quiet, char *line, size_t n)
{
    plan_grid g = {o->mesh, mesh_id && mesh_id[0] ? mesh_id : NULL, nz, ncells, has_coords, 1};
    return grid_plan(o, &g, backend, 1, quiet, line, n);
}
