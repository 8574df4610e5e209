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
 * The executor defines, besides T:
 *   GDEG(q)     number of neighbours of plane cell q
 *   GNB(q, j)   plane cell of neighbour j of q, 0 <= j < GDEG(q)
 *   GAT(q)      field index of plane cell q at the current level
 * and runs the body for inner cells only (all their neighbours and their neighbours' neighbours
 * present; every cell within distance 1 has at least one neighbour). */
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

/* 4·MESH_MAXDEG² (grids/mesh.h: MESH_MAXDEG = 16), the damping of an iterated step. */
#define GRAPHLAP_DAMPING 1024

#define GRAPHLAP_BIND(F)                                                                          \
    const T *RESTRICT in = (const T *)(F).p[0];                                                   \
    T *RESTRICT out = (T *)(F).p[1]

/* lap of plane cell q into the variable named res. */
#define GRAPHLAP_LAP(res, q)                                                                      \
    do {                                                                                          \
        const int q_ = (q), d_ = GDEG(q_);                                                        \
        T s_ = GLD(in, GNB(q_, 0));                                                               \
        GRAPH_LOOP for (int j_ = 1; j_ < d_; j_++)                                                           \
            s_ += GLD(in, GNB(q_, j_));                                                           \
        (res) = (T)d_ * GLD(in, q_) - s_;                                                         \
    } while (0)

/* out at plane cell c. */
#define GRAPHLAP_BODY(c)                                                                          \
    do {                                                                                          \
        const int c_ = (c), dc_ = GDEG(c_);                                                       \
        T lap_c, lap_n, sum;                                                                      \
        GRAPHLAP_LAP(lap_c, c_);                                                                  \
        GRAPHLAP_LAP(sum, GNB(c_, 0));                                                            \
        GRAPH_LOOP for (int k_ = 1; k_ < dc_; k_++) {                                                        \
            GRAPHLAP_LAP(lap_n, GNB(c_, k_));                                                     \
            sum += lap_n;                                                                         \
        }                                                                                         \
        out[GAT(c_)] = FOLDED(GRAPHLAP, GLD(in, c_), (T)dc_ * lap_c - sum);                        \
    } while (0)

#endif
