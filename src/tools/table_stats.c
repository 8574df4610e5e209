/* table_stats.c — neighbour-table statistics, one line per storage. */
#include "table_stats.h"
#include "report.h"

#include "storage/gtable.h"
#include "storage/nbtable.h"

#include <stdio.h>

static void print_head(void)
{
    if (!report_json()) /* JSON: the rows' members name the columns */
        report_printf("  %-26s %12s %10s %10s %12s %12s\n", "neighbour table", "entries", "ratio", "patterns",
           "top pattern", "bytes");
}

/* One storage's line; mark: it is the storage in use. */
static void print_row(int mark, int chasing, int comp, size_t entries, double ratio, int npat,
                      double share, size_t bytes)
{
    char name[64], top[32];
    snprintf(name, sizeof name, "%s %s %s", mark ? "*" : " ", chasing ? "chasing" : "nonchasing",
             comp ? "compressed" : "uncompressed");
    snprintf(top, sizeof top, share < 0.001 ? "<0.1%%" : "%.1f%%", 100.0 * share);
    char line[160], v[7][64];
    snprintf(line, sizeof line, "  %-26s %12zu %10.5f %10d %12s %12zu", name, entries, ratio, npat,
             top, bytes);
    static const char *const names[] = {"table", "entries", "ratio", "patterns", "top_pattern",
                                        "bytes", "in_use"};
    snprintf(v[0], sizeof v[0], "%s", name + 2);
    snprintf(v[1], sizeof v[1], "%zu", entries);
    snprintf(v[2], sizeof v[2], "%.5f", ratio);
    snprintf(v[3], sizeof v[3], "%d", npat);
    snprintf(v[4], sizeof v[4], "%s", top);
    snprintf(v[5], sizeof v[5], "%zu", bytes);
    snprintf(v[6], sizeof v[6], "%s", mark ? "yes" : "no");
    const char *values[7] = {v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
    report_row("neighbour_tables", line, 7, names, values);
}

void print_table_stats(const ugrid *g, int mark_chasing, int mark_compressed)
{
    print_head();
    for (int chasing = 1; chasing >= 0; chasing--)
        for (int comp = 0; comp <= 1; comp++) {
            nbtable t;
            nbtable_build(&t, g, chasing, comp);
            print_row(chasing == mark_chasing && comp == mark_compressed, chasing, comp,
                      nbtable_entries(&t), nbtable_ratio(&t), t.npat, nbtable_top_share(&t),
                      nbtable_bytes(&t));
            nbtable_free(&t);
        }
}

void print_gtable_stats(const ugrid *g)
{
    print_head();
    for (int chasing = 1; chasing >= 0; chasing--)
        for (int comp = 0; comp <= 1; comp++) {
            gtable t;
            gtable_build(&t, g, chasing, comp);
            print_row(0, chasing, comp, gtable_entries(&t), gtable_ratio(&t), t.p.npat,
                      gtable_top_share(&t), gtable_bytes(&t));
            gtable_free(&t);
        }
}
