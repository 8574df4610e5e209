/* ooc_cpu.h — out-of-core iterated runs executed chunk by chunk on the CPU: the reference for
 * the device pipeline, with the same gathers, trapezoids and scatters (src/plan/ooc_plan.h). */
#ifndef PILLAR_OOC_CPU_H
#define PILLAR_OOC_CPU_H

#include "ooc_plan.h"

/* Advances state f (laid out on grid g, as iter_run_incore) by `steps` steps in ceil(steps/F)
 * passes. A pass gathers each chunk (cells + halo, held levels) into local arrays, runs up to F
 * steps on its shrinking region and scatters its own points into a second copy of the state, so
 * every chunk of a pass starts from the same state. As on the device, the local arrays of two
 * consecutive chunks alternate: what a chunk shares with the previous one (ooc_chunk_share) is
 * copied from the previous chunk's arrays before its steps, the rest gathered from the host, into
 * arrays poisoned first. A stencil that reads coefficients (fluxdiff) reads each part's, which
 * ooc_plan_coeffs gathered. The result equals iter_run_incore's bit for bit. Returns 0, or -1
 * with a message if the plan was made for another grid or lacks the coefficients. */
int ooc_cpu_run(const ooc_plan *pl, const ugrid *g, fieldset f, int steps);

/* Recomputes `nsample` chunks spread over the plan on the CPU, each from state `initial` for
 * `steps` <= F steps (one pass), and compares the state at their own points with `result` bit
 * for bit: a check of a run too large for a CPU reference. Returns the points that differ; the
 * points compared go to *points; -1 with a message when the plan lacks its coefficients. */
long ooc_cpu_check_chunks(const ooc_plan *pl, const ugrid *g, fieldset initial, fieldset result,
                          int steps, int nsample, long *points);

#endif
