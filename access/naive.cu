/* naive.cu — one thread per cell; every neighbour is looked up in the table at every use. */
#define KERNEL_BOUNDS 1024 /* see kernels.cuh */
#include "graph_kernels.cuh"

#define STRATEGY_UNS(ST)                                                                          \
    UNS_PER_CELL_INDEX()                                                                          \
    ST##_BODY();
#define STRATEGY_REG(ST) REG_PER_CELL(ST)

#define NB(R) (i + nb_offset_dev(nbv, CHASING, COMPRESSED, RIDX_##R, p))
INSTANTIATE_UNS()
#undef NB
#define NB(R) GATHERED_NB(R)
INSTANTIATE_REG()
TABULATE(naive_kernels)

/* graph stencils: every entry of the offset table read where the body uses it */
#define STRATEGY_GRAPH(ST)                                                                        \
    GRAPH_PER_CELL_INDEX()                                                                        \
    ST##_BODY(p);
#define GRAPH_ACC GRAPH_ACC_NAIVE
#include "graph_acc.cuh"
INSTANTIATE_GRAPH_UNS()
#include "graph_twin_per_cell.cuh"
GTABULATE(naive_gkernels)
