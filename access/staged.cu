/* staged.cu — a block's B cells and their halo live in shared memory, one level at a time.
 *
 * Unstructured: the block copies its own cells (contiguous) and its halo list (storage/staging.h,
 * built once on the host) for level k into shared memory, then each thread evaluates the stencil
 * from local slots held in registers; a block walks P.zslice levels. Each value leaves DRAM about
 * once and no neighbour table is read per level. Regular twin: the same with a (bx+4) x (by+4)
 * tile. Stencils whose field `in` carries the horizontal neighbourhood (registry.h: staged = 1;
 * laplap, hdiff); fastwaves reads only E and N and has no kernel here (the runner says so). */
#include "graph_kernels.cuh"

#define STAGE_R 2 /* radius staged: at most 2 (registry.h) */

/* Reads of `in` come from the staged slots; every other field only at the cell itself. */
#undef LD
#define LD(f, R) STAGE_LD_##f(R)
#define STAGE_LD_in(R) sbuf[loc[RIDX_##R + 1]]
#define STAGE_LD_coeff(R) coeff[NB_##R]
#define NB(R) NB_##R
#define NB_C i

/* Level loop with a register pipeline: the values of level k+1 are loaded into registers while
 * level k is computed from shared memory. Each thread owns NSLOT slots (slot t + q*nt); slots
 * beyond those (very irregular halos) are loaded directly. SLOT_INDEX(q) gives a slot's level-0
 * field index or -1. */
#define NSLOT 4
#define STAGED_LEVELS(ST, SLOT_INDEX, EXTRA_LOAD, INSIDE, INDEX)                                 \
    long slot_at[NSLOT];                                                                          \
    _Pragma("unroll") for (int q = 0; q < NSLOT; q++) slot_at[q] = SLOT_INDEX(q);                 \
    const int k0 = blockIdx.z * P.zslice, k1 = min(k0 + P.zslice, P.zend);                        \
    T next[NSLOT];                                                                                \
    _Pragma("unroll") for (int q = 0; q < NSLOT; q++) if (slot_at[q] >= 0 && k0 < k1)             \
        next[q] = in[slot_at[q] + (long)k0 * P.zs];                                               \
    for (int k = k0; k < k1; k++) {                                                               \
        const long zo = (long)k * P.zs;                                                           \
        _Pragma("unroll") for (int q = 0; q < NSLOT; q++) if (slot_at[q] >= 0)                    \
            sbuf[t + q * nt] = next[q];                                                           \
        EXTRA_LOAD                                                                                \
        __syncthreads();                                                                          \
        if (k + 1 < k1)                                                                           \
            _Pragma("unroll") for (int q = 0; q < NSLOT; q++) if (slot_at[q] >= 0)                \
                next[q] = in[slot_at[q] + zo + P.zs];                                             \
        if (INSIDE) {                                                                             \
            const long i = (INDEX) + zo;                                                          \
            ST##_BODY();                                                                          \
        }                                                                                         \
        __syncthreads();                                                                          \
    }

/* Unstructured slots: slot q*B + t is the own cell (q = 0) or halo entry (q-1)*B + t. */
#define UNS_SLOT(q)                                                                               \
    ((q) == 0 ? (t < own ? (long)(P.c0 + j) : -1L)                                                \
              : ((q - 1) * B + t < nh ? (long)__ldg(P.st_cells + h0 + (q - 1) * B + t) : -1L))

#define STRATEGY_UNS(ST)                                                                          \
    extern __shared__ __align__(16) unsigned char smem_raw[];                                     \
    T *sbuf = (T *)smem_raw;                                                                      \
    const int B = blockDim.x, t = threadIdx.x, b = blockIdx.x, j = b * B + t;                     \
    const int own = min(B, P.n - b * B), h0 = P.st_start[b], nh = P.st_start[b + 1] - h0;         \
    int loc[1 + NREL2];                                                                                  \
    loc[0] = t;                                                                                   \
    _Pragma("unroll") for (int r = 0; r < NREL2; r++)                                             \
        loc[1 + r] = (((ST##_RELS >> r) & 1u) && t < own) ? __ldg(P.st_loc + r * P.n + j) : 0;    \
    (void)nbv;                                                                                    \
    const int nt = B;                                                                             \
    /* slot 0: the own cell; slots 1..NSLOT-1: halo entries t + (q-1)*B */                        \
    STAGED_LEVELS(ST, UNS_SLOT,                                                                   \
                  for (int s = t + (NSLOT - 1) * B; s < nh; s += B)                               \
                      sbuf[B + s] = in[__ldg(P.st_cells + h0 + s) + zo];,                         \
                  t < own, P.c0 + j)

/* Regular slots: tile position t + q*nt, -1 outside the tile or the grid. */
#define REG_SLOT(q)                                                                               \
    ((t + (q)*nt < W * H && gx0 + (t + (q)*nt) % W < xend && gy0 + (t + (q)*nt) / W < yend)       \
         ? REG_INDEX(gx0 + (t + (q)*nt) % W, gy0 + (t + (q)*nt) / W, 0)                           \
         : -1L)

#define STRATEGY_REG(ST)                                                                          \
    extern __shared__ __align__(16) unsigned char smem_raw[];                                     \
    T *sbuf = (T *)smem_raw;                                                                      \
    const int bx = blockDim.x, by = blockDim.y, W = bx + 2 * STAGE_R, H = by + 2 * STAGE_R;       \
    const int t = threadIdx.y * bx + threadIdx.x, nt = bx * by;                                   \
    const int gx0 = P.x0 + blockIdx.x * bx - STAGE_R, gy0 = P.x0 + blockIdx.y * by - STAGE_R;     \
    const int x = gx0 + STAGE_R + threadIdx.x, y = gy0 + STAGE_R + threadIdx.y;                   \
    const int xend = P.x0 + P.nxi + STAGE_R, yend = P.x0 + P.nyi + STAGE_R;                       \
    int loc[1 + NREL2];                                                                                  \
    {                                                                                             \
        const int dx[NREL2] = REL_DX_INIT;                                                        \
        const int dy[NREL2] = REL_DY_INIT;                                                        \
        loc[0] = (threadIdx.x + STAGE_R) + (threadIdx.y + STAGE_R) * W;                           \
        _Pragma("unroll") for (int r = 0; r < NREL2; r++) loc[1 + r] = loc[0] + dx[r] + dy[r] * W; \
    }                                                                                             \
    STAGED_LEVELS(ST, REG_SLOT, , REG_INSIDE(x, y), REG_INDEX(x, y, 0))

/* The staged lists replace the neighbour table: no constant-memory or packed-row variants. */
#define STAGED_KERNELS(ST, TY)                                                                    \
    UNS_KERNEL(ST, TY, 0, 0) UNS_KERNEL(ST, TY, 0, 1) UNS_KERNEL(ST, TY, 1, 0) UNS_KERNEL(ST, TY, 1, 1)
#define STAGED_ROW(ST, TY)                                                                        \
    {(const void *)k_##ST##_##TY##_00, (const void *)k_##ST##_##TY##_01,                          \
     (const void *)k_##ST##_##TY##_10, (const void *)k_##ST##_##TY##_11,                          \
     (const void *)k_##ST##_##TY##_reg, 0, 0, 0, 0}
#define STAGED_BOTH(ST, _) STAGED_KERNELS(ST, double) STAGED_KERNELS(ST, float)
#define STAGED_REG(ST, _) REG_KERNEL(ST, double) REG_KERNEL(ST, float)
FOR_EACH_STAGED_STENCIL(STAGED_BOTH, _)
FOR_EACH_STAGED_STENCIL(STAGED_REG, _)

/* A row per W/E/S/N stencil; none for those without staged kernels (the runner says so). */
#define STAGED_STENCIL(ST, _) {STAGED_ROW(ST, double), STAGED_ROW(ST, float)},
#define STAGED_NONE(ST, _) {{0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
extern "C" {
kernel_table staged_kernels = {FOR_EACH_STENCIL_STAGED_OR(STAGED_STENCIL, STAGED_NONE, _)};
}

/* ---- graph stencils: a block's cells and their halo within the stencil's radius (per-block
 * lists, storage/gstaging.h) in shared memory level by level; the cell's row of slots
 * (P.st_loc, a non-chasing row of slots) replaces the table, so every storage column runs the
 * same kernel. Regular twin: a tile of the lattice with its halo (LAT_HX, LAT_HY cells). ---- */
/* The thread's row of slots, copied once into shared memory as 16-bit entries (rows: the first
 * gstaged_rows_bytes(B, D) bytes; the values follow): read at every level from global memory,
 * (1 + D)² words per cell and level, it made staged's DRAM traffic several times the values'. */
#define GS_E(e) ((int)srow[(e) * B + t])
#undef GLD
#define GLD(f, q) sbuf[q]

#define STRATEGY_GRAPH(ST)                                                                        \
    extern __shared__ __align__(16) unsigned char smem_raw[];                                     \
    const int B = blockDim.x, t = threadIdx.x, b = blockIdx.x, jj = b * B + t;                    \
    const int W = (1 + P.gt_D) * (1 + P.gt_D);                                                    \
    unsigned short *srow = (unsigned short *)smem_raw;                                            \
    T *sbuf = (T *)(smem_raw + ((size_t)2 * W * B + 15) / 16 * 16);                               \
    const int own = min(B, P.n - b * B), h0 = P.st_start[b], nh = P.st_start[b + 1] - h0;         \
    if (t < own) {                                                                                \
        const int d_ = __ldg(P.st_loc + jj);                                                      \
        srow[t] = (unsigned short)d_;                                                             \
        for (int k_ = 0; k_ < d_; k_++) {                                                         \
            const int e1 = 1 + k_, e2 = (1 + k_) * (1 + P.gt_D);                                  \
            srow[e1 * B + t] = (unsigned short)__ldg(P.st_loc + (long)e1 * P.n + jj);             \
            const int d2 = __ldg(P.st_loc + (long)e2 * P.n + jj);                                 \
            srow[e2 * B + t] = (unsigned short)d2;                                                \
            for (int i_ = 0; i_ < d2; i_++)                                                       \
                srow[(e2 + 1 + i_) * B + t] =                                                     \
                    (unsigned short)__ldg(P.st_loc + (long)(e2 + 1 + i_) * P.n + jj);             \
        }                                                                                         \
    }                                                                                             \
    const int k0 = blockIdx.z * P.zslice, k1 = min(k0 + P.zslice, P.zend);                        \
    for (int k = k0; k < k1; k++) {                                                               \
        const long zo = (long)k * P.zs;                                                           \
        for (int s = t; s < B + nh; s += B)                                                       \
            if (s < own)                                                                          \
                sbuf[s] = __ldg(in + P.c0 + b * B + s + zo);                                      \
            else if (s >= B)                                                                      \
                sbuf[s] = __ldg(in + __ldg(P.st_cells + h0 + s - B) + zo);                        \
        __syncthreads();                                                                          \
        if (t < own) {                                                                            \
            const long gi = P.c0 + jj + zo;                                                       \
            ST##_BODY(t);                                                                         \
        }                                                                                         \
        __syncthreads();                                                                          \
    }

#define LAT_HX (LK == LATTICE_HEXAGONS ? 2 : 3)
#define LAT_HY (LK == LATTICE_HEXAGONS ? 2 : 1)
#define STRATEGY_LATTICE(ST)                                                                      \
    extern __shared__ __align__(16) unsigned char smem_raw[];                                     \
    T *sbuf = (T *)smem_raw;                                                                      \
    const int bx = blockDim.x, by = blockDim.y, LW = bx + 2 * LAT_HX, TH = by + 2 * LAT_HY;      \
    const int t = threadIdx.y * bx + threadIdx.x, nt = bx * by;                                   \
    const int gx0 = (int)(blockIdx.x * bx) - LAT_HX, gy0 = (int)(blockIdx.y * by) - LAT_HY;       \
    const int x = gx0 + LAT_HX + threadIdx.x, y = gy0 + LAT_HY + threadIdx.y;                     \
    const int inside = x < P.lat_w && y < P.lat_ny &&                                             \
                       lattice_inner(LK, P.lat_nx, P.lat_ny, P.g_radius, x, y);                   \
    const int par = lattice_par(LK, x, y);                                                        \
    const int me = (threadIdx.x + LAT_HX) + (threadIdx.y + LAT_HY) * LW;                          \
    const int k0 = blockIdx.z * P.zslice, k1 = min(k0 + P.zslice, P.zend);                        \
    for (int k = k0; k < k1; k++) {                                                               \
        const long zo = (long)k * P.zs;                                                           \
        for (int s = t; s < LW * TH; s += nt) {                                                   \
            const int sx = gx0 + s % LW, sy = gy0 + s / LW;                                       \
            if (sx >= 0 && sx < P.lat_w && sy >= 0 && sy < P.lat_ny)                              \
                sbuf[s] = __ldg(in + (long)sy * P.lat_w + sx + zo);                               \
        }                                                                                         \
        __syncthreads();                                                                          \
        if (inside) {                                                                             \
            const long gi = (long)y * P.lat_w + x + zo;                                           \
            ST##_BODY(me);                                                                        \
        }                                                                                         \
        __syncthreads();                                                                          \
    }

#define GRAPH_ACC GRAPH_ACC_STAGED
#include "graph_acc.cuh"
/* the lists replace the table: one kernel per stencil and precision, in every storage column */
#define GRAPH_STAGED_KERNEL(ST, TY) GRAPH_KERNEL(ST, TY, 0, 0)
FOR_EACH_GRAPH_STENCIL(GRAPH_STAGED_KERNEL, double)
FOR_EACH_GRAPH_STENCIL(GRAPH_STAGED_KERNEL, float)
#undef GRAPH_ACC
#define GRAPH_ACC GRAPH_ACC_STAGED_LATTICE
#include "graph_acc.cuh"
INSTANTIATE_GRAPH_LAT()

#define GSTAGED_ROW(ST, TY)                                                                       \
    {(const void *)kg_##ST##_##TY##_00, (const void *)kg_##ST##_##TY##_00,                        \
     (const void *)kg_##ST##_##TY##_00, (const void *)kg_##ST##_##TY##_00,                        \
     (const void *)kg_##ST##_##TY##_hex, (const void *)kg_##ST##_##TY##_tri}
#define GSTAGED_STENCIL(ST, _) {GSTAGED_ROW(ST, double), GSTAGED_ROW(ST, float)},
extern "C" {
gkernel_table staged_gkernels = {FOR_EACH_GRAPH_STENCIL(GSTAGED_STENCIL, _)};
}
