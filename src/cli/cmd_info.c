/* cmd_info.c — `pillar info`: grid, neighbour-table and compression statistics. */
#include "commands.h"
#include "options.h"
#include "table_stats.h"

#include <stdio.h>

static const help_part info_help[] = {
    {"usage: pillar info [flags]\n"
     "\n"
     "Describes a grid and its neighbour tables: cells, halo, paddings, and for each storage\n"
     "(chasing / non-chasing x uncompressed / compressed) the entries stored, their ratio to the\n"
     "uncompressed table, the number of patterns and the share of cells on the most frequent one\n"
     "(the columns of thesis Table 6.7). The storage picked by --storage/--compress is marked *.\n"
     "\n", 0},
    {NULL, HELP_MAIN | HELP_ALWAYS},
    {"\n"
     "example: pillar info --size 512x512x64 --layout rowmajor --compress\n", 0},
    {NULL, 0}};

int cmd_info(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse(&a, CMD_INFO, info_help, argc, argv);
    if (rc != 0)
        return CLI_EXIT(rc);
    options o = a.o;
    problem_spec *s = &o.spec;
    s->stencil = ST_LAPLAP; /* the halo of 2 covers every stencil */
    if (problem_check(s) != 0)
        return 2;
    ugrid g;
    if (ugrid_emulate(&g, s->nx, s->ny, s->nz, s->halo, s->layout, s->w, s->seed) != 0)
        return 2;
    rgrid rg = rgrid_make(s->nx, s->ny, s->nz, s->halo, prec_size(s->prec));

    printf("grid        %dx%dx%d, halo %d: %d cells per level (%d halo, %d inner), %d levels\n",
           s->nx, s->ny, s->nz, s->halo, g.nxy, g.nhalo, g.nxy - g.nhalo, s->nz);
    printf("layout      %s", layout_name[s->layout]);
    if (s->layout == LAYOUT_ZCURVE_W)
        printf(" (w = %d)", s->w);
    if (s->layout == LAYOUT_RANDOM)
        printf(" (seed %llu)", (unsigned long long)s->seed);
    printf("; unstructured level stride %ld\n", g.zstride);
    printf("regular     paddings a=%d b=%d c=%ld for %s: row stride %d, level stride %ld\n", rg.a,
           rg.ystride - s->nx, rg.zstride - (long)rg.ystride * s->ny, prec_name(s->prec),
           rg.ystride, rg.zstride);
    printf("fields      %.1f MB per field (%s)\n\n", (double)g.len * prec_size(s->prec) / 1e6,
           prec_name(s->prec));

    print_table_stats(&g, s->chasing, s->compressed);
    printf("\n  footprint (docs/storage.md): 4*nxy*2l(l+1) + sizeof(T)*nxy*nz = %.1f MB (l=1), "
           "%.1f MB (l=2) per field\n",
           (4.0 * g.nxy * 4 + (double)prec_size(s->prec) * g.nxy * s->nz) / 1e6,
           (4.0 * g.nxy * 12 + (double)prec_size(s->prec) * g.nxy * s->nz) / 1e6);
    ugrid_free(&g);
    return 0;
}
