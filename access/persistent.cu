/* persistent.cu — persistent kernels of iterated runs (access/persistent.h, docs/persistent.md):
 * every step of a run (out of core: of a chunk) in one cooperative launch, a grid-wide barrier
 * (cooperative_groups::this_grid().sync()) between two steps. A block owns cells
 * persist_range(...) of the inner cells for the whole run; its threads take them one after the
 * other (thread j: cells j, j + blockDim, ...) and walk up the levels of each, as zloop's
 * threads do (out of core a step computes only the cells of the chunk's shrinking region,
 * persist_params.active: a suffix of the block's cells); the cached levels (A.levels, the
 * lowest) from shared memory, the others from global memory. The body is the stencil's,
 * unchanged, with the fold fused (FOLDED, kernels.cuh), so a step computes what a one-step
 * kernel computes, bit for bit.
 * Lean: at most 64 registers a thread (launch bounds of PERSIST_MIN_BLOCKS blocks of
 * PERSIST_MAX_THREADS: four of 256 or eight of 128 an SM, as registers go), so nothing per cell
 * stays in registers across the steps: a cell's offsets and slots are kept in shared memory (or
 * the table) and read into one array of registers when the thread takes the cell, the slots for
 * the cached levels and then the offsets for the streamed ones. */
#include "kernels.cuh"
#include "persistent.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

/* The state is written by the launch itself (by other blocks, in the step before), so it must
 * not be read through the read-only (non-coherent) path that body.h's LD uses, and the bodies'
 * `const T *RESTRICT` would let the compiler choose that path on its own. Plain loads see what
 * other blocks wrote before the grid barrier (it orders memory at device scope). */
#undef LD
#undef LDZ
#undef RESTRICT
#define LD(f, R) ((f)[NB(R)])
#define LDZ(f, R, dz) ((f)[NB(R) + (dz) * ZS])
#define RESTRICT

/* Entries o[1 + r] of the relations r in mask into shared memory at local cell l of a block of
 * n cells (relation-major: consecutive threads, consecutive words). */
__device__ __forceinline__ void persist_store(unsigned mask, const int32_t o[1 + NREL2],
                                              int32_t *s, int l, int n)
{
    int j = 0;
#pragma unroll
    for (int r = 0; r < NREL2; r++)
        if ((mask >> r) & 1u)
            s[(long)(j++) * n + l] = o[1 + r];
}

/* The slots of inner cell j (local cell l) from the lists in global memory (persist_lists.h):
 * sl[0] = l (the cell itself), sl[1 + r] relation r, xf the export flag. */
__device__ __forceinline__ void slots_gather(unsigned mask, const int32_t *g, long n, long j,
                                             int l, int32_t sl[1 + NREL2], int &xf)
{
    xf = __ldg(g + j);
    sl[0] = l;
#pragma unroll
    for (int r = 0; r < NREL2; r++)
        sl[1 + r] = ((mask >> r) & 1u) ? __ldg(g + (long)(1 + r) * n + j) : 0;
}

/* The same into shared memory at local cell l of a block of n cells: the flag, then the
 * relations in mask, relation-major. */
__device__ __forceinline__ void slots_store(unsigned mask, const int32_t sl[1 + NREL2], int xf,
                                            int32_t *s, int l, int n)
{
    s[l] = xf;
    int j = 1;
#pragma unroll
    for (int r = 0; r < NREL2; r++)
        if ((mask >> r) & 1u)
            s[(long)(j++) * n + l] = sl[1 + r];
}

/* Row of relation r among the relations of mask (relation-major lists in shared memory keep
 * only those): the set bits of mask below bit r. A constant where mask and r are. */
__device__ __forceinline__ constexpr int persist_row(unsigned mask, int r)
{
    int j = 0;
    for (int q = 0; q < r; q++)
        j += (int)((mask >> q) & 1u);
    return j;
}

/* ---- streamed levels: levels k0..k1-1 of plane cell p, read and written in global memory.
 * The offsets are read from the block's offsets in shared memory (so: local cell l's first
 * entry, ns: the stride of a relation's row) where the body uses them, at every level, not held
 * in registers across the levels: 20 of them beside the body's 21 values do not fit 64
 * registers (`volatile` keeps the compiler from hoisting the loads out of the loop). Looking
 * them up in the table instead (a shape whose offsets do not fit shared memory) spilled, so
 * such shapes are refused (src/plan/persist_plan.c). ---- */
#define NB(R) (RIDX_##R < 0 ? i : i + so[persist_row(ST_RELS_, RIDX_##R) * ns])
#define PERSIST_STREAMED_FN(ST, TY)                                                               \
    static __device__ __forceinline__ void pgs_##ST##_##TY(const persist_params &A, int t,        \
                                                           const volatile int32_t *so, int ns, int p,    \
                                                           int k0, int k1)                        \
    {                                                                                             \
        typedef TY T;                                                                             \
        constexpr unsigned ST_RELS_ = ST##_RELS;                                                  \
        const kparams &P = A.P; /* ZS, K, FOLDED of the bodies */                                 \
        const fieldset F_ = persist_fields(A, t);                                                 \
        ST##_BIND(F_);                                                                            \
        for (int k = k0; k < k1; k++) {                                                           \
            const long i = p + (long)k * P.zs;                                                    \
            ST##_BODY();                                                                          \
        }                                                                                         \
    }
#define PERSIST_STREAMED_FNS(ST, _) PERSIST_STREAMED_FN(ST, double) PERSIST_STREAMED_FN(ST, float)
FOR_EACH_STAGED_STENCIL(PERSIST_STREAMED_FNS, _)
#undef NB
#undef NB
#undef LD
#undef ST

/* ---- cached levels: the state of levels 0..A.levels-1 of local cell l (plane cell p) read
 * from the block's regions in shared memory S (own cells at cur, the halo at M) through the
 * cell's slots in shared memory (ss: its first relation's entry, ns: the stride of a relation's
 * row; read where the body uses them), the new value stored into the other half (nw) and, for
 * an export cell (xf), into the output array in global memory. Other inputs (hdiff's coeff) are
 * read at the cell from global memory. ---- */
#pragma nv_diag_suppress 550 /* the bodies bind `in`; the cached levels read it from S */
#define LD(f, R) PC_LD_##f(R)
#define PC_LD_in(R) Sk[PC_AT(RIDX_##R < 0 ? l : (int)ss[persist_row(ST_RELS_, RIDX_##R) * ns])]
#define PC_LD_coeff(R) coeff[NB(R)]
#define PC_AT(s) ((s) < M ? (s) + cur : (s))
#define NB(R) NB_##R
#define NB_C i
#define ST(f, v)                                                                                  \
    do {                                                                                          \
        const T v_ = (v);                                                                         \
        Sk[nw + l] = v_;                                                                          \
        if (xf)                                                                                   \
            (f)[NB(C)] = v_;                                                                      \
    } while (0)
#define PERSIST_CACHED_FN(ST, TY)                                                                 \
    static __device__ __forceinline__ void pc_##ST##_##TY(const persist_params &A, int t, TY *S,  \
                                                          const volatile int32_t *ss, int ns, int xf,    \
                                                          int p, int l, int cur)                  \
    {                                                                                             \
        typedef TY T;                                                                             \
        constexpr unsigned ST_RELS_ = ST##_RELS;                                                  \
        const kparams &P = A.P;                                                                   \
        const fieldset F_ = persist_fields(A, t);                                                 \
        ST##_BIND(F_);                                                                            \
        (void)in; /* read from S instead */                                                       \
        const int M = A.M, RS = 2 * A.M + A.H, nw = A.M + A.H - cur;                              \
        for (int kk = 0; kk < A.levels; kk++) {                                                   \
            T *const Sk = S + (long)kk * RS;                                                      \
            const long i = p + (long)kk * P.zs;                                                   \
            ST##_BODY();                                                                          \
        }                                                                                         \
    }
#define PERSIST_CACHED_FNS(ST, _) PERSIST_CACHED_FN(ST, double) PERSIST_CACHED_FN(ST, float)
FOR_EACH_STAGED_STENCIL(PERSIST_CACHED_FNS, _)

/* One kernel: offsets into shared memory where levels are streamed, slots and the initial
 * cached state where levels are cached, then the steps: the halo of the cached levels into
 * shared memory, every own cell's cached and streamed levels (its slots and offsets read from
 * shared memory where the body uses them), a grid barrier; at the end the cached levels go to
 * the array that holds the result. */
#define PERSIST_KERNEL(ST, TY, CH, CM)                                                            \
    static __global__ void __launch_bounds__(PERSIST_MAX_THREADS, PERSIST_MIN_BLOCKS)             \
        kp_##ST##_##TY##_##CH##CM(persist_params A)                                               \
    {                                                                                             \
        typedef TY T;                                                                             \
        extern __shared__ __align__(16) unsigned char persist_smem[];                             \
        T *const S = (T *)persist_smem;                                                           \
        int32_t *const soffs = (int32_t *)(persist_smem + A.offs_at);                             \
        int32_t *const sslots = (int32_t *)(persist_smem + A.slots_at);                           \
        const nbview nbv = A.P.nbv;                                                               \
        cg::grid_group grid = cg::this_grid();                                                    \
        long lo_, hi_;                                                                            \
        persist_range(A.P.n, (int)gridDim.x, (int)blockIdx.x, &lo_, &hi_);                        \
        const int first = A.P.c0 + (int)lo_, mine = (int)(hi_ - lo_);                            \
        const int zend = A.P.zend, RS = 2 * A.M + A.H, streamed = A.levels < zend;                \
        const int tid = (int)threadIdx.x, nt = (int)blockDim.x;                                   \
        int32_t o[1 + NREL2];                                                                     \
        if (streamed)                                                                             \
            for (int l = tid; l < mine; l += nt) {                                                \
                nb_gather(nbv, CH, CM, ST##_RELS, first + l, o);                                  \
                persist_store(ST##_RELS, o, soffs, l, mine);                                      \
            }                                                                                     \
        int h0 = 0, nh = 0;                                                                       \
        if (A.levels > 0) {                                                                       \
            h0 = __ldg(A.hstart + blockIdx.x);                                                    \
            nh = __ldg(A.hstart + blockIdx.x + 1) - h0;                                           \
            for (int l = tid; l < mine; l += nt) {                                                \
                int xf;                                                                           \
                slots_gather(ST##_RELS, A.slots, A.P.n, lo_ + l, l, o, xf);                       \
                slots_store(ST##_RELS, o, xf, sslots, l, mine);                                   \
            }                                                                                     \
            const T *const st0 = (const T *)A.state;                                              \
            for (int l = tid; l < mine; l += nt)                                                  \
                for (int kk = 0; kk < A.levels; kk++)                                             \
                    S[(long)kk * RS + l] = st0[first + l + (long)kk * A.P.zs];                    \
        }                                                                                         \
        __syncthreads();                                                                          \
        for (int t = 0; t < A.steps; t++) {                                                       \
            const int cur = (t & 1) ? A.M + A.H : 0;                                              \
            if (A.levels > 0) {                                                                   \
                const T *const rd = (const T *)((t & 1) ? A.other : A.state);                     \
                for (int s = tid; s < nh; s += nt) {                                              \
                    const long d = __ldg(A.halo + h0 + s);                                        \
                    for (int kk = 0; kk < A.levels; kk++)                                         \
                        S[(long)kk * RS + A.M + s] = rd[d + (long)kk * A.P.zs];                   \
                }                                                                                 \
                __syncthreads();                                                                  \
            }                                                                                     \
            const int from = persist_step_from(A.active, A.steps, t, first, mine);               \
            for (int l = from + tid; l < mine; l += nt) {                                         \
                const int p = first + l;                                                          \
                if (A.levels > 0)                                                                 \
                    pc_##ST##_##TY(A, t, S, sslots + mine + l, mine, sslots[l], p, l, cur);       \
                if (streamed)                                                                     \
                    pgs_##ST##_##TY(A, t, soffs + l, mine, p, A.levels, zend);                    \
            }                                                                                     \
            if (t + 1 < A.steps)                                                                  \
                grid.sync();                                                                      \
        }                                                                                         \
        if (A.levels > 0) { /* the cached state, whole, into the array of the result */          \
            __syncthreads();                                                                      \
            const int cur = (A.steps & 1) ? A.M + A.H : 0;                                        \
            T *const res = (T *)((A.steps & 1) ? A.other : A.state);                              \
            for (int l = tid; l < mine; l += nt)                                                  \
                for (int kk = 0; kk < A.levels; kk++)                                             \
                    res[first + l + (long)kk * A.P.zs] = S[(long)kk * RS + cur + l];              \
        }                                                                                         \
    }

#define PERSIST_KERNELS(ST, _)                                                                    \
    PERSIST_KERNEL(ST, double, 0, 0) PERSIST_KERNEL(ST, double, 0, 1)                            \
    PERSIST_KERNEL(ST, double, 1, 0) PERSIST_KERNEL(ST, double, 1, 1)                            \
    PERSIST_KERNEL(ST, float, 0, 0) PERSIST_KERNEL(ST, float, 0, 1)                              \
    PERSIST_KERNEL(ST, float, 1, 0) PERSIST_KERNEL(ST, float, 1, 1)
FOR_EACH_STAGED_STENCIL(PERSIST_KERNELS, _)

#define PERSIST_ROW(ST, TY)                                                                       \
    {(const void *)kp_##ST##_##TY##_00, (const void *)kp_##ST##_##TY##_01,                        \
     (const void *)kp_##ST##_##TY##_10, (const void *)kp_##ST##_##TY##_11}
#define PERSIST_STENCIL(ST, _) {PERSIST_ROW(ST, double), PERSIST_ROW(ST, float)},
#define PERSIST_NONE(ST, _) {{0, 0, 0, 0}, {0, 0, 0, 0}},
extern "C" {
persist_kernel_table persist_kernels = {FOR_EACH_STENCIL_STAGED_OR(PERSIST_STENCIL, PERSIST_NONE, _)};
}
