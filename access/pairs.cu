/* pairs.cu — two cells of a row per thread, each slice of --zslice levels walked as zloop-sliced
 * does: on the H100 the fastest regular laplap and hdiff twin (vector loads along x: 110.2 and
 * 149.2 µs against idxvar's 115.2 and 156.7, bench/results/2026-11-24-h100-incore); its
 * unstructured form is slower than idxvar.
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
 * Unstructured grid: the cells p and p + 1 (consecutive cells, on zcurve-w the same run), each
 * with its own offsets gathered once per slice; scalar loads (a neighbour's index is known only
 * at run time); the outputs as one vector store where p's index is even.
 *
 * Both expand the stencil's body unchanged, in the same order of operations per cell: the
 * results are the CPU's bit for bit. */
#define KERNEL_BOUNDS PILLAR_MAX_THREADS, 1 /* two cells a thread: up to 128 registers, no spills */
#include "kernels.cuh"

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
#undef ST
#define ST(f, v) (PQ == 0 ? (void)(pa[pn] = &(f)[i], pv0[pn++] = (v)) : (void)(pv1[pn++] = (v)))
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
        const long i = base + (long)k * P.zs;                                                     \
        T *pa[PAIR_MAXST];                                                                        \
        T pv0[PAIR_MAXST], pv1[PAIR_MAXST];                                                       \
        int pn0 = 0;                                                                              \
        PAIR_CELL(ST_, 0)                                                                         \
        if (two)                                                                                  \
            PAIR_CELL(ST_, 1)                                                                     \
        pair_store(pa, pv0, pv1, pn0, two, i);                                                    \
    }

/* Unstructured: cells p and p + 1, offsets o0 and o1. */
#define STRATEGY_UNS(ST_)                                                                         \
    const int cell = 2 * UNS_CELL(), s = THREAD_Z();                                              \
    if (cell >= P.n || s * P.zslice >= P.zend)                                                    \
        return;                                                                                   \
    const int p = P.c0 + cell, two = cell + 1 < P.n;                                              \
    const long base = p;                                                                          \
    int32_t o0[1 + NREL2], o1[1 + NREL2];                                                         \
    nb_gather(nbv, CHASING, COMPRESSED, ST_##_RELS, p, o0);                                       \
    if (two)                                                                                      \
        nb_gather(nbv, CHASING, COMPRESSED, ST_##_RELS, p + 1, o1);                               \
    PAIR_LEVELS(ST_)

#define NB(R) (i + PQ + (PQ ? o1 : o0)[RIDX_##R + 1])
INSTANTIATE_UNS()

/* Regular twin: cells x and x + 1 of a row; every value from an aligned pair. */
#define STRATEGY_REG(ST_)                                                                         \
    const int x = P.x0 + 2 * (int)(blockIdx.x * blockDim.x + threadIdx.x), y = REG_Y(),          \
              s = THREAD_Z();                                                                     \
    if (!REG_INSIDE(x, y) || s * P.zslice >= P.zend)                                              \
        return;                                                                                   \
    const int two = x + 1 < P.x0 + P.nxi;                                                         \
    const long base = REG_INDEX(x, y, 0);                                                         \
    PAIR_LEVELS(ST_)

#undef NB
#undef LD
#undef LDZ
#define NB(R) (i + PQ + RX_##R + (long)RY_##R * P.ys)
#define PAIR_D(R) (PQ + RX_##R) /* displacement from cell x */
#define LDZ(f, R, dz)                                                                             \
    pair_ld(&(f)[i + (PAIR_D(R) & ~1) + (long)RY_##R * P.ys + (long)(dz) * ZS], PAIR_D(R) & 1)
#define LD(f, R) LDZ(f, R, 0)
INSTANTIATE_REG()
TABULATE(pairs_kernels)
