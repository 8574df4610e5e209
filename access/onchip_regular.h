/* onchip_regular.h — the regular twin of the on-chip persistent kernels (issue 35, "regular twin
 * first": no neighbour table, so it shows what keeping the state on chip is worth on its own).
 * Iterated laplap, hdiff and lap on a regular grid (grids/grid.h's rgrid) in one cooperative
 * launch: block b owns the tile (b % tiles_x, b / tiles_x) of tx x ty inner cells (the last
 * tile of a row or column may be narrower) and keeps their state at the cached levels
 * 0..levels-1 in shared memory for the whole run. Each level it stages its tile and a ring of
 * R cells (R = 2 for laplap and hdiff, 1 for lap) in shared memory: own cells from the cache
 * (or the state, for a streamed level), ring cells from the export buffer of the step's parity
 * (or the state); laplap and hdiff then take the Laplacian at every entry of the tile and its
 * first ring (pass 1) and the stencil at the own cells (pass 2); lap takes its one pass. New
 * values of a cached level stay on chip, and those within R of the tile's edge also go to the
 * other parity's export buffer; a streamed level's go to the other state array. A grid barrier
 * between two steps. Neighbours are W (x - 1), E (x + 1), S (y - 1), N (y + 1), and the arithmetic
 * is the bodies' (LAPLAP_COMBINE, hdiff's limiter, the folds of stencils/registry.h), so the
 * state equals the CPU iteration of the grid's unstructured twin bit for bit
 * (tests/test_onchip_regular.c). Launched by src/plan/regular_onchip.c. */
#ifndef PILLAR_ONCHIP_REGULAR_H
#define PILLAR_ONCHIP_REGULAR_H

#include "../base/common.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    void *state, *other; /* the state arrays: step t reads `state` at even t and writes `other`,
                          * the other way round at odd t; both hold the initial state wherever
                          * no step writes (the grid's halo, the levels not computed) */
    void *xb0, *xb1;     /* export buffers, zs values a cached level (the state's layout):
                          * parity 0 is read at even steps; both start with the initial state */
    const void *coeff;   /* hdiff: its coefficients (the state's layout), else NULL */
    long zs;             /* level stride */
    int ys, a;           /* row stride; padding: cell (x, y) of a level at a + x + y * ys */
    int x0, nxi, nyi;    /* the first inner x and y (the halo's width), the inner extents */
    int tx, ty, tiles_x; /* a tile's extents; tiles a row of tiles */
    int nz, steps, levels; /* levels computed; steps; cached levels */
    int strips, wl;      /* the walk variant: strips a tile, warps a strip (levels at once) */
} onchip_reg_params;

/* Shared memory (bytes) of a block for values of es bytes: the cached levels (tx x ty a level),
 * two staged levels of (tx + 2r) x (ty + 2r) values and, with two passes (r = 2), two levels of
 * (tx + 2) x (ty + 2) Laplacians. */
PILLAR_HD size_t onchip_reg_smem(int tx, int ty, int r, int levels, size_t es)
{
    size_t own = (size_t)tx * (size_t)ty, v = (size_t)(tx + 2 * r) * (size_t)(ty + 2 * r);
    size_t lap = r == 2 ? (size_t)(tx + 2) * (size_t)(ty + 2) : 0;
    return es * ((size_t)levels * own + 2 * v + 2 * lap);
}

/* onchip_reg_kernels[s][precision][prefetch], s = ONCHIP_LAPLAP, ONCHIP_HDIFF or ONCHIP_LAP
 * (access/persist_onchip.h): the host stubs for cudaLaunchCooperativeKernel(args =
 * {&onchip_reg_params}), blocks of at most ONCHIP_REG_THREADS threads. prefetch 1: the next
 * level is loaded into ONCHIP_REG_PREFETCH registers a thread while one computes, where the
 * staged level has at most that many values a thread (else as 0: each level loaded before it
 * computes). */
#define ONCHIP_REG_THREADS 1024
#define ONCHIP_REG_PREFETCH 4
#ifdef __cplusplus
extern "C" {
#endif
extern const void *const onchip_reg_kernels[3][2][2];
/* onchip_cols_kernels[s][precision][v]: the column variant (onchip_regular.cu's k_onchip_cols),
 * onchip_cols_k[v] rows a thread (2, 4: at 8 the registers spill); blocks of vw x ceil(vh / K)
 * threads at least, vw and vh the largest staged level's extents (tx + 2r, ty + 2r), and at most
 * ONCHIP_COLS_THREADS. */
#define ONCHIP_COLS_THREADS 768
#define ONCHIP_COLS_VARIANTS 2
extern const void *const onchip_cols_kernels[3][2][ONCHIP_COLS_VARIANTS];
extern const int onchip_cols_k[ONCHIP_COLS_VARIANTS];
/* onchip_walk_kernels[precision]: laplap's walk variant (onchip_walk.cu): a block's tile is
 * p.strips strips of ONCHIP_WALK_W columns (tx = strips x ONCHIP_WALK_W), a warp walks one strip
 * at one level along its rows, two columns a lane (levels z, z + wl, ...: blocks of
 * 32 x strips x wl threads, at most ONCHIP_WALK_THREADS), no barrier but the grid's; a cached
 * level's own cells stay in shared memory (onchip_walk_smem), rows loaded ONCHIP_WALK_AHEAD
 * ahead. */
#define ONCHIP_WALK_W 60
#define ONCHIP_WALK_AHEAD 4
#define ONCHIP_WALK_THREADS 512
extern const void *const onchip_walk_kernels[2];
/* Copies `levels` levels between an unstructured grid's field f (plane cell c of level z at
 * c + z fzs) and a regular grid's field lat (place (x, y) of level z at a + x + y ys + z lzs)
 * through a chart of nx x ny places, cells[x + y nx] the grid's cell at place (x, y)
 * (src/plan/onchip_chart.h), on the default stream, not waited for: to_lattice 1 fills every
 * place of lat; 0 writes back into f the inner places only (a halo of `halo` places on each side
 * left out). Precision 0 double, 1 float (precision_t). Returns the launch's cudaError_t. */
int onchip_chart_copy(int prec, void *lat, void *f, const int32_t *cells, int nx, int ny, int halo,
                      int a, int ys, long lzs, long fzs, int levels, int to_lattice);
#ifdef __cplusplus
}
#endif

/* Shared memory (bytes) of a walk-variant block of tiles tx x ty for values of es bytes: the
 * cached levels' own cells. */
PILLAR_HD size_t onchip_walk_smem(int tx, int ty, int levels, size_t es)
{
    return es * (size_t)levels * (size_t)tx * (size_t)ty;
}

#endif
