/* tools.c — the boundary of the tools layer (include/pillar_tools.h): the fault guard around each
 * job, the message channel, the progress hook, the backend a run gets, stencil files, the version. */
#include "tools.h"
#include "base/progress.h"
#include "src/dist/dist_mpi.h"
#ifdef PILLAR_HAVE_NCCL
#include "src/dist/dist_gpu.h"
#endif
#include "src/exec/runner.h"
#include "src/io/files.h"
#include "src/jit/jit.h"
#include "src/tune/plan_cache.h"

#include <stdarg.h>
#include <sys/resource.h>
#include <stdio.h>
#include <string.h>

int tools_guarded(int (*job)(void *arg), void *arg)
{
    guard g;
    guard_enter(&g);
    if (setjmp(g.at) != 0) {
        fflush(stdout);
        perr("%s", g.msg);
        return 1;
    }
    int rc = job(arg);
    guard_leave(&g);
    return rc;
}

void pillar_perr(const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    perr("%s", buf);
}

void pillar_set_progress(const pillar_progress *p)
{
    if (!p) {
        progress_set(NULL);
        return;
    }
    progress_hook h = {p->update, p->phase, p->user};
    progress_set(&h);
}

long tools_peak_rss_kb(void)
{
    struct rusage u;
    if (getrusage(RUSAGE_SELF, &u) != 0)
        return 0;
    return (long)u.ru_maxrss; /* KB on Linux */
}

void tools_report_memory(const long *kb, int n)
{
    if (n < 1)
        return;
    int top = 0;
    double *v = xalloc(sizeof(double) * (size_t)n);
    for (int r = 0; r < n; r++) {
        v[r] = (double)kb[r];
        if (kb[r] > kb[top])
            top = r;
    }
    if (n == 1) {
        report_printf("  memory    peak resident %.1f MB\n", kb[0] / 1024.0);
    } else {
        report_printf("  memory    peak resident: largest %.1f MB (rank %d); ranks", kb[top] / 1024.0,
                      top);
        for (int r = 0; r < n; r++)
            report_printf("%s %.1f", r ? "," : "", kb[r] / 1024.0);
        report_printf(" MB\n");
    }
    report_numbers("peak_rss_kb", v, n);
    report_number("peak_rss_max_kb", (double)kb[top]);
    xfree(v);
}

int tools_backend(const options *o)
{
    char why[256];
    int b = runner_pick_backend(o, why, sizeof why);
    if (b >= 0 && why[0])
        perr("no CUDA device (%s): running the CPU backend", why);
    return b;
}

int pillar_tool_backend(const pillar_run_settings *o) { return tools_backend(o); }

int pillar_tool_launcher_ranks(void) { return dist_launcher_ranks(); }

/* The stencil file last loaded and its content id (a process runs one). */
static int file_stencil = -1;
static char file_stencil_id[80];

const char *tools_stencil_id(stencil_t s) { return (int)s == file_stencil ? file_stencil_id : NULL; }

int tools_stencil_file(const char *path, int check_reads, stencil_t *s)
{
    jit_options jo = {check_reads, 0};
    if (jit_load_file(path, &jo, s) != 0)
        return -1;
    file_stencil = -1;
    if (plan_content_id(path, "stencil file", file_stencil_id, sizeof file_stencil_id) == 0)
        file_stencil = (int)*s;
    const jit_report *r = jit_last();
    report_printf("stencil file %s: %s '%s' (%s%s) in %.3f s\n", path,
                  r->cached ? "loaded" : "compiled", stencil_table[*s].name,
                  r->cached ? "from the cache" : "C compiler", check_reads ? ", checked mode" : "",
                  r->seconds);
    return 0;
}

int pillar_tool_outputs_distinct(const char *out, const char *what, const char *const *paths,
                                 const char *const *labels, int n)
{
    file_named in[16];
    if (n > 16)
        n = 16;
    for (int k = 0; k < n; k++)
        in[k] = (file_named){paths[k], labels[k]};
    return file_output_distinct(out, what, in, n);
}

void pillar_tool_version(FILE *out)
{
    if (!out)
        out = stdout;
    fprintf(out, "pillar %s (commit %s)\n", PILLAR_VERSION, PILLAR_COMMIT);
    fprintf(out, "built with: CUDA %s, Gmsh %s, MPI %s\n",
#ifdef PILLAR_HAVE_CUDA
            "yes",
#else
            "no",
#endif
#ifdef PILLAR_HAVE_GMSH
            "yes",
#else
            "no",
#endif
#ifdef PILLAR_HAVE_MPI
            "yes"
#else
            "no"
#endif
    );
    char nccl[48] = "staged through the host (built without NCCL)";
#ifdef PILLAR_HAVE_NCCL
    dist_gpu_nccl_version(nccl, sizeof nccl); /* the library's, as loaded */
#endif
    fprintf(out, "halos GPU to GPU: %s\n", nccl);
}
