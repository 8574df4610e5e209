/* persist_onchip.cu — the on-chip persistent kernels of iterated laplap and lap
 * (access/persist_onchip.h). */
#include "persist_onchip.h"

#include "../stencils/graphlap.h"
#include "../stencils/laplap.h"
#include "onchip_stage.cuh"

/* hdiff's limiter (stencils/hdiff.h's HDIFF_LIMIT) on values: the flux, zeroed where it runs
 * along the difference of the values hi - lo */
#define ONCHIP_LIMIT(flux, hi, lo) ((flux) * ((hi) - (lo)) > (T)0 ? (T)0 : (flux))

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

/* Loads of what this launch wrote (the streamed levels, the export buffers) go around L1
 * (ld.global.cg): another block wrote them before the grid barrier, and L1 is not coherent. */
template <typename T> __device__ __forceinline__ T fresh(const T *p) { return __ldcg(p); }

/* The plane index of a block's own slot j: from its list of own cells, or c0 + j where the block
 * owns a run of the storage order (own NULL). */
__device__ __forceinline__ int own_cell(const int32_t *own, int c0, int j)
{
    return own ? __ldg(own + j) : c0 + j;
}

/* The value of a block's slot s at level z: an own cell from the cache (cached level) or the state,
 * a ring cell from the export buffer (cached level) or the state. */
template <typename T>
__device__ __forceinline__ T level_value(int s, int z, bool cached, int m, int r1end,
                                         const T *cache, const T *cur, const T *xin,
                                         const int32_t *r1, const int32_t *r2, long zs,
                                         const int32_t *own, int c0, int nxy)
{
    if (s < m)
        return cached ? cache[(size_t)z * m + s] : fresh(cur + z * zs + own_cell(own, c0, s));
    const int c = s < r1end ? __ldg(r1 + s - m) : __ldg(r2 + s - r1end);
    return cached ? fresh(xin + (size_t)z * nxy + c) : fresh(cur + z * zs + c);
}

/* LAPLAP_COMBINE of the IL table rows e, e + nt, ... below n over values `in` into res[] (rows
 * past n: unused): every row's loads issued before the sums. */
template <typename T, int IL>
__device__ __forceinline__ void combine_rows(const ushort4 *tab, const T *in, int e, int nt, int n,
                                             T res[IL])
{
    T c[IL] = {}, w[IL] = {}, ea[IL] = {}, so[IL] = {}, no[IL] = {};
#pragma unroll
    for (int u = 0; u < IL; u++)
        if (e + u * nt < n) {
            const ushort4 r = tab[e + u * nt];
            c[u] = in[e + u * nt];
            w[u] = in[r.x];
            ea[u] = in[r.y];
            so[u] = in[r.z];
            no[u] = in[r.w];
        }
#pragma unroll
    for (int u = 0; u < IL; u++)
        res[u] = LAPLAP_COMBINE(c[u], w[u], ea[u], so[u], no[u]);
}

/* S: ONCHIP_LAPLAP, ONCHIP_HDIFF, ONCHIP_GRAPHLAP (two passes) or ONCHIP_LAP (one). PF > 0: the
 * next level's values are loaded into PF registers a thread while this level computes (where a
 * block's slots number at most PF x its threads; else as PF = 0: each level loaded before it
 * computes). */
/* (MAXT, 1): one block an SM; without the 1 ptxas kept graphlap's kernels at 32 registers and
 * spilled 60-64 bytes. */
template <typename T, int S, int PF, int MAXT, int IL>
__global__ void __launch_bounds__(MAXT, 1) k_onchip(onchip_params p)
{
    const bool LAP = S == ONCHIP_LAP;
    extern __shared__ __align__(16) unsigned char sm[];
    cg::grid_group grid = cg::this_grid();
    const int b = blockIdx.x, tid = threadIdx.x, nt = blockDim.x;
    const int lo = p.own0[b], m = p.own0[b + 1] - lo;
    const int h1 = p.r1start[b + 1] - p.r1start[b], h2 = p.r2start[b + 1] - p.r2start[b];
    /* slots: own 0..m-1, ring 1 to r1end, ring 2 to ns; table rows: own (and laplap's ring 1) */
    const int r1end = m + h1, ns = r1end + h2, rows = p.tstart[b + 1] - p.tstart[b];
    const int c0 = p.c0 + lo, nxy = p.nxy;
    const int32_t *r1 = p.ring1 + p.r1start[b], *r2 = p.ring2 + p.r2start[b];
    const int32_t *own = p.own ? p.own + lo : NULL; /* NULL: own slot j is cell c0 + j */
    const long zs = p.zs;
    const bool G = S == ONCHIP_GRAPHLAP; /* rows of p.width list slots and a degree each */
    const int W = G ? p.width : 4;
    const ushort4 *tab = (const ushort4 *)sm; /* W/E/S/N: a row's four slots in one load */
    const uint16_t *gtab = (const uint16_t *)sm; /* lists: W slots a row */
    unsigned char *gdeg = sm + ((size_t)p.rows_max * 2 * W + 15) / 16 * 16; /* lists: degrees */
    unsigned char *xf = sm + onchip_tab_bytes(p.rows_max, W, G); /* own cell exported: 1 */
    T *cache = (T *)(xf + onchip_flag_bytes(p.own_max));
    /* a level's values and Laplacians, two of each: level z uses buffer z & 1, so the next level's
     * values are stored while other threads still compute this one (two barriers a level) */
    T *const vb = cache + (size_t)p.levels * p.own_max, *const lapb = vb + 2 * (size_t)p.slots_max;
    if (G) {
        for (int i = tid; i < rows * W; i += nt)
            ((uint16_t *)sm)[i] = p.tab[(size_t)W * p.tstart[b] + i];
        for (int i = tid; i < rows; i += nt)
            gdeg[i] = p.deg[p.tstart[b] + i];
    } else
        for (int i = tid; i < rows; i += nt)
            ((ushort4 *)sm)[i] = ((const ushort4 *)p.tab)[p.tstart[b] + i];
    for (int j = tid; j < m; j += nt)
        xf[j] = p.exported[own_cell(own, c0, j)];
    for (int z = 0; z < p.levels; z++)
        for (int j = tid; j < m; j += nt)
            cache[(size_t)z * m + j] = ((const T *)p.state)[z * zs + own_cell(own, c0, j)];
    __syncthreads();
    const bool pf = PF > 0 && ns <= PF * nt; /* the same in every thread of the block */
    T pre[PF > 0 ? PF : 1];
    for (int t = 0; t < p.steps; t++) {
        const onchip_parity<T> q(t, p.state, p.other, p.xb0, p.xb1);
        const T *const cur = q.cur, *const xin = q.xin;
        T *const nxt = q.nxt, *const xout = q.xout;
        for (int z = 0; z < p.nz; z++) {
            const bool cached = z < p.levels;
            T *const v = vb + (z & 1) * (size_t)p.slots_max, *const lap = lapb + (z & 1) * (size_t)p.laps;
            onchip_stage<T, PF>(pf, z, p.nz, ns, tid, nt, v, pre, [&](int s, int zz) {
                return level_value(s, zz, zz < p.levels, m, r1end, cache, cur, xin, r1, r2, zs,
                                   own, c0, nxy);
            });
            if (G) { /* pass 1: graphlap.h's Laplacian along each entry's own list */
                for (int e = tid; e < rows; e += nt) {
                    const uint16_t *r = gtab + (size_t)W * e;
                    const int d = gdeg[e];
                    T sum = v[r[0]];
                    for (int j = 1; j < d; j++)
                        sum += v[r[j]];
                    lap[e] = (T)d * v[e] - sum;
                }
                __syncthreads();
            } else if (!LAP) {
                /* pass 1: each entry's own row; IL rows a thread at once, their loads issued
                 * before their sums (IL = 1: one row after the other) */
                for (int e = tid; e < rows; e += IL * nt) {
                    T l[IL];
                    combine_rows<T, IL>(tab, v, e, nt, rows, l);
#pragma unroll
                    for (int u = 0; u < IL; u++)
                        if (e + u * nt < rows)
                            lap[e + u * nt] = l[u];
                }
                __syncthreads();
            }
            /* a new value s of own entry e: kept on chip (and exported) or streamed out */
            auto put = [&](int e, int ce, T s) {
                if (cached) {
                    cache[(size_t)z * m + e] = s;
                    if (xf[e])
                        xout[(size_t)z * nxy + ce] = s;
                } else
                    nxt[z * zs + ce] = s;
            };
            if (IL > 1 && (S == ONCHIP_LAPLAP || S == ONCHIP_LAP)) {
                /* pass 2 (lap's one) IL own entries a thread at once, their loads first */
                const T *in = S == ONCHIP_LAP ? v : lap;
                for (int e = tid; e < m; e += IL * nt) {
                    T q[IL];
                    combine_rows<T, IL>(tab, in, e, nt, m, q);
#pragma unroll
                    for (int u = 0; u < IL; u++)
                        if (e + u * nt < m)
                            put(e + u * nt, own_cell(own, c0, e + u * nt),
                                v[e + u * nt] - q[u] / (T)(S == ONCHIP_LAP ? 8 : 64));
                }
            } else
            for (int e = tid; e < m; e += nt) { /* pass 2 (or lap's one), and the fold */
                const ushort4 r = G ? ushort4{} : tab[e];
                const int ce = own_cell(own, c0, e); /* the cell's plane index */
                T s;
                if (G) { /* graphlap.h's outer sum along the own list, then the fold */
                    const uint16_t *rg = gtab + (size_t)W * e;
                    const int d = gdeg[e];
                    T sum = lap[rg[0]];
                    for (int k = 1; k < d; k++)
                        sum += lap[rg[k]];
                    s = v[e] - ((T)d * lap[e] - sum) / (T)GRAPHLAP_DAMPING;
                } else if (S == ONCHIP_LAP)
                    s = v[e] - LAPLAP_COMBINE(v[e], v[r.x], v[r.y], v[r.z], v[r.w]) / (T)8;
                else if (S == ONCHIP_LAPLAP)
                    s = v[e] - LAPLAP_COMBINE(lap[e], lap[r.x], lap[r.y], lap[r.z], lap[r.w]) /
                                   (T)64;
                else { /* hdiff: flx(c), flx(W c), fly(c), fly(S c) from this cell's edges */
                    const T lc = lap[e], ic = v[e];
                    const T flx_c = ONCHIP_LIMIT(lap[r.y] - lc, v[r.y], ic);
                    const T flx_w = ONCHIP_LIMIT(lc - lap[r.x], ic, v[r.x]);
                    const T fly_c = ONCHIP_LIMIT(lap[r.w] - lc, v[r.w], ic);
                    const T fly_s = ONCHIP_LIMIT(lc - lap[r.z], ic, v[r.z]);
                    s = ic - __ldg((const T *)p.coeff + z * zs + ce) *
                                 (flx_c - flx_w + fly_c - fly_s);
                }
                put(e, ce, s);
            } /* no barrier: the next level writes the other buffers; the ones read here are
               * written again two levels on, past that level's barriers */
        }
        if (t + 1 < p.steps)
            grid.sync();
    }
    T *res = (T *)((p.steps & 1) ? p.other : p.state); /* the cached levels, into the result */
    for (int z = 0; z < p.levels; z++)
        for (int j = tid; j < m; j += nt)
            res[z * zs + own_cell(own, c0, j)] = cache[(size_t)z * m + j];
}

extern "C" {
#define ONCHIP_ROW_T(T, S)                                                                        \
    {(const void *)k_onchip<T, S, 0, 1024, 1>, (const void *)k_onchip<T, S, 8, 512, 1>,            \
     (const void *)k_onchip<T, S, 4, 1024, 1>, (const void *)k_onchip<T, S, 4, 1024, 2>}
#define ONCHIP_ROW(S) {ONCHIP_ROW_T(double, S), ONCHIP_ROW_T(float, S)}
const void *const onchip_kernels[ONCHIP_STENCILS][2][ONCHIP_VARIANTS] = {
    ONCHIP_ROW(ONCHIP_LAPLAP), ONCHIP_ROW(ONCHIP_HDIFF), ONCHIP_ROW(ONCHIP_LAP),
    ONCHIP_ROW(ONCHIP_GRAPHLAP)};
const int onchip_variant_prefetch[ONCHIP_VARIANTS] = {0, 8, 4, 4};
const int onchip_variant_threads[ONCHIP_VARIANTS] = {1024, 512, 1024, 1024};
const int onchip_variant_rows[ONCHIP_VARIANTS] = {1, 1, 1, 2};
}
