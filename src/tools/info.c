/* info.c — `pillar info` (pillar_tool_info): grid, neighbour-table and compression statistics. */
#include "tools.h"
#include "table_stats.h"

#include <stdio.h>

static int info_guarded(void *arg)
{
    options o = *(const options *)arg;
    problem_spec *s = &o.spec;
    s->stencil = ST_LAPLAP; /* the halo of 2 covers every stencil */
    if (problem_check(s) != 0)
        return 2;
    ugrid g;
    if (ugrid_emulate(&g, s->nx, s->ny, s->nz, s->halo, s->layout, s->w, s->seed) != 0)
        return 2;
    rgrid rg = rgrid_make(s->nx, s->ny, s->nz, s->halo, prec_size(s->prec));

    report_printf("grid        %dx%dx%d, halo %d: %d cells per level (%d halo, %d inner), %d levels\n",
           s->nx, s->ny, s->nz, s->halo, g.nxy, g.nhalo, g.nxy - g.nhalo, s->nz);
    report_printf("layout      %s", layout_name[s->layout]);
    if (s->layout == LAYOUT_ZCURVE_W)
        report_printf(" (w = %d)", s->w);
    if (s->layout == LAYOUT_RANDOM)
        report_printf(" (seed %llu)", (unsigned long long)s->seed);
    report_printf("; unstructured level stride %ld\n", g.zstride);
    report_printf("regular     paddings a=%d b=%d c=%ld for %s: row stride %d, level stride %ld\n", rg.a,
           rg.ystride - s->nx, rg.zstride - (long)rg.ystride * s->ny, prec_name(s->prec),
           rg.ystride, rg.zstride);
    report_printf("fields      %.1f MB per field (%s)\n\n", (double)g.len * prec_size(s->prec) / 1e6,
           prec_name(s->prec));

    print_table_stats(&g, s->chasing, s->compressed);
    report_printf("\n  footprint (docs/storage.md): 4*nxy*2l(l+1) + sizeof(T)*nxy*nz = %.1f MB (l=1), "
           "%.1f MB (l=2) per field\n",
           (4.0 * g.nxy * 4 + (double)prec_size(s->prec) * g.nxy * s->nz) / 1e6,
           (4.0 * g.nxy * 12 + (double)prec_size(s->prec) * g.nxy * s->nz) / 1e6);
    ugrid_free(&g);
    return 0;
}

int pillar_tool_info(const pillar_run_settings *o)
{
    return tools_guarded(info_guarded, (void *)o);
}
