/* idxvar.cu — one thread per cell; each needed neighbour is looked up once into a register. */
#define KERNEL_BOUNDS 1024 /* see kernels.cuh */
#include "kernels.cuh"

#define STRATEGY_UNS(ST) IDXVAR_UNS(ST)
#define STRATEGY_REG(ST) REG_PER_CELL(ST)

#define NB(R) GATHERED_NB(R)
INSTANTIATE_UNS()
INSTANTIATE_REG()
TABULATE(idxvar_kernels)
