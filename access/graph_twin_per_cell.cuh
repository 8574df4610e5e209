/* graph_twin_per_cell.cuh — the lattice twin of the thread-per-cell strategies (naive, idxvar,
 * shared, shared-warp: nothing to look up or share on a lattice, so one kernel, as for the
 * W/E/S/N twins), instantiated in the file that includes it after its table kernels. */
#define STRATEGY_LATTICE(ST) LAT_PER_CELL(ST)
#undef GRAPH_ACC
#define GRAPH_ACC GRAPH_ACC_LATTICE
#include "graph_acc.cuh"
INSTANTIATE_GRAPH_LAT()
