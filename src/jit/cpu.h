/* cpu.h — a user stencil compiled for the CPU: the composition (compose.h) compiled by the
 * system C compiler into a cached shared object and loaded with dlopen. */
#ifndef PILLAR_JIT_CPU_H
#define PILLAR_JIT_CPU_H

#include "spec.h"
#include "src/exec/loaded.h"

typedef struct {
    void *handle;                 /* dlopen's */
    stencil_fold_d fold_d;
    stencil_fold_f fold_f;
    int *violations;              /* checked mode: count of reads outside the extent */
    long *violation;              /* the first: kind, level, cell/dz, other */
    unsigned long long key;       /* the cache key */
    int cached;                   /* found in the cache */
} jit_cpu;

/* Compiles (or finds in the cache) and loads sp's shared object; fills lc's CPU entries.
 * 0 or -1 with a message. */
int jit_cpu_load(const jit_spec *sp, int checked, jit_cpu *out, loaded_code *lc);

#endif
