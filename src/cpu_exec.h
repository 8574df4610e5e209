/* cpu_exec.h — the CPU backend: every stencil on the regular grid and, through table look-ups, on
 * the unstructured grid (any layout and storage); OpenMP across cells. It is also the reference. */
#ifndef PILLAR_CPU_EXEC_H
#define PILLAR_CPU_EXEC_H

#include "problem.h"

/* Computes into the output fields of f (laid out as pb's regular / unstructured grid). */
void cpu_run_regular(const problem *pb, fieldset f);
void cpu_run_unstructured(const problem *pb, fieldset f);

#endif
