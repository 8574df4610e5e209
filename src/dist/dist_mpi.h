/* dist_mpi.h — distributed iterated runs over MPI ranks (docs/distributed.md). No header of
 * pillar includes mpi.h: a communicator crosses this interface as its Fortran handle (an int,
 * MPI_Comm_c2f / MPI_Comm_f2c inside), which C and Fortran callers both have. Built without MPI
 * (PILLAR_MPI OFF or no MPI found), every function that would need it says so and fails. */
#ifndef PILLAR_DIST_MPI_H
#define PILLAR_DIST_MPI_H

#include "dist_plan.h"
#include "access/access.h"
#include "src/exec/problem.h"

#include <stdint.h>

/* Whether pillar was built with MPI. */
int dist_mpi_built(void);

/* The ranks an MPI launcher (mpirun, srun) says this process is one of, from its environment
 * (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_SIZE... none: 0); readable without MPI, so that a build
 * without MPI can tell it was started by mpirun. */
int dist_launcher_ranks(void);

/* MPI_Init_thread(FUNNELED) unless MPI is initialised already; dist_finalize ends it only if
 * dist_init started it. Return 0, or -1 with a message (built without MPI, MPI failed). */
int dist_init(int *argc, char ***argv);
void dist_finalize(void);

/* The Fortran handle of MPI_COMM_WORLD (after dist_init). */
int dist_world(void);

/* This process's rank in comm and comm's size. Returns 0, or with a message -1 (built without
 * MPI, a handle that is not a communicator) or -2 (MPI not initialised, or finalized). */
int dist_comm_info(int comm, int *rank, int *size);

/* The smallest and largest of x over the ranks of comm (every rank gets them). */
void dist_minmax(int comm, double x, double *lo, double *hi);

/* Rank 0's n bytes at buf, on every rank of comm. */
void dist_bcast_bytes(int comm, void *buf, int n);

/* The least of x over the ranks of the communicator *(int *)comm (collective): the min_all of
 * coefficients built piece by piece (stencils/coeffs.h: coef_build_part_fn). */
double dist_min_all(void *comm, double x);

/* Every rank's x gathered on rank 0 of comm: all (comm's size entries, read on rank 0 only; the
 * others may pass NULL) gets rank r's in all[r] (collective). */
void dist_gather_long(int comm, long x, long *all);

/* MPI_Alltoallv of ints over comm (collective): scount[q] ints for rank q, back to back in send
 * in rank order; rcount (comm's size entries) gets how many come from each rank. Returns the
 * received ints, back to back in rank order (a new array; at least one entry). Without MPI: one
 * rank, send copied. */
int *dist_alltoallv_int(int comm, const int *send, const int *scount, int *rcount);

/* Exclusive prefix sums over the ranks of comm of the n values x (collective): before[i] gets
 * the sum of x[i] over the lower ranks (0 on rank 0), total[i] the sum over all ranks. */
void dist_exscan_long(int comm, const long *x, int n, long *before, long *total);

/* Every rank's n ints x gathered on rank 0 of comm, back to back in rank order (collective):
 * returns a new array (at least one entry) and its count in *total on rank 0; an empty one and
 * 0 on the others. */
int *dist_gather_ints(int comm, const int *x, int n, int *total);

/* How a rank runs its part. */
typedef struct {
    int gpu;         /* 1: on the CUDA device (dist_gpu.h), 0: on the CPU */
    access_t access; /* GPU: the strategy and block shape of the steps' kernels */
    int bx, by, bz, zslice;
    int root_only;   /* 1: only rank 0 gets the gathered result */
    /* non-NULL: the problem (problem_make_bare) from which each rank makes its own part's initial
     * inputs (problem_fill_inputs): f holds no field and gets no result; rank 0 gets the final
     * state's iter_state_hash (dist_timing.hash), gathered level by level. No rank then holds
     * more than its part and one level of the grid */
    const problem *bare;
    int halo;        /* GPU: how halos travel, DIST_HALO_* */
    /* non-NULL (bare NULL; dist_mpi_run_local): input field k's initial values at the n local
     * cells of global ids gid[], levels [z0, z1), value i of level z at index
     * (z - z0) * zstride + i of dst; rank 0 gets the final state's hash as with bare over the
     * grid's ncells cells: the fixed cells first, then every rank's own cells at their places
     * (dist_local.hix, or their global ids) */
    void (*fill)(const void *user, int k, const int *gid, int n, int z0, int z1, void *dst,
                 long zstride);
    const void *fill_user;
    int ncells;
    /* with fill, read on rank 0: the global ids of the grid's halo cells (owned by no rank, never
     * computed), nfixed of them, the hash's places 0 .. nfixed-1 in this order, at the values
     * fill gives them (dist_read_local's; NULL, 0: none) */
    const int *fixed;
    int nfixed;
    int keep_device; /* GPU: 1: the caller's current device; 0: the launcher's local rank's GPU
                      * (modulo the devices) */
} dist_exec;

/* How a GPU run's halos travel: AUTO takes NCCL when pillar was built with it and every rank
 * has a GPU of its own (NCCL refuses two ranks on one GPU), else staged; NCCL without it is an
 * error; STAGED copies them through pinned host buffers to MPI (or hands device buffers to a
 * CUDA-aware MPI, PILLAR_CUDA_AWARE_MPI); IPC copies them device to device into the peers'
 * buffers, mapped through CUDA IPC (ranks of one host; src/dist/dist_gpu_ipc.c). */
enum { DIST_HALO_AUTO, DIST_HALO_NCCL, DIST_HALO_STAGED, DIST_HALO_IPC };

/* Bare exchanges timed after a run (dist_timing.exchange_s: their median). */
#define DIST_BARE_EXCHANGES 11

typedef struct {
    int nranks;
    double total_s;       /* the passes, slowest rank (after a barrier at the start) */
    /* the pieces of the passes, each the slowest rank's sum over the passes; on the GPU device
     * time (CUDA events), but waiting, which is the host's MPI_Waitall after the interior's
     * launch */
    double pack_s;        /* packing (on the GPU with the copy to the pinned host buffer) */
    double interior_s;    /* step 1's interior, while the messages fly */
    double wait_s;        /* MPI_Waitall; through NCCL the grouped exchange on the device */
    double unpack_s;      /* unpacking (on the GPU with the copy from the host) */
    double rest_s;        /* step 1's boundary and fold, steps 2..t */
    double sent_bytes;    /* all ranks together, per exchange */
    double max_rank_sent; /* the most one rank sends per exchange */
    int exchanges;
    long own_min, own_max; /* own cells per rank */
    long ring_max;         /* the largest ring */
    char rank0[320];       /* rank 0's dist_rank_describe */
    /* the exchange alone, measured after the passes: bare exchanges (pack, MPI, unpack, nothing
     * computed), each after a barrier; the slowest rank's median, seconds (0 on one rank) */
    double exchange_s;
    /* share of exchange_s the passes did not pay for, the least over the ranks (0..1):
     * (exchange alone + computing - a pass) / exchange alone, computing = step 1's interior,
     * boundary and steps 2..t */
    double hidden;
    double ring_k;         /* the ring constant of the parts (dist_model_ring_k; 0 on one rank) */
    /* the slowest rank's measured rates (GPU; 0 on the CPU): step 1's interior in points per
     * second, packing and unpacking in message bytes per second, the host link (the slower of
     * the copies to and from the pinned buffers; 0 when MPI takes device pointers) */
    double pts_per_s, pack_bps, unpack_bps, host_bps;
    char devices[512];     /* every rank's device, "rank 0: GPU 0 (bus id), rank 1: ..." */
    char halo[160];        /* the path the halos took and why: "nccl (NCCL 2.28.9), GPU to
                            * GPU", "staged through the host (ranks share a GPU)", "host
                            * memory (CPU)" */
    /* step 1's interior alone (GPU; 0 on the CPU): DIST_BARE_EXCHANGES launches after the run on
     * the otherwise idle device (dist_gpu_interior_alone), the slowest rank's median rate in
     * points per second: the interior's speed without the messages' kernels beside it */
    double alone_pts_per_s;
    double alone_buffer_pts_per_s[2]; /* the same, of the launches reading the state from the
                                       * input fields [0] and from the output fields [1] */
    /* GPU: the slowest rank's median step-1 interior of a pass (seconds), of all passes, of those
     * that read the state from the input [0] and from the output fields [1], of the first and
     * of the last quarter of the passes (0 where none) */
    double pass_median_s, pass_parity_s[2], pass_quarter_s[2];
    double wire_bps;       /* NCCL: bytes sent per second of the grouped exchange, slowest rank */
    /* GPU, several ranks: each rank's step-1 interior rate while the messages flew (the median
     * pass) and alone after the run, G points/s: "rank 0 132.8 (alone 151.2), rank 1 ..." (rank 0;
     * empty otherwise): which rank is the slowest, for comparing each with its own device */
    char rank_rates[512];
    uint64_t hash;         /* dist_exec.bare: the final state's iter_state_hash (rank 0) */
} dist_timing;

/* Advances state f (on grid g; every rank passes the same grid and the same initial state) by
 * `steps` steps over the ranks of comm: the inner cells cut into as many parts as ranks by a
 * METIS k-way partition (ugrid_partition, on rank 0, broadcast), F steps between exchanges; coef:
 * g's coefficients for a stencil that reads them (stencils/coeffs.h, fluxdiff's: each rank keeps
 * its cells'; NULL for the others; each rank builds them itself, so nothing of them crosses
 * MPI); each rank computes
 * its part (src/dist/dist_cpu.h, or dist_gpu.h with e->gpu), the ring exchanged
 * with MPI_Irecv / MPI_Isend while step 1's interior is computed. The result is gathered into f
 * on rank 0 (on every rank unless e->root_only); it equals iter_run_incore's bit for bit.
 * Collective: every rank of comm calls it with the same arguments and gets the same status.
 * Returns 0, or -1 with a message (on the rank that failed; the others report that some rank
 * failed). */
int dist_mpi_run(int comm, const ugrid *g, const coef_set *coef, stencil_t s, precision_t p,
                 int chasing, int compressed, int F, fieldset f, int steps, const dist_exec *e,
                 dist_timing *t);

/* dist_mpi_run from each rank's own rows L (dist_local.h; e.g. dist_read_local): no rank holds
 * more than its rows, its part's fields and (rank 0) one level of the grid. e->fill makes the
 * inputs; the state is not gathered, rank 0 gets its hash (dist_timing.hash: iter_state_hash of
 * the grid of e->ncells cells whose first e->nfixed are the halo cells e->fixed, the others each
 * rank's own cells at their places L->hix, or their global ids where L->hix is NULL: together
 * every place 0 .. e->ncells-1 once). A stencil that reads coefficients (fluxdiff) has them made
 * from L's rows, sides and centres (dist_local_coeffs), its time step the minimum over the
 * ranks. Collective; returns 0, or -1 with a message. */
int dist_mpi_run_local(int comm, const dist_local *L, stencil_t s, precision_t p, int chasing,
                       int compressed, int F, int steps, const dist_exec *e, dist_timing *t);

/* ---- a rank's part kept open across calls: a model's decomposition (src/api/pillar.c) ----
 *
 * The passes of dist_mpi_run on rank d's part (made and its send lists connected, e.g. by
 * dist_decomp_share), its fields kept where it computes them (the host, or the device with
 * e->gpu) between calls, so that a time loop of one step a call moves nothing but the ring. */
typedef struct dist_part dist_part; /* (session.h names it struct dist_part) */

/* Opens rank d's part over comm: its local fields from f on g (every input at every local cell
 * and level, dist_fields_load), on the device with e->gpu (e->access and its block shape), the
 * halos by e->halo (through NCCL where asked for and possible: dist_mpi_run's choice); what
 * gets the path taken (dist_timing.halo's words). e->bare and e->fill are not used. d must
 * outlive the part. Collective; returns the part, or NULL on every rank after a message. */
dist_part *dist_part_open(int comm, dist_rank *d, const ugrid *g, fieldset f, const dist_exec *e,
                          char *what, size_t n);
/* `steps` steps in passes of at most d->F: the ring exchanged before each while step 1's
 * interior is computed. Collective. */
void dist_part_steps(dist_part *p, int steps);
/* One exchange of the ring, nothing computed: afterwards every ring cell holds its owner's
 * current value. Collective. */
void dist_part_exchange(dist_part *p);
/* Every input again from f on g (after the caller changed them). */
void dist_part_load(dist_part *p, const ugrid *g, fieldset f);
/* Input field f's values at the part's local cells cell[0..n) (d->pt's numbering; its cell l is
 * g's d->pt.gcell[l]) of every level, level after level (buf[z * n + j]): copied out of the
 * part's current state (pack) or into it. Local. */
void dist_part_cells(dist_part *p, int f, const int *cell, int n, void *buf, int pack);
void dist_part_close(dist_part *p);

/* dist_part_open for the whole-grid path (dist_mpi_run's arguments, the state f on g on every
 * rank): partitions g once (METIS on rank 0), makes the rank's share and its lists; the part
 * keeps and frees them. Collective; NULL on every rank after a message. */
dist_part *dist_part_open_grid(int comm, const ugrid *g, const coef_set *coef, stencil_t s,
                               precision_t p, int chasing, int compressed, int F, fieldset f,
                               const dist_exec *e, char *what, size_t n);
/* Every rank's own cells of the carried fields into f on g, on every rank (dist_mpi_run's
 * gather). Collective. */
void dist_part_gather(dist_part *p, const ugrid *g, fieldset f);

/* ---- collectives for the other files of src/dist (dist_decomp.c): mpi.h stays here ---- */

/* Agreement on a failure, collective over comm: each rank passes its status st (0: none) and,
 * when st != 0, its message in msg (n bytes). Returns 0 when every rank passed 0; otherwise every
 * rank gets the status and message of the lowest rank that failed (msg replaced), so that all
 * ranks return the same status and say the same thing. Built without MPI: st, msg unchanged. */
int dist_agree(int comm, int st, char *msg, size_t n);

/* Byte messages between ranks of comm: bytes [soff[j], soff[j+1]) of sbuf to speer[j]
 * (nsend peers), and from rpeer[j] into [roff[j], roff[j+1]) of rbuf (nrecv peers); returns
 * when every message has gone and arrived. Both sides must list each other. Returns 0, or -1
 * after a message on every rank (a rank exchanging over 2 GB; built without MPI). */
int dist_exchange_bytes(int comm, int nsend, const int *speer, const size_t *soff,
                        const void *sbuf, int nrecv, const int *rpeer, const size_t *roff,
                        void *rbuf);

/* The same in two halves, to compute while the messages fly: dist_exchange_start posts them
 * (no message over 2 GB: the caller has checked) and returns the messages in flight;
 * dist_exchange_wait returns when all have gone and arrived, and frees them. sbuf must not change
 * and rbuf must not be read in between. Built without MPI: NULL after a message. */
typedef struct dist_flight dist_flight;
dist_flight *dist_exchange_start(int comm, int nsend, const int *speer, const size_t *soff,
                                 const void *sbuf, int nrecv, const int *rpeer,
                                 const size_t *roff, void *rbuf);
void dist_exchange_wait(dist_flight *x);

/* Rank d's send lists (dist_rank_sends) from what every rank of comm wants of it: each rank
 * tells each owner the global ids of the ring cells it receives (collective). Returns 0, or -1
 * with a message on the rank asked for a cell it does not own. */
int dist_rank_connect(int comm, dist_rank *d);

#endif
