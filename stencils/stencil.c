/* stencil.c — stencil descriptors and their input data. */
#include "stencil.h"

#include <string.h>

const stencil_info stencil_table[ST_COUNT] = {
    {"laplap", 1, 1, {"in", "out"}, 2, 0, 0, "Laplacian of the Laplacian, 1 field in, radius 2", 0},
    {"hdiff", 2, 1, {"in", "coeff", "out"}, 2, 0, 0,
     "COSMO horizontal diffusion with flux limiter, 2 fields in, radius 2", 0},
    {"fastwaves", 9, 2,
     {"u_pos", "v_pos", "u_tens", "v_tens", "rho", "ppuv", "fx", "wgtfac", "hhl", "u_out", "v_out"},
     1, 1, 1, "COSMO fast-waves u/v update, 9 fields in, 2 out, radius 1, z -1..+1", 0},
    {"graphlap", 1, 1, {"in", "out"}, 2, 0, 0,
     "graph Laplacian applied twice, cells with any number of neighbours (mesh files), radius 2",
     1},
};

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
    if (s == ST_HDIFF && f == 1)
        return 0.05 + 0.05 * r; /* coeff */
    if (s == ST_FASTWAVES) {
        switch (f) {
        case 4: return 1.5 + 0.5 * r;          /* rho */
        case 7: return 0.5 + 0.5 * r;          /* wgtfac */
        case 8: return 100.0 * z + 25.0 * r;   /* hhl: steps of 100 ± 50 */
        default: break;
        }
    }
    return r;
}
