/* fastwaves.c — the built-in fastwaves' body (stencils/fastwaves.h) as a stencil file
 * (tests/test_own.c): the same fields, extent, carried fields and input ranges as its registry
 * line. */
#pragma pillar stencil(fastwaves-file) framed
#pragma pillar in(u_pos, v_pos, u_tens, v_tens, rho, ppuv, fx, wgtfac, hhl) out(u_out, v_out)
#pragma pillar radius(1) ztop(1) zradius(1)
#pragma pillar carry(u_pos <- u_out, v_pos <- v_out)
#pragma pillar range(rho: 1.5, 0.5, 0) range(wgtfac: 0.5, 0.5, 0) range(hhl: 0, 25, 100)
#include "stencils/fastwaves.h"
#pragma pillar body
FASTWAVES_BODY();
