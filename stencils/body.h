/* body.h — the contract between a stencil body and the code that executes it.
 *
 * A stencil body is written once, in terms of four names that the executor (CPU loop or a GPU
 * access strategy) defines before it expands the body:
 *
 *   NB(R)   field index of relation R of the current cell at the current level, where R is C, one
 *           of W E S N, or XY = X(Y(c)) for X, Y in W E S N: the X neighbour of Y(c) in Y(c)'s
 *           own frame (grids/grid.h), e.g. SW = S(W(c)), EW = E(W(c)), which is c on a lattice
 *   ZS      index distance between two levels
 *   K       the current level
 *   T       the value type (float or double)
 *
 * From these, bodies read and write with LD, LDZ and ST. */
#ifndef PILLAR_BODY_H
#define PILLAR_BODY_H

#ifdef __CUDACC__
#define RESTRICT __restrict__
#else
#define RESTRICT restrict
#endif

/* On the GPU inputs are read through the read-only path: they never alias an output during a
 * kernel, and saying so lets the compiler move loads of one level above the stores of another. */
#ifdef __CUDACC__
#define LD(f, R) __ldg(&(f)[NB(R)])
#define LDZ(f, R, dz) __ldg(&(f)[NB(R) + (dz) * ZS])
#else
#define LD(f, R) ((f)[NB(R)])
#define LDZ(f, R, dz) ((f)[NB(R) + (dz) * ZS])
#endif
#define ST(f, v) ((f)[NB(C)] = (v))

/* FOLDED(PREFIX, state, v): what a stencil whose iterated step has a fold (stencils/registry.h;
 * laplap: state - v/64) stores for its result v at a cell whose state it read as `state`. Here v
 * itself (the CPU folds in a second pass, src/exec/iterate.c); the GPU kernels of iterated runs
 * redefine it to store the fold instead (access/kernels.cuh). */
#define FOLDED(PREFIX, state, v) (v)

/* Relation tokens: table index (-1 = the cell itself; else the R_* of grids/grid.h, XY = X(Y(c)),
 * X taken in Y(c)'s own frame) and regular-grid displacement (on the lattice EW = C etc.). */
#define RIDX_C (-1)
#define RIDX_W 0
#define RIDX_E 1
#define RIDX_S 2
#define RIDX_N 3
#define RIDX_WW 4
#define RIDX_EW 5
#define RIDX_SW 6
#define RIDX_NW 7
#define RIDX_WE 8
#define RIDX_EE 9
#define RIDX_SE 10
#define RIDX_NE 11
#define RIDX_WS 12
#define RIDX_ES 13
#define RIDX_SS 14
#define RIDX_NS 15
#define RIDX_WN 16
#define RIDX_EN 17
#define RIDX_SN 18
#define RIDX_NN 19
#define RX_C 0
#define RX_W (-1)
#define RX_E 1
#define RX_S 0
#define RX_N 0
#define RX_WW (-2)
#define RX_EW 0
#define RX_SW (-1)
#define RX_NW (-1)
#define RX_WE 0
#define RX_EE 2
#define RX_SE 1
#define RX_NE 1
#define RX_WS (-1)
#define RX_ES 1
#define RX_SS 0
#define RX_NS 0
#define RX_WN (-1)
#define RX_EN 1
#define RX_SN 0
#define RX_NN 0
#define RY_C 0
#define RY_W 0
#define RY_E 0
#define RY_S (-1)
#define RY_N 1
#define RY_WW 0
#define RY_EW 0
#define RY_SW (-1)
#define RY_NW 1
#define RY_WE 0
#define RY_EE 0
#define RY_SE (-1)
#define RY_NE 1
#define RY_WS (-1)
#define RY_ES (-1)
#define RY_SS (-2)
#define RY_NS 0
#define RY_WN 1
#define RY_EN 1
#define RY_SN 0
#define RY_NN 2

/* A field set: inputs first, then outputs, in the order of the stencil's field list. */
#define PILLAR_MAXF 11
typedef struct {
    void *p[PILLAR_MAXF];
} fieldset;

#endif
