/* table_stats.h — the neighbour-table statistics table of `pillar info` and `pillar mesh info`. */
#ifndef PILLAR_TABLE_STATS_H
#define PILLAR_TABLE_STATS_H

#include "grids/grid.h"

/* Prints, for each storage (chasing / non-chasing x uncompressed / compressed), the entries
 * stored, their ratio to the uncompressed table, the patterns and the share of the most frequent
 * one (thesis Table 6.7). The storage (mark_chasing, mark_compressed) is marked *; -1: none. */
void print_table_stats(const ugrid *g, int mark_chasing, int mark_compressed);

/* The same for the tables of cells with any number of neighbours (storage/gtable.h) of a grid
 * made from a mesh (its neighbour lists g->adj): chasing (degree + first ring) and non-chasing
 * (also each neighbour's own list), uncompressed and compressed. */
void print_gtable_stats(const ugrid *g);

#endif
