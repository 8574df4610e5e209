/* fluxdiff.h — one explicit step of flux-form diffusion on cells with any number of neighbours
 * (docs/stencils.md, "fluxdiff"). One field in, one out, radius 1. With N(c) the cells across
 * the edges of c:
 *
 *   out(c) = in(c) + r(c) · Σ_{n_j ∈ N(c)} κ(c, j) · (in(n_j) − in(c))
 *
 * the sum taken left to right in the order of c's row; κ(c, j) = ℓ_e / d_e of the edge e between
 * c and n_j (its length over the distance of the two cell centres), r(c) = Δt / A(c) (A the
 * cell's area): coefficient fields per edge and per cell, precomputed once from the mesh's
 * coordinates (stencils/fluxdiff.c). κ is the same seen from both sides of an edge, so the flux
 * κ·(in(n) − in(c)) leaving c is the one entering n: Σ A(c)·out(c) = Σ A(c)·in(c) on a closed
 * mesh, and a constant field stays constant bit for bit (every difference is 0).
 *
 * Its output is the next state: an iterated run (--steps) carries out into in with the fold `v`
 * (stencils/registry.h), the coefficients read-only inputs of every step; r(c)·Σ_j κ(c, j) <= ½
 * keeps each step a convex combination, so max |in| never grows (docs/stencils.md).
 *
 * The executor defines the graph body's names (stencils/graphlap.h) and the coefficient
 * accessors of stencils/coeffs.h, GCOEF(i, c) and GCOEFJ(i, c, j), which read its two arrays:
 *   FLUXDIFF_R(c)         r(c)      GCOEF(0, c)       per cell
 *   FLUXDIFF_KAPPA(c, j)  κ(c, j)   GCOEFJ(1, c, j)   per neighbour slot
 * and runs the body for inner cells only (every edge of the cell has a neighbour). */
#ifndef PILLAR_FLUXDIFF_H
#define PILLAR_FLUXDIFF_H
#include "graphlap.h" /* GLD and the graph body's conventions */

/* its coefficients (stencils/coeffs.h): array 0 r per cell, array 1 κ per neighbour slot, built
 * from the mesh's coordinates by fluxdiff_coeffs (stencils/fluxdiff.c) */
#define FLUXDIFF_COEFFS {2, COEF_SLOT(1), fluxdiff_coeffs, fluxdiff_coeffs_part}
#ifdef PILLAR_STENCIL_COEFFS_H /* host code that reaches the descriptors (stencils/stencil.h) */
int fluxdiff_coeffs(coef_set *out, const struct ugrid *g, const struct mesh *m, precision_t p,
                    int file_order, const char *file);
/* The same on a rank's piece (coef_build_part_fn): Δt's minimum through min_all */
int fluxdiff_coeffs_part(coef_set *out, const struct ugrid *g, const struct mesh *m,
                         precision_t p, const char *file, double (*min_all)(void *u, double x),
                         void *u);
#endif
#define FLUXDIFF_R(c) GCOEF(0, c)
#define FLUXDIFF_KAPPA(c, j) GCOEFJ(1, c, j)

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
            const T f_ = FLUXDIFF_KAPPA(c_, j_) * (GLD(in, GNB(c_, j_)) - u_);                            \
            if (j_ == 0)                                                                          \
                s_ = f_;                                                                          \
            else                                                                                  \
                s_ += f_;                                                                         \
        }                                                                                         \
        out[GOUT(c_)] = FOLDED(FLUXDIFF, u_, u_ + FLUXDIFF_R(c_) * s_);                                \
    } while (0)

#endif
