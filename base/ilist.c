/* ilist.c — growing int32 lists (base/ilist.h). */
#include "ilist.h"

#include "common.h"

void ilist_push(ilist *l, int32_t x)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 1024;
        l->v = xgrow(l->v, sizeof(int32_t) * l->n, sizeof(int32_t) * cap);
        l->cap = cap;
    }
    l->v[l->n++] = x;
}

int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}
