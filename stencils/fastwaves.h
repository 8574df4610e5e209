/* fastwaves.h — COSMO fast-waves u/v update without the XHRS stages (docs/stencils.md).
 * In: u_pos v_pos u_tens v_tens rho ppuv fx wgtfac hhl; out: u_out v_out; radius 1, levels
 * k = 0..nz-2 (k-1 is read only from k = c_flat_limit on). */
#ifndef PILLAR_FASTWAVES_H
#define PILLAR_FASTWAVES_H
#include "body.h"

#define FW_DT_SMALL 10
#define FW_EDADLAT 1
#define FW_C_FLAT_LIMIT 10

#define FASTWAVES_BIND(F)                                                                         \
    const T *RESTRICT u_pos = (const T *)(F).p[0];                                                \
    const T *RESTRICT v_pos = (const T *)(F).p[1];                                                \
    const T *RESTRICT u_tens = (const T *)(F).p[2];                                               \
    const T *RESTRICT v_tens = (const T *)(F).p[3];                                               \
    const T *RESTRICT rho = (const T *)(F).p[4];                                                  \
    const T *RESTRICT ppuv = (const T *)(F).p[5];                                                 \
    const T *RESTRICT fx = (const T *)(F).p[6];                                                   \
    const T *RESTRICT wgtfac = (const T *)(F).p[7];                                               \
    const T *RESTRICT hhl = (const T *)(F).p[8];                                                  \
    T *RESTRICT u_out = (T *)(F).p[9];                                                            \
    T *RESTRICT v_out = (T *)(F).p[10]

/* ppgk(x, k+dz) = wgtfac·ppuv + (1 − wgtfac)·ppuv one level down */
#define FW_PPGK(x, dz)                                                                            \
    (LDZ(wgtfac, x, dz) * LDZ(ppuv, x, dz) + ((T)1 - LDZ(wgtfac, x, dz)) * LDZ(ppuv, x, (dz)-1))
#define FW_PPGC(x) (FW_PPGK(x, 1) - FW_PPGK(x, 0))
#define FW_DH(x)                                                                                  \
    (((LDZ(hhl, C, 1) + LDZ(hhl, C, 0)) - (LDZ(hhl, x, 1) + LDZ(hhl, x, 0))) /                    \
     ((LDZ(hhl, C, 1) - LDZ(hhl, C, 0)) + (LDZ(hhl, x, 1) - LDZ(hhl, x, 0))))

#define FASTWAVES_BODY()                                                                          \
    do {                                                                                          \
        T ppgu = LD(ppuv, E) - LD(ppuv, C);                                                       \
        T ppgv = LD(ppuv, N) - LD(ppuv, C);                                                       \
        if (K >= FW_C_FLAT_LIMIT) {                                                               \
            T ppgc_c = FW_PPGC(C);                                                                \
            ppgu = ppgu + (FW_PPGC(E) + ppgc_c) * (T)0.5 * FW_DH(E);                              \
            ppgv = ppgv + (FW_PPGC(N) + ppgc_c) * (T)0.5 * FW_DH(N);                              \
        }                                                                                         \
        T rhou = LD(fx, C) / ((T)0.5 * (LD(rho, E) + LD(rho, C)));                                \
        T rhov = (T)FW_EDADLAT / ((T)0.5 * (LD(rho, N) + LD(rho, C)));                            \
        ST(u_out, LD(u_pos, C) + (LD(u_tens, C) - ppgu * rhou) * (T)FW_DT_SMALL);                 \
        ST(v_out, LD(v_pos, C) + (LD(v_tens, C) - ppgv * rhov) * (T)FW_DT_SMALL);                 \
    } while (0)

/* relations the body reads (bit r = relation r of grids/grid.h) */
#define FASTWAVES_RELS ((1u << 1) | (1u << 3))
#endif
