/* patterns.c — grouping equal tuples of table entries (compression into patterns). */
#include "patterns.h"

#include <stdlib.h>
#include <string.h>

static uint64_t tuple_hash(const int32_t *v, int n)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < n; i++) {
        h ^= (uint32_t)v[i];
        h *= 1099511628211ull;
    }
    return h ^ (h >> 29);
}

/* Assigns each cell the id of its tuple (first appearance order); returns the number of ids.
 * tuples holds n rows of width m; ids gets n entries. */
static int group_tuples(const int32_t *tuples, int n, int m, int32_t *ids, int32_t *first)
{
    size_t cap = 16;
    while (cap < 2 * (size_t)n)
        cap <<= 1;
    int32_t *slot = xalloc(sizeof(int32_t) * cap);
    memset(slot, 0xff, sizeof(int32_t) * cap);
    int count = 0;
    for (int c = 0; c < n; c++) {
        const int32_t *v = tuples + (size_t)c * m;
        size_t h = tuple_hash(v, m) & (cap - 1);
        for (;;) {
            int32_t id = slot[h];
            if (id < 0) {
                slot[h] = count;
                first[count] = c;
                ids[c] = count++;
                break;
            }
            if (memcmp(tuples + (size_t)first[id] * m, v, sizeof(int32_t) * m) == 0) {
                ids[c] = id;
                break;
            }
            h = (h + 1) & (cap - 1);
        }
    }
    xfree(slot);
    return count;
}

typedef struct {
    int32_t id, count, first;
} pattern_use;

static int by_use(const void *pa, const void *pb)
{
    const pattern_use *a = pa, *b = pb;
    if (a->count != b->count)
        return b->count - a->count;
    return a->first - b->first;
}

/* Pattern 0 becomes the most frequent one, and so on (ties: first appearance): the rows most
 * cells use come first, where a size-limited copy (constant memory) keeps them. */
static void renumber_by_frequency(int32_t *ids, int32_t *first, int n, int npat)
{
    pattern_use *u = xalloc(sizeof(pattern_use) * (size_t)npat);
    int32_t *to = xalloc(sizeof(int32_t) * (size_t)npat), *nf = xalloc(sizeof(int32_t) * (size_t)npat);
    for (int k = 0; k < npat; k++) {
        u[k].id = k;
        u[k].first = first[k];
    }
    for (int c = 0; c < n; c++)
        u[ids[c]].count++;
    qsort(u, (size_t)npat, sizeof(pattern_use), by_use);
    for (int k = 0; k < npat; k++) {
        to[u[k].id] = k;
        nf[k] = u[k].first;
    }
    for (int c = 0; c < n; c++)
        ids[c] = to[ids[c]];
    memcpy(first, nf, sizeof(int32_t) * (size_t)npat);
    xfree(u);
    xfree(to);
    xfree(nf);
}

int patterns_group(const int32_t *tuples, int n, int m, int32_t *ids, int32_t *first,
                   int *top_count)
{
    int npat = group_tuples(tuples, n, m, ids, first);
    renumber_by_frequency(ids, first, n, npat);
    int32_t *count = xalloc(sizeof(int32_t) * (size_t)(npat > 0 ? npat : 1));
    *top_count = 0;
    for (int c = 0; c < n; c++)
        if (++count[ids[c]] > *top_count)
            *top_count = count[ids[c]];
    xfree(count);
    return npat;
}

void patterns_table(const int32_t *rows, int n, int m, int compressed, pattern_table *out)
{
    int32_t *ids = xalloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    int32_t *first = xalloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    out->npat = patterns_group(rows, n, m, ids, first, &out->top_count);
    out->ntab = compressed ? out->npat : n;
    out->tab = xalloc(sizeof(int32_t) * (size_t)out->ntab * (size_t)m);
    for (int row = 0; row < out->ntab; row++) {
        int c = compressed ? first[row] : row;
        for (int e = 0; e < m; e++)
            out->tab[(size_t)e * out->ntab + row] = rows[(size_t)c * m + e];
    }
    out->pat = NULL;
    if (compressed) {
        out->pat = ids;
        ids = NULL;
    }
    xfree(ids);
    xfree(first);
}
