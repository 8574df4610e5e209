/* persistent.cuh — what the persistent kernels of the W/E/S/N stencils (persistent.cu) and of
 * the graph stencils (persistent_graph.cu) share on the device (persistent.h). */
#ifndef PILLAR_PERSISTENT_CUH
#define PILLAR_PERSISTENT_CUH

#include "persistent.h"

/* The fields of step t: the state field reads `state` at even t, `other` at odd t, and the
 * output field the other one (every index unrolled: no copy in local memory). */
__device__ __forceinline__ fieldset persist_fields(const persist_params &A, int t)
{
    fieldset F = A.P.f;
    void *const rd = (t & 1) ? A.other : A.state, *const wr = (t & 1) ? A.state : A.other;
#pragma unroll
    for (int q = 0; q < PILLAR_MAXF; q++)
        F.p[q] = q == A.fin ? rd : q == A.fout ? wr : F.p[q];
    return F;
}

#endif
