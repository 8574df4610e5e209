/* coeffs.c — coefficient sets (coeffs.h). */
#include "coeffs.h"

#include "field.h"

#include <string.h>

void coef_set_alloc(coef_set *c, int count, const int *width, int n, precision_t p)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    c->count = count;
    for (int i = 0; i < count; i++) {
        c->width[i] = width[i];
        size_t len = (size_t)width[i] * (size_t)(n > 0 ? n : 1); /* never NULL, even empty */
        c->a[i] = field_alloc(p, len);
        memset(c->a[i], 0, prec_size(p) * len);
    }
}

void coef_set_free(coef_set *c)
{
    for (int i = 0; i < PILLAR_MAXC; i++)
        xfree(c->a[i]);
    memset(c, 0, sizeof *c);
}

int coef_set_gather(coef_set *out, const coef_set *all, const int32_t *gcell, int ncells,
                    precision_t p, const char *who)
{
    const size_t es = prec_size(p);
    coef_set_free(out);
    coef_set_alloc(out, all->count, all->width, ncells, p);
    for (int l = 0; l < ncells; l++) {
        int c = gcell[l];
        if (c < 0 || c >= all->n) {
            perr("%s: local cell %d names cell %d, outside the %d cells of the coefficients", who,
                 l, c, all->n);
            coef_set_free(out);
            return -1;
        }
        for (int i = 0; i < all->count; i++)
            for (int j = 0; j < all->width[i]; j++)
                memcpy((char *)out->a[i] + ((size_t)j * (size_t)ncells + (size_t)l) * es,
                       (const char *)all->a[i] + ((size_t)j * (size_t)all->n + (size_t)c) * es, es);
    }
    return 0;
}

void coef_set_pack(const coef_set *c, size_t es, void *dst)
{
    char *at = dst;
    for (int i = 0; i < c->count; i++) {
        size_t bytes = es * (size_t)c->width[i] * (size_t)c->n;
        memcpy(at, c->a[i], bytes);
        at += bytes;
    }
}
