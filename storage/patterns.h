/* patterns.h — compression of a neighbour table into patterns (thesis §4.2.2): every distinct
 * tuple of a cell's entries stored once, each cell keeping the index of its tuple. Shared by the
 * W/E/S/N tables (nbtable.h) and the tables of cells with any number of neighbours (gtable.h). */
#ifndef PILLAR_PATTERNS_H
#define PILLAR_PATTERNS_H

#include "../base/common.h"

#include <stdint.h>

/* tuples holds n rows of m entries. ids[c] gets the pattern of row c, numbered by use: pattern
 * 0 is the most used (ties: first appearance), so a size-limited copy of the leading rows keeps
 * the most used ones; first[k] (n entries of room) the first row of pattern k; *top_count the
 * rows of pattern 0. Returns the number of patterns. */
int patterns_group(const int32_t *tuples, int n, int m, int32_t *ids, int32_t *first,
                   int *top_count);

/* A table of n rows of m entries (rows, row-major) stored column by column: tab[e*ntab + row]
 * with ntab = n, or compressed (ntab = npat: each pattern's row once, pat[c] the pattern of
 * row c; pat NULL when uncompressed). npat and top_count are counted either way. */
typedef struct {
    int npat, top_count, ntab;
    int32_t *tab, *pat;
} pattern_table;
void patterns_table(const int32_t *rows, int n, int m, int compressed, pattern_table *out);

#endif
