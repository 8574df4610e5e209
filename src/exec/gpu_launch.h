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

/* The current device's SMs and the most dynamic shared memory a block may opt in to (bytes);
 * returns whether it has cooperative launches (1) or not (0). */
int gpu_coop_limits(int *sms, int *smem_max);

/* One cooperative launch of kernel fn (args: its parameters' addresses) over `blocks` blocks of
 * `threads` threads with smem bytes of dynamic shared memory on the default stream, timed with
 * events and waited for. The seconds it took, or -1 with a message naming `who` where the launch
 * was refused (a failure while it ran raises FAULT_DEVICE). */
double gpu_coop_launch_timed(const char *who, const void *fn, int blocks, int threads, void **args,
                             size_t smem);

/* Work on the default stream timed with events: gpu_span_begin records its start, gpu_span_end
 * its end, waits for it and returns the seconds between (the events freed). */
typedef struct {
    cudaEvent_t e0, e1;
} gpu_span;
void gpu_span_begin(gpu_span *s);
double gpu_span_end(gpu_span *s);

/* Blocks of `threads` threads and `smem` bytes of dynamic shared memory of kernel fn that one SM
 * holds at once (cudaOccupancyMaxActiveBlocksPerMultiprocessor); 0 where it cannot say. A
 * cooperative launch needs all its blocks resident. */
int gpu_blocks_per_sm(const void *fn, int threads, size_t smem);

/* Launches it on a stream (NULL: the default stream); an empty grid launches nothing. */
void gpu_launch_run(const gpu_launch *l, kparams *P, void *stream);

#endif
