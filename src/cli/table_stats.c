/* table_stats.c — neighbour-table statistics, one line per storage. */
#include "table_stats.h"

#include "storage/gtable.h"
#include "storage/nbtable.h"

#include <stdio.h>

static void print_head(void)
{
    printf("  %-26s %12s %10s %10s %12s %12s\n", "neighbour table", "entries", "ratio", "patterns",
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
    printf("  %-26s %12zu %10.5f %10d %12s %12zu\n", name, entries, ratio, npat, top, bytes);
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
