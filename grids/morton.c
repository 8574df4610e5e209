/* morton.c — Morton keys in 2 and 3 dimensions and the sort of cells by key. */
#include "morton.h"

#include <stdlib.h>

uint64_t morton2(uint32_t x, uint32_t y)
{
    uint64_t k = 0;
    for (int b = 0; b < 32; b++) {
        k |= (uint64_t)((x >> b) & 1u) << (2 * b);
        k |= (uint64_t)((y >> b) & 1u) << (2 * b + 1);
    }
    return k;
}

uint64_t morton3(uint32_t x, uint32_t y, uint32_t z)
{
    uint64_t k = 0;
    for (int b = 0; b < 21; b++) {
        k |= (uint64_t)((x >> b) & 1u) << (3 * b);
        k |= (uint64_t)((y >> b) & 1u) << (3 * b + 1);
        k |= (uint64_t)((z >> b) & 1u) << (3 * b + 2);
    }
    return k;
}

static int cell_key_cmp(const void *pa, const void *pb)
{
    const cell_key *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->cell > b->cell) - (a->cell < b->cell);
}

void cell_key_sort(cell_key *k, size_t n) { qsort(k, n, sizeof *k, cell_key_cmp); }
