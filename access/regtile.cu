/* regtile.cu — register tiling of the Laplacian stencils (laplap, hdiff, lap: staged = 1 in
 * stencils/registry.h): each Laplacian computed about once per cell, passed between threads in
 * registers instead of through memory.
 *
 * The bodies read the Laplacian at their cell and at its four neighbours, each from that cell's
 * own row (LAPLAP_LAPS). A thread-per-cell strategy computes all five at every point (13 values
 * loaded). Here:
 *
 *   along the lanes  neighbouring lanes of a warp hold neighbouring cells (x on the regular grid;
 *                    consecutive cells on the unstructured one, which zcurve-w and z-curves make
 *                    W/E neighbours in runs). A lane takes its W (E) neighbour's value and
 *                    Laplacian from lane - 1 (+ 1) with a warp shuffle when, and only when, that
 *                    lane's field index is the neighbour's index; otherwise (warp edges, the ends
 *                    of runs, cubed-sphere seams, random orders) it computes them itself from
 *                    the table, as idxvar does. The index test makes the reuse exact: the same
 *                    index holds the same value, and the Laplacian a lane computed at its own
 *                    cell from its own row is the one the body names at that neighbour.
 *   along a thread   regular twin: a thread walks RT_ROWS rows along y at one x and level,
 *                    keeping a window of the input at y-1..y+2 and of the Laplacians at y-1..y+1
 *                    (each row's Laplacian computed once, reused as lap_s and lap_n of the next
 *                    and previous outputs); unstructured: a thread walks --zslice levels of one
 *                    cell with its 20 offsets held in registers (looked up once, as zloop-sliced)
 *                    and shares the input at its S and N neighbours with its lanes the same way.
 *
 * Every Laplacian is LAPLAP_COMBINE (stencils/laplap.h) of the five values LAPLAP_LAP_FROM_IN
 * would load, in its order, and the body is expanded with LAPLAP_LAP redefined to pick the
 * register: the result is the CPU's bit for bit. All lanes execute every shuffle: threads outside
 * the grid take part with indices clamped inside it and store nothing; the shuffles' source lane
 * must be in the warp's mask (a partial last warp).
 *
 * Loads per point (regular, lanes not at a warp edge): the input at (x, y+2) only, plus the
 * priming of each thread's window (4 values per RT_ROWS outputs); unstructured: the input at the
 * cell, S, N, SS, NN (the W/E values of the cell and of S and N from the lanes when the indices
 * agree, NS and SN from the cell when they are the cell) and no offsets per level. */
#include "kernels.cuh"

#define RT_ROWS ACCESS_ROWS

/* NB for the fallbacks: the body's relation tokens (GATHERED_NB on the unstructured grid). */
#define NB(R) GATHERED_NB(R)

/* The body reads the Laplacians from registers rt_C .. rt_N. */
#undef LAPLAP_LAP
#define LAPLAP_LAP(x, w, e, s, n) rt_##x

/* v from the lane below (above) when ok, else the load of relation R. */
#define RT_PICK(ok, shuffled, R) ((ok) ? (shuffled) : LD(in, R))

/* Lane mask and the test whether lane - d (d = 1) or lane + 1 holds index `want`: `idx` is this
 * lane's index, -1 where it holds no cell. */
__device__ __forceinline__ int rt_from_up(unsigned m, long idx, long want)
{
    const int lane = (int)(threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y) & 31;
    const long up = __shfl_up_sync(m, idx, 1);
    return lane > 0 && idx >= 0 && up >= 0 && up == want;
}
__device__ __forceinline__ int rt_from_down(unsigned m, long idx, long want)
{
    const int lane = (int)(threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y) & 31;
    const long dn = __shfl_down_sync(m, idx, 1);
    return lane < 31 && ((m >> (lane + 1)) & 1u) && idx >= 0 && dn >= 0 && dn == want;
}

/* The body at index i with Laplacians c, w, e, s, n, stored when `store`. */
#define RT_BODY(ST, store, c, w, e, s, n)                                                         \
    if (store) {                                                                                  \
        const T rt_C = (c), rt_W = (w), rt_E = (e), rt_S = (s), rt_N = (n);                       \
        (void)rt_W, (void)rt_E, (void)rt_S, (void)rt_N;                                           \
        ST##_BODY();                                                                              \
    }

/* Unstructured: thread = inner cell (consecutive cells in consecutive lanes), --zslice levels.
 * Lanes compare field indices at the same level (they share the level loop and, in a warp,
 * possibly different slices: the level is in the index). */
#define STRATEGY_UNS(ST)                                                                          \
    const unsigned m = __activemask();                                                            \
    const int cell = UNS_CELL(), s = THREAD_Z();                                                  \
    const int live = cell < P.n && s * P.zslice < P.zend;                                         \
    const int p = P.c0 + min(cell, P.n - 1);                                                      \
    int32_t o[1 + NREL2];                                                                         \
    nb_gather(nbv, CHASING, COMPRESSED, ST##_RELS, p, o);                                         \
    for (int g = 0; g < P.zslice; g++) {                                                          \
        const int k = s * P.zslice + g, ok = live && k < P.zend;                                  \
        const long i = p + (long)min(k, P.zend - 1) * P.zs, me = ok ? i : -1L;                    \
        const long iS = i + o[1 + RIDX_S], iN = i + o[1 + RIDX_N];                                \
        const T vC = LD(in, C), vS = LD(in, S), vN = LD(in, N);                                   \
        const int okW = rt_from_up(m, me, i + o[1 + RIDX_W]);                                     \
        const int okE = rt_from_down(m, me, i + o[1 + RIDX_E]);                                   \
        const int okWS = rt_from_up(m, ok ? iS : -1L, i + o[1 + RIDX_WS]);                        \
        const int okES = rt_from_down(m, ok ? iS : -1L, i + o[1 + RIDX_ES]);                      \
        const int okWN = rt_from_up(m, ok ? iN : -1L, i + o[1 + RIDX_WN]);                        \
        const int okEN = rt_from_down(m, ok ? iN : -1L, i + o[1 + RIDX_EN]);                      \
        const T cu = __shfl_up_sync(m, vC, 1), cd = __shfl_down_sync(m, vC, 1);                   \
        const T su = __shfl_up_sync(m, vS, 1), sd = __shfl_down_sync(m, vS, 1);                   \
        const T nu = __shfl_up_sync(m, vN, 1), nd = __shfl_down_sync(m, vN, 1);                   \
        const T lapC = LAPLAP_COMBINE(vC, RT_PICK(okW, cu, W), RT_PICK(okE, cd, E), vS, vN);      \
        const T lapS = LAPLAP_COMBINE(vS, RT_PICK(okWS, su, WS), RT_PICK(okES, sd, ES), LD(in, SS), \
                                      o[1 + RIDX_NS] == 0 ? vC : LD(in, NS));                     \
        const T lapN = LAPLAP_COMBINE(vN, RT_PICK(okWN, nu, WN), RT_PICK(okEN, nd, EN),          \
                                      o[1 + RIDX_SN] == 0 ? vC : LD(in, SN), LD(in, NN));         \
        const T lu = __shfl_up_sync(m, lapC, 1), ld = __shfl_down_sync(m, lapC, 1);               \
        RT_BODY(ST, ok, lapC, okW ? lu : LAPLAP_LAP_FROM_IN(W, WW, EW, SW, NW),                   \
                okE ? ld : LAPLAP_LAP_FROM_IN(E, WE, EE, SE, NE), lapS, lapN)                     \
    }

/* Regular twin: thread (x, y0..y0+RT_ROWS-1, --zslice levels); lanes along x. Outside the inner
 * region a thread works on the clamped position and stores nothing. */
#define STRATEGY_REG(ST)                                                                          \
    const unsigned m = __activemask();                                                            \
    const int x = REG_X(), y0 = P.x0 + (int)(blockIdx.y * blockDim.y + threadIdx.y) * RT_ROWS;   \
    const int s = THREAD_Z(), xl = P.x0 + P.nxi - 1, yl = P.x0 + P.nyi - 1;                       \
    const int live = x <= xl && y0 <= yl && s * P.zslice < P.zend;                                \
    const int xc = min(x, xl);                                                                    \
    int32_t o[1 + NREL2];                                                                         \
    reg_gather(P.ys, o);                                                                          \
    for (int g = 0; g < P.zslice; g++) {                                                          \
        const int k = min(s * P.zslice + g, P.zend - 1), okz = live && s * P.zslice + g < P.zend; \
        long i = REG_INDEX(xc, min(y0, yl), k);                                                   \
        const long me = okz ? i : -1L;                                                            \
        const int okW = rt_from_up(m, me, i - 1), okE = rt_from_down(m, me, i + 1);               \
        T vS = LD(in, S), vC = LD(in, C), vN = LD(in, N);                                         \
        T lapS, lapC;                                                                             \
        {                                                                                         \
            const T su = __shfl_up_sync(m, vS, 1), sd = __shfl_down_sync(m, vS, 1);               \
            const T cu = __shfl_up_sync(m, vC, 1), cd = __shfl_down_sync(m, vC, 1);               \
            lapS = LAPLAP_COMBINE(vS, RT_PICK(okW, su, WS), RT_PICK(okE, sd, ES), LD(in, SS), vC); \
            lapC = LAPLAP_COMBINE(vC, RT_PICK(okW, cu, W), RT_PICK(okE, cd, E), vS, vN);          \
        }                                                                                         \
        _Pragma("unroll") for (int j = 0; j < RT_ROWS; j++) {                                     \
            const T vNN = LD(in, NN);                                                             \
            const T nu = __shfl_up_sync(m, vN, 1), nd = __shfl_down_sync(m, vN, 1);               \
            const T lapN = LAPLAP_COMBINE(vN, RT_PICK(okW, nu, WN), RT_PICK(okE, nd, EN), vC, vNN); \
            const T lu = __shfl_up_sync(m, lapC, 1), ld = __shfl_down_sync(m, lapC, 1);           \
            RT_BODY(ST, okz && y0 + j <= yl, lapC,                                                \
                    okW ? lu : LAPLAP_LAP_FROM_IN(W, WW, EW, SW, NW),                             \
                    okE ? ld : LAPLAP_LAP_FROM_IN(E, WE, EE, SE, NE), lapS, lapN)                 \
            if (y0 + j + 1 <= yl) /* past the region: the window stays (nothing is stored) */    \
                i += P.ys;                                                                        \
            else                                                                                  \
                continue;                                                                         \
            vS = vC, vC = vN, vN = vNN, lapS = lapC, lapC = lapN;                                 \
        }                                                                                         \
    }

/* Kernels for the staged stencils in every storage column; none for the others. */
INSTANTIATE_STAGED_ONLY()
TABULATE_STAGED_ONLY(regtile_kernels)
