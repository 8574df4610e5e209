/* stencil.h — what each stencil reads and writes, and its input data. */
#ifndef PILLAR_STENCIL_H
#define PILLAR_STENCIL_H

#include "body.h"

#include <stdint.h>

typedef enum { ST_LAPLAP, ST_HDIFF, ST_FASTWAVES, ST_COUNT } stencil_t;

typedef struct {
    const char *name;
    int nin, nout;
    const char *field[PILLAR_MAXF]; /* inputs, then outputs */
    int radius;                     /* horizontal radius: the halo it needs */
    int ztop;                       /* top levels it does not compute */
    int zradius;                    /* levels it reads below and above the current one */
    const char *summary;
} stencil_info;

extern const stencil_info stencil_table[ST_COUNT];
int stencil_parse(const char *s, stencil_t *out); /* 0 on success */

/* Levels [0, nz - ztop) are computed. */
static inline int stencil_zend(stencil_t s, int nz) { return nz - stencil_table[s].ztop; }

/* Value of input field `f` at horizontal position (x, y), level z: deterministic in the seed and
 * physically plausible (SPEC §3): hhl strictly increasing in z, rho in [1,2], wgtfac in [0,1],
 * coeff in [0,0.1], the rest seeded-random in [-1,1]. */
double stencil_input(stencil_t s, int f, int x, int y, int z, uint64_t seed);

#endif
