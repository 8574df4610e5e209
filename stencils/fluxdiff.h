/* fluxdiff.h — one explicit step of flux-form diffusion on cells with any number of neighbours
 * (docs/stencils.md, "fluxdiff"). One field in, one out, radius 1. With N(c) the cells across
 * the edges of c:
 *
 *   out(c) = in(c) + r(c) · Σ_{n_j ∈ N(c)} κ(c, j) · (in(n_j) − in(c))
 *
 * the sum taken left to right in the order of c's row; κ(c, j) = ℓ_e / d_e of the edge e between
 * c and n_j (its length over the distance of the two cell centres), r(c) = Δt / A(c) (A the
 * cell's area): coefficient fields per edge and per cell, precomputed once from the mesh's
 * coordinates (storage/geometry.h). κ is the same seen from both sides of an edge, so the flux
 * κ·(in(n) − in(c)) leaving c is the one entering n: Σ A(c)·out(c) = Σ A(c)·in(c) on a closed
 * mesh, and a constant field stays constant bit for bit (every difference is 0).
 *
 * Its output is the next state: an iterated run (--steps) carries out into in with the fold `v`
 * (stencils/registry.h), the coefficients read-only inputs of every step; r(c)·Σ_j κ(c, j) <= ½
 * keeps each step a convex combination, so max |in| never grows (docs/stencils.md).
 *
 * The executor defines the graph body's names (stencils/graphlap.h) and
 *   GAREA(c)      r(c)
 *   GKAPPA(c, j)  κ(c, j)
 * and runs the body for inner cells only (every edge of the cell has a neighbour). */
#ifndef PILLAR_FLUXDIFF_H
#define PILLAR_FLUXDIFF_H
#include "graphlap.h" /* GLD and the graph body's conventions */

/* fluxdiff reads the per-cell and per-edge coefficients of storage/geometry.h */
#define FLUXDIFF_GEOMETRY 1

/* radius 1: no two-pass split (stencils/graphlap.h); two-pass executors run the body */
#define FLUXDIFF_SPLIT 0

#define FLUXDIFF_BIND(F)                                                                          \
    const T *RESTRICT in = (const T *)(F).p[0];                                                   \
    T *RESTRICT out = (T *)(F).p[1]

#define FLUXDIFF_BODY(c)                                                                          \
    do {                                                                                          \
        const int c_ = (c), dc_ = GDEG(c_);                                                       \
        const T u_ = GLD(in, c_);                                                                 \
        T s_ = 0;                                                                                 \
        GFOR(j_, 0, dc_) {                                                                        \
            const T f_ = GKAPPA(c_, j_) * (GLD(in, GNB(c_, j_)) - u_);                            \
            if (j_ == 0)                                                                          \
                s_ = f_;                                                                          \
            else                                                                                  \
                s_ += f_;                                                                         \
        }                                                                                         \
        out[GOUT(c_)] = FOLDED(FLUXDIFF, u_, u_ + GAREA(c_) * s_);                                \
    } while (0)

#endif
