/* resident.h — a problem's fields kept on the device across calls: the library's in-core GPU
 * path (src/engine/session.h). Opened once per handle, it plans the grid as one in-core part
 * (src/plan/ooc_plan.h, F = 1), uploads the part's image (neighbours, graph-twopass lists,
 * coefficients) once, and keeps two device arrays of every carried field: a time step is one
 * kernel launch on the handle's stream that writes the new state into the other array (the
 * fold fused, as every iterated GPU run does), and the two are exchanged by pointer. Nothing is
 * planned, allocated, uploaded or synchronised per step.
 *
 * Host and device copies of a field are kept apart: which of the two is current is the
 * session's business (session.h); this file moves whole fields between them, one copy each
 * way. The device arrays have the grid's own layout (ugrid zstride), so a host field crosses in
 * one copy.
 *
 * Built only with CUDA (PILLAR_HAVE_CUDA). CUDA failures fault (base/common.h); the functions
 * that can refuse return 0 or -1 after a message (perr). */
#ifndef PILLAR_RESIDENT_H
#define PILLAR_RESIDENT_H

#include "src/exec/problem.h"
#include "access/access.h"

typedef struct resident resident;

/* The kernel a resident handle launches: strategy, block shape (0: the strategy's default),
 * levels per thread of the sliced strategies. */
typedef struct {
    access_t access;
    int bx, by, bz;
    int zslice;
} resident_kernel;

/* Opens pb's grid on the device for iterated steps and applications of pb's stencil with
 * kernel k. Returns the handle, or NULL after a message (a strategy without iterated kernels
 * for the stencil, a block shape it does not take, a grid without inner cells). The fields'
 * device arrays hold poison until resident_put. */
resident *resident_open(const problem *pb, const resident_kernel *k);
void resident_close(resident *r);

/* Field k (pb's numbering: inputs, then outputs) from / to a host array laid out as pb->uf's.
 * put replaces the field; for a carried field (iter_carried) it also copies the points no step
 * writes (halo cells, levels above the computed ones) into the other array. Both wait for the
 * copies. */
void resident_put(resident *r, int k, const void *host);
void resident_get(resident *r, int k, void *host);

/* Carried field k's two device arrays: the one that holds the state (*cur) and its twin
 * (*other: the array the next step writes, holding the same values wherever no step writes).
 * A caller that wrote the new state into *other itself (the on-chip launch) makes it the state
 * with resident_swap. */
void resident_pair(resident *r, int k, void **cur, void **other);
void resident_swap(resident *r, int k);

/* The device array that holds field k now (the grid's layout), for renumbering on the device. */
void *resident_field(resident *r, int k);
/* After field k's device array was rewritten in place by the caller (on resident_stream):
 * for a carried field, the points no step writes go to the other array as in resident_put. */
void resident_wrote(resident *r, int k);
/* A spare device array of one field, for a caller that fills it and swaps it in
 * (resident_swap_in) only after checking what it holds. */
void *resident_scratch(resident *r);
/* Makes the scratch array field k's array (and k's old array the scratch), then resident_wrote. */
void resident_swap_in(resident *r, int k);

/* A caller's device array (the grid's layout and precision) used in place as input field k's
 * array: steps read it and, once resident_settle has run, leave k's new values in it.
 * resident_wrote follows. Arrays of the grid's layout only: the caller checks. */
void resident_adopt(resident *r, int k, void *dev);
/* After steps: every adopted field's values back in the caller's array (one device-to-device
 * copy where the last step left them in the other array of its pair), queued on the stream. */
void resident_settle(resident *r);
/* Field k's own array again, holding the adopted array's values (nothing if k adopted none). */
void resident_release(resident *r, int k);

/* `steps` time steps, launched on the handle's stream without waiting for them. Returns 0, or
 * -1 after a message when a launch failed (a device error: the state is then undefined). */
int resident_steps(resident *r, int steps);
/* One application: every output from the inputs (no fold); the inputs unchanged. Returns as
 * resident_steps. */
int resident_apply(resident *r);

/* The stream every resident operation runs on (a cudaStream_t). */
void *resident_stream(resident *r);
/* Waits for everything launched; returns 0, or -1 after a message for a device error. */
int resident_sync(resident *r);

#endif
