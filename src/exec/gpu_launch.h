/* gpu_launch.h — for the host files of the CUDA backend (gpu_runner.c, ooc_gpu.c): checked CUDA
 * calls and the launch of an access strategy's kernel on any parameters. */
#ifndef PILLAR_GPU_LAUNCH_H
#define PILLAR_GPU_LAUNCH_H

#include "access/launch.h"
#include "gpu.h"
#include "loaded.h"

#include <cuda_runtime_api.h>

/* Every CUDA call is checked: a failure raises FAULT_DEVICE (base/common.h) naming the call and
 * its place. */
#define CK(call)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess)                                                                    \
            fault_raise(FAULT_DEVICE, "CUDA error in %s (%s:%d): %s", #call, __FILE__, __LINE__,  \
                        cudaGetErrorString(e_));                                                  \
    } while (0)

typedef struct {
    const void *fn; /* host stub of the kernel; for a loaded stencil the driver's function */
    const loaded_code *loaded; /* a loaded stencil (loaded.h): launched through its code */
    dim3 grid, block;
    size_t smem;    /* dynamic shared memory */
} gpu_launch;

/* The launch of strategy a (aos: its array-of-structs table) for stencil s, precision p and
 * storage column `column` (access/launch.h; a graph stencil has its one kernel, whatever a and
 * column say) with blocks of bx x by x bz threads over the cells
 * and levels of P (P->n cells or P->nxi x P->nyi, P->zend levels). Sets P->zslice from the
 * strategy (a zloop's pillar is all levels; zloop-sliced keeps P->zslice, 0 meaning 8). Returns
 * 0, or -1 with a message when the grid of blocks is too large. smem is left 0. */
int gpu_launch_plan(gpu_launch *l, access_t a, int aos, stencil_t s, precision_t p, int column,
                    int uns, int bx, int by, int bz, kparams *P);

/* Launches it on a stream (NULL: the default stream); an empty grid launches nothing. */
void gpu_launch_run(const gpu_launch *l, kparams *P, void *stream);

#endif
