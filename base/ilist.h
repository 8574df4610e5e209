/* ilist.h — a growing list of int32 (blocks from xalloc, base/common.h) and the comparison that
 * sorts int32 ascending (qsort, bsearch). */
#ifndef PILLAR_ILIST_H
#define PILLAR_ILIST_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int32_t *v; /* NULL while empty; free with xfree */
    size_t n, cap;
} ilist;

/* Appends x, doubling the room (from 1024) when full. */
void ilist_push(ilist *l, int32_t x);

/* qsort/bsearch comparison of two int32: ascending. */
int cmp_i32(const void *a, const void *b);

#endif
