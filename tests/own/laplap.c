/* laplap.c — the built-in laplap's body (stencils/laplap.h) as a stencil file: loaded through the
 * run-time path, it must give the compiled-in kernels' bits (tests/test_own.c). */
#pragma pillar stencil(laplap-file) in(in) out(out) radius(2)
#pragma pillar carry(in <- out) fold(s - v / (T)64)
#include "stencils/laplap.h"
#pragma pillar body
LAPLAP_BODY();
