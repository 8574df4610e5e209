/* onchip_regular.cu — the regular twin of the on-chip persistent kernels
 * (access/onchip_regular.h). */
#include "onchip_regular.h"
#include "persist_onchip.h"

#include "../stencils/laplap.h"
#include "onchip_stage.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

/* hdiff's limiter (stencils/hdiff.h's HDIFF_LIMIT) on values: the flux, zeroed where it runs
 * along the difference of the values hi - lo */
#define REG_LIMIT(flux, hi, lo) ((flux) * ((hi) - (lo)) > (T)0 ? (T)0 : (flux))

/* What another block wrote before the grid barrier (the export buffers, the streamed levels):
 * read around L1, which is not coherent (ld.global.cg). */
template <typename T> __device__ __forceinline__ T reg_fresh(const T *p) { return __ldcg(p); }

/* The value of entry s of a tile's staged level z (row width vw, ring R; own cells from the cache
 * at a cached level, ring cells from the export buffer xin there; a streamed level's from the
 * state cur); at: entry 0's place in a level. */
template <typename T, int R>
__device__ __forceinline__ T staged(int s, int z, bool cached, int vw, int tw, int th, int own,
                                    long at0, long zs, int ys, const T *cache, const T *cur,
                                    const T *xin)
{
    const int i = s / vw - R, j = s % vw - R; /* relative to the tile's first cell */
    const long at = z * zs + at0 + (long)i * ys + j;
    if (!cached)
        return reg_fresh(cur + at);
    return i >= 0 && i < th && j >= 0 && j < tw ? cache[(size_t)z * own + i * tw + j]
                                                : reg_fresh(xin + at);
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
    /* the tile: its first inner cell (X0, Y0) and extents tw x th (0 for a block past the grid,
     * which still meets every barrier) */
    const int X0 = p.x0 + (b % p.tiles_x) * p.tx, Y0 = p.x0 + (b / p.tiles_x) * p.ty;
    const int xe = p.x0 + p.nxi, ye = p.x0 + p.nyi;
    const int tw = X0 < xe ? min(p.tx, xe - X0) : 0, th = Y0 < ye ? min(p.ty, ye - Y0) : 0;
    const int own = tw * th;
    const int vw = tw + 2 * R, nv = own ? vw * (th + 2 * R) : 0; /* staged values: row width */
    const int lw = tw + 2, nl = S == ONCHIP_LAP || !own ? 0 : lw * (th + 2); /* Laplacians */
    const long zs = p.zs;
    const int ys = p.ys, base = p.a + X0 + Y0 * ys; /* the tile's first cell in a level */
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

extern "C" {
#define REG_ROW(S)                                                                                \
    {{(const void *)k_onchip_reg<double, S, 0>, (const void *)k_onchip_reg<double, S, ONCHIP_REG_PREFETCH>},         \
     {(const void *)k_onchip_reg<float, S, 0>, (const void *)k_onchip_reg<float, S, ONCHIP_REG_PREFETCH>}}
const void *const onchip_reg_kernels[3][2][2] = {REG_ROW(ONCHIP_LAPLAP), REG_ROW(ONCHIP_HDIFF),
                                                  REG_ROW(ONCHIP_LAP)};
}
