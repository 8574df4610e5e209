/* idxvar.cu — one thread per cell; each needed neighbour is looked up once into a register. */
#define KERNEL_BOUNDS 1024 /* see kernels.cuh */
#include "graph_kernels.cuh"

#define STRATEGY_UNS(ST) IDXVAR_UNS(ST)
#define STRATEGY_REG(ST) REG_PER_CELL(ST)

#define NB(R) GATHERED_NB(R)
INSTANTIATE_UNS()
INSTANTIATE_REG()
TABULATE(idxvar_kernels)

/* graph stencils: the cell's degree and ring gathered once into registers */
#define STRATEGY_GRAPH(ST)                                                                        \
    GRAPH_PER_CELL_INDEX()                                                                        \
    GRING_DECL                                                                                    \
    GRING_GATHER(p);                                                                              \
    ST##_BODY(p);
#define GRAPH_ACC GRAPH_ACC_RING
#include "graph_acc.cuh"
INSTANTIATE_GRAPH_UNS()
#include "graph_twin_per_cell.cuh"
GTABULATE(idxvar_gkernels)
