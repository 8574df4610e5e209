/* field.h — struct-of-arrays fields: one aligned array per field, float or double. */
#ifndef PILLAR_FIELD_H
#define PILLAR_FIELD_H

#include "../base/common.h"

#include <string.h>

/* Bit patterns written into outputs before a run: NaNs no stencil can produce. */
#define POISON_F64 0x7ff4deadbeef0badull
#define POISON_F32 0x7fa0bad0u

void *field_alloc(precision_t p, size_t len);
void field_poison(precision_t p, void *f, size_t len);

static inline double field_get(precision_t p, const void *f, size_t i)
{
    return p == PREC_FLOAT ? (double)((const float *)f)[i] : ((const double *)f)[i];
}

static inline void field_set(precision_t p, void *f, size_t i, double v)
{
    if (p == PREC_FLOAT)
        ((float *)f)[i] = (float)v;
    else
        ((double *)f)[i] = v;
}

/* Field f's values (elements of es bytes, level z at z * zstride) at cells cell[0..n) of levels
 * 0 .. nz - 1, level after level (buf[z * n + j]): copied into buf (pack) or out of it into f. */
void field_cells(void *f, int nz, long zstride, size_t es, const int *cell, int n, void *buf,
                 int pack);

/* Whether element i still holds the poison pattern. */
static inline int field_is_poison(precision_t p, const void *f, size_t i)
{
    if (p == PREC_FLOAT) {
        uint32_t b;
        memcpy(&b, (const float *)f + i, 4);
        return b == POISON_F32;
    }
    uint64_t b;
    memcpy(&b, (const double *)f + i, 8);
    return b == POISON_F64;
}

/* Whether element i of a and j of b hold the same bits. */
static inline int field_same_bits(precision_t p, const void *a, size_t i, const void *b, size_t j)
{
    size_t s = prec_size(p);
    return memcmp((const char *)a + i * s, (const char *)b + j * s, s) == 0;
}

#endif
