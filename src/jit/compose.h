/* compose.h — the source the compilers see for a user stencil: its body composed with the CPU
 * executor's loops (src/exec/cpu_loops.h) or with one GPU access strategy's kernels
 * (access/<name>.cu), exactly as the built-in stencils are; #line directives keep the user's
 * file name and line numbers in every diagnostic. */
#ifndef PILLAR_JIT_COMPOSE_H
#define PILLAR_JIT_COMPOSE_H

#include "spec.h"

/* A growing NUL-terminated string (xalloc'd; xfree(s) when done). */
typedef struct {
    char *s;
    size_t n, cap;
} jit_text;
void jit_text_add(jit_text *t, const char *fmt, ...);

/* The C source of the CPU shared object: cpu_reg_USER_double/float, cpu_uns_USER_TY_CHCM (or
 * cpu_graph_USER_TY) and the folds user_fold_double/float. checked: the run-time checked mode
 * (every read's level and, for graph stencils, its graph distance checked; docs/own-stencil.md). */
void jit_compose_cpu(const jit_spec *sp, int checked, jit_text *out);

/* The CUDA source of the kernels of strategy file `strategy` ("idxvar", "graph", ...): extern
 * "C" kernels k_USER_TY_CHCM / k_USER_TY_reg; graph stencils kg_USER_TY_CHCM (the offset tables),
 * kg_USER_TY_hex / _tri (the lattice twins), or in "graph" k_graph_USER_TY (the lists). */
void jit_compose_gpu(const jit_spec *sp, const char *strategy, jit_text *out);

#endif
