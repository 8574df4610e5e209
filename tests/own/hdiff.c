/* hdiff.c — the built-in hdiff's body (stencils/hdiff.h) as a stencil file (tests/test_own.c). */
#pragma pillar stencil(hdiff-file) in(in, coeff) out(out) radius(2)
#pragma pillar carry(in <- out) range(coeff: 0.05, 0.05, 0)
#include "stencils/hdiff.h"
#pragma pillar body
HDIFF_BODY();
