/* hdiff.h — COSMO horizontal diffusion with flux limiter (docs/stencils.md); in, coeff -> out; radius 2.
 *   flx(x) = lap(E x) − lap(x), zeroed if flx(x)·(in(E x) − in(x)) > 0;  fly likewise with N
 *   out(c) = in(c) − coeff(c)·(flx(c) − flx(W c) + fly(c) − fly(S c))
 * written as a sum over the four edges of c: the flux across the edge (c, x) for x = W, E, S, N
 * of c is taken from the two cells sharing it, lap(x) − lap(c) (each lap from that cell's own
 * neighbours, laplap.h's LAPLAP_LAPS), limited with in(x) − in(c). So it holds on any quad
 * mesh; on a lattice it is the formula above, operation for operation. */
#ifndef PILLAR_HDIFF_H
#define PILLAR_HDIFF_H
#include "laplap.h"

#define HDIFF_BIND(F)                                                                             \
    const T *RESTRICT in = (const T *)(F).p[0];                                                   \
    const T *RESTRICT coeff = (const T *)(F).p[1];                                                \
    T *RESTRICT out = (T *)(F).p[2]

#define HDIFF_LIMIT(flux, hi, lo) ((flux) * (LD(in, hi) - LD(in, lo)) > (T)0 ? (T)0 : (flux))

#define HDIFF_BODY()                                                                              \
    do {                                                                                          \
        LAPLAP_LAPS();                                                                            \
        T flx_c = HDIFF_LIMIT(lap_e - lap_c, E, C);                                               \
        T flx_w = HDIFF_LIMIT(lap_c - lap_w, C, W);                                               \
        T fly_c = HDIFF_LIMIT(lap_n - lap_c, N, C);                                               \
        T fly_s = HDIFF_LIMIT(lap_c - lap_s, C, S);                                               \
        ST(out, LD(in, C) - LD(coeff, C) * (flx_c - flx_w + fly_c - fly_s));                      \
    } while (0)

/* relations the body reads (bit r = relation r of grids/grid.h) */
#define HDIFF_RELS REL_ALL
#endif
