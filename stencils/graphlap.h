/* graphlap.h — the graph Laplacian applied twice, for cells with any number of neighbours
 * (triangles, quads, hexagons, mixed meshes). One field in, one out, radius 2 (in graph
 * distance). With N(x) the cells across the edges of x and deg(x) = |N(x)|:
 *
 *   lap(x) = deg(x)·in(x) − Σ_{n ∈ N(x)} in(n)          (L = D − A, the positive semi-definite
 *   out(c) = deg(c)·lap(c) − Σ_{n ∈ N(c)} lap(n)          graph Laplacian; out = L²·in)
 *
 * the sums taken left to right in the order of the neighbour table. On a quad mesh whose cells
 * list their neighbours as W, E, S, N this is laplap (docs/stencils.md) operation for operation:
 * 4·in(x) − (((in(W x) + in(E x)) + in(S x)) + in(N x)), and the neighbours of W c in its own
 * order are WW, EW, SW, NW, exactly the terms of laplap's lap(W c) (grids/grid.h). So on every
 * quad mesh, seams with turning labels included, graphlap equals laplap bit for bit
 * (tests/test_graph.c checks it); the sign convention is
 * laplap's (the negative of the Laplacian Σ (in(n) − in(x))); applied twice the sign cancels,
 * so out is also that Laplacian applied twice.
 *
 * Fused: one pass, lap of each neighbour recomputed from its own neighbours in registers (no
 * temporary field, the memory traffic of laplap: one read of in, one write of out, per point);
 * it costs deg(c)·(deg(n)+1) extra loads per point, mostly from cache.
 *
 * Iterated runs (docs/stencils.md, "graphlap in time"): the state advances by
 *
 *   in <- in - graphlap(in) / GRAPHLAP_DAMPING,   GRAPHLAP_DAMPING = 4·MESH_MAXDEG² = 1024
 *
 * (the fold of its registry line). L's eigenvalues lie in [0, 2·maxdeg], so those of L² (and of
 * the part of it that acts on the inner cells) in [0, 4·maxdeg²]: dividing by 4·maxdeg² puts
 * the step's amplification factors in [0, 1] on every mesh pillar reads (maxdeg <= MESH_MAXDEG),
 * a damping that neither grows nor oscillates. A power of two: the division is exact. The body
 * stores through FOLDED, so the GPU kernels of iterated runs fuse the fold.
 *
 * The executor defines, besides T (docs/stencils.md, "The graph body interface"):
 *   GDEG(c)       number of neighbours of the cell c being computed
 *   GNB(c, j)     cell of neighbour j of c, 0 <= j < GDEG(c)
 *   GDEG2(c, k)   number of neighbours of c's neighbour k
 *   GNB2(c, k, j) cell of neighbour j of c's neighbour k, in that neighbour's own row order
 *                 (chasing storage: GNB(GNB(c, k), j); non-chasing: read from c's own row)
 *   GFOR(k, lo, d) the loop header of k over lo..d-1 along c's ring: a plain loop, or
 *                 unrolled to MESH_MAXDEG guarded steps where c's ring is held in registers
 *   GFOR2(k, lo, d) the same along a neighbour's ring (GRAPH_FOR_PLAIN where the degree is
 *                 read from a table; a plain loop where it is a constant, on a lattice)
 *   GAT(q)        field index of cell q at the current level; GLD(f, q) reads f there
 *   GOUT(c)       field index written for c (GAT(c) except where cells are local slots)
 * "Cell" is whatever the executor's indices name: a plane cell of the grid, a cell of a lattice
 * addressed by arithmetic, or a slot of a block's shared-memory copy. The body runs for inner
 * cells only (all their neighbours and their neighbours' neighbours present; every cell within
 * distance 1 has at least one neighbour). */
#ifndef PILLAR_GRAPHLAP_H
#define PILLAR_GRAPHLAP_H
#include "body.h"

#ifdef __CUDACC__
#define GLD(f, q) __ldg(&(f)[GAT(q)])
#define GRAPH_LOOP _Pragma("unroll 1") /* the degree is not known at compile time */
#else
#define GLD(f, q) ((f)[GAT(q)])
#define GRAPH_LOOP
#endif
/* The loop along a neighbour's ring (never unrolled: its degree is not known at compile time). */
#define GRAPH_FOR_PLAIN(k, lo, d) GRAPH_LOOP for (int k = (lo); k < (d); k++)

/* 4·MESH_MAXDEG² (grids/mesh.h: MESH_MAXDEG = 16), the damping of an iterated step. */
#define GRAPHLAP_DAMPING 1024

/* graphlap reads no coefficients (stencils/coeffs.h; stencils/fluxdiff.h does) */
#define GRAPHLAP_COEFFS {0}

#define GRAPHLAP_BIND(F)                                                                          \
    const T *RESTRICT in = (const T *)(F).p[0];                                                   \
    T *RESTRICT out = (T *)(F).p[1]

/* Neighbour j of c, of c's neighbour k_ (as the two rings the body reads). */
#define GRAPHLAP_NBC(j) GNB(c_, j)
#define GRAPHLAP_NBN(j) GNB2(c_, k_, j)

/* lap of the cell self with d neighbours NBJ(0..d-1), walked by LOOP, into the variable res. */
#define GRAPHLAP_LAP(res, self, d, NBJ, LOOP)                                                     \
    do {                                                                                          \
        const int d_ = (d);                                                                       \
        T s_ = GLD(in, NBJ(0));                                                                   \
        LOOP(j_, 1, d_)                                                                           \
            s_ += GLD(in, NBJ(j_));                                                               \
        (res) = (T)d_ * GLD(in, self) - s_;                                                       \
    } while (0)

/* out at cell c. */
#define GRAPHLAP_BODY(c)                                                                          \
    do {                                                                                          \
        const int c_ = (c), dc_ = GDEG(c_);                                                       \
        T lap_c, lap_n, sum = 0;                                                                  \
        GRAPHLAP_LAP(lap_c, c_, dc_, GRAPHLAP_NBC, GFOR);                                         \
        GFOR(k_, 0, dc_) {                                                                        \
            GRAPHLAP_LAP(lap_n, GNB(c_, k_), GDEG2(c_, k_), GRAPHLAP_NBN, GFOR2);                 \
            if (k_ == 0)                                                                          \
                sum = lap_n;                                                                      \
            else                                                                                  \
                sum += lap_n;                                                                     \
        }                                                                                         \
        out[GOUT(c_)] = FOLDED(GRAPHLAP, GLD(in, c_), (T)dc_ * lap_c - sum);                      \
    } while (0)

/* ---- the split of two-pass executors (access/graph_twopass.cu): the body above as its inner
 * Laplacian and its outer combination, the same operations in the same order, so the two passes
 * equal GRAPHLAP_BODY bit for bit. A stencil with PREFIX_SPLIT 1 defines both; one with
 * PREFIX_SPLIT 0 (radius 1: stencils/fluxdiff.h) runs PREFIX_BODY in a two-pass executor's first
 * pass. Besides the body's names the executor defines
 *   GLAP(s)        the Laplacian that pass 1 stored at slot s
 *   GLNB(c, k)     slot of the Laplacian of neighbour k of the computed cell c (k < GDEG(c))
 *   GSELF(c)       slot of c's own Laplacian ---- */
#define GRAPHLAP_SPLIT 1

/* Pass 1: the Laplacian of the cell e (any cell within distance 1 of an inner cell) into res,
 * from its own row: GDEG(e) neighbours GNB(e, j), walked by GFOR. */
#define GRAPHLAP_NBE(j) GNB(e_, j)
#define GRAPHLAP_INNER(res, e)                                                                    \
    do {                                                                                          \
        const int e_ = (e);                                                                       \
        GRAPHLAP_LAP(res, e_, GDEG(e_), GRAPHLAP_NBE, GFOR);                                      \
    } while (0)

/* Pass 2: out at the inner cell c from the Laplacians pass 1 stored. */
#define GRAPHLAP_OUTER(c)                                                                         \
    do {                                                                                          \
        const int c_ = (c), dc_ = GDEG(c_);                                                       \
        T sum = GLAP(GLNB(c_, 0));                                                                \
        GFOR(k_, 1, dc_)                                                                          \
            sum += GLAP(GLNB(c_, k_));                                                            \
        out[GOUT(c_)] = FOLDED(GRAPHLAP, GLD(in, c_), (T)dc_ * GLAP(GSELF(c_)) - sum);            \
    } while (0)

#endif
