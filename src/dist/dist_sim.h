/* dist_sim.h — a distributed iterated run of P ranks inside one process, the messages copied
 * between the ranks' buffers: the plan, the lists and the packing of src/dist/ checked without
 * MPI (tests/test_dist.c), and the reference the MPI run is held to. */
#ifndef PILLAR_DIST_SIM_H
#define PILLAR_DIST_SIM_H

#include "dist_pieces.h"
#include "dist_plan.h"
#include "access/access.h"

typedef struct {
    const ugrid *g;
    int nranks, F;
    dist_rank *d; /* nranks ranks, their send lists set from the others' receive lists */
} dist_sim;

/* The ranks of grid g for stencil s in precision p, table storage (chasing, compressed), the
 * inner cells cut by part (ugrid_partition; NULL: a METIS k-way partition is made here) among
 * nranks ranks, F steps between exchanges; coef: g's coefficients, which a stencil that reads
 * them (fluxdiff) needs (each rank gets its cells', dist_rank_make), NULL for the others.
 * Returns 0, or -1 with a message. */
int dist_sim_open(dist_sim *sm, const ugrid *g, const coef_set *coef, stencil_t s, precision_t p,
                  int chasing, int compressed, const int *part, int nranks, int F);
void dist_sim_close(dist_sim *sm);

/* Advances state f (on grid g, as iter_run_incore) by `steps` steps as the ranks would: every
 * rank loads its cells from f; each pass packs every rank's messages, then each rank poisons its
 * ring (dist_poison_ring: step 1's interior must not read it), computes that interior, unpacks
 * what its peers sent and finishes the pass; the ranks' own cells are stored back into f. */
void dist_sim_steps(const dist_sim *sm, fieldset f, int steps);

/* The same passes with every rank's part on the CUDA device (src/dist/dist_gpu.h: strategy a,
 * its default block), the messages copied from one rank's send buffer into the other's receive
 * buffer: the GPU path of the ranks checked without MPI (ranks sharing one device). Returns 0, or
 * -1 with a message (a build without CUDA, a strategy without iterated kernels). With times
 * non-NULL, the ranks' pieces (dist_pieces.h: seconds and bytes) summed over the ranks are
 * stored there: the ranks run one after the other (each rank's interior waited for before the
 * next rank's starts), so each piece is timed alone on the device. */
int dist_sim_steps_gpu(const dist_sim *sm, fieldset f, int steps, access_t a, dist_pieces *times);

/* dist_sim_open, dist_sim_steps, dist_sim_close. Returns 0, or -1 with a message. */
int dist_sim_run(const ugrid *g, const coef_set *coef, stencil_t s, precision_t p, int chasing,
                 int compressed, const int *part, int nranks, int F, fieldset f, int steps);

#endif
