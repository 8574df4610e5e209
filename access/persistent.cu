/* persistent.cu — persistent kernels of in-core iterated runs (access/persistent.h,
 * docs/persistent.md): every step of a run in one cooperative launch, a grid-wide barrier
 * (cooperative_groups::this_grid().sync()) between two steps. A block owns cells
 * persist_range(...) of the inner cells for the whole run; its threads take them one after the
 * other (thread j: cells j, j + blockDim, ...) and walk up all the levels of each, as zloop's
 * threads do. The body is the stencil's, unchanged, with the fold fused (FOLDED, kernels.cuh),
 * so a step computes what a one-step kernel computes, bit for bit. */
#include "kernels.cuh"
#include "persistent.h"

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

/* Entries o[1 + r] of the relations r in mask into / out of shared memory at local cell l of a
 * block of n cells (relation-major: consecutive threads, consecutive words). */
__device__ __forceinline__ void persist_store(unsigned mask, const int32_t o[1 + NREL2],
                                              int32_t *s, int l, int n)
{
    int j = 0;
#pragma unroll
    for (int r = 0; r < NREL2; r++)
        if ((mask >> r) & 1u)
            s[(long)(j++) * n + l] = o[1 + r];
}

__device__ __forceinline__ void persist_load(unsigned mask, int32_t o[1 + NREL2],
                                             const int32_t *s, int l, int n)
{
    int j = 0;
    o[0] = 0;
#pragma unroll
    for (int r = 0; r < NREL2; r++)
        o[1 + r] = ((mask >> r) & 1u) ? s[(long)(j++) * n + l] : 0;
}

/* The fields of step t: the state field reads `state` at even t, `other` at odd t, and the
 * output field the other one (every index unrolled: no copy in local memory). */
__device__ __forceinline__ fieldset persist_fields(const persist_params &A, int t)
{
    fieldset F = A.P.f;
    void *const rd = (t & 1) ? A.other : A.state, *const wr = (t & 1) ? A.state : A.other;
#pragma unroll
    for (int q = 0; q < PILLAR_MAXF; q++)
        F.p[q] = q == A.fin ? rd : q == A.fout ? wr : F.p[q];
    return F;
}

#define NB(R) GATHERED_NB(R)

/* One kernel: offsets first (registers or shared memory, A.where), then the steps. */
#define PERSIST_KERNEL(ST, TY, CH, CM)                                                            \
    static __global__ void __launch_bounds__(PERSIST_MAX_THREADS)                                 \
        kp_##ST##_##TY##_##CH##CM(persist_params A)                                               \
    {                                                                                             \
        typedef TY T;                                                                             \
        extern __shared__ int32_t persist_offs[];                                                 \
        const nbview nbv = A.P.nbv;                                                               \
        cg::grid_group grid = cg::this_grid();                                                    \
        long lo_, hi_;                                                                            \
        persist_range(A.P.n, (int)gridDim.x, (int)blockIdx.x, &lo_, &hi_);                        \
        const int first = A.P.c0 + (int)lo_, mine = (int)(hi_ - lo_);                            \
        int32_t o[1 + NREL2];                                                                     \
        if (A.where == PERSIST_OFFSETS_REGISTERS) {                                               \
            if ((int)threadIdx.x < mine)                                                          \
                nb_gather(nbv, CH, CM, ST##_RELS, first + (int)threadIdx.x, o);                   \
        } else if (A.where == PERSIST_OFFSETS_SHARED) {                                           \
            for (int l = threadIdx.x; l < mine; l += blockDim.x) {                                \
                nb_gather(nbv, CH, CM, ST##_RELS, first + l, o);                                  \
                persist_store(ST##_RELS, o, persist_offs, l, mine);                               \
            }                                                                                     \
            __syncthreads();                                                                      \
        }                                                                                         \
        for (int t = 0; t < A.steps; t++) {                                                       \
            const kparams &P = A.P; /* ZS, K of the bodies */                                    \
            const fieldset F_ = persist_fields(A, t);                                             \
            ST##_BIND(F_);                                                                        \
            for (int l = threadIdx.x; l < mine; l += blockDim.x) {                                \
                const int p = first + l;                                                          \
                if (A.where == PERSIST_OFFSETS_SHARED)                                            \
                    persist_load(ST##_RELS, o, persist_offs, l, mine);                            \
                else if (A.where == PERSIST_OFFSETS_GLOBAL)                                       \
                    nb_gather(nbv, CH, CM, ST##_RELS, p, o);                                      \
                for (int k = 0; k < P.zend; k++) {                                                \
                    const long i = p + (long)k * P.zs;                                            \
                    ST##_BODY();                                                                  \
                }                                                                                 \
            }                                                                                     \
            if (t + 1 < A.steps)                                                                  \
                grid.sync();                                                                      \
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
