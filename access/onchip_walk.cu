/* onchip_walk.cu — the walk variant of the regular twin's on-chip laplap
 * (access/onchip_regular.h's onchip_walk_kernels).
 *
 * k_onchip_reg and k_onchip_cols share each level's tile among the whole block: two barriers a
 * level with two or three cells a thread between them, so the passes wait on latency (ncu on
 * the H200: issue slots 43-67% busy, no unit saturated). Here no two warps share anything
 * within a step, so there is no barrier but the grid's between steps:
 *   - a block's tile is `strips` strips of ONCHIP_WALK_W columns; a warp takes one strip at one
 *     level at a time (levels z, z + wl, z + 2 wl, ... for wl warps a strip);
 *   - lane l holds column l - 2 of its strip: ONCHIP_WALK_W own columns and two ring columns on
 *     each side, which lanes 0, 1, 30, 31 read from the export buffer (or the state);
 *   - the warp walks its strip's rows from -2 to th + 1 with a window of three values and three
 *     Laplacians a lane: a row's W and E neighbours come from the next lanes by shuffles, its
 *     S and N neighbours from the window; each row arrived gives the Laplacian of the row
 *     before and the stencil of the row two before;
 *   - a cached level's own cells stay in shared memory, where only their lane reads and writes
 *     them (in place: a row is written two rows after it was read); the rows are loaded D rows
 *     ahead, so the export buffer's loads fly while the window computes.
 * Same arithmetic as k_onchip_reg (LAPLAP_COMBINE in the same order), same exports (the own
 * cells within 2 of the strip's edge), so the state equals the CPU iteration bit for bit
 * (tests/test_onchip_regular.c). */
#include "onchip_regular.h"
#include "persist_onchip.h"

#include "../stencils/laplap.h"
#include "onchip_stage.cuh"
#include "onchip_tile.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

/* A lane's two columns a and b of a strip (a = 2 lane - 2, b = a + 1; own: within the strip's
 * sw columns), where it reads them (ga, gb: row 0 at level 0, clamped into the strip's ring for
 * the lanes past it), and which own cells other strips and tiles read (within 2 of the edge). */
struct walk_lane {
    bool own_a, own_b, edge_a, edge_b;
    long ga, gb, wa; /* loads of a and b, the store of a (b's: wa + 1) */
    int ca;          /* column a in the strip */
    __device__ walk_lane(int lane, int sw, long base)
    {
        ca = 2 * lane - 2;
        const int cb = ca + 1;
        own_a = ca >= 0 && ca < sw;
        own_b = cb >= 0 && cb < sw;
        edge_a = ca < 2 || ca >= sw - 2;
        edge_b = cb < 2 || cb >= sw - 2;
        ga = base + min(ca, sw + 1);
        gb = base + min(cb, sw + 1);
        wa = base + ca;
    }
};

/* One level of a strip, walked (see above). gp: the level's row 0, column 0 of the strip in the
 * export buffer (a cached level) or the state; sp: this lane's column a of row 0 in shared memory
 * (CACHED only); wp: row 0, column 0 where the new values go (the export buffer or the other
 * state); n = th + 4 rows. */
template <typename T, int D, bool CACHED>
__device__ __forceinline__ void walk_level(const T *gp, T *sp, T *wp, int n, int th, int ys,
                                           const walk_lane &L)
{
    static_assert(D == 4, "the window's first four rows fill the D rows loaded ahead");
    constexpr int R = 2, W = ONCHIP_WALK_W;
    constexpr unsigned ALL = 0xffffffffu;
    const T *pa = gp + L.ga - R * ys, *pb = gp + L.gb - R * ys; /* row kl - 2 */
    const T *lp = sp - R * W; /* the shared load pointer, row kl - 2 */
    T *cp = sp;               /* the shared store pointer, row k - 4 */
    T *op = wp + L.wa;        /* the store pointer, row k - 4 */
    int kl = 0;               /* the next row to load */
    auto load = [&](T &a, T &b) {
        if (CACHED) {
            const bool row = kl >= R && kl < n - R; /* an own row */
            const bool ia = L.own_a && row, ib = L.own_b && row;
            if (ia)
                a = lp[0];
            else
                a = reg_fresh(pa);
            if (ib)
                b = lp[1];
            else
                b = reg_fresh(pb);
            lp += W;
        } else {
            a = reg_fresh(pa);
            b = reg_fresh(pb);
        }
        pa += ys;
        pb += ys;
        kl++;
    };
    T qa[D], qb[D];
    /* the window before row k: values of rows k - 2, k - 1 (va, vb), Laplacians of rows k - 3,
     * k - 2 (la, lb) of the walk; _a, _b: the lane's columns */
    T va_a, va_b, vb_a, vb_b, la_a, la_b, lb_a, lb_b;
    /* the Laplacians of row k - 1 given row k (W of a, E of b from the next lanes) */
    auto laps = [&](T vc_a, T vc_b, T &lc_a, T &lc_b) {
        const T w = __shfl_up_sync(ALL, vb_b, 1), e = __shfl_down_sync(ALL, vb_a, 1);
        lc_a = LAPLAP_COMBINE(vb_a, w, vb_b, va_a, vc_a);
        lc_b = LAPLAP_COMBINE(vb_b, vb_a, e, va_b, vc_b);
    };
    /* row k arrives: the Laplacians of row k - 1, the stencil and the fold at row k - 2 of the
     * walk, row i = k - 4 of the strip */
    auto step = [&](T vc_a, T vc_b, int k) {
        T lc_a, lc_b;
        laps(vc_a, vc_b, lc_a, lc_b);
        const T w = __shfl_up_sync(ALL, lb_b, 1), e = __shfl_down_sync(ALL, lb_a, 1);
        /* x / 64 as x * 2^-6: the same real, rounded once, so the same bits */
        const T out_a = va_a - LAPLAP_COMBINE(lb_a, w, lb_b, la_a, lc_a) * (T)0.015625;
        const T out_b = va_b - LAPLAP_COMBINE(lb_b, lb_a, e, la_b, lc_b) * (T)0.015625;
        const int i = k - 4;
        if (CACHED) {
            const bool redge = i < R || i >= th - R; /* every own cell a neighbour's ring */
            if (L.own_a)
                cp[0] = out_a;
            if (L.own_b)
                cp[1] = out_b;
            if (L.own_a && (L.edge_a || redge))
                op[0] = out_a;
            if (L.own_b && (L.edge_b || redge))
                op[1] = out_b;
            cp += W;
        } else {
            if (L.own_a)
                op[0] = out_a;
            if (L.own_b)
                op[1] = out_b;
        }
        op += ys;
        va_a = vb_a;
        va_b = vb_b;
        vb_a = vc_a;
        vb_b = vc_b;
        la_a = lb_a;
        la_b = lb_b;
        lb_a = lc_a;
        lb_b = lc_b;
    };
    /* the Laplacians of row k - 1 alone (the window's first rows) */
    auto first = [&](T vc_a, T vc_b) {
        la_a = lb_a;
        la_b = lb_b;
        laps(vc_a, vc_b, lb_a, lb_b);
        va_a = vb_a;
        va_b = vb_b;
        vb_a = vc_a;
        vb_b = vc_b;
    };
#pragma unroll
    for (int d = 0; d < D; d++) /* n >= 5 */
        load(qa[d], qb[d]);
    va_a = qa[0];
    va_b = qb[0];
    load(qa[0], qb[0]);
    vb_a = qa[1];
    vb_b = qb[1];
    lb_a = lb_b = (T)0;
    if (D + 1 < n)
        load(qa[1], qb[1]);
    first(qa[2], qb[2]);
    if (D + 2 < n)
        load(qa[2], qb[2]);
    first(qa[3], qb[3]);
    if (D + 3 < n)
        load(qa[3], qb[3]);
    int k = D;
    for (; k + D <= n; k += D) /* the rows loaded D ahead of the one computed */
#pragma unroll
        for (int d = 0; d < D; d++) {
            const T ca = qa[d], cb = qb[d];
            if (k + D + d < n)
                load(qa[d], qb[d]);
            step(ca, cb, k + d);
        }
#pragma unroll
    for (int d = 0; d < D; d++)
        if (k + d < n)
            step(qa[d], qb[d], k + d);
}

template <typename T, int D>
__global__ void __launch_bounds__(ONCHIP_WALK_THREADS, 1) k_onchip_walk(onchip_reg_params p)
{
    constexpr int R = 2, W = ONCHIP_WALK_W;
    extern __shared__ __align__(16) unsigned char sm[];
    cg::grid_group grid = cg::this_grid();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const reg_tile tile(p, blockIdx.x);
    const int strips = p.strips, s = warp % strips, lz = warp / strips;
    const int sx = s * W, sw = min(max(tile.tw - sx, 0), W); /* the strip's first column, width */
    const int th = sw ? tile.th : 0, n = th ? th + 2 * R : 0; /* rows walked: -2 .. th + 1 */
    const long zs = p.zs;
    const int ys = p.ys;
    const walk_lane L(lane, sw, 0);
    const long g0 = tile.base + sx; /* the strip's row 0, column 0 at level 0 */
    const size_t slab = (size_t)strips * p.ty * W; /* a cached level's own cells in the block */
    /* row i of level z, column c of the strip: mine[z slab + i W + c] (own columns only) */
    T *const mine = (T *)sm + (size_t)s * p.ty * W;
    for (int z = lz; z < p.levels; z += p.wl) /* the cached levels' own cells */
        for (int i = 0; i < th; i++)
            for (int c = 2 * lane - 2; c < 2 * lane; c++)
                if (c >= 0 && c < sw)
                    mine[z * slab + (size_t)i * W + c] =
                        ((const T *)p.state)[z * zs + g0 + (long)i * ys + c];
    for (int t = 0; t < p.steps; t++) {
        const onchip_parity<T> q(t, p.state, p.other, p.xb0, p.xb1);
        if (n > 0) /* else a strip past the grid: only the barriers */
            for (int z = lz; z < p.nz; z += p.wl) {
                const long at = z * zs + g0;
                if (z < p.levels)
                    walk_level<T, D, true>(q.xin + at, mine + z * slab + max(L.ca, 0),
                                           q.xout + at, n, th, ys, L);
                else
                    walk_level<T, D, false>(q.cur + at, NULL, q.nxt + at, n, th, ys, L);
            }
        if (t + 1 < p.steps)
            grid.sync();
    }
    T *res = (T *)((p.steps & 1) ? p.other : p.state); /* the cached levels, into the result */
    for (int z = lz; z < p.levels; z += p.wl)
        for (int i = 0; i < th; i++)
            for (int c = 2 * lane - 2; c < 2 * lane; c++)
                if (c >= 0 && c < sw)
                    res[z * zs + g0 + (long)i * ys + c] = mine[z * slab + (size_t)i * W + c];
}

/* Place i of a level (x = i % nx, y = i / nx) between the chart's lattice and the grid's cells
 * (onchip_chart_copy). */
template <typename T>
__global__ void k_chart_copy(T *lat, T *f, const int32_t *cells, int nx, int ny, int halo, int a,
                             int ys, long lzs, long fzs, int to_lattice)
{
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x, z = blockIdx.y;
    if (i >= (long)nx * ny)
        return;
    const int x = (int)(i % nx), y = (int)(i / nx);
    const long l = a + x + (long)y * ys + z * lzs, g = cells[i] + z * fzs;
    if (to_lattice)
        lat[l] = f[g];
    else if (x >= halo && x < nx - halo && y >= halo && y < ny - halo)
        f[g] = lat[l];
}

extern "C" {
int onchip_chart_copy(int prec, void *lat, void *f, const int32_t *cells, int nx, int ny, int halo,
                      int a, int ys, long lzs, long fzs, int levels, int to_lattice)
{
    const long places = (long)nx * ny;
    const dim3 grid((unsigned)((places + 255) / 256), (unsigned)levels);
    if (places > 0 && levels > 0) {
        if (prec == 0)
            k_chart_copy<double><<<grid, 256>>>((double *)lat, (double *)f, cells, nx, ny, halo,
                                                a, ys, lzs, fzs, to_lattice);
        else
            k_chart_copy<float><<<grid, 256>>>((float *)lat, (float *)f, cells, nx, ny, halo, a,
                                               ys, lzs, fzs, to_lattice);
    }
    return (int)cudaGetLastError();
}

const void *const onchip_walk_kernels[2] = {(const void *)k_onchip_walk<double, ONCHIP_WALK_AHEAD>,
                                            (const void *)k_onchip_walk<float, ONCHIP_WALK_AHEAD>};
}
