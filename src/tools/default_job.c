/* default_job.c — `pillar` with no subcommand (pillar_tool_default): the W/E/S/N stencils on the
 * built-in grid, each against its regular baseline, in one table. */
#include "tools.h"
#include "src/exec/cpu_exec.h"
#include "src/exec/runner.h"
#include "src/exec/verify.h"

#include <stdio.h>
#include <string.h>

static int default_guarded(void *arg)
{
    options o = *(const options *)arg;
    int backend = tools_backend(&o);
    if (backend < 0)
        return 1;
    if (!o.runs) /* no --runs */
        o.runs = backend == BACKEND_CPU ? 3 : 20;

    report_printf("pillar: %dx%dx%d %s, %s layout, %s %s neighbour table, median of %d runs\n\n",
           o.spec.nx, o.spec.ny, o.spec.nz, prec_name(o.spec.prec), layout_name[o.spec.layout],
           o.spec.chasing ? "chasing" : "non-chasing",
           o.spec.compressed ? "compressed" : "uncompressed", o.runs);
    report_printf("  %-10s %13s %17s %9s %9s  %s\n", "stencil", "regular ms", "unstructured ms",
           "slowdown", "GB/s", "verification");
    int failures = 0;
    for (int st = 0; st < ST_QUAD_COUNT; st++) {
        if (o.stencil_set && st != (int)o.spec.stencil)
            continue;
        problem_spec s = o.spec;
        s.stencil = (stencil_t)st;
        problem pb;
        if (problem_make(&pb, &s) != 0)
            return 2;
        fieldset ref = runner_outputs(&pb, 0), reg = runner_outputs(&pb, 0);
        fieldset uns = runner_outputs(&pb, 1);
        cpu_run_regular(&pb, ref);
        timing tr, tu;
        if (runner_execute(&pb, &o, backend, 0, reg, &tr) != 0 ||
            runner_execute(&pb, &o, backend, 1, uns, &tu) != 0)
            return 1;
        int exact = backend == BACKEND_CPU;
        verify_result vr = verify_compare(&pb, reg, 0, ref, 0);
        verify_result vu = verify_compare(&pb, uns, 1, ref, 0);
        int ok = verify_ok(&pb, &vr, exact) && verify_ok(&pb, &vu, exact);
        char line[256];
        verify_describe(&pb, &vu, exact, line, sizeof line);
        report_printf("  %-10s %13.3f %17.3f %8.2fx %9.1f  %s %s\n", stencil_table[st].name, tr.median_ms,
               tu.median_ms, tu.median_ms / tr.median_ms,
               problem_min_bytes(&pb) / (tu.median_ms * 1e6), ok ? "PASS" : "FAIL", line);
        failures += !ok;
        if (st == ST_QUAD_COUNT - 1 || o.stencil_set)
            report_printf("\n  backend: %s%s%s\n", tu.backend, backend == BACKEND_GPU ? ", access " : "",
                   backend == BACKEND_GPU ? access_name[o.access] : "");
        runner_free_outputs(&pb, &ref);
        runner_free_outputs(&pb, &reg);
        runner_free_outputs(&pb, &uns);
        problem_free(&pb);
    }
    report_printf("  verification: %s\n", backend == BACKEND_CPU
                                       ? "unstructured vs regular grid, bit for bit"
                                       : "GPU vs CPU reference, max error relative to the field's largest value");
    return failures ? 1 : 0;
}

int pillar_tool_default(const pillar_run_settings *o)
{
    return tools_guarded(default_guarded, (void *)o);
}
