/* onchip_regular.cu — the regular twin of the on-chip persistent kernels
 * (access/onchip_regular.h). */
#include "onchip_regular.h"
#include "persist_onchip.h"

#include "../stencils/laplap.h"
#include "onchip_stage.cuh"
#include "onchip_tile.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

/* hdiff's limiter (stencils/hdiff.h's HDIFF_LIMIT) on values: the flux, zeroed where it runs
 * along the difference of the values hi - lo */
#define REG_LIMIT(flux, hi, lo) ((flux) * ((hi) - (lo)) > (T)0 ? (T)0 : (flux))

/* The value of cell (i, j) of a tile's staged level z, relative to the tile's first cell (own
 * cells: 0 <= i < th, 0 <= j < tw): own cells from the cache at a cached level, ring cells from
 * the export buffer xin there; a streamed level's from the state cur. at0: the tile's first
 * cell's place in a level. */
template <typename T>
__device__ __forceinline__ T staged_at(int i, int j, int z, bool cached, int tw, int th, int own,
                                       long at0, long zs, int ys, const T *cache, const T *cur,
                                       const T *xin)
{
    const long at = z * zs + at0 + (long)i * ys + j;
    if (!cached)
        return reg_fresh(cur + at);
    return i >= 0 && i < th && j >= 0 && j < tw ? cache[(size_t)z * own + i * tw + j]
                                                : reg_fresh(xin + at);
}

/* The same of entry s of the staged level (row width vw, ring R). */
template <typename T, int R>
__device__ __forceinline__ T staged(int s, int z, bool cached, int vw, int tw, int th, int own,
                                    long at0, long zs, int ys, const T *cache, const T *cur,
                                    const T *xin)
{
    return staged_at(s / vw - R, s % vw - R, z, cached, tw, th, own, at0, zs, ys, cache, cur, xin);
}

/* S: ONCHIP_LAPLAP, ONCHIP_HDIFF (two passes, ring 2) or ONCHIP_LAP (one pass, ring 1). PF > 0:
 * the next level's values are loaded into PF registers a thread while this level computes (where
 * the staged level has at most PF x threads values; else each level is loaded before it
 * computes). */
template <typename T, int S, int PF>
__global__ void __launch_bounds__(ONCHIP_REG_THREADS, 1) k_onchip_reg(onchip_reg_params p)
{
    constexpr int R = S == ONCHIP_LAP ? 1 : 2;
    extern __shared__ __align__(16) unsigned char sm[];
    cg::grid_group grid = cg::this_grid();
    const int b = blockIdx.x, tid = threadIdx.x, nt = blockDim.x;
    const reg_tile tile(p, b);
    const int tw = tile.tw, th = tile.th, own = tile.own;
    const int vw = tw + 2 * R, nv = own ? vw * (th + 2 * R) : 0; /* staged values: row width */
    const int lw = tw + 2, nl = S == ONCHIP_LAP || !own ? 0 : lw * (th + 2); /* Laplacians */
    const long zs = p.zs;
    const int ys = p.ys, base = tile.base; /* the tile's first cell in a level */
    T *const cache = (T *)sm; /* level z, own cell (i, j): cache[z * own + i * tw + j] */
    const size_t vmax = (size_t)(p.tx + 2 * R) * (size_t)(p.ty + 2 * R);
    const size_t lmax = S == ONCHIP_LAP ? 0 : (size_t)(p.tx + 2) * (size_t)(p.ty + 2);
    T *const vb = cache + (size_t)p.levels * (size_t)p.tx * (size_t)p.ty, *const lb = vb + 2 * vmax;
    for (int z = 0; z < p.levels; z++)
        for (int e = tid; e < own; e += nt)
            cache[(size_t)z * own + e] =
                ((const T *)p.state)[z * zs + base + (e / tw) * ys + e % tw];
    __syncthreads();
    const bool pf = PF > 0 && nv <= PF * nt; /* the same in every thread of the block */
    T pre[PF > 0 ? PF : 1];
    for (int t = 0; t < p.steps; t++) {
        const onchip_parity<T> q(t, p.state, p.other, p.xb0, p.xb1);
        const T *const cur = q.cur, *const xin = q.xin;
        T *const nxt = q.nxt, *const xout = q.xout;
        for (int z = 0; z < p.nz; z++) {
            const bool cached = z < p.levels;
            /* level z uses buffers z & 1: the next level stages into the others while threads
             * still compute this one (two barriers a level) */
            T *const v = vb + (z & 1) * vmax, *const lap = lb + (z & 1) * lmax;
            onchip_stage<T, PF>(pf, z, p.nz, nv, tid, nt, v, pre, [&](int s, int zz) {
                return staged<T, R>(s, zz, zz < p.levels, vw, tw, th, own, base, zs, ys, cache,
                                    cur, xin);
            });
            if (S != ONCHIP_LAP) {
                /* pass 1: the Laplacian at the tile and its first ring; entry (i, j) of lap is
                 * value (i + R - 1, j + R - 1) of v */
                for (int e = tid; e < nl; e += nt) {
                    const int c = (e / lw + 1) * vw + e % lw + 1;
                    lap[e] = LAPLAP_COMBINE(v[c], v[c - 1], v[c + 1], v[c - vw], v[c + vw]);
                }
                __syncthreads();
            }
            for (int e = tid; e < own; e += nt) { /* pass 2 (lap's one), the fold */
                const int i = e / tw, j = e % tw;
                const int c = (i + R) * vw + j + R; /* in v */
                T s;
                if (S == ONCHIP_LAP) {
                    s = v[c] - LAPLAP_COMBINE(v[c], v[c - 1], v[c + 1], v[c - vw], v[c + vw]) / (T)8;
                } else {
                    const int l = (i + 1) * lw + j + 1; /* in lap */
                    if (S == ONCHIP_LAPLAP) {
                        s = v[c] - LAPLAP_COMBINE(lap[l], lap[l - 1], lap[l + 1], lap[l - lw],
                                                  lap[l + lw]) / (T)64;
                    } else { /* hdiff: flx(c), flx(W c), fly(c), fly(S c) */
                        const T lc = lap[l], ic = v[c];
                        const T flx_c = REG_LIMIT(lap[l + 1] - lc, v[c + 1], ic);
                        const T flx_w = REG_LIMIT(lc - lap[l - 1], ic, v[c - 1]);
                        const T fly_c = REG_LIMIT(lap[l + lw] - lc, v[c + vw], ic);
                        const T fly_s = REG_LIMIT(lc - lap[l - lw], ic, v[c - vw]);
                        s = ic - __ldg((const T *)p.coeff + z * zs + base + (long)i * ys + j) *
                                     (flx_c - flx_w + fly_c - fly_s);
                    }
                }
                const long at = z * zs + base + (long)i * ys + j;
                if (cached) {
                    cache[(size_t)z * own + e] = s;
                    if (i < R || i >= th - R || j < R || j >= tw - R) /* a neighbour's ring */
                        xout[at] = s;
                } else
                    nxt[at] = s;
            } /* no barrier: the next level writes the other buffers; these are written again
               * two levels on, past that level's barriers */
        }
        if (t + 1 < p.steps)
            grid.sync();
    }
    T *res = (T *)((p.steps & 1) ? p.other : p.state); /* the cached levels, into the result */
    for (int z = 0; z < p.levels; z++)
        for (int e = tid; e < own; e += nt)
            res[z * zs + base + (e / tw) * ys + e % tw] = cache[(size_t)z * own + e];
}

/* The column variant: thread tid of a block stages column tid % vw of the tile and its ring,
 * rows K (tid / vw) to K (tid / vw) + K - 1, and keeps those values and their Laplacians in
 * registers: a cell's S and N neighbours come from its own registers (shared memory only at the
 * ends of a column), its W and E neighbours from shared memory, where each value and Laplacian
 * is stored once. Fewer shared accesses a point than k_onchip_reg (about 8 against 14) and no
 * division in the passes; a thread's positions are fixed for the run. The next level's values
 * are loaded into K more registers while one computes. Same layout of shared memory, same
 * exports, same arithmetic. Blocks of at least vw x ceil(vh / K) threads (vw, vh: the staged
 * level's extents), at most ONCHIP_COLS_THREADS (which leaves 80 registers a thread). */
template <typename T, int S, int K>
__global__ void __launch_bounds__(ONCHIP_COLS_THREADS, 1) k_onchip_cols(onchip_reg_params p)
{
    constexpr int R = S == ONCHIP_LAP ? 1 : 2;
    extern __shared__ __align__(16) unsigned char sm[];
    cg::grid_group grid = cg::this_grid();
    const int tid = threadIdx.x;
    const reg_tile tile(p, blockIdx.x);
    const int tw = tile.tw, th = tile.th, own = tile.own, base = tile.base;
    const int vw = tw + 2 * R, vh = th + 2 * R, lw = tw + 2;
    const long zs = p.zs;
    const int ys = p.ys;
    T *const cache = (T *)sm; /* level z, own cell (i, j): cache[z * own + i * tw + j] */
    const size_t vmax = (size_t)(p.tx + 2 * R) * (size_t)(p.ty + 2 * R);
    const size_t lmax = S == ONCHIP_LAP ? 0 : (size_t)(p.tx + 2) * (size_t)(p.ty + 2);
    T *const vb = cache + (size_t)p.levels * (size_t)p.tx * (size_t)p.ty, *const lb = vb + 2 * vmax;
    /* this thread's column (col, in the staged level) and first row; active: it has one */
    const int col = own ? tid % vw : 0, row0 = own ? tid / vw * K : vh;
    const bool active = own && row0 < vh;
    for (int z = 0; z < p.levels; z++)
        for (int e = tid; e < own; e += blockDim.x)
            cache[(size_t)z * own + e] =
                ((const T *)p.state)[z * zs + base + (e / tw) * ys + e % tw];
    __syncthreads();
    T val[K], nxt_val[K], lp[K];
    const int j = col - R; /* the column relative to the tile's first cell */
    for (int t = 0; t < p.steps; t++) {
        const onchip_parity<T> q(t, p.state, p.other, p.xb0, p.xb1);
        /* a step's first level: nothing loaded it ahead (the barrier) */
#pragma unroll
        for (int k = 0; k < K; k++)
            if (active && row0 + k < vh)
                nxt_val[k] = staged_at(row0 + k - R, j, 0, 0 < p.levels, tw, th, own, base, zs, ys,
                                       cache, q.cur, q.xin);
        for (int z = 0; z < p.nz; z++) {
            const bool cached = z < p.levels;
            T *const v = vb + (z & 1) * vmax, *const lap = lb + (z & 1) * lmax;
#pragma unroll
            for (int k = 0; k < K; k++) {
                val[k] = nxt_val[k];
                if (active && row0 + k < vh)
                    v[(row0 + k) * vw + col] = val[k];
            }
            __syncthreads();
            if (z + 1 < p.nz) /* the next level's loads fly while this one computes */
#pragma unroll
                for (int k = 0; k < K; k++)
                    if (active && row0 + k < vh)
                        nxt_val[k] = staged_at(row0 + k - R, j, z + 1, z + 1 < p.levels, tw, th,
                                               own, base, zs, ys, cache, q.cur, q.xin);
            /* the values of a column's S and N neighbours: registers within it, else shared */
            auto vs = [&](int k) { return k > 0 ? val[k - 1] : v[(row0 + k - 1) * vw + col]; };
            auto vn = [&](int k) { return k < K - 1 ? val[k + 1] : v[(row0 + k + 1) * vw + col]; };
            if (S != ONCHIP_LAP) {
                /* pass 1: the Laplacian at the tile and its first ring (rows and columns 1 to
                 * vh - 2, vw - 2 of the staged level); lap entry (row - 1, col - 1) */
#pragma unroll
                for (int k = 0; k < K; k++) {
                    const int row = row0 + k;
                    if (active && row >= 1 && row < vh - 1 && col >= 1 && col < vw - 1) {
                        const int c = row * vw + col;
                        lp[k] = LAPLAP_COMBINE(val[k], v[c - 1], v[c + 1], vs(k), vn(k));
                        lap[(row - 1) * lw + col - 1] = lp[k];
                    }
                }
                __syncthreads();
            }
            auto ls = [&](int k) { return k > 0 ? lp[k - 1] : lap[(row0 + k - 2) * lw + col - 1]; };
            auto ln = [&](int k) { return k < K - 1 ? lp[k + 1] : lap[(row0 + k) * lw + col - 1]; };
#pragma unroll
            for (int k = 0; k < K; k++) { /* pass 2 (lap's one), the fold, at the own cells */
                const int i = row0 + k - R;
                if (!active || i < 0 || i >= th || j < 0 || j >= tw)
                    continue;
                const int c = (row0 + k) * vw + col;
                T s;
                if (S == ONCHIP_LAP) {
                    s = val[k] - LAPLAP_COMBINE(val[k], v[c - 1], v[c + 1], vs(k), vn(k)) / (T)8;
                } else {
                    const int l = i * lw + j + lw + 1; /* lap entry (i + 1, j + 1) */
                    if (S == ONCHIP_LAPLAP) {
                        s = val[k] - LAPLAP_COMBINE(lp[k], lap[l - 1], lap[l + 1], ls(k), ln(k)) /
                                         (T)64;
                    } else { /* hdiff: flx(c), flx(W c), fly(c), fly(S c) */
                        const T lc = lp[k], ic = val[k];
                        const T flx_c = REG_LIMIT(lap[l + 1] - lc, v[c + 1], ic);
                        const T flx_w = REG_LIMIT(lc - lap[l - 1], ic, v[c - 1]);
                        const T fly_c = REG_LIMIT(ln(k) - lc, vn(k), ic);
                        const T fly_s = REG_LIMIT(lc - ls(k), ic, vs(k));
                        s = ic - __ldg((const T *)p.coeff + z * zs + base + (long)i * ys + j) *
                                     (flx_c - flx_w + fly_c - fly_s);
                    }
                }
                const long at = z * zs + base + (long)i * ys + j;
                if (cached) {
                    cache[(size_t)z * own + i * tw + j] = s;
                    if (i < R || i >= th - R || j < R || j >= tw - R) /* a neighbour's ring */
                        q.xout[at] = s;
                } else
                    q.nxt[at] = s;
            } /* no barrier: the next level writes the other buffers */
        }
        if (t + 1 < p.steps)
            grid.sync();
    }
    __syncthreads(); /* the cache was written by the cells' threads, is read by the entries' */
    T *res = (T *)((p.steps & 1) ? p.other : p.state); /* the cached levels, into the result */
    for (int z = 0; z < p.levels; z++)
        for (int e = tid; e < own; e += blockDim.x)
            res[z * zs + base + (e / tw) * ys + e % tw] = cache[(size_t)z * own + e];
}

extern "C" {
#define REG_ROW(S)                                                                                \
    {{(const void *)k_onchip_reg<double, S, 0>, (const void *)k_onchip_reg<double, S, ONCHIP_REG_PREFETCH>},         \
     {(const void *)k_onchip_reg<float, S, 0>, (const void *)k_onchip_reg<float, S, ONCHIP_REG_PREFETCH>}}
const void *const onchip_reg_kernels[3][2][2] = {REG_ROW(ONCHIP_LAPLAP), REG_ROW(ONCHIP_HDIFF),
                                                  REG_ROW(ONCHIP_LAP)};
#define COLS_T(T, S) {(const void *)k_onchip_cols<T, S, 2>, (const void *)k_onchip_cols<T, S, 4>}
#define COLS_ROW(S) {COLS_T(double, S), COLS_T(float, S)}
const void *const onchip_cols_kernels[3][2][ONCHIP_COLS_VARIANTS] = {
    COLS_ROW(ONCHIP_LAPLAP), COLS_ROW(ONCHIP_HDIFF), COLS_ROW(ONCHIP_LAP)};
const int onchip_cols_k[ONCHIP_COLS_VARIANTS] = {2, 4};
}
