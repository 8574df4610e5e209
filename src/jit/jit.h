/* jit.h — stencils of the user's own, compiled at run time (docs/own-stencil.md): a stencil
 * file (or string) in the body contract is read, checked, composed with the CPU executor's loops
 * and compiled by the system C compiler into a shared object (cached on disk, loaded with
 * dlopen); on a CUDA build its GPU kernels are composed with each access strategy and compiled
 * by NVRTC on first use (cached by source, strategy and device). The stencil then takes a slot
 * of the stencil table (stencils/stencil.h) and runs everywhere a built-in one does. */
#ifndef PILLAR_JIT_H
#define PILLAR_JIT_H

#include "stencils/stencil.h"

typedef struct {
    int checked; /* the run-time checked mode: reads outside the declared extent are caught */
    int quiet;   /* no timing line in jit_last (still measured) */
} jit_options;

/* Loads the stencil file at path: 0 and its id in *out, or -1 with a message (the file and
 * line of a wrong header clause or a read outside the radius; the compiler's diagnostics, which
 * name the user's file and lines; no C compiler found). The same file (same bytes, same mode)
 * loaded again gives the same id. */
int jit_load_file(const char *path, const jit_options *o, stencil_t *out);
/* The same from source text; `name` stands for it in messages. */
int jit_load_source(const char *name, const char *source, const jit_options *o, stencil_t *out);

/* How the last load went: "cached" or "compiled", and the seconds it took. */
typedef struct {
    int cached;
    double seconds;
    char so_path[1100];
} jit_report;
const jit_report *jit_last(void);

/* Checked mode: the first read outside its declared extent of loaded stencil s since the last
 * call, described in msg; returns the number of such reads (0: none). Resets the count. */
long jit_violations(stencil_t s, char *msg, size_t n);

/* Compiles (without loading or running: no GPU needed) the GPU kernels of loaded stencil s for
 * every strategy that serves it, for architecture `arch` ("sm_90"); 0, or -1 with NVRTC's
 * message. Without NVRTC: -1 and a message saying so. */
int jit_gpu_compile_all(stencil_t s, const char *arch);

/* 1 when this build can compile GPU kernels at run time (NVRTC linked). */
int jit_have_nvrtc(void);

#endif
