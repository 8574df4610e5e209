/* gpu.h — the GPU side of a user stencil (CUDA builds with NVRTC, PILLAR_HAVE_NVRTC): for each
 * access strategy the composition (compose.h) compiled by NVRTC into a cubin for the device's
 * compute capability, cached on disk by source, strategy and architecture, loaded with the
 * driver API (cuModuleLoadData, cuModuleGetFunction; libcuda opened with dlopen, so that pillar
 * also starts where no driver is installed) and launched with cuLaunchKernel. */
#ifndef PILLAR_JIT_GPU_H
#define PILLAR_JIT_GPU_H

#include "spec.h"
#include "src/exec/loaded.h"

/* Fills lc's GPU entries for loaded stencil s, whose spec (kept by the caller for the life of
 * the process) is sp. */
void jit_gpu_attach(stencil_t s, const jit_spec *sp, loaded_code *lc);

/* Compiles the module of strategy file `strategy` for architecture arch ("sm_90") into a cubin
 * in the cache (or finds it there): its path into path. 0 or -1 with NVRTC's log. */
int jit_gpu_compile(const jit_spec *sp, const char *strategy, const char *arch, char *path,
                    size_t n);

/* The strategy files (access/<name>.cu) that serve sp: W/E/S/N stencils every one with kernel
 * tables but staged; graph stencils "graph" (the lists) and every one with graph kernels but
 * staged. Returns how many names went into names. */
int jit_gpu_strategies(const jit_spec *sp, const char *names[], int max);

#endif
