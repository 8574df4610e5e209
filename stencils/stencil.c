/* stencil.c — the stencil table of stencils/registry.h and the stencils' input data. */
#include "stencil.h"

#include <string.h>

/* (the last field, always an output, leads the ranges so that an empty list is valid C) */
#define INPUT(f, base, scale, dz) [f] = {1, base, scale, dz}
#define PILLAR_RELS_QUAD(P) P##_RELS
#define PILLAR_RELS_GRAPH(P) 0u
#define PILLAR_GEOMETRY_QUAD(P) 0
#define PILLAR_GEOMETRY_GRAPH(P) P##_GEOMETRY
#define PILLAR_IS_GRAPH_QUAD 0
#define PILLAR_IS_GRAPH_GRAPH 1
#define PILLAR_INFO_(A, B, nm, P, kind, nin, nout, fields, radius, ztop, zradius, carry, fold,   \
                     inputs, framed, staged, ksteps, summary)                                     \
    [ST_##P] = {#nm, nin, nout, {PILLAR_LIST fields}, radius, ztop, zradius, summary,             \
                PILLAR_IS_GRAPH_##kind, PILLAR_RELS_##kind(P), {PILLAR_LIST carry},               \
                {[PILLAR_MAXF - 1] = {0}, PILLAR_LIST inputs}, framed, staged, ksteps,            \
                PILLAR_GEOMETRY_##kind(P)},
const stencil_info stencil_table[ST_COUNT] = {PILLAR_STENCILS(PILLAR_INFO_, _, _)};

#define PILLAR_FOLD_CASE_(P, TY)                                                                  \
    case ST_##P: return stencil_fold_##P##_##TY(u, o);
double stencil_fold_double(stencil_t s, double u, double o)
{
    switch (s) {
        FOR_EACH_ANY_STENCIL(PILLAR_FOLD_CASE_, double)
    default: return o;
    }
}

float stencil_fold_float(stencil_t s, float u, float o)
{
    switch (s) {
        FOR_EACH_ANY_STENCIL(PILLAR_FOLD_CASE_, float)
    default: return o;
    }
}

int stencil_parse(const char *s, stencil_t *out)
{
    for (int i = 0; i < ST_COUNT; i++)
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
