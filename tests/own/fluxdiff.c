/* fluxdiff.c — the built-in fluxdiff's body (stencils/fluxdiff.h) as a stencil file
 * (tests/test_own.c): it reads the mesh coefficients, so it declares geometry. */
#pragma pillar stencil(fluxdiff-file) kind(graph) in(in) out(out) radius(1) geometry
#include "stencils/fluxdiff.h"
#pragma pillar body
FLUXDIFF_BODY(c);
