/* dist_cpu.h — a rank's part of a distributed iterated run on the CPU, and the exchange's packing
 * (src/dist/dist_plan.h). Local fields are the rank's cells (local numbering) at every level,
 * levels pt.zstride elements apart, every input and output of the stencil.
 *
 * A pass of t <= F steps on one rank:
 *   dist_pack for each rank it sends to        (the state at its listed own cells)
 *   ... messages fly ...  dist_first_interior   (step 1's body at the interior cells)
 *   dist_unpack for each rank it receives from  (the ring's state)
 *   dist_finish_steps                           (step 1's body at the rest, its fold, steps 2..t)
 * Every point is computed with the operations of the in-core iteration (iter_step) in the same
 * order, so the gathered result equals it bit for bit. */
#ifndef PILLAR_DIST_CPU_H
#define PILLAR_DIST_CPU_H

#include "dist_plan.h"

/* The rank's local fields, poisoned; free with dist_fields_free. */
fieldset dist_fields_alloc(const dist_rank *d);
void dist_fields_free(const dist_rank *d, fieldset *loc);

/* Every input at every local cell and level from the global fields `global` (on grid g): the
 * initial state and the fixed inputs. */
void dist_fields_load(const dist_rank *d, const ugrid *g, fieldset global, fieldset loc);

/* The carried fields at the own cells into the global fields (every level): the rank's result. */
void dist_fields_store(const dist_rank *d, const ugrid *g, fieldset loc, fieldset global);

/* The message to send peer j (0 .. nsend-1): dist_msg_values(d, n) values of the precision,
 * carried field by field, level by level [0, zend), cell by cell as scell lists them. */
void dist_pack(const dist_rank *d, int j, fieldset loc, void *buf);
/* The message from receive peer j (0 .. nrecv-1) into the ring cells rcell lists. */
void dist_unpack(const dist_rank *d, int j, fieldset loc, const void *buf);

/* Poisons the carried fields at the ring cells (every level): what a pass reads of the ring
 * before its messages are unpacked shows up in the result (dist_sim_run does it every pass). */
void dist_poison_ring(const dist_rank *d, fieldset loc);

/* Step 1 of a pass of t steps at the interior cells [inner0, ncells): the body only (outputs). */
void dist_first_interior(const dist_rank *d, fieldset loc, int t);
/* The rest of a pass of t steps, once the ring is in: step 1's body on [first[t - 1], inner0),
 * its fold on the whole region, then steps 2..t on their shrinking regions. */
void dist_finish_steps(const dist_rank *d, fieldset loc, int t);

#endif
