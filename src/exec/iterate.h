/* iterate.h — iterated runs (docs/out-of-core.md): a state advanced T time steps, on the CPU.
 * Which inputs are the state, from which outputs they are carried and the fold are the
 * stencil's registry line (stencils/registry.h), e.g.
 *
 *   laplap     in <- in - laplap(in)/64          (state: in)
 *   hdiff      in <- out, coeff fixed            (state: in)
 *   fastwaves  u_pos, v_pos <- u_out, v_out      (state: u_pos, v_pos; the other inputs fixed)
 *   graphlap   in <- in - graphlap(in)/1024      (state: in; stencils/graphlap.h)
 *   fluxdiff   in <- out                         (state: in; its coefficients pb->coef, fixed)
 *
 * One step computes the stencil's outputs with its body (cpu_run_block: the bodies of
 * stencils/<name>.h, unchanged) and then folds them into the state in a second pass over the same
 * points. The output fields are scratch. (The GPU fuses the fold into the stencil's kernel and
 * alternates between state and output fields, with the same arithmetic: src/plan/ooc_gpu.c.)
 *
 * Boundary rule: a step updates the inner cells at the computed levels [0, nz - ztop) only. Halo
 * cells, and the top level of fastwaves, keep their initial values for the whole run.
 *
 * Every point is computed by the same operations in the same order whatever the threads or the
 * cutting into blocks, so results are deterministic bit for bit. */
#ifndef PILLAR_ITERATE_H
#define PILLAR_ITERATE_H

#include "cpu_exec.h"

#include <stdint.h>

/* Fields carried from step to step (iter_carry, stencils/stencil.h): state input in[j] takes
 * the value of output out[j]. n = 0: the stencil has no iterated runs. */
const iter_carry *iter_carried(stencil_t s);

/* One time step on the points of block b of field set f (inputs then outputs, in the stencil's
 * order), neighbours from table nt (any storage) or, for a graph stencil, the lists ell; a
 * stencil that reads coefficients (fluxdiff) finds them at b.coef, numbered as ell's cells. Only
 * the state at b's points changes; the caller sees to it that their neighbours hold the current
 * state. */
void iter_step(stencil_t s, precision_t p, const nbtable *nt, const ell_table *ell, cpu_block b,
               fieldset f);

/* The second half of iter_step alone: the state at b's points folded with the outputs there
 * (which cpu_run_block computed). A step split into several blocks of the body (src/dist/: the
 * interior while messages fly, the rest after) folds once over their union, the same bits. */
void iter_fold(stencil_t s, precision_t p, cpu_block b, fieldset f);

/* Points of the carried fields (all cells and levels of pb's unstructured grid) whose bits differ
 * between states a and b; the points compared go to *points when it is not NULL. */
long iter_state_differ(const problem *pb, fieldset a, fieldset b, long *points);

/* A 64-bit FNV-1a hash of the carried fields' bits in state f, over the same points as
 * iter_state_differ (field by field, level by level, cell by cell, one value a word): runs of the
 * same grid whose states are equal bit for bit print equal hashes, so a distributed run on P ranks
 * is compared with one on a single rank when the CPU cannot recompute either. */
uint64_t iter_state_hash(const problem *pb, fieldset f);
/* Its pieces: the hash's start, and the hash h continued over n values of precision p (one value
 * a word), so that a state gathered level by level hashes to iter_state_hash's value. */
#define ITER_HASH_START 14695981039346656037ull
uint64_t iter_hash_values(uint64_t h, precision_t p, const void *values, size_t n);

/* Advances state f (laid out on pb's unstructured grid) by `steps` steps in core. */
void iter_run_incore(const problem *pb, fieldset f, int steps);

/* A new field set on pb's unstructured grid: inputs copied from pb->uf (the initial state and the
 * fixed inputs), outputs poisoned. Free with iter_fields_free. */
fieldset iter_fields_copy(const problem *pb);
void iter_fields_free(const problem *pb, fieldset *f);

#endif
