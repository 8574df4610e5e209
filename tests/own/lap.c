/* lap.c — the built-in lap's body (stencils/lap.h) as a stencil file (tests/test_own.c). */
#pragma pillar stencil(lap-file) in(in) out(out) radius(1)
#pragma pillar carry(in <- out) fold(s - v / (T)8)
#include "stencils/lap.h"
#pragma pillar body
LAP_BODY();
