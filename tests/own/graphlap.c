/* graphlap.c — the built-in graphlap's body (stencils/graphlap.h) as a stencil file
 * (tests/test_own.c). */
#pragma pillar stencil(graphlap-file) kind(graph) in(in) out(out) radius(2)
#pragma pillar carry(in <- out) fold(s - v / (T)GRAPHLAP_DAMPING)
#include "stencils/graphlap.h"
#pragma pillar body
GRAPHLAP_BODY(c);
