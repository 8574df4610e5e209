/* pairs.cu — two cells a thread, each slice of --zslice levels walked as zloop-sliced does: on
 * the H100 the fastest regular laplap and hdiff twin (vector loads along x: 110.2 and 149.2 µs
 * against idxvar's 115.2 and 156.7, bench/results/2026-11-24-h100-incore).
 *
 * Regular twin: a thread computes the cells x and x + 1 of a row (x = x0 + 2t). The padding a of
 * the regular grid (grids/regular.c) puts the first inner cell of every row and level on a
 * 32-byte boundary, so the field index of cell x, and of every relation displaced by an even
 * number of cells, is even: every value the body names lies in an aligned pair of two values
 * (double2 / float2) at index i + 2·floor(d/2) + dy·ys + dz·zs, d = q + dx its displacement
 * from x. Each LD loads that pair through the read-only path and picks half d mod 2; the body is
 * expanded once for each cell (q = 0, 1) and the compiler merges the loads of the same pair
 * (no store comes between them: the stores are deferred). A row of w cells thus costs about
 * w/2 + 1 vector loads instead of w + 1 scalar ones (fastwaves: C and E of two cells are 3
 * values in 2 pairs), and the outputs of both cells go out as one vector store.
 *
 * Unstructured grid (issue 36): a warp takes 64 consecutive cells. Where each of its 32 aligned
 * pairs (p even, p + 1) sits in the mesh as two neighbours of a lattice row do, as far as the
 * stencil's relations reach (the lattice pairs of access/pairs_host.c: every value either cell
 * names is half of an aligned pair at a displacement from p that the pair's pattern row gives),
 * the warp runs the twin's code with those displacements: one vector load per aligned pair, one
 * vector store. Otherwise each thread computes the cells w + lane and w + 32 + lane one after
 * the other as zloop-plain does (offsets gathered, flat warps). Both read the same values in the
 * same order of operations per cell: the results are the CPU's bit for bit.
 *
 * The twin's SASS per two laplap points: 7 128-bit + 4 64-bit loads, against 26 64-bit loads of
 * two zloop-plain points (the L1 pipe limits both: NOTES.md, issue 36). */
/* Blocks an SM the kernels are compiled for: 2 keeps them at 64 registers (fastwaves' kernels
 * and hdiff's constant-table variant spill a little), 1 lets them take up to 128: on the H200
 * every laplap and hdiff row, the twins' too, ran slower so (bench/results/2026-11-29-h200-pairs,
 * ab-bounds.txt). PILLAR_PAIRS_BLOCKS=1 builds the other (tools/kernel-ab.sh). */
#ifndef PILLAR_PAIRS_BLOCKS
#define PILLAR_PAIRS_BLOCKS 2
#endif
#define KERNEL_BOUNDS PILLAR_MAX_THREADS, PILLAR_PAIRS_BLOCKS
#include "kernels.cuh"

/* The kernels bind the stencil's fields and the table; their helpers below read them. */
#pragma nv_diag_suppress 177

/* Outputs a body stores per cell at most (PILLAR_MAXF fields in all). */
#define PAIR_MAXST 8

template <typename T> struct pair_of;
template <> struct pair_of<double> {
    typedef double2 v;
};
template <> struct pair_of<float> {
    typedef float2 v;
};

/* Half `hi` of the aligned pair at p (p's index even). */
template <typename T> __device__ __forceinline__ T pair_ld(const T *p, int hi)
{
    const typename pair_of<T>::v v = __ldg((const typename pair_of<T>::v *)p);
    return hi ? v.y : v.x;
}

/* The deferred stores of one level: cell 0's value (and address), cell 1's value. Cell 1 is
 * stored only when it exists (`two`); the pair goes out as a vector where cell 0's index is
 * even. */
template <typename T>
__device__ __forceinline__ void pair_store(T *const a[PAIR_MAXST], const T v0[PAIR_MAXST],
                                           const T v1[PAIR_MAXST], int n, int two, long i)
{
#pragma unroll
    for (int j = 0; j < PAIR_MAXST; j++) {
        if (j >= n)
            break;
        if (two && !(i & 1)) {
            typename pair_of<T>::v w;
            w.x = v0[j];
            w.y = v1[j];
            *(typename pair_of<T>::v *)a[j] = w;
        } else {
            a[j][0] = v0[j];
            if (two)
                a[j][1] = v1[j];
        }
    }
}

/* The body of cell q of the pair (q a constant), its stores deferred into pa/pv0/pv1. */
#define PAIR_ST_DEFERRED(f, v)                                                                    \
    (PQ == 0 ? (void)(pa[pn] = &(f)[i], pv0[pn++] = (v)) : (void)(pv1[pn++] = (v)))
#undef ST
#define ST(f, v) PAIR_ST_DEFERRED(f, v)
#define PAIR_CELL(ST_, q)                                                                         \
    {                                                                                             \
        enum { PQ = q };                                                                          \
        int pn = 0;                                                                               \
        ST_##_BODY();                                                                             \
        pn0 = pn;                                                                                 \
    }
#define PAIR_LEVELS(ST_)                                                                          \
    const int k0 = s * P.zslice, k1 = min(k0 + P.zslice, P.zend);                                 \
    for (int k = k0; k < k1; k++) {                                                               \
        PAIRS_LAUNDER();                                                                          \
        const long i = base + (long)k * P.zs;                                                     \
        T *pa[PAIR_MAXST];                                                                        \
        T pv0[PAIR_MAXST], pv1[PAIR_MAXST];                                                       \
        int pn0 = 0;                                                                              \
        PAIR_CELL(ST_, 0)                                                                         \
        if (two)                                                                                  \
            PAIR_CELL(ST_, 1)                                                                     \
        pair_store(pa, pv0, pv1, pn0, two, i);                                                    \
    }

/* Unstructured, a lattice pair: cells p (even) and p + 1 with pattern row pid of the pairs'
 * table (access/pairs_host.c): slot (dy + 2)·3 + floor(d/2) + 1 holds the displacement from p
 * of the aligned pair holding the value displaced by (d, dy) from cell p (d = q + dx). */
#define PAIR_SLOT(R) ((RY_##R + 2) * 3 + ((PQ + RX_##R + 2) >> 1))
#undef LD
#undef LDZ
#define LDZ(f, R, dz) pair_ld(&(f)[i + po[PAIR_SLOT(R)] + (long)(dz) * ZS], (PQ + RX_##R) & 1)
#define LD(f, R) LDZ(f, R, 0)
#define PAIRS_TWO_FN(ST_, _)                                                                      \
    template <typename T>                                                                         \
    __device__ __forceinline__ void pairs_two_##ST_(const kparams &P, int p, int pid, int s)     \
    {                                                                                             \
        ST_##_BIND(P.f);                                                                          \
        const int4 *row = (const int4 *)P.zp_tab + PAIRS_SLOTS / 4 * pid;                         \
        int32_t po[PAIRS_SLOTS];                                                                  \
        _Pragma("unroll") for (int j = 0; j < PAIRS_SLOTS / 4; j++) {                             \
            const int4 v = __ldg(row + j);                                                        \
            po[4 * j] = v.x;                                                                      \
            po[4 * j + 1] = v.y;                                                                  \
            po[4 * j + 2] = v.z;                                                                  \
            po[4 * j + 3] = v.w;                                                                  \
        }                                                                                         \
        const long base = p;                                                                      \
        const int two = 1;                                                                        \
        PAIR_LEVELS(ST_)                                                                          \
    }
/* The displacements stay 32-bit registers: each level the compiler is told they may have
 * changed (an empty asm), so it forms each address at its load instead of keeping 11 64-bit
 * pointers across the levels (hdiff spilled 44 bytes at 64 registers without this, none with;
 * PILLAR_PAIRS_LAUNDER=0 builds without, tools/kernel-ab.sh). */
#ifndef PILLAR_PAIRS_LAUNDER
#define PILLAR_PAIRS_LAUNDER 1
#endif
#if PILLAR_PAIRS_LAUNDER
#define PAIRS_LAUNDER()                                                                           \
    _Pragma("unroll") for (int j_ = 0; j_ < PAIRS_SLOTS; j_++) asm volatile("" : "+r"(po[j_]))
#else
#define PAIRS_LAUNDER()
#endif
PILLAR_FOR_UNS(PAIRS_TWO_FN)
#undef PAIRS_LAUNDER
#define PAIRS_LAUNDER() /* the regular twin has no displacements */

/* Unstructured, any other cell: zloop-plain's walk of one cell (plain loads, direct stores). */
#undef LD
#undef LDZ
#undef ST
#define LD(f, R) ((f)[NB(R)])
#define LDZ(f, R, dz) ((f)[NB(R) + (dz) * ZS])
#define ST(f, v) ((f)[NB(C)] = (v))
#define NB(R) GATHERED_NB(R)
#define PAIRS_ONE_FN(ST_, _)                                                                      \
    template <typename T, int CHASING, int COMPRESSED>                                            \
    __device__ __forceinline__ void pairs_one_##ST_(const kparams &P, int cell, int s)           \
    {                                                                                             \
        const nbview nbv = P.nbv;                                                                 \
        ST_##_BIND(P.f);                                                                          \
        const int p = P.c0 + cell;                                                                \
        const long base = p;                                                                      \
        int32_t o[1 + NREL2];                                                                     \
        nb_gather(nbv, CHASING, COMPRESSED, ST_##_RELS, p, o);                                    \
        FLAT_OR_NOT(ST_, ZLOOP_LEVELS(ST_))                                                       \
    }
PILLAR_FOR_UNS(PAIRS_ONE_FN)
#undef NB

/* Unstructured: warp w's cells are [64w', 64w' + 64) of the launch (whole warps: the PAIRS
 * shape rule); lane l's pair is 2l, 2l + 1 of them. P.zp_pat is NULL where the fields or the
 * level stride do not keep pairs aligned (access/pairs_host.c, bind). */
#define STRATEGY_UNS(ST_)                                                                         \
    const int tc = UNS_CELL(), s = THREAD_Z(), lane = tc & 31, w0 = 2 * (tc - lane);              \
    if (w0 >= P.n || s * P.zslice >= P.zend)                                                      \
        return;                                                                                   \
    const int cell = w0 + 2 * lane, p = P.c0 + cell;                                              \
    int pid = -1;                                                                                 \
    if (P.zp_pat && !(p & 1) && cell + 1 < P.n)                                                   \
        pid = __ldg(P.zp_pat + (p >> 1));                                                         \
    if (__all_sync(0xffffffffu, pid >= 0)) {                                                      \
        pairs_two_##ST_<T>(P, p, pid, s);                                                         \
    } else {                                                                                      \
        if (w0 + lane < P.n)                                                                      \
            pairs_one_##ST_<T, CHASING, COMPRESSED>(P, w0 + lane, s);                             \
        if (w0 + 32 + lane < P.n)                                                                 \
            pairs_one_##ST_<T, CHASING, COMPRESSED>(P, w0 + 32 + lane, s);                        \
    }
INSTANTIATE_UNS()

#undef ST
#define ST(f, v) PAIR_ST_DEFERRED(f, v)

/* Regular twin: cells x and x + 1 of a row; every value from an aligned pair. */
#define STRATEGY_REG(ST_)                                                                         \
    const int x = P.x0 + 2 * (int)(blockIdx.x * blockDim.x + threadIdx.x), y = REG_Y(),          \
              s = THREAD_Z();                                                                     \
    if (!REG_INSIDE(x, y) || s * P.zslice >= P.zend)                                              \
        return;                                                                                   \
    const int two = x + 1 < P.x0 + P.nxi;                                                         \
    const long base = REG_INDEX(x, y, 0);                                                         \
    PAIR_LEVELS(ST_)

#undef LD
#undef LDZ
#define NB(R) (i + PQ + RX_##R + (long)RY_##R * P.ys)
#define PAIR_D(R) (PQ + RX_##R) /* displacement from cell x */
#define LDZ(f, R, dz)                                                                             \
    pair_ld(&(f)[i + (PAIR_D(R) & ~1) + (long)RY_##R * P.ys + (long)(dz) * ZS], PAIR_D(R) & 1)
#define LD(f, R) LDZ(f, R, 0)
INSTANTIATE_REG()
TABULATE(pairs_kernels)
