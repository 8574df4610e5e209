/* stencil.c — the stencil table of stencils/registry.h and the stencils' input data. */
#include "stencil.h"

#include "../base/common.h"

#include <pthread.h>
#include <string.h>

/* (the last field, always an output, leads the ranges so that an empty list is valid C) */
#define INPUT(f, base, scale, dz) [f] = {1, base, scale, dz}
#define PILLAR_RELS_QUAD(P) P##_RELS
#define PILLAR_RELS_GRAPH(P) 0u
#define PILLAR_COEFFS_QUAD(P) {0}
#define PILLAR_COEFFS_GRAPH(P) P##_COEFFS
#define PILLAR_IS_GRAPH_QUAD 0
#define PILLAR_IS_GRAPH_GRAPH 1
#define PILLAR_INFO_(A, B, nm, P, kind, nin, nout, fields, radius, ztop, zradius, carry, fold,   \
                     inputs, framed, staged, ksteps, summary)                                     \
    [ST_##P] = {#nm, nin, nout, {PILLAR_LIST fields}, radius, ztop, zradius, summary,             \
                PILLAR_IS_GRAPH_##kind, PILLAR_RELS_##kind(P), {PILLAR_LIST carry},               \
                {[PILLAR_MAXF - 1] = {0}, PILLAR_LIST inputs}, framed, staged, ksteps,            \
                PILLAR_COEFFS_##kind(P)},
stencil_info stencil_table[ST_COUNT + ST_USER_SLOTS] = {PILLAR_STENCILS(PILLAR_INFO_, _, _)};

/* Loaded stencils: how many slots are taken, and their folds. */
static int user_count;
static stencil_fold_d user_fold_d[ST_USER_SLOTS];
static stencil_fold_f user_fold_f[ST_USER_SLOTS];
static pthread_mutex_t user_lock = PTHREAD_MUTEX_INITIALIZER;

int stencil_user_add(const stencil_info *info, stencil_fold_d fd, stencil_fold_f ff,
                     stencil_t *out)
{
    pthread_mutex_lock(&user_lock);
    int k = user_count;
    if (k < ST_USER_SLOTS) {
        stencil_table[ST_COUNT + k] = *info;
        user_fold_d[k] = fd;
        user_fold_f[k] = ff;
        __atomic_store_n(&user_count, k + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&user_lock);
    if (k >= ST_USER_SLOTS) {
        perr("%s: no room for another loaded stencil (%d at most per process)", info->name,
             ST_USER_SLOTS);
        return -1;
    }
    *out = (stencil_t)(ST_COUNT + k);
    return 0;
}

/* The descriptor of s's coefficients when its hooks can build them (msg otherwise). */
static const coef_desc *coef_hooks(stencil_t s, int part)
{
    const coef_desc *d = &stencil_table[s].coeffs;
    if (d->n > PILLAR_MAXC || !d->build) {
        perr("%s: its coefficient descriptor is wrong (%d arrays, at most %d, and a build hook)",
             stencil_table[s].name, d->n, PILLAR_MAXC);
        return NULL;
    }
    if (part && !d->build_part) {
        perr("%s: its coefficients are made from the whole grid only", stencil_table[s].name);
        return NULL;
    }
    return d;
}

/* Whether the hook built the arrays of descriptor d (0), or -1 with a message (out freed). */
static int built_as_described(stencil_t s, const coef_desc *d, coef_set *out, const ugrid *g)
{
    int ok = out->count == d->n;
    for (int i = 0; ok && i < d->n; i++)
        ok = out->width[i] == coef_desc_width(d, i, g->adjw);
    if (ok)
        return 0;
    perr("%s: its coefficient hook built %d arrays, not the %d of its descriptor in their widths",
         stencil_table[s].name, out->count, d->n);
    coef_set_free(out);
    return -1;
}

int stencil_coeffs(stencil_t s, coef_set *out, const struct ugrid *g, const struct mesh *m,
                   precision_t p, int file_order, const char *file)
{
    memset(out, 0, sizeof *out);
    if (stencil_table[s].coeffs.n == 0)
        return 0;
    const coef_desc *d = coef_hooks(s, 0);
    if (!d || d->build(out, g, m, p, file_order, file) != 0)
        return -1;
    return built_as_described(s, d, out, g);
}

int stencil_coeffs_part(stencil_t s, coef_set *out, const struct ugrid *g, const struct mesh *m,
                        precision_t p, const char *file, double (*min_all)(void *u, double x),
                        void *u)
{
    memset(out, 0, sizeof *out);
    if (stencil_table[s].coeffs.n == 0)
        return 0;
    const coef_desc *d = coef_hooks(s, 1);
    if (!d || d->build_part(out, g, m, p, file, min_all, u) != 0)
        return -1;
    return built_as_described(s, d, out, g);
}

int stencil_count(void) { return ST_COUNT + __atomic_load_n(&user_count, __ATOMIC_ACQUIRE); }

#define PILLAR_FOLD_CASE_(P, TY)                                                                  \
    case ST_##P: return stencil_fold_##P##_##TY(u, o);
double stencil_fold_double(stencil_t s, double u, double o)
{
    switch (s) {
        FOR_EACH_ANY_STENCIL(PILLAR_FOLD_CASE_, double)
    default: {
        stencil_fold_d f = stencil_is_user(s) ? user_fold_d[s - ST_COUNT] : NULL;
        return f ? f(u, o) : o;
    }
    }
}

float stencil_fold_float(stencil_t s, float u, float o)
{
    switch (s) {
        FOR_EACH_ANY_STENCIL(PILLAR_FOLD_CASE_, float)
    default: {
        stencil_fold_f f = stencil_is_user(s) ? user_fold_f[s - ST_COUNT] : NULL;
        return f ? f(u, o) : o;
    }
    }
}

int stencil_parse(const char *s, stencil_t *out)
{
    for (int i = 0, n = stencil_count(); i < n; i++)
        if (strcmp(s, stencil_table[i].name) == 0) {
            *out = (stencil_t)i;
            return 0;
        }
    return -1;
}

/* Uniform in [-1, 1], a hash of the position, the field and the seed. */
static double noise(int f, int x, int y, int z, uint64_t seed)
{
    uint64_t h = seed ^ 0x243f6a8885a308d3ull;
    uint64_t v[4] = {(uint64_t)f, (uint64_t)(uint32_t)x, (uint64_t)(uint32_t)y, (uint64_t)(uint32_t)z};
    for (int i = 0; i < 4; i++) {
        h ^= v[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h ^= h >> 31;
        h *= 0xbf58476d1ce4e5b9ull;
        h ^= h >> 29;
    }
    return (double)(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

double stencil_input(stencil_t s, int f, int x, int y, int z, uint64_t seed)
{
    double r = noise(f, x, y, z, seed);
    const stencil_range *q = &stencil_table[s].input[f];
    if (!q->set)
        return r;
    double v = q->base + q->scale * r; /* base 0: exactly scale·r */
    return q->dz != 0 ? q->dz * z + v : v;
}
