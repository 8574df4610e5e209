/* tile_step.h — one time step at one entry of a ball (storage/tiles.h), for the K-step kernel
 * (access/tiles.cu) and its CPU twin (access/tiles_cpu.c): the stencil body of stencils/<name>.h,
 * unchanged, reading its neighbours from the ball's slots, then the fold of src/exec/iterate.h. The
 * same operations in the same order as one in-core step, so the result is the same bit for bit.
 *
 * The includer defines T, and before TILE_UPDATE: arrays sa (state before the step), sb (after),
 * nb4 (tile_nb4 per entry) and, for hdiff, TILE_COEFF(e) (coeff at entry e's cell and level).
 * Including this header redefines LD and ST of stencils/body.h for the rest of the file. */
#ifndef PILLAR_TILE_STEP_H
#define PILLAR_TILE_STEP_H

#include "../stencils/registry.h"

#include <stdint.h>

/* The W, E, S, N slots of an entry, loaded at once on the GPU. */
#ifdef __CUDACC__
typedef ushort4 tile_nb4;
#else
typedef struct {
    uint16_t x, y, z, w;
} tile_nb4;
#endif

#undef LD
#undef ST
#define LD(f, R) TILE_LD_##f(R)
#define TILE_LD_in(R) sa[s_##R]
#define TILE_LD_coeff(R) TILE_COEFF(s_##R)
#define ST(f, v) (res_ = (v))

/* sb[e] <- the state at entry e after one step of stencil ST (the prefix of a stencil with
 * ksteps = 1 in stencils/registry.h: one state field read across the horizontal
 * neighbourhood) from sa: its body, then its fold. The
 * second-order relations are each neighbour's own slots (grids/grid.h: R_SW = S(W(c)), column S
 * of W(c)'s row). It reads 5 slot quadruples and the state at 21 entries (13 distinct on a
 * lattice), and computes 5 Laplacians that neighbouring entries compute again. */
#define TILE_UPDATE(ST, e)                                                                        \
    do {                                                                                          \
        const tile_nb4 q_ = nb4[e];                                                               \
        const tile_nb4 qw_ = nb4[q_.x], qe_ = nb4[q_.y], qs_ = nb4[q_.z], qn_ = nb4[q_.w];        \
        const int s_C = (e), s_W = q_.x, s_E = q_.y, s_S = q_.z, s_N = q_.w;                     \
        const int s_WW = qw_.x, s_EW = qw_.y, s_SW = qw_.z, s_NW = qw_.w;                        \
        const int s_WE = qe_.x, s_EE = qe_.y, s_SE = qe_.z, s_NE = qe_.w;                        \
        const int s_WS = qs_.x, s_ES = qs_.y, s_SS = qs_.z, s_NS = qs_.w;                        \
        const int s_WN = qn_.x, s_EN = qn_.y, s_SN = qn_.z, s_NN = qn_.w;                        \
        T res_;                                                                                   \
        ST##_BODY();                                                                              \
        sb[e] = STENCIL_FOLD(ST, sa[e], res_);                                                    \
    } while (0)

/* laplap in two passes, on lattice-like balls (storage/tiles.h), where the Laplacian each body
 * computes at a neighbour is that neighbour's own: first TILE_LAP at every entry a step needs,
 * then, after all of them, TILE_LAPLAP_FROM_LAP at the entries it updates. The includer
 * defines the array lap (one value per entry) as well.
 *
 * lap[e] <- the Laplacian of sa at entry e: LAPLAP_LAP(C, W, E, S, N) of the body, reading
 * e's own slots. Where a neighbour is missing (a halo cell, the edge of the ball) the value is
 * meaningless, and no entry that a step updates reads it. */
#define TILE_LAP(e)                                                                               \
    do {                                                                                          \
        const tile_nb4 q_ = nb4[e];                                                               \
        const int s_C = (e), s_W = q_.x, s_E = q_.y, s_S = q_.z, s_N = q_.w;                     \
        lap[e] = LAPLAP_LAP(C, W, E, S, N);                                                       \
    } while (0)

/* sa[e] <- the state at entry e after one laplap step, from the Laplacians around it: the
 * body's last line and the fold. In place: in this pass no other entry reads sa. */
#define TILE_LAPLAP_FROM_LAP(e)                                                                   \
    do {                                                                                          \
        const tile_nb4 q_ = nb4[e];                                                               \
        const T res_ = LAPLAP_COMBINE(lap[e], lap[q_.x], lap[q_.y], lap[q_.z], lap[q_.w]);        \
        sa[e] = STENCIL_FOLD(LAPLAP, sa[e], res_);                                                \
    } while (0)

/* ---- graph stencils (ksteps 2 in stencils/registry.h): balls grown through the neighbour
 * lists, each entry a row of width W_ slots (storage/tiles.h: its degree, then the slots of its
 * neighbours in its own list order). The includer defines T, sa, sb as above, nbw (the block's
 * rows, uint16_t) and W_ (the row width). The body of stencils/<name>.h, unchanged, reads the
 * ball: a neighbour's lists are its own row, so its Laplacian is computed from its own list
 * order, as in core; the body's result goes to res_ and the fold follows, as in TILE_UPDATE. ---- */
#undef GLD
#define GLD(f, q) ((f)[GAT(q)])
#define GDEG(q) ((int)nbw[(long)(q) * W_])
#define GNB(q, j) ((int)nbw[(long)(q) * W_ + 1 + (j)])
#define GDEG2(c, k) GDEG(GNB(c, k))
#define GNB2(c, k, j) GNB(GNB(c, k), j)
#define GFOR(k, lo, d) for (int k = (lo); k < (d); k++)
#define GFOR2(k, lo, d) for (int k = (lo); k < (d); k++)
#define GAT(q) (q)
#define GOUT(q) 0

/* sb[e] <- the state at entry e after one step of graph stencil ST from sa. */
#define GTILE_UPDATE(ST, e)                                                                       \
    do {                                                                                          \
        T res_;                                                                                   \
        T *const out = &res_;                                                                     \
        const T *const in = sa;                                                                   \
        ST##_BODY(e);                                                                             \
        sb[e] = STENCIL_FOLD(ST, sa[e], res_);                                                    \
    } while (0)

#endif
