/* table_stats.c — neighbour-table statistics, one line per storage. */
#include "table_stats.h"

#include "storage/nbtable.h"

#include <stdio.h>

void print_table_stats(const ugrid *g, int mark_chasing, int mark_compressed)
{
    printf("  %-26s %12s %10s %10s %12s %12s\n", "neighbour table", "entries", "ratio", "patterns",
           "top pattern", "bytes");
    for (int chasing = 1; chasing >= 0; chasing--)
        for (int comp = 0; comp <= 1; comp++) {
            nbtable t;
            nbtable_build(&t, g, chasing, comp);
            char name[64];
            snprintf(name, sizeof name, "%s %s %s",
                     (chasing == mark_chasing && comp == mark_compressed) ? "*" : " ",
                     chasing ? "chasing" : "nonchasing", comp ? "compressed" : "uncompressed");
            char top[32];
            double share = nbtable_top_share(&t);
            snprintf(top, sizeof top, share < 0.001 ? "<0.1%%" : "%.1f%%", 100.0 * share);
            printf("  %-26s %12zu %10.5f %10d %12s %12zu\n", name, nbtable_entries(&t),
                   nbtable_ratio(&t), t.npat, top, nbtable_bytes(&t));
            nbtable_free(&t);
        }
}
