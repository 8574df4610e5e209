/* laplap.h — Laplacian of the Laplacian (SPEC §3), one field in, one out, radius 2.
 *   lap(x) = 4·in(x) − (in(W x) + in(E x) + in(S x) + in(N x))
 *   out(c) = 4·lap(c) − (lap(W c) + lap(E c) + lap(S c) + lap(N c)) */
#ifndef PILLAR_LAPLAP_H
#define PILLAR_LAPLAP_H
#include "body.h"

#define LAPLAP_BIND(F)                                                                            \
    const T *RESTRICT in = (const T *)(F).p[0];                                                   \
    T *RESTRICT out = (T *)(F).p[1]

/* 4·c − (w + e + s + n): how both Laplacians combine their five values, in this order */
#define LAPLAP_COMBINE(c, w, e, s, n) ((T)4 * (c) - ((w) + (e) + (s) + (n)))

#define LAPLAP_LAP(x, w, e, s, n)                                                                 \
    LAPLAP_COMBINE(LD(in, x), LD(in, w), LD(in, e), LD(in, s), LD(in, n))

#define LAPLAP_BODY()                                                                             \
    do {                                                                                          \
        T lap_c = LAPLAP_LAP(C, W, E, S, N);                                                      \
        T lap_w = LAPLAP_LAP(W, WW, C, SW, NW);                                                   \
        T lap_e = LAPLAP_LAP(E, C, EE, SE, NE);                                                   \
        T lap_s = LAPLAP_LAP(S, SW, SE, SS, C);                                                   \
        T lap_n = LAPLAP_LAP(N, NW, NE, C, NN);                                                   \
        ST(out, DAMPED(LD(in, C), LAPLAP_COMBINE(lap_c, lap_w, lap_e, lap_s, lap_n)));           \
    } while (0)

/* relations the body reads (bit r = relation r of grids/grid.h) */
#define LAPLAP_RELS 0xfffu
#define LAPLAP_ZEND(nz) (nz)
#endif
