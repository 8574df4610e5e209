/* lap.h — the 5-point Laplacian once (docs/stencils.md), one field in, one out, radius 1:
 *   out(c) = 4·in(c) − (in(W c) + in(E c) + in(S c) + in(N c))
 * laplap's inner Laplacian (LAPLAP_LAP), operation for operation: laplap's sign convention (the
 * negative of the Laplacian Σ (in(n) − in(c))). Iterated, it is a step of the heat equation,
 * in ← in − lap(in)/8 = in/2 + Σ in(n)/8 (the fold of its registry line): a convex combination,
 * so the state stays within the range of the initial one. */
#ifndef PILLAR_LAP_H
#define PILLAR_LAP_H
#include "laplap.h"

#define LAP_BIND(F)                                                                               \
    const T *RESTRICT in = (const T *)(F).p[0];                                                   \
    T *RESTRICT out = (T *)(F).p[1]

#define LAP_BODY()                                                                                \
    do {                                                                                          \
        ST(out, FOLDED(LAP, LD(in, C), LAPLAP_LAP(C, W, E, S, N)));                               \
    } while (0)

/* relations the body reads (bit r = relation r of grids/grid.h): W, E, S, N */
#define LAP_RELS 0xfu
#endif
