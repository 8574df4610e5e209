/* runner.c — backend choice, output buffers and the CPU timing loop. */
#include "runner.h"

#include "cpu_exec.h"
#include "gpu.h"
#include "base/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int gpu_available(char *why, size_t n)
{
#ifdef PILLAR_HAVE_CUDA
    return gpu_probe(why, n);
#else
    snprintf(why, n, "this build has no CUDA support");
    return 0;
#endif
}

int runner_pick_backend(const options *o, char *fallback, size_t n)
{
    fallback[0] = 0;
    if (o->backend == BACKEND_CPU)
        return BACKEND_CPU;
    char why[256];
    if (gpu_available(why, sizeof why))
        return BACKEND_GPU;
    if (o->backend == BACKEND_GPU) {
        perr("--backend gpu: no usable CUDA device: %s", why);
        return -1;
    }
    snprintf(fallback, n, "%s", why);
    return BACKEND_CPU;
}

fieldset runner_outputs(const problem *pb, int uns)
{
    const stencil_info *si = &stencil_table[pb->s.stencil];
    fieldset f = uns ? pb->uf : pb->twin->rf;
    size_t len = uns ? pb->ug.len : pb->twin->rg.len;
    for (int k = si->nin; k < pb->nf; k++) {
        f.p[k] = field_alloc(pb->s.prec, len);
        field_poison(pb->s.prec, f.p[k], len);
    }
    return f;
}

void runner_free_outputs(const problem *pb, fieldset *f)
{
    for (int k = stencil_table[pb->s.stencil].nin; k < pb->nf; k++) {
        xfree(f->p[k]);
        f->p[k] = NULL;
    }
}

static void poison_outputs(const problem *pb, int uns, fieldset out)
{
    size_t len = uns ? pb->ug.len : pb->twin->rg.len;
    for (int k = stencil_table[pb->s.stencil].nin; k < pb->nf; k++)
        field_poison(pb->s.prec, out.p[k], len);
}

static int cpu_execute(const problem *pb, const options *o, int uns, fieldset out, timing *t)
{
    double *ms = xalloc(sizeof(double) * (size_t)o->runs);
    for (int r = 0; r < o->runs; r++) {
        poison_outputs(pb, uns, out);
        double t0 = now_ms();
        if (uns && stencil_table[pb->s.stencil].graph)
            cpu_run_gtable(pb, out); /* the offset tables; the reference reads the lists */
        else if (uns)
            cpu_run_unstructured(pb, out);
        else
            cpu_run_regular(pb, out);
        ms[r] = now_ms() - t0;
        progress_update("runs", r + 1, o->runs);
    }
    qsort(ms, (size_t)o->runs, sizeof(double), cmp_double);
    t->runs = o->runs;
    t->median_ms = ms[o->runs / 2];
    t->min_ms = ms[0];
    t->max_ms = ms[o->runs - 1];
    t->bx = t->by = t->bz = 0;
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    snprintf(t->backend, sizeof t->backend, "cpu (%d thread%s)", threads, threads == 1 ? "" : "s");
    xfree(ms);
    return 0;
}

int runner_execute(const problem *pb, const options *o, int backend, int uns, fieldset out, timing *t)
{
    memset(t, 0, sizeof *t);
    if (backend == BACKEND_CPU)
        return cpu_execute(pb, o, uns, out, t);
#ifdef PILLAR_HAVE_CUDA
    return gpu_execute(pb, o, uns, out, t);
#else
    perr("this build has no GPU backend");
    return -1;
#endif
}
