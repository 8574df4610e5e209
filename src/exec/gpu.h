/* gpu.h — the CUDA backend: device buffers for one problem, timed launches of any access
 * strategy and block shape, results back to the host. Built only with CUDA (PILLAR_HAVE_CUDA). */
#ifndef PILLAR_GPU_H
#define PILLAR_GPU_H

#include "runner.h"

typedef struct gpu_ctx gpu_ctx;

/* 1 if a CUDA device is usable (its name in msg), else 0 and the reason in msg. */
int gpu_probe(char *msg, size_t n);

/* Uploads pb's inputs (and neighbour table) for the unstructured (uns) or regular grid; aos:
 * the fields as one array of structs (fastwaves, idxvar only). */
gpu_ctx *gpu_open(const problem *pb, int uns, int aos);
void gpu_close(gpu_ctx *c);

/* Whether strategy a has kernels for stencil s: its kernel tables (and a stencil file's compiled
 * GPU code); agrees with access_supports (access/access.h) on the built-in stencils. */
int gpu_supports(access_t a, stencil_t s);

/* Default block shape of a strategy, and whether a shape suits it (reason in why if not):
 * access_default_shape and access_shape_ok (access/access.h), which CPU builds have too. */
void gpu_default_shape(access_t a, int uns, int *bx, int *by, int *bz);
int gpu_shape_ok(access_t a, int uns, int bx, int by, int bz, char *why, size_t n);

/* Dynamic shared memory of a launch of strategy a with blocks of bx x by (x bz) threads;
 * hmax: the largest per-block halo list of a staging strategy (storage/staging.h). */
size_t gpu_smem_bytes(access_t a, int uns, precision_t p, int bx, int by, int bz, int hmax);
/* The same for a graph stencil: on its offset table with lists of width D (lattice_kind 0) or
 * on its lattice twin (grids/lattice.h kind); hmax as above (storage/gstaging.h). */
size_t gpu_graph_smem_bytes(access_t a, int lattice_kind, precision_t p, int bx, int by, int D,
                            int hmax);

/* Two warm-up launches, then `runs` launches each timed with CUDA events, outputs poisoned on the
 * device before each. zslice: levels per thread (block) of zloop-sliced (staged); tables: where a
 * compressed table is read from (tables_t of access/launch.h). Fills t; returns 0 or -1. */
int gpu_time(gpu_ctx *c, access_t a, int bx, int by, int bz, int zslice, int tables, int runs,
             timing *t);

/* Copies the device outputs into out (host arrays of the context's grid). */
void gpu_fetch(gpu_ctx *c, fieldset out);

/* gpu_open + gpu_time with the options' strategy and shape + gpu_fetch + gpu_close. */
int gpu_execute(const problem *pb, const options *o, int uns, fieldset out, timing *t);

/* Device-to-device copy bandwidth (bytes read + written per second) over `bytes`-sized buffers:
 * the ceiling the stencils are measured against. */
double gpu_copy_bandwidth(size_t bytes, int runs);

/* Pinned host <-> device copy rates (bytes per second) over `bytes`-sized buffers, median of
 * `runs`: each direction alone, and each direction while the other runs at the same time
 * (duplex), the rates an out-of-core pipeline can reach. */
typedef struct {
    double h2d, d2h;               /* alone */
    double duplex_h2d, duplex_d2h; /* both at once */
} gpu_link;
void gpu_link_bandwidth(size_t bytes, int runs, gpu_link *l);

/* Free device memory in bytes. */
size_t gpu_free_bytes(void);

/* 1 if p points into memory the device reads directly (cudaMalloc or cudaMallocManaged), else 0
 * (host memory, pinned or not, and addresses CUDA does not know). */
int gpu_is_device_memory(const void *p);

/* Copies `bytes` from device memory src to host memory dst (to_device 0) or from host src to
 * device dst (to_device 1), synchronously: done on the device on return, so that a kernel on
 * any stream may read it; a failed copy raises a fault (CK). */
void gpu_copy(void *dst, const void *src, size_t bytes, int to_device);

/* A new device block holding a copy of `bytes` at host src (a few bytes when bytes is 0, so
 * that it can be freed alike); free with cudaFree. A failure raises a fault (CK). */
void *gpu_upload(const void *src, size_t bytes);

/* What the benchmark records about the device. */
typedef struct {
    char name[256];
    int cc_major, cc_minor, sms;
    size_t l2_bytes, memory_bytes;
    int driver, runtime;
    int sm_clock_mhz, mem_clock_mhz, bus_bits;
} gpu_info;
void gpu_describe(gpu_info *g);

#endif
