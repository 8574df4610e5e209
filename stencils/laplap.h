/* laplap.h — Laplacian of the Laplacian (docs/stencils.md), one field in, one out, radius 2.
 *   lap(x) = 4·in(x) − (in(W x) + in(E x) + in(S x) + in(N x))
 *   out(c) = 4·lap(c) − (lap(W c) + lap(E c) + lap(S c) + lap(N c))
 * lap at a neighbour x of c reads x's OWN four neighbours in x's own order (relations XW..NW
 * for x = W(c) and so on, grids/grid.h), so the result holds on any quad mesh, also where the
 * W/E/S/N labels turn; it equals graphlap bit for bit there. On a lattice EW = C, SW = WS, ...:
 * the same values in the same order as the textbook lattice form. */
#ifndef PILLAR_LAPLAP_H
#define PILLAR_LAPLAP_H
#include "body.h"

#define LAPLAP_BIND(F)                                                                            \
    const T *RESTRICT in = (const T *)(F).p[0];                                                   \
    T *RESTRICT out = (T *)(F).p[1]

/* 4·c − (w + e + s + n): how both Laplacians combine their five values, in this order */
#define LAPLAP_COMBINE(c, w, e, s, n) ((T)4 * (c) - ((w) + (e) + (s) + (n)))

/* The Laplacian at relation x from its five input values. The bodies name it LAPLAP_LAP; a
 * strategy that computes each Laplacian once elsewhere (access/twopass.cu) redefines LAPLAP_LAP
 * to fetch it and computes it with LAPLAP_LAP_FROM_IN. */
#define LAPLAP_LAP_FROM_IN(x, w, e, s, n)                                                         \
    LAPLAP_COMBINE(LD(in, x), LD(in, w), LD(in, e), LD(in, s), LD(in, n))
#define LAPLAP_LAP(x, w, e, s, n) LAPLAP_LAP_FROM_IN(x, w, e, s, n)

/* Declares lap_c and lap_w, lap_e, lap_s, lap_n: the Laplacian at c and at each of its
 * neighbours, each from that cell's own row of neighbours (shared by laplap and hdiff). */
#define LAPLAP_LAPS()                                                                             \
    T lap_c = LAPLAP_LAP(C, W, E, S, N);                                                          \
    T lap_w = LAPLAP_LAP(W, WW, EW, SW, NW);                                                      \
    T lap_e = LAPLAP_LAP(E, WE, EE, SE, NE);                                                      \
    T lap_s = LAPLAP_LAP(S, WS, ES, SS, NS);                                                      \
    T lap_n = LAPLAP_LAP(N, WN, EN, SN, NN)

#define LAPLAP_BODY()                                                                             \
    do {                                                                                          \
        LAPLAP_LAPS();                                                                            \
        ST(out, FOLDED(LAPLAP, LD(in, C), LAPLAP_COMBINE(lap_c, lap_w, lap_e, lap_s, lap_n)));     \
    } while (0)

/* relations the body reads (bit r = relation r of grids/grid.h): all NREL2 */
#define LAPLAP_RELS REL_ALL
#endif
