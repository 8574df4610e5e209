/* zloop_plain.cu — zloop-sliced (one thread per slice of --zslice levels, offsets looked up once)
 * with the values read by plain loads instead of the read-only path (kernels.cuh,
 * PILLAR_PLAIN_LOADS): on the H100 the fastest regular fastwaves twin (553.4 µs against
 * zloop-sliced's 579.8, bench/results/2026-11-24-h100-incore); slower elsewhere. */
#define PILLAR_PLAIN_LOADS
#include "kernels.cuh"

#define STRATEGY_UNS(ST) ZLOOP_UNS(ST)
#define STRATEGY_REG(ST) ZLOOP_REG(ST)

#define NB(R) GATHERED_NB(R)
INSTANTIATE_UNS()
INSTANTIATE_REG()
TABULATE(zloop_plain_kernels)
