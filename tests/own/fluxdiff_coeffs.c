/* fluxdiff_coeffs.c — the built-in fluxdiff's body (stencils/fluxdiff.h) as a stencil file that
 * takes fluxdiff's coefficients by coeffs(fluxdiff) (tests/test_own.c): the body reads them
 * through the accessors GCOEF and GCOEFJ (stencils/coeffs.h) only, not GAREA/GKAPPA. */
#pragma pillar stencil(fluxdiff-coeffs) kind(graph) in(in) out(out) radius(1) coeffs(fluxdiff)
#include "stencils/fluxdiff.h"
#pragma pillar body
FLUXDIFF_BODY(c);
