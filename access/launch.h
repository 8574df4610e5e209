/* launch.h — what the runner hands a kernel, and how a strategy's kernels are tabulated. */
#ifndef PILLAR_LAUNCH_H
#define PILLAR_LAUNCH_H

#include "../stencils/body.h"
#include "../storage/nbtable.h"
#include "access.h"

/* 32-bit words of a strategy's constant-memory table (64 KB). */
#define PILLAR_CONST_WORDS 16384

/* Threads per block at most; kernels are compiled for two such blocks per SM (64 registers). */
#define PILLAR_MAX_THREADS 512

typedef struct {
    fieldset f;      /* device fields: inputs, then outputs */
    nbview nbv;      /* device neighbour table */
    long zs;         /* level stride */
    int ys;          /* regular: row stride */
    int zend;        /* levels computed: 0..zend-1 */
    int kbase;       /* global level of the fields' level 0 (out-of-core chunks; else 0): bodies
                      * see K = k + kbase */
    int c0, n;       /* unstructured: first inner cell, number of inner cells */
    int x0, nxi, nyi, a; /* regular: first inner x and y (the halo), inner extents, padding a */
    int zslice;      /* levels per thread (block, for staged) of the pillar strategies */
    int damp;        /* laplap: write in - laplap/64, the iterated step (src/iterate.h), not laplap */
    const int32_t *st_start, *st_cells, *st_loc; /* staged: per-block halo lists (staging.h) */
    const int32_t *g_deg, *g_nb; /* graph stencils: the ELL table (storage/ell.h) */
    int g_stride;                /* its column stride (cells per level) */
} kparams;

/* Storage columns of a kernel table: unstructured (chasing*2 + compressed), regular, then
 * compressed with constant-memory rows and compressed with packed rows (each: non-chasing,
 * chasing). */
enum { STORAGE_REGULAR = 4, STORAGE_CONSTANT = 5, STORAGE_ROWS = 7, STORAGE_COUNT = 9 };

/* Where a compressed table's entries are read from on the GPU. */
typedef enum {
    TABLES_GLOBAL = 0,   /* tab[r * npat + row] (SPEC §2) */
    TABLES_CONSTANT = 1, /* the most used rows in __constant__ memory (--constant-tables) */
    TABLES_ROWS = 2      /* tab[row * nrel + r], vector loads (--packed-rows) */
} tables_t;

/* kernel[stencil][precision][storage]: host stubs for cudaLaunchKernel (W/E/S/N stencils) */
typedef const void *kernel_table[3][2][STORAGE_COUNT];
/* kernel[graph stencil - ST_QUAD_COUNT][precision] (access/graph.cu) */
typedef const void *graph_kernel_table[1][2];

#ifdef __cplusplus
extern "C" {
#endif
extern kernel_table naive_kernels, idxvar_kernels, shared_kernels, shared_warp_kernels, zloop_kernels,
    staged_kernels, aos_kernels;
extern graph_kernel_table graph_kernels;
/* Copies rows into a strategy's constant-memory table; returns a cudaError_t. */
int naive_kernels_upload(const void *rows, size_t bytes);
int idxvar_kernels_upload(const void *rows, size_t bytes);
int shared_kernels_upload(const void *rows, size_t bytes);
int shared_warp_kernels_upload(const void *rows, size_t bytes);
int zloop_kernels_upload(const void *rows, size_t bytes);
int aos_kernels_upload(const void *rows, size_t bytes);
#ifdef __cplusplus
}
#endif

#endif
