/* stencil.h — what each stencil reads and writes, and its input data: the stencils of
 * stencils/registry.h as an enum and a table. */
#ifndef PILLAR_STENCIL_H
#define PILLAR_STENCIL_H

#include "coeffs.h" /* before registry.h: the stencils' build hooks */
#include "registry.h"

#include <stdint.h>

/* The W/E/S/N stencils come first (ST_QUAD_COUNT of them): they read the NREL2 relations of
 * grids/grid.h and run on every grid, layout, storage and access strategy. Then the graph
 * stencils, which read a cell's neighbours as a list of any length (storage/ell.h) and run on
 * mesh files only (pillar run --mesh). ST_<PREFIX> for each line of the registry. */
#define PILLAR_ENUM_(P, A) ST_##P,
#define PILLAR_COUNT_(P, A) +1
typedef enum {
    FOR_EACH_STENCIL(PILLAR_ENUM_, _) FOR_EACH_GRAPH_STENCIL(PILLAR_ENUM_, _) ST_COUNT
} stencil_t;
enum { ST_QUAD_COUNT = 0 FOR_EACH_STENCIL(PILLAR_COUNT_, _) };

/* Fields carried from step to step of an iterated run: state input in[j] takes the value of
 * output field out[j] (an index into the stencil's field list). */
typedef struct {
    int n;
    int in[2], out[2];
} iter_carry;

/* The value of an input: base + scale·r + dz·level, r the noise in [-1, 1) (set = 0: r). */
typedef struct {
    int set;
    double base, scale, dz;
} stencil_range;

typedef struct {
    const char *name;
    int nin, nout;
    const char *field[PILLAR_MAXF]; /* inputs, then outputs */
    int radius;                     /* horizontal radius: the halo it needs */
    int ztop;                       /* top levels it does not compute */
    int zradius;                    /* levels it reads below and above the current one */
    const char *summary;
    int graph;                      /* 1: a graph stencil (neighbour lists), 0: W/E/S/N */
    unsigned rels;                  /* W/E/S/N: the relations the body reads (bit r: relation r) */
    iter_carry carry;               /* iterated runs: n = 0, none */
    stencil_range input[PILLAR_MAXF];
    int framed;                     /* moves vectors in each cell's frame: not where it turns */
    int staged;                     /* has staged kernels */
    int ksteps;                     /* has K-step kernels (--kernel-steps) */
    coef_desc coeffs;               /* graph: the read-only per-cell / per-slot arrays it reads
                                     * (PREFIX_COEFFS, stencils/coeffs.h); n = 0: none */
} stencil_info;

/* Stencils loaded at run time (user stencil files, src/jit/) take the slots after the built-in
 * ones: ids ST_COUNT .. ST_COUNT + ST_USER_SLOTS - 1, filled by stencil_user_add and never
 * changed afterwards. Loops over the built-in stencils (ST_QUAD_COUNT, ST_COUNT) do not see
 * them; stencil_count() counts both. */
#define ST_USER_SLOTS 32
extern stencil_info stencil_table[ST_COUNT + ST_USER_SLOTS];
int stencil_parse(const char *s, stencil_t *out); /* 0 on success; loaded stencils too */

/* The fold of a loaded stencil in each precision (the new state from state s and output v). */
typedef double (*stencil_fold_d)(double s, double v);
typedef float (*stencil_fold_f)(float s, float v);

/* Takes the next free slot for a loaded stencil described by *info (copied; its strings must
 * live as long as the process) with folds fd, ff (NULL: the state is the output). Returns 0 and
 * its id in *out, or -1 with a message when every slot is taken. Thread-safe. */
int stencil_user_add(const stencil_info *info, stencil_fold_d fd, stencil_fold_f ff,
                     stencil_t *out);
/* 1 for a stencil loaded at run time. */
static inline int stencil_is_user(stencil_t s) { return (int)s >= ST_COUNT; }
/* Built-in stencils plus those loaded so far (ids 0 .. stencil_count() - 1). */
int stencil_count(void);

/* The coefficients of stencil s (its descriptor's hook) on grid g from mesh m, checked against
 * the descriptor (count, widths); file_order as coef_build_fn. An empty set (and 0) for a
 * stencil that reads none. Returns 0, or -1 with a message. */
int stencil_coeffs(stencil_t s, coef_set *out, const struct ugrid *g, const struct mesh *m,
                   precision_t p, int file_order, const char *file);
/* The same on a piece of a grid whose other pieces other processes hold (a rank of a model's
 * decomposition): the descriptor's build_part, each grid-wide minimum through min_all
 * (coeffs.h: coef_build_part_fn); refused with a message for a stencil without one. */
int stencil_coeffs_part(stencil_t s, coef_set *out, const struct ugrid *g, const struct mesh *m,
                        precision_t p, const char *file, double (*min_all)(void *u, double x),
                        void *u);

/* Levels [0, nz - ztop) are computed. */
static inline int stencil_zend(stencil_t s, int nz) { return nz - stencil_table[s].ztop; }

/* The fold of stencil s (registry.h) at run time: the new state from state u and output o. */
double stencil_fold_double(stencil_t s, double u, double o);
float stencil_fold_float(stencil_t s, float u, float o);

/* Value of input field `f` at horizontal position (x, y), level z: deterministic in the seed and
 * physically plausible (docs/stencils.md): the registry's ranges (hhl strictly increasing in z,
 * rho in [1,2], wgtfac in [0,1], coeff in [0,0.1]), the rest seeded-random in [-1,1]. */
double stencil_input(stencil_t s, int f, int x, int y, int z, uint64_t seed);

#endif
