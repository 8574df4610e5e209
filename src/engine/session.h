/* session.h — the engine below the library: one stencil on one grid with its fields, where they
 * live (host, device or both) and how a run is made of them. Every pillar_step and pillar_apply
 * of include/pillar.h comes here, and session_steps / session_apply hold the one decision tree:
 *
 *   steps:  over MPI ranks (a communicator was given): a part   src/dist/dist_mpi.h
 *           kept across calls (dist_part_open_grid)
 *           on the CPU                                          src/exec/iterate.h
 *           GPU, option persistent on: one cooperative launch,  src/plan/persist_onchip.h
 *           on chip on the resident fields where it can, else   src/plan/persist_run.h
 *           on the host copies
 *           GPU, the fields fit the device: resident            src/engine/resident.h
 *           GPU, larger than the device: out of core, streamed  src/plan/ooc_gpu.h
 *   apply:  on the CPU; GPU resident; GPU through the benchmark runner for the strategies that
 *           have no iterated kernels (staged, twopass)
 *
 * On the GPU in core the fields stay on the device between calls: made once (at the first run
 * or device-array call), each step is a kernel launch, and a field crosses the host link only
 * when the caller sets or reads it on the host — once each way. The paths that run on host
 * fields (CPU, MPI, persistent off chip, out of core) take the host copies, brought up to date
 * first. A field may also be current only where the caller keeps it (session_away: a model
 * decomposition's part), fetched when a copy here is needed.
 *
 * The session owns none of the problem or the user order: the caller (src/api/pillar.c) does,
 * and keeps them alive while the session is open. Functions return 0 or -1 after a message
 * (perr); CUDA failures fault (base/common.h). */
#ifndef PILLAR_SESSION_H
#define PILLAR_SESSION_H

#include "src/exec/field_io.h"
#include "src/exec/run_options.h"
#include "src/plan/share.h"

typedef struct resident resident;

#define SESSION_PROBES 4

typedef struct {
    /* fixed when opened */
    problem *pb;
    const user_order *u;
    int gpu;                 /* the GPU backend (else the CPU) */
    access_t access;         /* the GPU strategy */
    int bx, by, bz, zslice;  /* its block shape and levels per slice (0: the defaults) */
    persist_mode persistent; /* PERSIST_ON: steps in one cooperative launch */
    int comm_set, comm, fuse; /* steps over the ranks of an MPI communicator (Fortran handle) */
    int halo;                 /* how their halos travel on GPUs (DIST_HALO_*, src/dist/dist_mpi.h) */
    /* where each field is current (inputs, then outputs) */
    unsigned char host_ok[PILLAR_MAXF], dev_ok[PILLAR_MAXF];
    unsigned char in_place[PILLAR_MAXF]; /* input k is a caller's device array (session_bind) */
    unsigned char away[PILLAR_MAXF];     /* field k is current only where the caller keeps it
                                          * (session_away): fetch brings it to the host */
    void (*fetch)(void *user, int k);
    void *fetch_user;
    resident *res;           /* the device-resident fields (NULL until first needed) */
    int res_refused;         /* the grid does not fit the device, or the strategy has no
                              * iterated kernels: the host paths run instead */
    int *dcell;              /* device: user cell -> pillar cell, for renumbering */
    unsigned long long *dbad; /* device: the first bad value of a device set */
    void *dstage;            /* device: a caller-sized array that host arrays cross through */
    share_cells cells;       /* session_cells' device lists and buffer */
    /* steps over MPI ranks (comm_set): the rank's part, kept open across calls (partitioned
     * once), its inputs loaded again after one was set (ranks_stale) */
    struct dist_part *ranks;
    int ranks_stale;
    /* persistent on, on the GPU: the on-chip launch's tables on the device, run on the resident
     * fields (opened at the first such step; onchip_refused: it refused, and onchip_why says
     * why: the caller's note; the steps then ran in core on the device's fields, onchip_in_core,
     * or where those do not fit the persistent kernels on the host copies) */
    struct onchip_run *onchip;
    int onchip_refused, onchip_in_core;
    char onchip_why[320];
    /* persistent auto, for each of the last SESSION_PROBES step counts a call asked for (a launch
     * on chip costs the same few copies and its start whatever its steps, so the faster path
     * depends on the call's steps): 0 nothing measured, 1 on chip measured (onchip_s a step),
     * then 2 on chip or 3 in core from the next call of those steps on (core_s); probe_note says
     * so once; probe_next: the slot the next new step count takes */
    struct {
        int steps, state;
        double onchip_s, core_s;
    } probe[SESSION_PROBES];
    int probe_next, probe_off; /* probe_off: on chip refused, in core for every count */
    char probe_note[200];
} session;

/* A session on problem pb (its host fields pb->uf) in user order u. Nothing is allocated on the
 * device yet. */
void session_init(session *s, problem *pb, const user_order *u, int gpu, access_t access,
                  persist_mode persistent);
/* The strategy's block shape and levels per slice (0: the strategy's defaults; slices of 8). */
void session_shape(session *s, int bx, int by, int bz, int zslice);
/* Frees the device state. */
void session_close(session *s);

/* The host copy of field k is about to be read (brought up to date from the device first), or
 * was just written by the caller (the device copy is then stale). */
void session_host_read(session *s, int k);
void session_host_wrote(session *s, int k);

/* Field k is current only where the caller keeps it (a model decomposition's part, kept open
 * across steps: src/api/pillar.c): neither the host's nor the device's copy is, until the host
 * copy is next needed, when fetch(user, k) writes the current values into it (pb->uf.p[k]). */
void session_away(session *s, int k, void (*fetch)(void *user, int k), void *user);

/* Field k's values at cells cell[0..n) (pillar's numbering, any order) of every level, level
 * after level (buf[z * n + j], host memory, the field's precision): read out of the field (pack)
 * or written into it. Read from the copy that is current; written into every copy that is
 * current. Where only the device's is, only these values cross the link: a halo's exchange
 * moves no whole field (src/api/pillar.c, a model's decomposition on the GPU). */
void session_cells(session *s, int k, const int *cell, int n, void *buf, int pack);

/* `steps` time steps of the state fields; every input field must be current somewhere. */
int session_steps(session *s, int steps);
/* One application: every output field from the inputs. */
int session_apply(session *s);

/* Field k set from / read into the caller's array in its order (count = nlevels * ncells values,
 * float when is_float), in device memory when on_device, else in host memory. Where the grid is
 * resident the values are renumbered on the device (a host array crosses the link once);
 * otherwise 1 is returned and the caller renumbers through the host copy (session_host_read,
 * session_host_wrote) — for a host array also wherever the runs take the host copies (CPU,
 * MPI, persistent) or the host copy is current. set: *bad_at receives the index of the first
 * value that is not finite or does not fit the precision (-1 if none); the field is then
 * unchanged. get: outputs NaN where the stencil computes nothing. 0, 1, or -1 after a message. */
int session_set(session *s, int k, const void *values, int is_float, int on_device, long *bad_at);
int session_get(session *s, int k, void *values, int is_float, int on_device);

/* Input field k bound to the caller's device array dvalues (nlevels * ncells values, float
 * when is_float), used in place: possible on the GPU where the grid is resident, the caller's
 * cell order is pillar's (an identity permutation, pillar_get_permutation), there is no padding
 * between levels (pillar's level stride is the number of cells) and the precision is the
 * field's. Returns 1 when bound in place: from then on runs read the caller's array as field k
 * and leave its new values there (one device-to-device copy after an odd number of steps), and
 * nothing checks its values; 0 when it cannot be (the caller moves the values at each call);
 * -1 after a message. */
int session_bind(session *s, int k, void *dvalues, int is_float);
/* Field k its own array again, holding the bound array's values. */
void session_unbind(session *s, int k);

#endif
