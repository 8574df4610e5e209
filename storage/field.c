/* field.c — allocation and poisoning of fields. */
#include "field.h"

void *field_alloc(precision_t p, size_t len) { return xalloc(prec_size(p) * len); }

void field_poison(precision_t p, void *f, size_t len)
{
    if (p == PREC_FLOAT) {
        uint32_t b = POISON_F32;
        for (size_t i = 0; i < len; i++)
            memcpy((float *)f + i, &b, 4);
    } else {
        uint64_t b = POISON_F64;
        for (size_t i = 0; i < len; i++)
            memcpy((double *)f + i, &b, 8);
    }
}

void field_cells(void *f, int nz, long zstride, size_t es, const int *cell, int n, void *buf,
                 int pack)
{
    char *b = buf;
    for (int z = 0; z < nz; z++) {
        char *fz = (char *)f + (size_t)z * (size_t)zstride * es;
        for (int j = 0; j < n; j++, b += es)
            if (pack)
                memcpy(b, fz + (size_t)cell[j] * es, es);
            else
                memcpy(fz + (size_t)cell[j] * es, b, es);
    }
}
