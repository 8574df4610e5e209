/* stencil.h — what each stencil reads and writes, and its input data. */
#ifndef PILLAR_STENCIL_H
#define PILLAR_STENCIL_H

#include "body.h"

#include <stdint.h>

/* The W/E/S/N stencils come first (ST_QUAD_COUNT of them): they read the NREL2 relations of
 * grids/grid.h and run on every grid, layout, storage and access strategy. Then the graph
 * stencils, which read a cell's neighbours as a list of any length (storage/ell.h) and run on
 * mesh files only (pillar run --mesh). */
typedef enum { ST_LAPLAP, ST_HDIFF, ST_FASTWAVES, ST_GRAPHLAP, ST_COUNT } stencil_t;
#define ST_QUAD_COUNT 3

typedef struct {
    const char *name;
    int nin, nout;
    const char *field[PILLAR_MAXF]; /* inputs, then outputs */
    int radius;                     /* horizontal radius: the halo it needs */
    int ztop;                       /* top levels it does not compute */
    int zradius;                    /* levels it reads below and above the current one */
    const char *summary;
    int graph;                      /* 1: a graph stencil (neighbour lists), 0: W/E/S/N */
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
