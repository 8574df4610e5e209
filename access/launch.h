/* launch.h — what the runner hands a kernel (the strategies' kernel tables: access.h). */
#ifndef PILLAR_LAUNCH_H
#define PILLAR_LAUNCH_H

#include "../stencils/stencil.h"
#include "../storage/coeffs.h"
#include "../storage/nbtable.h"
#include "access.h"

/* 32-bit words of a strategy's constant-memory table (64 KB). */
#define PILLAR_CONST_WORDS 16384

/* Threads per block at most; kernels are compiled for two such blocks per SM (64 registers). */
#define PILLAR_MAX_THREADS 512

/* graph-twopass (access/graph_twopass.cu): levels between two barriers, and tile entries per
 * thread at most of its lattice twin (the runner's shape rule and shared memory follow). */
#define GTP_G 4
#define GTP_EMAX 3

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
    int fold;        /* iterated runs: bodies that store through FOLDED write the fold of their
                      * result into the state (registry.h; laplap: in - laplap/64), not the result */
    const int32_t *st_start, *st_cells, *st_loc; /* staged: per-block halo lists (staging.h) */
    const int32_t *g_deg, *g_nb; /* graph stencils, iterated runs: the ELL table (storage/ell.h) */
    int g_stride;                /* its column stride (cells per level) */
    int g_radius;                /* graph stencils: the stencil's radius (lattice_inner) */
    const int32_t *gt_tab, *gt_pat; /* graph stencils: the offset table (storage/gtable.h) */
    int gt_ntab, gt_D;              /* its rows (column stride) and D, the list width */
    int lat_nx, lat_ny, lat_w;      /* the lattice twin (grids/lattice.h): extent, row width */
    const void *coef[PILLAR_MAXC];  /* the stencil's coefficient arrays (stencils/coeffs.h), in T:
                                     * coef[i][j * coef_n + c], column j of cell c */
    int coef_n;                     /* their cells (the column stride) */
    const int32_t *gp_blk, *gp_ent, *gp_slot; /* graph-twopass: the per-block lists of
                                               * storage/gtwopass.h (blk, ent, slot) */
    long gp_nent;                   /* their entries (the row stride of gp_ent) */
    int gp_nblk;                    /* their blocks */
    int gp_b0;                      /* block of blockIdx.x 0 (iterated runs launch the suffix of
                                     * blocks of a shrinking region; else 0) */
    const int32_t *zp_tab, *zp_pat; /* pairs: the lattice pairs' pattern rows (PAIRS_SLOTS each)
                                     * and each aligned pair's row (-1: none), by plane cell / 2;
                                     * zp_pat NULL: no pair runs as one (access/pairs_host.c) */
} kparams;

/* Entries of a lattice pair's pattern row (access/pairs.cu): the aligned pairs a pair's two
 * cells read lie at horizontal displacement floor(d/2) in -1..1 and dy in -2..2, 15 slots,
 * padded to 16 for vector loads. */
#define PAIRS_SLOTS 16

/* Points P's coefficient arrays into `base`, where the arrays of c lie back to back in elements
 * of es bytes (coef_set_pack). */
static inline void kparams_coeffs(kparams *P, const void *base, const coef_set *c, size_t es)
{
    const char *at = (const char *)base;
    for (int i = 0; i < c->count; i++) {
        P->coef[i] = at;
        at += es * (size_t)c->width[i] * (size_t)c->n;
    }
    P->coef_n = c->n;
}

/* Where a compressed table's entries are read from on the GPU. */
typedef enum {
    TABLES_GLOBAL = 0,   /* tab[r * npat + row] (docs/storage.md) */
    TABLES_CONSTANT = 1, /* the most used rows in __constant__ memory (--constant-tables) */
    TABLES_ROWS = 2      /* tab[row * nrel + r], vector loads (--packed-rows) */
} tables_t;

/* kernel[precision][storage]: fastwaves with its fields as one array of structs (access/aos.cu) */
typedef const void *aos_kernel_table[2][STORAGE_COUNT];
/* kernel[graph stencil - ST_QUAD_COUNT][precision] (access/graph.cu: the ELL kernel of iterated
 * and out-of-core runs) */
typedef const void *graph_kernel_table[ST_COUNT - ST_QUAD_COUNT][2];

#ifdef __cplusplus
extern "C" {
#endif
/* The strategies' kernel tables: access.h. These two are the array-of-structs comparison and the
 * graph stencils' kernels. NAME_upload copies rows into a constant-memory table; returns a
 * cudaError_t. */
extern aos_kernel_table aos_kernels;
extern graph_kernel_table graph_kernels;
int aos_kernels_upload(const void *rows, size_t bytes);
#ifdef __cplusplus
}
#endif

#endif
