/* twopass.cu — each Laplacian once per block and level, through shared memory, in two passes.
 *
 * The bodies of laplap, hdiff and lap (the stencils with staged = 1 in stencils/registry.h) read
 * the Laplacian at their cell and at its four neighbours, each from that cell's own row
 * (LAPLAP_LAPS). Thread-per-cell strategies compute the five of them at every point, so each
 * Laplacian is computed five times and 13 values (21 relations' worth of offsets) are loaded per
 * point. Here a block of B cells and bz levels works in two passes per group of bz levels:
 *
 *   pass 1  the Laplacian at every entry of the block's list (its own cells, then its ring: the
 *           W/E/S/N neighbours outside the block, storage/staging.h built with mask 0xf) from
 *           the global values, each entry's four offsets held in registers across the levels
 *           (looked up once per block from whichever table the run uses; only first-order
 *           relations, so chasing and non-chasing tables cost the same), into shared memory;
 *   pass 2  the body at the block's own cells, with LAPLAP_LAP reading the Laplacians from
 *           shared memory through five local slots held in registers (the rest of the body —
 *           hdiff's limiters, coeff, the fold — reads global memory at the cell and its four
 *           neighbours, which pass 1 has just brought into L1).
 *
 * The shared Laplacians are double-buffered by level group, so one barrier per group suffices:
 * a thread that has passed the barrier of group g has finished its pass 2 of group g-1, which is
 * the last reader of the buffer group g+1 writes. A thread (t, z) walks P.zslice groups: levels
 * k0 + g·bz + z. Pass 1 computes LAPLAP_LAP_FROM_IN (stencils/laplap.h) with the entry's own
 * neighbours, the very operations the body's LAPLAP_LAP performs in the other strategies: the
 * result is bit for bit theirs, also across cubed-sphere seams (the Laplacian of a neighbour is
 * that neighbour's own).
 *
 * Regular twin: a BX x BY tile and its ring of one cell, (BX+2)·(BY+2) entries (the 4 corners
 * are computed and not read), neighbours by arithmetic, the same two passes. */
#include "kernels.cuh"

/* Entries a thread holds in registers: its own cell (unstructured) or tile position t, and
 * entries t + q·nt for q < TP_NSLOT. Longer ring lists (very irregular orders) are served by a
 * loop that looks the offsets up again at every level. */
#define TP_NSLOT 4

/* NB(R) for the five relations a Laplacian reads, through the int4 oq (W, E, S, N offsets) in
 * scope. The body's second-order relations never reach NB here (LAPLAP_LAP is redefined below);
 * a body that named one directly would not compile. */
#define TP_OFF_C 0
#define TP_OFF_W oq.x
#define TP_OFF_E oq.y
#define TP_OFF_S oq.z
#define TP_OFF_N oq.w
#define NB(R) (i + TP_OFF_##R)

/* Pass 2: the Laplacian at relation x of the own cell is the shared value at its slot. */
#undef LAPLAP_LAP
#define LAPLAP_LAP(x, w, e, s, n) slap[sl_##x]

/* W, E, S, N offsets of plane cell c from the run's table (any storage column). */
__device__ __forceinline__ int4 tp_gather(nbview t, int chasing, int compressed, int c)
{
    int32_t o[1 + NREL2];
    nb_gather(t, chasing, compressed, 0xfu, c, o);
    return make_int4(o[1 + 0], o[1 + 1], o[1 + 2], o[1 + 3]);
}

/* The level groups, shared by both grids. In scope: nt threads per level (t), lz and nz (this
 * thread's level in a group, levels per group), ne (entries), ent[q] (level-0 index of entry
 * t + q·nt, -1 for none), eo[q] (its offsets), own_at / own_o (the own cell's level-0 index, -1
 * for none, and offsets), sl_C..sl_N (the own cell's slots), OVERFLOW (pass 1 of entries beyond
 * the registers, with zo and slap in scope). */
#define TP_LEVELS(ST, OVERFLOW)                                                                   \
    extern __shared__ __align__(16) unsigned char smem_raw[];                                     \
    T *const lapbuf = (T *)smem_raw;                                                              \
    (void)sl_W, (void)sl_E, (void)sl_S, (void)sl_N; /* lap reads only its own */                  \
    const int k0 = (int)blockIdx.z * nz * P.zslice;                                               \
    for (int g = 0; g < P.zslice; g++) {                                                          \
        const int k = k0 + g * nz + lz;                                                           \
        T *const slap = lapbuf + (long)((g & 1) * nz + lz) * ne;                                  \
        const long zo = (long)k * P.zs;                                                           \
        if (k0 + g * nz >= P.zend)                                                                \
            break; /* uniform across the block: no barrier is skipped by some threads only */    \
        if (k < P.zend) {                                                                         \
            _Pragma("unroll") for (int q = 0; q < TP_NSLOT; q++) if (ent[q] >= 0)                 \
            {                                                                                     \
                const int4 oq = eo[q];                                                            \
                const long i = ent[q] + zo;                                                       \
                slap[t + q * nt] = LAPLAP_LAP_FROM_IN(C, W, E, S, N);                             \
            }                                                                                     \
            OVERFLOW                                                                              \
        }                                                                                         \
        __syncthreads();                                                                          \
        if (k < P.zend && own_at >= 0) {                                                          \
            const int4 oq = own_o; /* laplap and lap read no neighbour's value here */           \
            const long i = own_at + zo;                                                           \
            (void)oq;                                                                             \
            ST##_BODY();                                                                          \
        }                                                                                         \
    }

/* Unstructured pass 1 of the ring entries beyond the registers: offsets looked up at each level. */
#define TP_UNS_OVERFLOW                                                                           \
    for (int s = t + (TP_NSLOT - 1) * B; s < nh; s += B) {                                        \
        const int c = __ldg(P.st_cells + h0 + s);                                                 \
        const int4 oq = tp_gather(nbv, CHASING, COMPRESSED, c);                                   \
        const long i = c + zo;                                                                    \
        slap[B + s] = LAPLAP_LAP_FROM_IN(C, W, E, S, N);                                          \
    }

/* Unstructured: block b owns inner cells b·B .. b·B+own-1 (slots 0..B-1); its ring is the
 * staging list's halo (slots B..B+nh-1). */
#define STRATEGY_UNS(ST)                                                                          \
    const int B = blockDim.x, nt = B, t = threadIdx.x, lz = threadIdx.z, nz = blockDim.z;         \
    const int b = blockIdx.x, j = b * B + t, own = min(B, P.n - b * B);                           \
    const int h0 = __ldg(P.st_start + b), nh = __ldg(P.st_start + b + 1) - h0, ne = B + nh;       \
    long ent[TP_NSLOT];                                                                           \
    int4 eo[TP_NSLOT];                                                                            \
    _Pragma("unroll") for (int q = 0; q < TP_NSLOT; q++) {                                        \
        const int c = q == 0 ? (t < own ? P.c0 + j : -1)                                          \
                             : ((q - 1) * B + t < nh ? __ldg(P.st_cells + h0 + (q - 1) * B + t) : -1); \
        ent[q] = c;                                                                               \
        eo[q] = c >= 0 ? tp_gather(nbv, CHASING, COMPRESSED, c) : make_int4(0, 0, 0, 0);                                    \
    }                                                                                             \
    const long own_at = ent[0];                                                                   \
    const int4 own_o = eo[0];                                                                     \
    const int sl_C = t, sl_W = t < own ? __ldg(P.st_loc + 0L * P.n + j) : 0,                      \
              sl_E = t < own ? __ldg(P.st_loc + 1L * P.n + j) : 0,                                \
              sl_S = t < own ? __ldg(P.st_loc + 2L * P.n + j) : 0,                                \
              sl_N = t < own ? __ldg(P.st_loc + 3L * P.n + j) : 0;                                \
    TP_LEVELS(ST, TP_UNS_OVERFLOW)

/* Regular: tile position e = ex + ey·(bx+2) is cell (gx0 + ex, gy0 + ey); positions beyond the
 * inner region's ring are skipped (no own cell reads them). */
#define STRATEGY_REG(ST)                                                                          \
    const int bx = blockDim.x, by = blockDim.y, nt = bx * by, t = threadIdx.y * bx + threadIdx.x; \
    const int lz = threadIdx.z, nz = blockDim.z, tw = bx + 2, ne = tw * (by + 2);                 \
    const int gx0 = P.x0 + (int)blockIdx.x * bx - 1, gy0 = P.x0 + (int)blockIdx.y * by - 1;       \
    const int xend = P.x0 + P.nxi + 1, yend = P.x0 + P.nyi + 1;                                   \
    const int x = gx0 + 1 + (int)threadIdx.x, y = gy0 + 1 + (int)threadIdx.y;                     \
    const int4 oreg = make_int4(-1, 1, -P.ys, P.ys);                                              \
    long ent[TP_NSLOT];                                                                           \
    int4 eo[TP_NSLOT];                                                                            \
    _Pragma("unroll") for (int q = 0; q < TP_NSLOT; q++) {                                        \
        const int e = t + q * nt, ex = gx0 + e % tw, ey = gy0 + e / tw;                           \
        ent[q] = e < ne && ex < xend && ey < yend ? REG_INDEX(ex, ey, 0) : -1L;                   \
        eo[q] = oreg;                                                                             \
    }                                                                                             \
    const long own_at = REG_INSIDE(x, y) ? REG_INDEX(x, y, 0) : -1L;                              \
    const int4 own_o = oreg;                                                                      \
    const int sl_C = (int)(threadIdx.x + 1) + (int)(threadIdx.y + 1) * tw, sl_W = sl_C - 1,       \
              sl_E = sl_C + 1, sl_S = sl_C - tw, sl_N = sl_C + tw;                                \
    TP_LEVELS(ST, )

/* Kernels for the staged stencils in every storage column; none for the others (the runner
 * says so). */
#define TP_UNS_BOTH(ST, _) UNS_KERNELS(ST, double) UNS_KERNELS(ST, float)
#define TP_REG_BOTH(ST, _) REG_KERNEL(ST, double) REG_KERNEL(ST, float)
FOR_EACH_STAGED_STENCIL(TP_UNS_BOTH, _)
FOR_EACH_STAGED_STENCIL(TP_REG_BOTH, _)

#define TP_STENCIL(ST, _) {KERNEL_ROW(ST, double), KERNEL_ROW(ST, float)},
#define TP_NONE(ST, _) {{0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
extern "C" {
kernel_table twopass_kernels = {FOR_EACH_STENCIL_STAGED_OR(TP_STENCIL, TP_NONE, _)};
int twopass_kernels_upload(const void *rows, size_t bytes)
{
    return (int)cudaMemcpyToSymbol(c_nbtab, rows, bytes);
}
}
