/* idxvar_plain.cu — idxvar (one thread per cell, each neighbour looked up once into a register)
 * with the values read by plain loads instead of the read-only path (kernels.cuh,
 * PILLAR_PLAIN_LOADS): a candidate for the regular twins, issue 21. */
#define KERNEL_BOUNDS 1024 /* as idxvar: see kernels.cuh */
#define PILLAR_PLAIN_LOADS
#include "kernels.cuh"

#define STRATEGY_UNS(ST) IDXVAR_UNS(ST)
#define STRATEGY_REG(ST) REG_PER_CELL(ST)

#define NB(R) GATHERED_NB(R)
INSTANTIATE_UNS()
INSTANTIATE_REG()
TABULATE(idxvar_plain_kernels)
