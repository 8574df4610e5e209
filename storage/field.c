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
