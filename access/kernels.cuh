/* kernels.cuh — the scaffolding every access strategy shares: kernel parameters, the gathering of
 * a cell's neighbour offsets, and the macro that instantiates a strategy for every stencil,
 * precision and storage. A strategy file defines
 *   STRATEGY_UNS(ST)  the body of an unstructured kernel (ST: the prefix of a W/E/S/N stencil of
 *                     stencils/registry.h)
 *   STRATEGY_REG(ST)  the body of its regular-grid twin
 *   ACCESS_TABLE      the name of its kernel table
 * and includes instantiate.cuh. Inside the bodies: P (kparams), nbv, T, CHASING, COMPRESSED. */
#ifndef PILLAR_KERNELS_CUH
#define PILLAR_KERNELS_CUH

#include "../stencils/stencil.h"
#include "index.h"
#include "launch.h"

/* Storage code `compressed` of the kernels: 0 uncompressed, 1 compressed (docs/storage.md layout,
 * tab[r * npat + row]), 2 compressed with the first t.crows rows also in constant memory
 * (--constant-tables: c_nbtab[r * crows + row]; each strategy file has its copy, filled by its
 * upload function), 3 compressed with each pattern's offsets packed in one row
 * (--packed-rows: tab[row * nrel + r], 16-byte aligned, read with vector loads). */
#ifdef PILLAR_JIT /* a user stencil's module: found by name (src/jit/gpu.c) */
extern "C" {
__constant__ int32_t c_nbtab[PILLAR_CONST_WORDS];
}
#else
static __constant__ int32_t c_nbtab[PILLAR_CONST_WORDS];
#endif

__device__ __forceinline__ int nb_row(nbview t, int compressed, int p)
{
    return compressed ? __ldg(t.pat + p) : p;
}

__device__ __forceinline__ int32_t nb_row_entry(nbview t, int chasing, int compressed, int r, int row)
{
    if (compressed == 3)
        return __ldg(t.tab + row * (chasing ? NREL1 : NREL2) + r);
    if (compressed == 2 && row < t.crows)
        return c_nbtab[r * t.crows + row];
    return __ldg(t.tab + r * t.ntab + row);
}

/* Offset of relation r (-1: the cell itself) of plane cell p, looked up now. */
__device__ __forceinline__ int32_t nb_offset_dev(nbview t, int chasing, int compressed, int r, int p)
{
    if (r < 0)
        return 0;
    if (!chasing || r < NREL1)
        return nb_row_entry(t, chasing, compressed, r, nb_row(t, compressed, p));
    const int32_t a = nb_row_entry(t, chasing, compressed, rel_hop1(r), nb_row(t, compressed, p));
    return a + nb_row_entry(t, chasing, compressed, rel_hop2(r), nb_row(t, compressed, p + a));
}

/* The entries of one packed row that the relations in mask (or their first hops) need, read
 * four at a time. */
__device__ __forceinline__ void nb_packed_row(nbview t, int chasing, unsigned mask, int row,
                                              int32_t v[NREL2])
{
    const int nrel = chasing ? NREL1 : NREL2;
    const unsigned own = chasing ? 0xfu : mask;
    const int4 *rp = (const int4 *)(t.tab + row * nrel);
#pragma unroll
    for (int q = 0; q < NREL2 / 4; q++) {
        int4 x = {0, 0, 0, 0};
        if (4 * q < nrel && ((own >> (4 * q)) & 0xfu))
            x = __ldg(rp + q);
        v[4 * q] = x.x;
        v[4 * q + 1] = x.y;
        v[4 * q + 2] = x.z;
        v[4 * q + 3] = x.w;
    }
}

/* Offsets of the relations in mask M of plane cell p: o[0] = 0 (the cell), o[1 + r] relation r.
 * Chasing reaches a second-order relation through the first hop's cell (two dependent loads). */
__device__ __forceinline__ void nb_gather(nbview t, int chasing, int compressed, unsigned mask,
                                          int p, int32_t o[1 + NREL2])
{
    const int row = nb_row(t, compressed, p);
    int32_t v[NREL2];
    if (compressed == 3)
        nb_packed_row(t, chasing, mask, row, v);
    o[0] = 0;
#pragma unroll
    for (int r = 0; r < NREL2; r++) {
        o[1 + r] = 0;
        if (!((mask >> r) & 1u))
            continue;
        if (!chasing || r < NREL1) {
            o[1 + r] = compressed == 3 ? v[r] : nb_row_entry(t, chasing, compressed, r, row);
        } else {
            const int h1 = rel_hop1(r);
            const int32_t a = ((mask >> h1) & 1u) ? o[1 + h1]
                              : compressed == 3   ? v[h1]
                                                  : nb_row_entry(t, chasing, compressed, h1, row);
            o[1 + r] = a + nb_row_entry(t, chasing, compressed, rel_hop2(r), nb_row(t, compressed, p + a));
        }
    }
}

/* Offsets of the NREL2 relations on the regular grid with row stride ys (the twins' "table"). */
__device__ __forceinline__ void reg_gather(int ys, int32_t o[1 + NREL2])
{
    const int dx[NREL2] = REL_DX_INIT;
    const int dy[NREL2] = REL_DY_INIT;
    o[0] = 0;
#pragma unroll
    for (int r = 0; r < NREL2; r++)
        o[1 + r] = dx[r] + dy[r] * ys;
}

/* Index of relation R through gathered offsets o[]. */
#define GATHERED_NB(R) (i + o[RIDX_##R + 1])

/* Thread coordinates. Unstructured: the block's bx*by threads take consecutive inner cells. */
#define UNS_CELL() ((int)(blockIdx.x * (blockDim.x * blockDim.y) + threadIdx.y * blockDim.x + threadIdx.x))
#define THREAD_Z() ((int)(blockIdx.z * blockDim.z + threadIdx.z))
#define REG_X() (P.x0 + (int)(blockIdx.x * blockDim.x + threadIdx.x))
#define REG_Y() (P.x0 + (int)(blockIdx.y * blockDim.y + threadIdx.y))
#define REG_INDEX(x, y, k) ((long)((x) + P.a) + (long)(y) * P.ys + (long)(k) * P.zs)
#define REG_INSIDE(x, y) ((x) < P.x0 + P.nxi && (y) < P.x0 + P.nyi)

/* Launch bounds of a strategy's kernels. Measured on the H100: the thread-per-cell strategies run
 * fastest as compiled for 1024-thread blocks (the compiler keeps them at ~32 registers, full
 * occupancy; 4-11% faster than under (512, 2)), the pillar strategies as compiled for two
 * 512-thread blocks per SM (more registers in flight: zloop 1.3-1.5x faster). Blocks launched
 * are at most PILLAR_MAX_THREADS either way. */
#ifndef KERNEL_BOUNDS
#define KERNEL_BOUNDS PILLAR_MAX_THREADS, 2
#endif

/* The fold of an iterated step (stencils/registry.h; laplap: state - v/64) fused into the kernel
 * when P.fold is set: the same function as src/exec/iterate.c's, so the state stays equal to the
 * CPU's bit for bit. */
#undef FOLDED
#define FOLDED(PREFIX, state, v) (P.fold ? STENCIL_FOLD(PREFIX, state, v) : (v))

/* A kernel's linkage: static in the built-in strategy files; in the source pillar composes at
 * run time for a user stencil file (src/jit/, PILLAR_JIT) extern "C", so that the loaded module
 * names its kernels k_USER_TY_CHCM and k_USER_TY_reg. */
#ifdef PILLAR_JIT
#define PILLAR_KERNEL extern "C" __global__
#else
#define PILLAR_KERNEL static __global__
#endif

/* Instantiation: a strategy file defines NB for the unstructured kernels and expands
 * UNS_KERNELS for each stencil and type, redefines NB for the regular twins and expands
 * REG_KERNEL, then TABULATE(name) builds its kernel table. */
#define UNS_KERNEL(ST, TY, CH, CM)                                                                \
    PILLAR_KERNEL void __launch_bounds__(KERNEL_BOUNDS) k_##ST##_##TY##_##CH##CM(kparams P)            \
    {                                                                                             \
        typedef TY T;                                                                             \
        enum { CHASING = CH, COMPRESSED = CM };                                                   \
        const nbview nbv = P.nbv;                                                                 \
        ST##_BIND(P.f);                                                                           \
        STRATEGY_UNS(ST)                                                                          \
    }
#define UNS_KERNELS(ST, TY)                                                                       \
    UNS_KERNEL(ST, TY, 0, 0) UNS_KERNEL(ST, TY, 0, 1) UNS_KERNEL(ST, TY, 1, 0) UNS_KERNEL(ST, TY, 1, 1) \
    UNS_KERNEL(ST, TY, 0, 2) UNS_KERNEL(ST, TY, 1, 2) UNS_KERNEL(ST, TY, 0, 3) UNS_KERNEL(ST, TY, 1, 3)
#define REG_KERNEL(ST, TY)                                                                        \
    PILLAR_KERNEL void __launch_bounds__(KERNEL_BOUNDS) k_##ST##_##TY##_reg(kparams P)                 \
    {                                                                                             \
        typedef TY T;                                                                             \
        ST##_BIND(P.f);                                                                           \
        STRATEGY_REG(ST)                                                                          \
    }
#ifdef PILLAR_JIT_GRAPH /* a graph stencil file's module: its graph kernels only */
#define INSTANTIATE_UNS()
#define INSTANTIATE_REG()
#elif defined(PILLAR_JIT) /* the user stencil (prefix USER) only, no kernel table */
#define INSTANTIATE_UNS() UNS_KERNELS(USER, double) UNS_KERNELS(USER, float)
#define INSTANTIATE_REG() REG_KERNEL(USER, double) REG_KERNEL(USER, float)
#else
#define INSTANTIATE_UNS()                                                                         \
    FOR_EACH_STENCIL(UNS_KERNELS, double) FOR_EACH_STENCIL(UNS_KERNELS, float)
#define INSTANTIATE_REG()                                                                         \
    FOR_EACH_STENCIL(REG_KERNEL, double) FOR_EACH_STENCIL(REG_KERNEL, float)
#endif

/* X(PREFIX, _) for each W/E/S/N stencil this compilation has kernels for (helpers of a
 * strategy's kernels, defined before INSTANTIATE_UNS). */
#ifdef PILLAR_JIT_GRAPH
#define PILLAR_FOR_UNS(X)
#elif defined(PILLAR_JIT)
#define PILLAR_FOR_UNS(X) X(USER, _)
#else
#define PILLAR_FOR_UNS(X) FOR_EACH_STENCIL(X, _)
#endif

#define KERNEL_ROW(ST, TY)                                                                        \
    {(const void *)k_##ST##_##TY##_00, (const void *)k_##ST##_##TY##_01,                          \
     (const void *)k_##ST##_##TY##_10, (const void *)k_##ST##_##TY##_11,                          \
     (const void *)k_##ST##_##TY##_reg, (const void *)k_##ST##_##TY##_02,                         \
     (const void *)k_##ST##_##TY##_12, (const void *)k_##ST##_##TY##_03,                          \
     (const void *)k_##ST##_##TY##_13}
#define KERNEL_STENCIL(ST, _) {KERNEL_ROW(ST, double), KERNEL_ROW(ST, float)},
#ifdef PILLAR_JIT
#define TABULATE(name)
#else
#define TABULATE(name)                                                                            \
    extern "C" {                                                                                  \
    kernel_table name = {FOR_EACH_STENCIL(KERNEL_STENCIL, _)};                                    \
    int name##_upload(const void *rows, size_t bytes)                                             \
    {                                                                                             \
        return (int)cudaMemcpyToSymbol(c_nbtab, rows, bytes);                                     \
    }                                                                                             \
    }
#endif

/* Inputs asked of the L2 ahead of use (issue 36). A thread of the zloop strategies walks its
 * levels one after another, so a warp has one level's loads in flight; at the occupancy its
 * registers allow, a load of an input that no neighbour has touched yet waits for DRAM (hdiff's
 * coeff, read at the cell only, every level). A prefetch costs no register: before it computes
 * level k a thread asks the L2 for its own cell's inputs PILLAR_ZPF levels up; when it gets
 * there they come from L2. Measured on the H200 (bench/results/2026-11-28-h200-flat-prefetch):
 * hdiff zloop-plain 1.10x, laplap unchanged. Thread-per-cell kernels have no such walk (a
 * prefetch of the next slab of levels slowed hdiff's idxvar by 13%: not kept).
 * PILLAR_PREFETCH=0 builds the kernels without (tools/kernel-ab.sh). */
#ifndef PILLAR_PREFETCH
#define PILLAR_PREFETCH 1
#endif
#ifndef PILLAR_ZPF
#define PILLAR_ZPF (PILLAR_PREFETCH ? 1 : 0)
#endif
__device__ __forceinline__ void l2_prefetch(const void *a)
{
    asm volatile("prefetch.global.L2 [%0];" ::"l"(a));
}
#define PILLAR_NIN_DEF_(A, B, name, PREFIX, kind, nin, ...) enum { PILLAR_NIN_##PREFIX = nin };
PILLAR_STENCILS(PILLAR_NIN_DEF_, _, _)
/* The inputs of ST (fields 0 .. nin-1 of P.f) at field index j, into L2. */
#define PREFETCH_INPUTS(ST, j)                                                                    \
    do {                                                                                          \
        _Pragma("unroll") for (int f_ = 0; f_ < PILLAR_NIN_##ST; f_++)                           \
            l2_prefetch((const T *)P.f.p[f_] + (j));                                              \
    } while (0)

/* Flat neighbourhoods (issue 36). Of the 20 frame-free relations, 8 meet another where the mesh
 * is a lattice around the cell: EW = WE = SN = NS = the cell, WS = SW, ES = SE, WN = NW, EN = NE.
 * The bodies name all 20, so a kernel issues 21 value loads a point where the twin issues 13,
 * and the load instructions, not the bytes, are what the L1 pipe is short of (a load predicated
 * off still takes its slot: NOTES.md). Where every cell of a warp is flat, the warp runs a copy
 * of the code in which those offsets are assigned from their partners: the compiler then sees
 * equal addresses and loads each value once. The values are the same loads as before, in the
 * same order of operations, so the results are bit for bit those of the general code; cells
 * where labels turn (cubed-sphere seams, rotated meshes) keep it. H200
 * (bench/results/2026-11-28-h200-flat-prefetch): laplap zloop 0.157 -> 0.119 ms, hdiff
 * zloop-plain 0.167 -> 0.141, the cubed sphere's laplap 1.15x. PILLAR_FLAT=0 builds without. */
#ifndef PILLAR_FLAT
#define PILLAR_FLAT 1
#endif
#define QUAD_FLATTEN(o)                                                                           \
    (o[1 + RIDX_EW] = o[1 + RIDX_WE] = o[1 + RIDX_SN] = o[1 + RIDX_NS] = 0,                       \
     o[1 + RIDX_WS] = o[1 + RIDX_SW], o[1 + RIDX_ES] = o[1 + RIDX_SE],                            \
     o[1 + RIDX_WN] = o[1 + RIDX_NW], o[1 + RIDX_EN] = o[1 + RIDX_NE])
/* CODE (which reads the offsets o) once for warps whose cells are all flat, with the offsets
 * that meet made equal, and once for the others. Only for bodies that read those relations. */
#define FLAT_OR_NOT(ST, CODE)                                                                     \
    if (PILLAR_FLAT && ((ST##_RELS) & REL_FLAT) &&                                                \
        __all_sync(__activemask(), rel_offsets_flat(o + 1))) {                                    \
        QUAD_FLATTEN(o);                                                                          \
        CODE                                                                                      \
    } else {                                                                                      \
        CODE                                                                                      \
    }
/* The regular twin of every thread-per-cell strategy: arithmetic needs no shared look-up. */
#define REG_PER_CELL(ST)                                                                          \
    const int x = REG_X(), y = REG_Y(), k = THREAD_Z();                                           \
    if (!REG_INSIDE(x, y) || k >= P.zend)                                                         \
        return;                                                                                   \
    const long i = REG_INDEX(x, y, k);                                                            \
    int32_t o[1 + NREL2];                                                                                \
    reg_gather(P.ys, o);                                                                          \
    ST##_BODY();

/* Thread-per-cell coordinates of an unstructured kernel; returns outside the grid. */
#define UNS_PER_CELL_INDEX()                                                                      \
    const int cell = UNS_CELL(), k = THREAD_Z();                                                  \
    if (cell >= P.n || k >= P.zend)                                                               \
        return;                                                                                   \
    const int p = P.c0 + cell;                                                                    \
    const long i = p + (long)k * P.zs;

/* The idxvar strategy (also the array-of-structs kernels): each needed neighbour looked up once
 * into a register. */
#define IDXVAR_UNS(ST)                                                                            \
    UNS_PER_CELL_INDEX()                                                                          \
    int32_t o[1 + NREL2];                                                                                \
    nb_gather(nbv, CHASING, COMPRESSED, ST##_RELS, p, o);                                         \
    FLAT_OR_NOT(ST, ST##_BODY();)

/* The end of a strategy whose threads first shared the offsets (o) of plane cell p: threads
 * outside the grid leave, the rest compute their point. */
#define UNS_SHARED_POINT(ST)                                                                      \
    if (cell >= P.n || k >= P.zend)                                                               \
        return;                                                                                   \
    const long i = p + (long)k * P.zs;                                                            \
    ST##_BODY();

/* The zloop strategies (zloop, zloop-sliced: access/zloop.cu; zloop-plain): one thread per
 * pillar slice of P.zslice levels, offsets looked up once, then the levels adding zstride.
 * (Unrolling the level loop by 4 was measured 15-30% slower on the H100: register pressure.) */
#ifndef PILLAR_ZUNROLL
#define PILLAR_ZUNROLL 1
#endif
#define PRAGMA_(x) _Pragma(#x)
#define PRAGMA(x) PRAGMA_(x)
#define ZLOOP_LEVELS(ST)                                                                          \
    const int k0 = s * P.zslice, k1 = min(k0 + P.zslice, P.zend);                                 \
    PRAGMA(unroll PILLAR_ZUNROLL) for (int k = k0; k < k1; k++) {                                 \
        const long i = base + (long)k * P.zs;                                                     \
        if (PILLAR_ZPF > 0 && k + PILLAR_ZPF < P.zend)                                            \
            PREFETCH_INPUTS(ST, i + PILLAR_ZPF * P.zs);                                           \
        ST##_BODY();                                                                              \
    }
#define ZLOOP_UNS(ST)                                                                             \
    const int cell = UNS_CELL(), s = THREAD_Z();                                                  \
    if (cell >= P.n || s * P.zslice >= P.zend)                                                    \
        return;                                                                                   \
    const int p = P.c0 + cell;                                                                    \
    const long base = p;                                                                          \
    int32_t o[1 + NREL2];                                                                         \
    nb_gather(nbv, CHASING, COMPRESSED, ST##_RELS, p, o);                                         \
    FLAT_OR_NOT(ST, ZLOOP_LEVELS(ST))
#define ZLOOP_REG(ST)                                                                             \
    const int x = REG_X(), y = REG_Y(), s = THREAD_Z();                                           \
    if (!REG_INSIDE(x, y) || s * P.zslice >= P.zend)                                              \
        return;                                                                                   \
    const long base = REG_INDEX(x, y, 0);                                                         \
    int32_t o[1 + NREL2];                                                                         \
    reg_gather(P.ys, o);                                                                          \
    ZLOOP_LEVELS(ST)

/* Plain loads: a strategy file that defines PILLAR_PLAIN_LOADS before including this reads the
 * values with ordinary loads instead of the read-only path of stencils/body.h (__ldg), as the
 * kernels did before it (NOTES.md: __ldg made the regular fastwaves twin 551 -> 576 us while it
 * sped up the unstructured kernel). The stores are unchanged. */
#ifdef PILLAR_PLAIN_LOADS
#undef LD
#undef LDZ
#define LD(f, R) ((f)[NB(R)])
#define LDZ(f, R, dz) ((f)[NB(R) + (dz) * ZS])
#endif

#define ZS P.zs
#define K (k + P.kbase)

#endif
