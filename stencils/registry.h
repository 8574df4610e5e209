/* registry.h — every stencil pillar knows, one line each (docs/adding-a-stencil.md).
 *
 * Everything else derives from this list: the stencil_t enum and stencil_table
 * (stencils/stencil.[ch]), the kernels of every access strategy (access/kernels.cuh, staged.cu,
 * tiles.cu, graph.cu), the CPU executors (src/exec/cpu_exec.c, access/tiles_cpu.c), the iterated
 * runs' carried fields and fold (src/exec/iterate.c, the out-of-core runners), and the input data.
 *
 * A line is X(A, B, name, PREFIX, kind, nin, nout, (fields), radius, ztop, zradius,
 *              (carry), fold, (inputs), framed, staged, ksteps, summary):
 *   A, B      passed through from the caller (PILLAR_STENCILS(X, A, B))
 *   name      the --stencil name, and the body header stencils/<name>.h
 *   PREFIX    the body's macro prefix: PREFIX_BIND(F), PREFIX_BODY() (graph: PREFIX_BODY(c)),
 *             PREFIX_RELS (W/E/S/N stencils: the relations the body reads), PREFIX_COEFFS
 *             (graph stencils: the coefficients it reads, stencils/coeffs.h; {0}: none, else
 *             built by the hook in its own stencils/<name>.c); the enum is ST_PREFIX
 *   kind      QUAD (W/E/S/N relations, every grid, layout, storage and strategy) or GRAPH
 *             (neighbour lists of any length, mesh files only, one GPU kernel)
 *   nin, nout, (fields)   field names, inputs then outputs
 *   radius    horizontal halo it needs; ztop: top levels not computed; zradius: levels read below
 *             and above the current one
 *   (carry)   iterated runs (src/exec/iterate.h): {n, {input j...}, {output field...}}: input j
 *             takes the value of the output field after each step; n = 0: no iterated runs
 *   fold      the new state from the state s and the stencil's output v, in T: `v`, or e.g.
 *             laplap's damping `s - v / (T)64`; a body whose fold is not `v` stores through
 *             FOLDED(PREFIX, state, v) (stencils/body.h), which GPU kernels of iterated runs fuse
 *   (inputs)  value ranges of inputs other than the default noise r in [-1, 1):
 *             INPUT(field, base, scale, dz) = base + scale·r + dz·level
 *   framed    1: moves a vector given in each cell's own W/E/S/N frame; refused on meshes where
 *             the frame turns between neighbours (mesh_lattice_breaks)
 *   staged    1: has kernels of the staged strategy and (ksteps) K steps per launch: its state is
 *             input 0 `in`, read across radius <= 2; any other input (`coeff`) only at the cell.
 *             ksteps further needs radius 2 (the balls' second-order slots, storage/tiles.h)
 *   ksteps    1: K steps per launch of a W/E/S/N body (access/tiles.cu); 2: of a graph body
 *             (one state field `in`, radius 2) on balls grown through the neighbour lists
 *             (access/gtiles.cu); 0: none
 *
 * Keep the W/E/S/N stencils' lines in any order: the enum puts the QUAD ones first. */
#ifndef PILLAR_REGISTRY_H
#define PILLAR_REGISTRY_H

#include "../grids/grid.h" /* REL_ALL */
#include "fastwaves.h"
#include "fluxdiff.h"
#include "graphlap.h"
#include "hdiff.h"
#include "lap.h"
#include "laplap.h"

#define PILLAR_STENCILS(X, A, B)                                                                  \
    X(A, B, laplap, LAPLAP, QUAD, 1, 1, ("in", "out"), 2, 0, 0, (1, {0}, {1}), s - v / (T)64, (), \
      0, 1, 1, "Laplacian of the Laplacian, 1 field in, radius 2")                                \
    X(A, B, hdiff, HDIFF, QUAD, 2, 1, ("in", "coeff", "out"), 2, 0, 0, (1, {0}, {2}), v,           \
      (INPUT(1, 0.05, 0.05, 0)), 0, 1, 1,                                                         \
      "COSMO horizontal diffusion with flux limiter, 2 fields in, radius 2")                      \
    X(A, B, fastwaves, FASTWAVES, QUAD, 9, 2,                                                     \
      ("u_pos", "v_pos", "u_tens", "v_tens", "rho", "ppuv", "fx", "wgtfac", "hhl", "u_out",      \
       "v_out"),                                                                                  \
      1, 1, 1, (2, {0, 1}, {9, 10}), v,                                                           \
      (INPUT(4, 1.5, 0.5, 0), INPUT(7, 0.5, 0.5, 0), INPUT(8, 0, 25, 100)), 1, 0, 0,              \
      "COSMO fast-waves u/v update, 9 fields in, 2 out, radius 1, z -1..+1")                      \
    X(A, B, lap, LAP, QUAD, 1, 1, ("in", "out"), 1, 0, 0, (1, {0}, {1}), s - v / (T)8, (), 0, 1, 0, \
      "5-point Laplacian once, 1 field in, radius 1")                                             \
    X(A, B, graphlap, GRAPHLAP, GRAPH, 1, 1, ("in", "out"), 2, 0, 0, (1, {0}, {1}),              \
      s - v / (T)GRAPHLAP_DAMPING, (), 0, 0, 2,                                                   \
      "graph Laplacian applied twice, cells with any number of neighbours (mesh files), radius 2") \
    X(A, B, fluxdiff, FLUXDIFF, GRAPH, 1, 1, ("in", "out"), 1, 0, 0, (1, {0}, {1}), v, (), 0, 0, 0, \
      "flux-form diffusion step, edge and cell coefficients from the mesh coordinates, radius 1")

/* ---- helpers that derive from the list ---- */
#define PILLAR_LIST(...) __VA_ARGS__
#define PILLAR_IF_QUAD(M, args) M args
#define PILLAR_IF_GRAPH(M, args)
#define PILLAR_UNLESS_QUAD(M, args)
#define PILLAR_UNLESS_GRAPH(M, args) M args
#define PILLAR_IF_1(M, args) M args
#define PILLAR_IF_0(M, args)
#define PILLAR_IF_2(M, args)
#define PILLAR_IF2_0(M, args)
#define PILLAR_IF2_1(M, args)
#define PILLAR_IF2_2(M, args) M args
#define PILLAR_SELECT_1(M1, M0) M1
#define PILLAR_SELECT_0(M1, M0) M0

/* M(PREFIX, A) for each W/E/S/N stencil, each graph stencil, each with staged kernels, each with
 * K-step kernels. */
#define PILLAR_QUAD_(M, A, name, PREFIX, kind, ...) PILLAR_IF_##kind(M, (PREFIX, A))
#define PILLAR_GRAPH_(M, A, name, PREFIX, kind, ...) PILLAR_UNLESS_##kind(M, (PREFIX, A))
#define PILLAR_STAGED_(M, A, name, PREFIX, kind, nin, nout, fields, radius, ztop, zradius, carry, \
                       fold, inputs, framed, staged, ...)                                         \
    PILLAR_IF_##staged(M, (PREFIX, A))
#define PILLAR_KSTEPS_(M, A, name, PREFIX, kind, nin, nout, fields, radius, ztop, zradius, carry, \
                       fold, inputs, framed, staged, ksteps, summary)                             \
    PILLAR_IF_##ksteps(M, (PREFIX, A))
#define PILLAR_GKSTEPS_(M, A, name, PREFIX, kind, nin, nout, fields, radius, ztop, zradius,     \
                        carry, fold, inputs, framed, staged, ksteps, summary)                     \
    PILLAR_IF2_##ksteps(M, (PREFIX, A))
/* For the W/E/S/N stencils: M1(PREFIX, A) where staged is 1, M0(PREFIX, A) where it is 0. */
#define PILLAR_STAGED_OR_(M, A, name, PREFIX, kind, nin, nout, fields, radius, ztop, zradius,    \
                          carry, fold, inputs, framed, staged, ...)                               \
    PILLAR_IF_##kind(PILLAR_SELECT_##staged M, (PREFIX, A))

#define FOR_EACH_STENCIL(M, A) PILLAR_STENCILS(PILLAR_QUAD_, M, A)
#define FOR_EACH_GRAPH_STENCIL(M, A) PILLAR_STENCILS(PILLAR_GRAPH_, M, A)
/* Every stencil, in the order of the stencil_t enum (W/E/S/N ones first, then graph ones). */
#define FOR_EACH_ANY_STENCIL(M, A) FOR_EACH_STENCIL(M, A) FOR_EACH_GRAPH_STENCIL(M, A)
#define FOR_EACH_STAGED_STENCIL(M, A) PILLAR_STENCILS(PILLAR_STAGED_, M, A)
#define FOR_EACH_KSTEPS_STENCIL(M, A) PILLAR_STENCILS(PILLAR_KSTEPS_, M, A)
/* The graph stencils with K-step kernels (ksteps 2). */
#define FOR_EACH_GRAPH_KSTEPS_STENCIL(M, A) PILLAR_STENCILS(PILLAR_GKSTEPS_, M, A)
#define FOR_EACH_STENCIL_STAGED_OR(M1, M0, A) PILLAR_STENCILS(PILLAR_STAGED_OR_, (M1, M0), A)

/* The fold as functions of each type: stencil_fold_PREFIX_double(s, v), ..._float. */
#ifdef __CUDACC__
#define PILLAR_FOLD_FN __host__ __device__ __forceinline__
#else
#define PILLAR_FOLD_FN static inline
#endif
#define PILLAR_FOLD_ONE_(PREFIX, TY, fold)                                                        \
    PILLAR_FOLD_FN TY stencil_fold_##PREFIX##_##TY(TY s, TY v)                                    \
    {                                                                                             \
        typedef TY T;                                                                             \
        (void)s;                                                                                  \
        (void)(T)0;                                                                               \
        return fold;                                                                              \
    }
#define PILLAR_FOLD_DEF_(A, B, name, PREFIX, kind, nin, nout, fields, radius, ztop, zradius,     \
                         carry, fold, ...)                                                        \
    PILLAR_FOLD_ONE_(PREFIX, double, fold) PILLAR_FOLD_ONE_(PREFIX, float, fold)
PILLAR_STENCILS(PILLAR_FOLD_DEF_, _, _)

/* STENCIL_FOLD(PREFIX, s, v): the fold of stencil PREFIX in the type of v. */
#ifdef __cplusplus
#define PILLAR_FOLD_OVERLOAD_(A, B, name, PREFIX, ...)                                            \
    PILLAR_FOLD_FN double stencil_fold_##PREFIX(double s, double v)                               \
    {                                                                                             \
        return stencil_fold_##PREFIX##_double(s, v);                                              \
    }                                                                                             \
    PILLAR_FOLD_FN float stencil_fold_##PREFIX(float s, float v)                                  \
    {                                                                                             \
        return stencil_fold_##PREFIX##_float(s, v);                                               \
    }
PILLAR_STENCILS(PILLAR_FOLD_OVERLOAD_, _, _)
#define STENCIL_FOLD(PREFIX, s, v) stencil_fold_##PREFIX(s, v)
#else
#define STENCIL_FOLD(PREFIX, s, v)                                                                \
    _Generic((v), float: stencil_fold_##PREFIX##_float, default: stencil_fold_##PREFIX##_double)(s, v)
#endif

#endif
