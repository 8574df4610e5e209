/* tune.c — `pillar tune` (pillar_tool_tune, pillar_tool_tune_show): the search of src/tune/tune.h
 * with the GPU measurer on the user's problem, the winner verified, the plan stored; the plans of
 * the cache listed. */
#include "tools.h"
#include "base/progress.h"
#include "src/exec/runner.h"
#include "src/tune/plan_use.h"
#include "src/tune/tune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "128x1x2 z16" */
static void shape_text(const plan_config *c, char *out, size_t n)
{
    snprintf(out, n, "%dx%dx%d", c->bx, c->by, c->bz);
    if (c->zslice > 0)
        snprintf(out + strlen(out), n - strlen(out), " z%d", c->zslice);
}

static void storage_text(const plan_config *c, char *out, size_t n)
{
    snprintf(out, n, "%s%s", c->chasing ? "chasing" : "nonchasing",
             c->compressed ? " compressed" : "");
}

static int tune_show(void)
{
    plan_listed *l;
    int n;
    char dir[1024];
    if (plan_cache_list(&l, &n, dir, sizeof dir) != 0)
        return 1;
    report_printf("plan cache %s: %d file%s\n", dir, n, n == 1 ? "" : "s");
    if (n)
        report_printf("  %-22s %-9s %-6s %6s %-24s %-8s %-10s %-22s %-14s %-12s %9s\n", "mesh",
                      "stencil", "prec", "levels", "device", "pillar", "order", "storage",
                      "access", "shape", "ms");
    for (int i = 0; i < n; i++) {
        const plan *p = &l[i].p;
        if (!l[i].ok) {
            report_printf("  %s: not a usable plan: %s\n", l[i].name, l[i].why);
            continue;
        }
        char mesh[24], stencil[10], st[40], sh[40];
        snprintf(mesh, sizeof mesh, "%.22s", p->pr.mesh);
        snprintf(stencil, sizeof stencil, "%.9s", p->pr.stencil);
        storage_text(&p->c, st, sizeof st);
        shape_text(&p->c, sh, sizeof sh);
        report_printf("  %-22s %-9s %-6s %6d %-24.24s %-8.8s %-10s %-22s %-14s %-12s %9.3f\n",
                      mesh, stencil, prec_name(p->pr.prec), p->pr.levels, p->pr.device,
                      p->pr.version, plan_order_name(&p->pr, p->c.order), st,
                      access_name[p->c.access], sh, p->ms);
        report_printf("    %s (measured %s%s)\n", l[i].name, p->measured,
                      p->default_ms > 0 ? "" : ", no default time");
    }
    xfree(l);
    return 0;
}

#ifdef PILLAR_HAVE_CUDA
static int by_time(const void *a, const void *b)
{
    const tune_row *x = *(const tune_row *const *)a, *y = *(const tune_row *const *)b;
    return (x->ms > y->ms) - (x->ms < y->ms);
}

/* The table of the fastest `top` rows measured. */
static void measured_table(const tune_problem *tp, const tune_result *r, int top)
{
    const tune_row **rows = xalloc(sizeof *rows * (size_t)(r->nrows ? r->nrows : 1));
    int n = 0;
    for (int i = 0; i < r->nrows; i++)
        if (r->rows[i].ok)
            rows[n++] = &r->rows[i];
    qsort(rows, (size_t)n, sizeof *rows, by_time);
    double base = r->baseline >= 0 && r->rows[r->baseline].ok ? r->rows[r->baseline].ms : 0;
    report_printf("\n  %4s %10s %8s  %-10s %-22s %-14s %s\n", "rank", "ms", "speedup", "order",
                  "storage", "access", "shape");
    for (int i = 0; i < n && i < top; i++) {
        char st[40], sh[40], up[16] = "-";
        storage_text(&rows[i]->c, st, sizeof st);
        shape_text(&rows[i]->c, sh, sizeof sh);
        if (base > 0)
            snprintf(up, sizeof up, "%.2fx", base / rows[i]->ms);
        report_printf("  %4d %10.4f %8s  %-10s %-22s %-14s %s%s\n", i + 1, rows[i]->ms, up,
                      plan_order_name(&tp->pr, rows[i]->c.order), st,
                      access_name[rows[i]->c.access], sh,
                      rows[i] == &r->rows[r->baseline] ? "  (the default)" : "");
    }
    xfree(rows);
}

static int tune_on_gpu(options *o, const pillar_tune_settings *t)
{
    char why[256];
    if (!gpu_available(why, sizeof why)) {
        perr("tune: measures on the GPU: no usable CUDA device (%s); 'pillar tune --show' lists "
             "the cached plans, 'pillar run' runs without one", why);
        return 1;
    }
    problem pb;
    mesh_order_t order = MESH_ORDER_FILE;
    o->spec.layout = LAYOUT_ZCURVE; /* the defaults: the search's baseline */
    o->spec.chasing = 1;
    o->spec.compressed = 0;
    if (problem_make_mesh(&pb, &o->spec, o->mesh, order) != 0)
        return o->mesh ? 1 : 2;
    tune_problem tp = {.stencil = o->spec.stencil, .has_coords = pb.mesh.coord != NULL,
                       .ncells = pb.ug.nxy};
    if (plan_problem_of(&tp.pr, o->mesh, o->spec.nx, o->spec.ny, o->spec.stencil,
                        tools_stencil_id(o->spec.stencil), o->spec.prec, pb.s.nz, 1) != 0) {
        problem_free(&pb);
        return 1;
    }
    report_printf("tune %s %s on %s: %d cells x %d levels, on %s, budget %.0f s\n",
                  stencil_table[o->spec.stencil].name, prec_name(o->spec.prec),
                  o->mesh ? o->mesh : tp.pr.mesh, pb.ug.nxy, pb.s.nz, tp.pr.device, t->budget_s);
    tune_gpu *g = tune_gpu_open(&pb, o->runs);
    tune_opts to = {t->budget_s, 0, NULL, NULL};
    tune_result r;
    progress_phase("tune");
    int rc = tune_search(&tp, &to, tune_gpu_measure, g, &r);
    if (rc != 0) {
        tune_gpu_close(g);
        problem_free(&pb);
        return 1;
    }
    report_printf("  measured  %d of %d candidates in %.1f s (%d pruned%s)\n", r.nrows,
                  r.candidates, r.elapsed_s, r.pruned,
                  r.out_of_budget ? ", the budget left some unmeasured" : "");
    if (r.out_of_budget)
        report_printf("  budget    %d candidates left unmeasured: a larger --budget measures "
                      "them\n", r.out_of_budget);
    measured_table(&tp, &r, t->top);
    plan p;
    tune_make_plan(&tp, &r, &p);
    char msg[512], path[1200];
    progress_phase("verify");
    int ok = tune_gpu_verify(g, &p.c, msg, sizeof msg) == 0;
    char what[200];
    plan_describe(&tp.pr, &p.c, 1, what, sizeof what);
    report_printf("\n  best      %s: %.4f ms", what, p.ms);
    if (p.default_ms > 0)
        report_printf(" (the default %.4f ms: %.2fx)", p.default_ms, p.default_ms / p.ms);
    report_printf("\n  verify    %s against the CPU reference in the same order: %s\n",
                  ok ? "PASS" : "FAIL", msg);
    report_number("candidates", r.candidates);
    report_number("measured", r.nrows);
    report_number("tune_s", r.elapsed_s);
    report_number("best_ms", p.ms);
    report_number("default_ms", p.default_ms);
    tune_gpu_close(g);
    tune_result_free(&r);
    problem_free(&pb);
    if (!ok) {
        perr("tune: the fastest configuration failed verification: no plan stored");
        return 1;
    }
    if (plan_cache_store(&p, path, sizeof path) != 0)
        return 1;
    report_printf("  plan      %s\n", path);
    if (t->out) {
        if (plan_write(t->out, &p) != 0)
            return 1;
        report_printf("  plan      %s (--out)\n", t->out);
    }
    return 0;
}
#endif

typedef struct {
    const pillar_tune_settings *t;
    const pillar_run_extra *x;
} tune_job;

static int tune_guarded(void *arg)
{
    const tune_job *j = arg;
    options o = j->t->run;
    if (tools_run_stencil(&o, j->x) != 0)
        return 1;
#ifdef PILLAR_HAVE_CUDA
    return tune_on_gpu(&o, j->t);
#else
    perr("tune: measures on the GPU, and this pillar was built without CUDA; 'pillar tune --show' "
         "lists the cached plans, 'pillar run' runs without one");
    return 1;
#endif
}

int pillar_tool_tune(const pillar_tune_settings *t, const pillar_run_extra *x)
{
    pillar_run_extra none = {0};
    if (!x)
        x = &none;
    tools_grid_options(x);
    tune_job j = {t, x};
    return tools_guarded(tune_guarded, &j);
}

static int show_guarded(void *arg)
{
    (void)arg;
    return tune_show();
}

int pillar_tool_tune_show(void) { return tools_guarded(show_guarded, NULL); }
