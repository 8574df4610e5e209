/* graph_twopass.cu — the graph two-pass strategy (docs/access.md, "graph-twopass"): a block
 * owns a run of consecutive cells and computes the inner Laplacian of each of its cells and of
 * their first ring once per level into shared memory (pass 1), then the outputs of its own cells
 * from there (pass 2), GTP_G levels between two barriers, the two halves of its shared memory
 * taking turns. The body is stencils/graphlap.h's split (GRAPHLAP_INNER, GRAPHLAP_OUTER), so the
 * result equals the fused body's bit for bit; a stencil without the split (PREFIX_SPLIT 0,
 * radius 1: fluxdiff) runs its body on the block's own cells in pass 1.
 *
 * Unstructured: thread t holds entry t of its block's list (storage/gtwopass.h): the cell, its
 * degree and its neighbours' offsets in registers across every level (loops unrolled to a degree
 * bound DB = 4, 8 or 16, the kernel the runner picks by the mesh's list width), and, for an own
 * cell, the slots of its neighbours' Laplacians (two per register). Pass 1 reads the values
 * straight from global memory: each value of the block's cells and two rings once per pass.
 * The lists replace the offset table: every storage column runs the same kernels.
 * Lattice twin: a bx x by tile of the generated lattice and its ring (1 cell in y; 1 in x on
 * hexagons, 2 on triangles), each thread holding at most GTP_EMAX of its entries, offsets by
 * arithmetic (grids/lattice.h). Graph stencils only: no W/E/S/N kernels. */
#include "graph_kernels.cuh"

/* Values are read through a pointer to the level (in_at = in + lev) plus the cell, a 32-bit
 * unsigned index: one IMAD.WIDE.U32 per load. The empty asm keeps the compiler from folding
 * the level back into a 64-bit index per neighbour (IMAD.WIDE + IMAD + LEA + LEA.HI.X: four
 * instructions a load, counted in the SASS of sm_90). */
__device__ __forceinline__ const void *gtp_opaque(const void *p)
{
    asm("" : "+l"(p));
    return p;
}
#undef GLD
#define GLD(f, q) __ldg(f##_at + (unsigned)(q))
#define GTP_LEVEL(k)                                                                              \
    const long lev = (long)(k) * P.zs;                                                            \
    const T *in_at = (const T *)gtp_opaque(in + lev);                                             \
    (void)in_at;

/* GTP_G (levels between two barriers) and GTP_EMAX (lattice twin: tile entries per thread at
 * most) are in launch.h: the runner sizes shared memory and block shapes by them. */

#define GTP_SEL_1(A, B) A
#define GTP_SEL_0(A, B) B
#define GTP_PICK_(s, A, B) GTP_SEL_##s(A, B)
#define GTP_PICK(s, A, B) GTP_PICK_(s, A, B)

/* The level loop of a split stencil, shared by both forms. In scope: nt (threads), NE (entries
 * held in lbuf per level), PASS1_ACTIVE, PASS2_ACTIVE; PASS1(ST, g_) and PASS2(ST, g_) compute
 * level kg + g_. Full groups unroll their GTP_G levels (independent loads in flight). */
#define GTP_LEVELS(ST, NE, PASS1_ACTIVE, PASS1, PASS2_ACTIVE, PASS2)                              \
    extern __shared__ __align__(16) unsigned char smem_raw[];                                     \
    const int k0 = blockIdx.z * P.zslice, k1 = min(k0 + P.zslice, P.zend);                        \
    int half = 0;                                                                                 \
    for (int kg = k0; kg < k1; kg += GTP_G, half ^= 1) {                                          \
        T *lbuf = (T *)smem_raw + half * GTP_G * (NE);                                            \
        const int ng = min(GTP_G, k1 - kg);                                                       \
        if (PASS1_ACTIVE) {                                                                       \
            if (ng == GTP_G) {                                                                    \
                _Pragma("unroll") for (int g_ = 0; g_ < GTP_G; g_++) PASS1(ST, g_);               \
            } else {                                                                              \
                for (int g_ = 0; g_ < ng; g_++)                                                   \
                    PASS1(ST, g_);                                                                \
            }                                                                                     \
        }                                                                                         \
        __syncthreads();                                                                          \
        if (PASS2_ACTIVE) {                                                                       \
            if (ng == GTP_G) {                                                                    \
                _Pragma("unroll") for (int g_ = 0; g_ < GTP_G; g_++) PASS2(ST, g_);               \
            } else {                                                                              \
                for (int g_ = 0; g_ < ng; g_++)                                                   \
                    PASS2(ST, g_);                                                                \
            }                                                                                     \
        }                                                                                         \
    }

/* ---- unstructured: the lists of storage/gtwopass.h ---- */

/* Entry t of block b into registers: ecell, edeg, eoff[DB]. */
#define GTP_UNS_GATHER()                                                                          \
    const int t = threadIdx.x, nt = blockDim.x, b = blockIdx.x + P.gp_b0, NB = P.gp_nblk;                   \
    const int e0 = __ldg(P.gp_blk + b), ne = __ldg(P.gp_blk + b + 1) - e0;                        \
    const int own = __ldg(P.gp_blk + NB + 1 + b);                                                 \
    int ecell = 0, edeg = 0;                                                                      \
    int32_t eoff[DB];                                                                             \
    if (t < ne) {                                                                                 \
        const int32_t *er = P.gp_ent + e0 + t;                                                    \
        ecell = __ldg(er);                                                                        \
        edeg = __ldg(er + P.gp_nent);                                                             \
        _Pragma("unroll") for (int j = 0; j < DB; j++)                                            \
            eoff[j] = j < edeg ? __ldg(er + (2 + j) * P.gp_nent) : 0;                             \
    }

/* An own cell's slots of its neighbours' Laplacians, two per register: gsl. */
#define GTP_UNS_SLOTS()                                                                           \
    const int j0 = __ldg(P.gp_blk + 2 * NB + 1 + b) - P.c0;                                       \
    uint32_t gsl[(DB + 1) / 2];                                                                   \
    _Pragma("unroll") for (int r = 0; r < (DB + 1) / 2; r++)                                      \
        gsl[r] = t < own && 2 * r < edeg ? (uint32_t)__ldg(P.gp_slot + (long)r * P.n + j0 + t) : 0u;

#define GTP_UNS_PASS1(ST, g_)                                                                     \
    {                                                                                             \
        GTP_LEVEL(kg + (g_))                                                                      \
        T v_;                                                                                     \
        ST##_INNER(v_, ecell);                                                                    \
        lbuf[(g_) * nt + t] = v_;                                                                 \
    }
#define GTP_UNS_PASS2(ST, g_)                                                                     \
    {                                                                                             \
        GTP_LEVEL(kg + (g_))                                                                      \
        ST##_OUTER(ecell);                                                                        \
    }

#define GTP_UNS_SPLIT(ST)                                                                         \
    GTP_UNS_GATHER()                                                                              \
    GTP_UNS_SLOTS()                                                                               \
    GTP_LEVELS(ST, nt, t < ne, GTP_UNS_PASS1, t < own, GTP_UNS_PASS2)

#define GTP_UNS_ONE(ST)                                                                           \
    GTP_UNS_GATHER()                                                                              \
    (void)nt;                                                                                     \
    const int k0 = blockIdx.z * P.zslice, k1 = min(k0 + P.zslice, P.zend);                        \
    if (t < own)                                                                                  \
        for (int k = k0; k < k1; k++) {                                                           \
            GTP_LEVEL(k)                                                                          \
            ST##_BODY(ecell);                                                                     \
        }

#include "../stencils/graph_undef.h"
#undef GCELL
#define GAT(q) ((q) + lev)
#define GOUT(q) GAT(q)
#define GCELL(q) (q)
#define GDEG(q) edeg
#define GNB(q, j) ((q) + eoff[j])
#define GFOR(k, lo, d) _Pragma("unroll") for (int k = (lo); k < DB; k++) if (k < (d))
#define GLAP(s) lbuf[g_ * nt + (s)]
#define GLNB(c, k) ((int)((gsl[(k) >> 1] >> (((k)&1) * 16)) & 0xffffu))
#define GSELF(c) t

/* Blocks of 512 threads an SM at least: a split stencil in double 2 (64 registers; graphlap's
 * kernel otherwise took 40 registers and spilled, or 102, one block), else 1 (at 64 registers
 * graphlap in float and fluxdiff spilled). */
#define GTP_MINB_double 2
#define GTP_MINB_float 1
#define GTP_UNS_KERNEL(ST, TY, DBV)                                                               \
    PILLAR_KERNEL void __launch_bounds__(PILLAR_MAX_THREADS, GTP_PICK(ST##_SPLIT, GTP_MINB_##TY, 1)) kg_##ST##_##TY##_d##DBV(kparams P)   \
    {                                                                                             \
        typedef TY T;                                                                             \
        enum { DB = DBV };                                                                        \
        ST##_BIND(P.f);                                                                           \
        GTP_PICK(ST##_SPLIT, GTP_UNS_SPLIT, GTP_UNS_ONE)(ST)                                      \
    }
#define GTP_UNS_KERNELS(ST, TY)                                                                   \
    GTP_UNS_KERNEL(ST, TY, 4) GTP_UNS_KERNEL(ST, TY, 8) GTP_UNS_KERNEL(ST, TY, 16)
FOR_EACH_GRAPH_STENCIL(GTP_UNS_KERNELS, double)
FOR_EACH_GRAPH_STENCIL(GTP_UNS_KERNELS, float)

/* ---- lattice twin: a tile and its ring, addressed by arithmetic ---- */
#define GTP_HX (LK == LATTICE_HEXAGONS ? 1 : 2)

/* The tile's geometry and the thread's cell (x, y, par, inside, me); then (GTP_LAT_ENTRIES) its
 * entries ecl[i] (cell index, -1 where no Laplacian is needed: outside the lattice or short of
 * an edge) and their parities epr[i]. */
#define GTP_LAT_TILE()                                                                            \
    const int bx = blockDim.x, by = blockDim.y, TW = bx + 2 * GTP_HX, NE = TW * (by + 2);         \
    const int t = threadIdx.y * bx + threadIdx.x, nt = bx * by, LW = P.lat_w;                     \
    const int gx0 = (int)(blockIdx.x * bx) - GTP_HX, gy0 = (int)(blockIdx.y * by) - 1;            \
    const int x = gx0 + GTP_HX + threadIdx.x, y = gy0 + 1 + threadIdx.y;                          \
    const int inside = x < LW && y < P.lat_ny &&                                                  \
                       lattice_inner(LK, P.lat_nx, P.lat_ny, P.g_radius, x, y);                   \
    const int par = lattice_par(LK, x, y), me = (threadIdx.x + GTP_HX) + (threadIdx.y + 1) * TW;

#define GTP_LAT_ENTRIES()                                                                         \
    int ecl[GTP_EMAX], epr[GTP_EMAX];                                                             \
    _Pragma("unroll") for (int i = 0; i < GTP_EMAX; i++) {                                        \
        const int s = t + i * nt, sx = gx0 + s % TW, sy = gy0 + s / TW;                           \
        const int ok = s < NE && sx >= 0 && sx < LW && sy >= 0 && sy < P.lat_ny &&                \
                       lattice_inner(LK, P.lat_nx, P.lat_ny, 1, sx, sy);                          \
        ecl[i] = ok ? sy * LW + sx : -1;                                                          \
        epr[i] = lattice_par(LK, sx, sy);                                                         \
    }

#define GTP_LAT_PASS1(ST, g_)                                                                     \
    {                                                                                             \
        GTP_LEVEL(kg + (g_))                                                                      \
        _Pragma("unroll") for (int i = 0; i < GTP_EMAX; i++) if (ecl[i] >= 0) {                   \
            const int epar = epr[i];                                                              \
            T v_;                                                                                 \
            ST##_INNER(v_, ecl[i]);                                                               \
            lbuf[(g_) * NE + t + i * nt] = v_;                                                    \
        }                                                                                         \
    }
#define GTP_LAT_PASS2(ST, g_)                                                                     \
    {                                                                                             \
        GTP_LEVEL(kg + (g_))                                                                      \
        ST##_OUTER(y * LW + x);                                                                   \
    }

#define GTP_LAT_SPLIT(ST)                                                                         \
    GTP_LAT_TILE()                                                                                \
    GTP_LAT_ENTRIES()                                                                             \
    GTP_LEVELS(ST, NE, 1, GTP_LAT_PASS1, inside, GTP_LAT_PASS2)

#define GTP_LAT_ONE(ST)                                                                           \
    GTP_LAT_TILE()                                                                                \
    (void)me, (void)NE, (void)nt, (void)t;                                                        \
    const int epar = par, k0 = blockIdx.z * P.zslice, k1 = min(k0 + P.zslice, P.zend);           \
    if (inside)                                                                                   \
        for (int k = k0; k < k1; k++) {                                                           \
            GTP_LEVEL(k)                                                                          \
            ST##_BODY(y * LW + x);                                                                \
        }

#define STRATEGY_LATTICE(ST) GTP_PICK(ST##_SPLIT, GTP_LAT_SPLIT, GTP_LAT_ONE)(ST)

#include "../stencils/graph_undef.h"
#undef GCELL
#undef GLAP
#undef GLNB
#undef GSELF
#define GAT(q) ((q) + lev)
#define GOUT(q) GAT(q)
#define GCELL(q) (q)
#define GDEG(q) lattice_deg(LK)
#define GNB(q, j) ((q) + lattice_off(LK, LW, epar, j))
#define GFOR(k, lo, d) GFOR_CONST(k, lo, d)
#define GLAP(s) lbuf[g_ * NE + (s)]
#define GLNB(c, k) (me + lattice_off(LK, TW, par, k))
#define GSELF(c) me
INSTANTIATE_GRAPH_LAT()

/* columns: degree bounds 4, 8, 16 (16 twice), then the twins (the runner picks by list width) */
#define GTP_ROW(ST, TY)                                                                           \
    {(const void *)kg_##ST##_##TY##_d4, (const void *)kg_##ST##_##TY##_d8,                        \
     (const void *)kg_##ST##_##TY##_d16, (const void *)kg_##ST##_##TY##_d16,                      \
     (const void *)kg_##ST##_##TY##_hex, (const void *)kg_##ST##_##TY##_tri}
#define GTP_STENCIL(ST, _) {GTP_ROW(ST, double), GTP_ROW(ST, float)},
extern "C" {
gkernel_table graph_twopass_gkernels = {FOR_EACH_GRAPH_STENCIL(GTP_STENCIL, _)};
kernel_table graph_twopass_kernels = {}; /* no W/E/S/N kernels */
}
