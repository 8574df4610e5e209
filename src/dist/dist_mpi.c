/* dist_mpi.c — the ranks' passes over MPI (src/dist/dist_mpi.h). */
#include "dist_mpi.h"

#include "dist_cpu.h"
#include "dist_model.h"
#include "dist_pieces.h"
#include "base/progress.h"
#include "grids/mesh.h"
#include "src/exec/iterate.h"
#include "src/exec/runner.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PILLAR_HAVE_CUDA
#include "dist_gpu.h"
#endif

int dist_launcher_ranks(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE",
                                       "MPI_LOCALNRANKS", "SLURM_NTASKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) {
            long n = strtol(v, NULL, 10);
            if (n > 0 && n < INT_MAX)
                return (int)n;
        }
    }
    return 0;
}

#ifndef PILLAR_HAVE_MPI

static int no_mpi(void)
{
    perr("distributed run: pillar was built without MPI (configure with -DPILLAR_MPI=ON where "
         "an MPI is installed; Debian: apt-get install libopenmpi-dev openmpi-bin)");
    return -1;
}

int dist_mpi_built(void) { return 0; }
int dist_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return no_mpi();
}
void dist_finalize(void) {}
int dist_world(void) { return 0; }
int dist_comm_info(int comm, int *rank, int *size)
{
    (void)comm;
    *rank = 0;
    *size = 1;
    return no_mpi();
}
void dist_minmax(int comm, double x, double *lo, double *hi)
{
    (void)comm;
    *lo = *hi = x;
}
void dist_bcast_bytes(int comm, void *buf, int n)
{
    (void)comm, (void)buf, (void)n;
}
double dist_min_all(void *comm, double x)
{
    (void)comm;
    return x;
}
void dist_gather_long(int comm, long x, long *all)
{
    (void)comm;
    all[0] = x;
}
void dist_exscan_long(int comm, const long *x, int n, long *before, long *total)
{
    (void)comm;
    for (int i = 0; i < n; i++) {
        before[i] = 0;
        total[i] = x[i];
    }
}
int *dist_gather_ints(int comm, const int *x, int n, int *total)
{
    (void)comm;
    int *all = xalloc(sizeof(int) * (size_t)(n + 1));
    memcpy(all, x, sizeof(int) * (size_t)n);
    *total = n;
    return all;
}
int *dist_alltoallv_int(int comm, const int *send, const int *scount, int *rcount)
{
    (void)comm;
    rcount[0] = scount[0];
    int *recv = xalloc(sizeof(int) * (size_t)(scount[0] + 1));
    memcpy(recv, send, sizeof(int) * (size_t)scount[0]);
    return recv;
}
int dist_mpi_run_local(int comm, const dist_local *L, stencil_t s, precision_t p, int chasing,
                       int compressed, int F, int steps, const dist_exec *e, dist_timing *t)
{
    (void)comm, (void)L, (void)s, (void)p, (void)chasing, (void)compressed, (void)F, (void)steps;
    (void)e, (void)t;
    return no_mpi();
}
int dist_mpi_run(int comm, const ugrid *g, const coef_set *coef, stencil_t s, precision_t p,
                 int chasing, int compressed, int F, fieldset f, int steps, const dist_exec *e,
                 dist_timing *t)
{
    (void)comm, (void)g, (void)coef, (void)s, (void)p, (void)chasing, (void)compressed, (void)F, (void)f;
    (void)steps, (void)e, (void)t;
    return no_mpi();
}

int dist_agree(int comm, int st, char *msg, size_t n)
{
    (void)comm, (void)msg, (void)n;
    return st;
}
dist_flight *dist_exchange_start(int comm, int nsend, const int *speer, const size_t *soff,
                                 const void *sbuf, int nrecv, const int *rpeer,
                                 const size_t *roff, void *rbuf)
{
    (void)comm, (void)nsend, (void)speer, (void)soff, (void)sbuf, (void)nrecv, (void)rpeer;
    (void)roff, (void)rbuf;
    no_mpi();
    return NULL;
}
void dist_exchange_wait(dist_flight *x) { (void)x; }
int dist_rank_connect(int comm, dist_rank *d)
{
    (void)comm, (void)d;
    return no_mpi();
}

dist_part *dist_part_open(int comm, dist_rank *d, const ugrid *g, fieldset f, const dist_exec *e,
                          char *what, size_t n)
{
    (void)comm, (void)d, (void)g, (void)f, (void)e, (void)what, (void)n;
    no_mpi();
    return NULL;
}
void dist_part_steps(dist_part *p, int steps) { (void)p, (void)steps; }
void dist_part_exchange(dist_part *p) { (void)p; }
void dist_part_load(dist_part *p, const ugrid *g, fieldset f) { (void)p, (void)g, (void)f; }
void dist_part_cells(dist_part *p, int f, const int *cell, int n, void *buf, int pack)
{
    (void)p, (void)f, (void)cell, (void)n, (void)buf, (void)pack;
}
void dist_part_close(dist_part *p) { (void)p; }
dist_part *dist_part_open_grid(int comm, const ugrid *g, const coef_set *coef, stencil_t s,
                               precision_t p, int chasing, int compressed, int F, fieldset f,
                               const dist_exec *e, char *what, size_t n)
{
    (void)comm, (void)g, (void)coef, (void)s, (void)p, (void)chasing, (void)compressed, (void)F;
    (void)f, (void)e, (void)what, (void)n;
    no_mpi();
    return NULL;
}
void dist_part_gather(dist_part *p, const ugrid *g, fieldset f) { (void)p, (void)g, (void)f; }

#else

#include <mpi.h>

static int started; /* dist_init called MPI_Init_thread */

int dist_mpi_built(void) { return 1; }

int dist_init(int *argc, char ***argv)
{
    int on = 0, provided = 0;
    MPI_Initialized(&on);
    if (on)
        return 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        perr("distributed run: MPI_Init_thread failed");
        return -1;
    }
    started = 1;
    return 0;
}

void dist_finalize(void)
{
    int on = 0, off = 0;
    MPI_Initialized(&on);
    MPI_Finalized(&off);
    if (started && on && !off)
        MPI_Finalize();
    started = 0;
}

int dist_world(void) { return (int)MPI_Comm_c2f(MPI_COMM_WORLD); }

int dist_comm_info(int comm, int *rank, int *size)
{
    int on = 0, off = 0;
    *rank = 0;
    *size = 1;
    MPI_Initialized(&on);
    MPI_Finalized(&off);
    if (!on || off) {
        perr("distributed run: MPI is %s", off ? "finalized" : "not initialised (call MPI_Init first)");
        return -2;
    }
    MPI_Comm c = MPI_Comm_f2c((MPI_Fint)comm);
    if (c == MPI_COMM_NULL) {
        perr("distributed run: communicator handle %d is MPI_COMM_NULL or not a communicator", comm);
        return -1;
    }
    MPI_Comm_rank(c, rank);
    MPI_Comm_size(c, size);
    return 0;
}

void dist_minmax(int comm, double x, double *lo, double *hi)
{
    MPI_Comm c = MPI_Comm_f2c((MPI_Fint)comm);
    MPI_Allreduce(&x, lo, 1, MPI_DOUBLE, MPI_MIN, c);
    MPI_Allreduce(&x, hi, 1, MPI_DOUBLE, MPI_MAX, c);
}

void dist_bcast_bytes(int comm, void *buf, int n)
{
    MPI_Bcast(buf, n, MPI_BYTE, 0, MPI_Comm_f2c((MPI_Fint)comm));
}

double dist_min_all(void *comm, double x)
{
    double lo;
    MPI_Allreduce(&x, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_Comm_f2c((MPI_Fint) * (const int *)comm));
    return lo;
}

void dist_gather_long(int comm, long x, long *all)
{
    MPI_Comm c = MPI_Comm_f2c((MPI_Fint)comm);
    MPI_Gather(&x, 1, MPI_LONG, all, 1, MPI_LONG, 0, c);
}

void dist_exscan_long(int comm, const long *x, int n, long *before, long *total)
{
    MPI_Comm c = MPI_Comm_f2c((MPI_Fint)comm);
    int me = 0;
    MPI_Comm_rank(c, &me);
    MPI_Exscan(x, before, n, MPI_LONG, MPI_SUM, c);
    if (me == 0) /* MPI_Exscan leaves rank 0's undefined */
        for (int i = 0; i < n; i++)
            before[i] = 0;
    MPI_Allreduce(x, total, n, MPI_LONG, MPI_SUM, c);
}

int *dist_gather_ints(int comm, const int *x, int n, int *total)
{
    MPI_Comm c = MPI_Comm_f2c((MPI_Fint)comm);
    int me = 0, P = 1;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &P);
    int *counts = me == 0 ? xalloc(sizeof(int) * (size_t)P) : NULL;
    int *dis = me == 0 ? xalloc(sizeof(int) * (size_t)P) : NULL;
    MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, c);
    long t = 0;
    for (int q = 0; me == 0 && q < P; q++) {
        dis[q] = (int)t;
        t += counts[q];
    }
    int *all = xalloc(sizeof(int) * (size_t)(t + 1));
    MPI_Gatherv(x, n, MPI_INT, all, counts, dis, MPI_INT, 0, c);
    xfree(counts);
    xfree(dis);
    *total = (int)t;
    return all;
}

int *dist_alltoallv_int(int comm, const int *send, const int *scount, int *rcount)
{
    MPI_Comm c = MPI_Comm_f2c((MPI_Fint)comm);
    int n = 1;
    MPI_Comm_size(c, &n);
    MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, c);
    int *sdis = xalloc(sizeof(int) * (size_t)n), *rdis = xalloc(sizeof(int) * (size_t)n);
    long st = 0, rt = 0;
    for (int q = 0; q < n; q++) {
        sdis[q] = (int)st;
        rdis[q] = (int)rt;
        st += scount[q];
        rt += rcount[q];
    }
    int *recv = xalloc(sizeof(int) * (size_t)(rt + 1));
    MPI_Alltoallv(send, scount, sdis, MPI_INT, recv, rcount, rdis, MPI_INT, c);
    xfree(sdis);
    xfree(rdis);
    return recv;
}

/* Whether every rank's rc is 0 (collective). */
static int all_ok(MPI_Comm c, int rc)
{
    int bad = rc != 0, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, c);
    return !any;
}

/* The owner of every cell: a METIS partition on rank 0, broadcast. */
static int partition(MPI_Comm c, int me, int n, const ugrid *g, stencil_t s, int *part)
{
    int rc = me == 0 ? ugrid_partition(g, stencil_table[s].graph, n, part) : 0;
    MPI_Bcast(&rc, 1, MPI_INT, 0, c);
    if (rc != 0) {
        if (me != 0)
            perr("distributed run: rank 0 could not partition the grid into %d parts", n);
        return -1;
    }
    MPI_Bcast(part, g->nxy, MPI_INT, 0, c);
    return 0;
}

/* The send lists: every rank tells each owner which of its cells it needs (global ids). */
static int connect(MPI_Comm c, dist_rank *d)
{
    int n = d->nranks;
    int *need = xalloc(sizeof(int) * (size_t)n), *want = xalloc(sizeof(int) * (size_t)n);
    int *sdis = xalloc(sizeof(int) * (size_t)n), *rdis = xalloc(sizeof(int) * (size_t)n);
    memset(need, 0, sizeof(int) * (size_t)n);
    for (int j = 0; j < d->nrecv; j++)
        need[d->rpeer[j]] = d->rstart[j + 1] - d->rstart[j];
    MPI_Alltoall(need, 1, MPI_INT, want, 1, MPI_INT, c);
    int nneed = d->rstart[d->nrecv], nwant = 0;
    for (int q = 0, a = 0; q < n; q++) {
        sdis[q] = a;
        a += need[q];
        rdis[q] = nwant;
        nwant += want[q];
    }
    int *ids = xalloc(sizeof(int) * (size_t)(nneed + 1)), *asked = xalloc(sizeof(int) * (size_t)(nwant + 1));
    dist_rank_wants(d, ids);
    MPI_Alltoallv(ids, need, sdis, MPI_INT, asked, want, rdis, MPI_INT, c);
    int rc = dist_rank_sends(d, want, asked);
    xfree(need);
    xfree(want);
    xfree(sdis);
    xfree(rdis);
    xfree(ids);
    xfree(asked);
    return rc;
}

/* One rank's part, on the CPU or the device. */
typedef struct {
    const dist_rank *d;
    fieldset loc;
    char *sbuf, *rbuf; /* messages back to back, by peer */
    size_t *soff, *roff; /* nsend + 1, nrecv + 1: byte offsets */
#ifdef PILLAR_HAVE_CUDA
    dist_gpu *dev;
#endif
    int nccl;          /* the halos go through NCCL on the device: no MPI request */
    int ipc;           /* through CUDA IPC: MPI carries an empty message a peer and exchange */
} rank_part;

/* MPI requests a pass or exchange waits for: none through NCCL; through CUDA IPC an empty message
 * (a token) from and to every peer each way (the copies' event recorded; the previous exchange unpacked); else a
 * message from and to every peer. req arrays hold dist_requests_max. */
static int requests(const rank_part *r)
{
    int n = r->d->nrecv + r->d->nsend;
    return r->nccl ? 0 : r->ipc ? 2 * n : n;
}

static size_t requests_max(const dist_rank *d) { return 2 * (size_t)(d->nrecv + d->nsend) + 1; }

/* MPI tags of the IPC tokens: "my copies into you are queued, their event recorded" (to a send
 * peer) and "I am in this exchange: the previous one is unpacked" (to a receive peer). */
enum { TAG_IPC_SENT = 21, TAG_IPC_FREE = 22 };

static void offsets(const dist_rank *d, const int *start, int n, size_t **off)
{
    *off = xalloc(sizeof(size_t) * (size_t)(n + 1));
    (*off)[0] = 0;
    for (int j = 0; j < n; j++)
        (*off)[j + 1] = (*off)[j] + dist_msg_values(d, start[j + 1] - start[j]) * prec_size(d->prec);
}

static int part_open(rank_part *r, dist_rank *d, const ugrid *g, fieldset f, const dist_exec *e)
{
    memset(r, 0, sizeof *r);
    r->d = d;
    r->loc = dist_fields_alloc(d);
    if (e->bare) /* this rank's cells only, made here */
        for (int k = 0; k < stencil_table[d->stencil].nin; k++)
            problem_fill_inputs(e->bare, k, d->pt.gcell, d->pt.ncells, 0, d->nz, r->loc.p[k],
                                d->pt.zstride);
    else if (e->fill) /* the same by global id */
        for (int k = 0; k < stencil_table[d->stencil].nin; k++)
            e->fill(e->fill_user, k, d->gid, d->pt.ncells, 0, d->nz, r->loc.p[k], d->pt.zstride);
    else
        dist_fields_load(d, g, f, r->loc);
    offsets(d, d->sstart, d->nsend, &r->soff);
    offsets(d, d->rstart, d->nrecv, &r->roff);
    if (r->soff[d->nsend] > INT_MAX || r->roff[d->nrecv] > INT_MAX) {
        perr("distributed run: rank %d exchanges more than 2 GB a pass; use more ranks", d->rank);
        return -1;
    }
    if (e->gpu) {
#ifdef PILLAR_HAVE_CUDA
        r->dev = dist_gpu_open(d, r->loc, e->access, e->bx, e->by, e->bz, e->zslice,
                               !e->keep_device);
        if (!r->dev)
            return -1;
        r->sbuf = dist_gpu_send_buffer(r->dev);
        r->rbuf = dist_gpu_recv_buffer(r->dev);
        return 0;
#else
        perr("distributed run: pillar was built without CUDA");
        return -1;
#endif
    }
    r->sbuf = xalloc(r->soff[d->nsend] + 1);
    r->rbuf = xalloc(r->roff[d->nrecv] + 1);
    return 0;
}

static void part_close(rank_part *r)
{
#ifdef PILLAR_HAVE_CUDA
    if (r->dev) {
        dist_gpu_close(r->dev);
        r->sbuf = r->rbuf = NULL;
    }
#endif
    xfree(r->sbuf);
    xfree(r->rbuf);
    xfree(r->soff);
    xfree(r->roff);
    if (r->loc.p[0])
        dist_fields_free(r->d, &r->loc);
}

/* Host seconds of the pieces of the passes (dist_timing's pack .. rest). */
typedef struct {
    double pack, interior, wait, unpack, rest;
} pieces;

/* One pass of t steps: receives posted, messages packed and sent, step 1's interior, the wait,
 * the ring unpacked, the rest of the pass. */
/* A pass's first half: receives posted into req[0, nrecv) (before *t0 is read, now_ms()), every
 * message packed and its send posted into req[nrecv, nrecv + nsend). */
static void start_exchange(MPI_Comm c, rank_part *r, MPI_Request *req, double *t0)
{
    const dist_rank *d = r->d;
    int nr = d->nrecv, ns = d->nsend;
#ifdef PILLAR_HAVE_CUDA
    if (r->nccl) { /* packing and messages queued on the device (dist_gpu_pack) */
        *t0 = now_ms();
        dist_gpu_pack(r->dev);
        return;
    }
    if (r->ipc) { /* the copies queued on the device, then the tokens (dist_gpu_ipc.c): empty
                   * messages, only their tags and order count */
        for (int j = 0; j < nr; j++)
            MPI_Irecv(NULL, 0, MPI_BYTE, d->rpeer[j], TAG_IPC_SENT, c, &req[j]);
        for (int j = 0; j < ns; j++)
            MPI_Irecv(NULL, 0, MPI_BYTE, d->speer[j], TAG_IPC_FREE, c, &req[nr + j]);
        *t0 = now_ms();
        dist_gpu_pack(r->dev);
        for (int j = 0; j < ns; j++)
            MPI_Isend(NULL, 0, MPI_BYTE, d->speer[j], TAG_IPC_SENT, c, &req[nr + ns + j]);
        for (int j = 0; j < nr; j++)
            MPI_Isend(NULL, 0, MPI_BYTE, d->rpeer[j], TAG_IPC_FREE, c, &req[nr + 2 * ns + j]);
        return;
    }
#endif
    for (int j = 0; j < nr; j++)
        MPI_Irecv(r->rbuf + r->roff[j], (int)(r->roff[j + 1] - r->roff[j]), MPI_BYTE, d->rpeer[j],
                  0, c, &req[j]);
    *t0 = now_ms();
#ifdef PILLAR_HAVE_CUDA
    if (r->dev)
        dist_gpu_pack(r->dev);
    else
#endif
        for (int j = 0; j < ns; j++)
            dist_pack(d, j, r->loc, r->sbuf + r->soff[j]);
    for (int j = 0; j < ns; j++)
        MPI_Isend(r->sbuf + r->soff[j], (int)(r->soff[j + 1] - r->soff[j]), MPI_BYTE, d->speer[j],
                  0, c, &req[nr + j]);
}

/* Every received message into the ring (after MPI_Waitall): on the device, or on the host. */
static void unpack_all(rank_part *r)
{
#ifdef PILLAR_HAVE_CUDA
    if (r->dev) {
        dist_gpu_unpack(r->dev);
        return;
    }
#endif
    for (int j = 0; j < r->d->nrecv; j++)
        dist_unpack(r->d, j, r->loc, r->rbuf + r->roff[j]);
}

static void pass(MPI_Comm c, rank_part *r, int t, MPI_Request *req, pieces *ps)
{
    const dist_rank *d = r->d;
    double t0;
#ifdef PILLAR_HAVE_CUDA
    if (r->dev) /* first: the device computes it while the messages are packed, copied, sent */
        dist_gpu_first_interior(r->dev, t);
#endif
    start_exchange(c, r, req, &t0);
    double t1 = now_ms();
#ifdef PILLAR_HAVE_CUDA
    if (!r->dev)
#endif
        dist_first_interior(d, r->loc, t);
    double t2 = now_ms();
    MPI_Waitall(requests(r), req, MPI_STATUSES_IGNORE);
    double t3 = now_ms();
#ifdef PILLAR_HAVE_CUDA
    if (r->dev) {
        dist_gpu_finish(r->dev, t);
        ps->wait += (t3 - t2) * 1e-3;
        return;
    }
#endif
    unpack_all(r);
    double t4 = now_ms();
    dist_finish_steps(d, r->loc, t);
    double t5 = now_ms();
    ps->pack += (t1 - t0) * 1e-3;
    ps->interior += (t2 - t1) * 1e-3;
    ps->wait += (t3 - t2) * 1e-3;
    ps->unpack += (t4 - t3) * 1e-3;
    ps->rest += (t5 - t4) * 1e-3;
}

/* The exchange alone: `reps` bare exchanges (receives posted, pack, send, MPI_Waitall, unpack;
 * nothing computed), each after a barrier; the median's seconds. Unpacking puts the peers' current
 * own values into the ring, which nothing reads afterwards (the gather takes own cells only). */
/* One exchange of the ring, nothing computed: receives posted, pack, send, wait, unpack. Returns
 * when done; *t0: when the packing began (now_ms). */
static void exchange_once(MPI_Comm c, rank_part *r, MPI_Request *req, double *t0)
{
    start_exchange(c, r, req, t0);
    MPI_Waitall(requests(r), req, MPI_STATUSES_IGNORE);
    unpack_all(r);
}

static double bare_exchanges(MPI_Comm c, rank_part *r, MPI_Request *req, int reps)
{
    double *ts = xalloc(sizeof(double) * (size_t)reps);
    for (int k = 0; k < reps; k++) {
        MPI_Barrier(c);
        double t0;
        exchange_once(c, r, req, &t0);
        ts[k] = (now_ms() - t0) * 1e-3;
    }
    double med = dist_median(ts, reps);
    xfree(ts);
    return med;
}

#ifdef PILLAR_HAVE_CUDA
/* Halos through CUDA IPC (collective): every rank on one host, each prepares its part, sends
 * each receive peer its buffer's record and each send peer its events', and opens what its
 * peers sent (src/dist/dist_gpu.h). 0, or -1 with a message on every rank. */
static int ipc_setup(MPI_Comm c, rank_part *r, char *what, size_t n)
{
    const dist_rank *d = r->d;
    int me, size, len = 0;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &size);
    char host[MPI_MAX_PROCESSOR_NAME + 1] = "";
    MPI_Get_processor_name(host, &len);
    char *all = xalloc((size_t)(MPI_MAX_PROCESSOR_NAME + 1) * (size_t)size);
    MPI_Allgather(host, MPI_MAX_PROCESSOR_NAME + 1, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME + 1,
                  MPI_CHAR, c);
    int other = -1;
    for (int q = 0; q < size && other < 0; q++)
        if (strcmp(all + (size_t)q * (MPI_MAX_PROCESSOR_NAME + 1), all) != 0)
            other = q;
    xfree(all);
    if (other >= 0) {
        perr("distributed run: --halo ipc: rank %d runs on another host than rank 0; CUDA IPC "
             "joins the GPUs of one host (--halo nccl or staged instead)", other);
        return -1;
    }
    if (!all_ok(c, dist_gpu_ipc_prepare(r->dev))) {
        perr("distributed run: --halo ipc: a rank could not prepare its part");
        return -1;
    }
    size_t rb = dist_gpu_ipc_record_bytes();
    int nr = d->nrecv, ns = d->nsend, rc = 0;
    char *out = xalloc(rb * (size_t)(nr + 1)), *ev = xalloc(rb);
    char *in_mem = xalloc(rb * (size_t)(ns + 1)), *in_ev = xalloc(rb * (size_t)(nr + 1));
    memset(out, 0, rb * (size_t)(nr + 1));
    memset(ev, 0, rb);
    for (int j = 0; j < nr && rc == 0; j++)
        rc = dist_gpu_ipc_mem_record(r->dev, j, out + rb * (size_t)j);
    if (rc == 0)
        rc = dist_gpu_ipc_event_record(r->dev, ev);
    MPI_Request *req = xalloc(sizeof(MPI_Request) * (size_t)(2 * (nr + ns) + 1));
    /* sent even after a failure (zeros: never opened), so that every receive completes */
    for (int j = 0; j < ns; j++)
        MPI_Irecv(in_mem + rb * (size_t)j, (int)rb, MPI_BYTE, d->speer[j], TAG_IPC_SENT, c, &req[j]);
    for (int j = 0; j < nr; j++)
        MPI_Irecv(in_ev + rb * (size_t)j, (int)rb, MPI_BYTE, d->rpeer[j], TAG_IPC_FREE, c,
                  &req[ns + j]);
    for (int j = 0; j < nr; j++)
        MPI_Isend(out + rb * (size_t)j, (int)rb, MPI_BYTE, d->rpeer[j], TAG_IPC_SENT, c,
                  &req[ns + nr + j]);
    for (int j = 0; j < ns; j++)
        MPI_Isend(ev, (int)rb, MPI_BYTE, d->speer[j], TAG_IPC_FREE, c, &req[ns + 2 * nr + j]);
    MPI_Waitall(2 * (nr + ns), req, MPI_STATUSES_IGNORE);
    if (all_ok(c, rc)) {
        for (int j = 0; j < ns && rc == 0; j++)
            rc = dist_gpu_ipc_open_peer(r->dev, j, in_mem + rb * (size_t)j);
        for (int j = 0; j < nr && rc == 0; j++)
            rc = dist_gpu_ipc_open_event(r->dev, j, in_ev + rb * (size_t)j);
        rc = all_ok(c, rc) ? 0 : -1;
    } else
        rc = -1;
    xfree(req);
    xfree(out);
    xfree(ev);
    xfree(in_mem);
    xfree(in_ev);
    if (rc != 0) {
        perr("distributed run: --halo ipc: rank %d: the ranks could not open each other's "
             "buffers", me);
        dist_gpu_ipc_detach(r->dev);
        MPI_Barrier(c);
        return -1;
    }
    r->ipc = 1;
    r->sbuf = dist_gpu_send_buffer(r->dev); /* the device buffers now (no pinned copies) */
    r->rbuf = dist_gpu_recv_buffer(r->dev);
    snprintf(what, n, "ipc (CUDA IPC: the copy engines, no SM), GPU to GPU");
    return 0;
}
#endif

/* Closes a part collectively: through CUDA IPC every rank first closes what it opened of its
 * peers', then (a barrier) frees its own. */
static void part_close_all(MPI_Comm c, rank_part *r)
{
#ifdef PILLAR_HAVE_CUDA
    if (r->ipc) {
        dist_gpu_ipc_detach(r->dev);
        MPI_Barrier(c);
    }
#endif
    (void)c;
    part_close(r);
}

/* The halos' path (collective, after every part opened): with NCCL built and asked for (or
 * AUTO with a GPU per rank: their PCI bus ids all differ), rank 0 makes the NCCL id, every rank
 * gets it and attaches its part. what: the path, for the report. 0, or -1 with a message on
 * every rank (NCCL asked for and unavailable, or failing on some rank). */
static int halo_setup(MPI_Comm c, rank_part *r, const dist_exec *e, char *what, size_t n)
{
    int me, size;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &size);
    if (!e->gpu && (e->halo == DIST_HALO_NCCL || e->halo == DIST_HALO_IPC)) {
        if (me == 0)
            perr("distributed run: --halo %s moves the halos of GPU runs; this run computes on "
                 "the CPU (--backend gpu, or --halo auto)",
                 e->halo == DIST_HALO_NCCL ? "nccl" : "ipc");
        return -1;
    }
    if (!e->gpu) {
        snprintf(what, n, "host memory (CPU)");
        return 0;
    }
    if (size == 1) { /* nothing to exchange, whatever the path asked for */
        snprintf(what, n, "none (one rank)");
        return 0;
    }
#ifdef PILLAR_HAVE_CUDA
    char bus[64] = "", *all = xalloc(sizeof bus * (size_t)size);
    dist_gpu_describe(r->dev, bus, sizeof bus);
    MPI_Allgather(bus, (int)sizeof bus, MPI_CHAR, all, (int)sizeof bus, MPI_CHAR, c);
    int shared = 0;
    for (int q = 0; q < size && !shared; q++)
        for (int k = 0; k < q && !shared; k++)
            shared = !strcmp(all + sizeof bus * (size_t)q, all + sizeof bus * (size_t)k);
    xfree(all);
    char via[32] = "MPI";
#ifdef PILLAR_CUDA_AWARE_MPI
    snprintf(via, sizeof via, "CUDA-aware MPI");
#endif
    const char *why = shared ? "ranks share a GPU" : NULL;
    if (e->halo == DIST_HALO_IPC)
        return ipc_setup(c, r, what, n);
    if (e->halo == DIST_HALO_STAGED || (e->halo == DIST_HALO_AUTO && (why || !dist_gpu_nccl_built()))) {
        snprintf(what, n, "%s %s (%s)", via, !strcmp(via, "MPI") ? "staged through the host" : "device buffers",
                 e->halo == DIST_HALO_STAGED ? "--halo staged"
                 : why                      ? why
                                            : "pillar built without NCCL");
        return 0;
    }
    if (why) {
        perr("distributed run: --halo nccl: NCCL needs a GPU per rank, and here %s (--halo staged "
             "or auto instead)", why);
        return -1;
    }
    char id[128];
    int rc = me == 0 ? dist_gpu_nccl_id(id, sizeof id) : 0;
    if (!all_ok(c, rc))
        return -1;
    MPI_Bcast(id, (int)sizeof id, MPI_BYTE, 0, c);
    rc = dist_gpu_nccl_attach(r->dev, id, size, me);
    if (!all_ok(c, rc)) {
        if (rc == 0)
            perr("distributed run: another rank could not join NCCL");
        return -1;
    }
    if (!all_ok(c, dist_gpu_nccl_connect(r->dev)))
        return -1;
    r->nccl = 1;
    r->sbuf = dist_gpu_send_buffer(r->dev); /* the device buffers now (no pinned copies) */
    r->rbuf = dist_gpu_recv_buffer(r->dev);
    char v[32], policy[16];
    dist_gpu_nccl_version(v, sizeof v);
    dist_gpu_nccl_policy(policy, sizeof policy);
    snprintf(what, n, "nccl (%s, CTA policy %s), GPU to GPU", v, policy);
    return 0;
#else
    (void)r;
    perr("distributed run: pillar was built without CUDA");
    return -1;
#endif
}

/* "rank 0: GPU 0 (bus), rank 1: ..." on rank 0 (every rank's dist_gpu_describe, gathered), or
 * "CPU" when the ranks compute on the host. */
static void describe_devices(MPI_Comm c, const rank_part *r, int me, int n, char *out, size_t len)
{
    char mine[64] = "CPU";
#ifdef PILLAR_HAVE_CUDA
    if (r->dev)
        dist_gpu_describe(r->dev, mine, sizeof mine);
#else
    (void)r;
#endif
    char *all = me == 0 ? xalloc(sizeof mine * (size_t)n) : NULL;
    MPI_Gather(mine, (int)sizeof mine, MPI_CHAR, all, (int)sizeof mine, MPI_CHAR, 0, c);
    if (me != 0)
        return;
    size_t at = 0;
    out[0] = 0;
    for (int q = 0; q < n && at + 1 < len; q++) {
        if (q == 8 && n > 9) {
            snprintf(out + at, len - at, ", ... (%d ranks)", n);
            break;
        }
        int w = snprintf(out + at, len - at, "%srank %d: %s", q ? ", " : "", q, all + sizeof mine * (size_t)q);
        at += w > 0 ? (size_t)w : 0;
    }
    xfree(all);
}

/* The ring constant of the ranks' parts (dist_model_ring_k over every rank's own and ring cells,
 * gathered on rank 0; 0 elsewhere and on one rank). */
static double parts_ring_k(MPI_Comm c, const dist_rank *d, int me, int n)
{
    long mine[2] = {d->nown, d->pt.first[0] - d->pt.nfixed};
    long *all = me == 0 ? xalloc(sizeof(long) * 2 * (size_t)n) : NULL;
    MPI_Gather(mine, 2, MPI_LONG, all, 2, MPI_LONG, 0, c);
    double k = 0;
    if (me == 0 && n > 1) {
        long *own = xalloc(sizeof(long) * (size_t)n), *ring = xalloc(sizeof(long) * (size_t)n);
        for (int q = 0; q < n; q++) {
            own[q] = all[2 * q];
            ring[q] = all[2 * q + 1];
        }
        k = dist_model_ring_k(own, ring, n, stencil_table[d->stencil].radius * d->F);
        xfree(own);
        xfree(ring);
    }
    xfree(all);
    return k;
}

/* Every rank's a and b (rates, points per second) as "rank 0 A (alone B), rank 1 ..." in
 * G points/s into out on rank 0 (collective; out left empty elsewhere, and where every a is 0). */
static void rank_rates(MPI_Comm c, int me, int n, double a, double b, char *out, size_t cap)
{
    double mine[2] = {a, b}, *all = me == 0 ? xalloc(sizeof(double) * 2 * (size_t)n) : NULL;
    MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, c);
    out[0] = 0;
    if (me != 0)
        return;
    int any = 0;
    for (int q = 0; q < n; q++)
        any |= all[2 * q] > 0;
    size_t used = 0;
    for (int q = 0; any && q < n && used + 1 < cap; q++) {
        int w = snprintf(out + used, cap - used, "%srank %d %.1f (alone %.1f)", q ? ", " : "", q,
                         all[2 * q] / 1e9, all[2 * q + 1] / 1e9);
        used += w > 0 ? (size_t)w : 0;
    }
    xfree(all);
}

/* The least of x over the ranks that pass x > 0 (0 when none does). */
static double least_positive(MPI_Comm c, double x)
{
    double v = x > 0 ? x : 1e300, lo;
    MPI_Allreduce(&v, &lo, 1, MPI_DOUBLE, MPI_MIN, c);
    return lo >= 1e300 ? 0 : lo;
}

/* Where every rank's own cells go: their counts, displacements and places (places: nown, in the
 * part's order; NULL: their global ids), on rank 0 (on every rank unless root_only); total: cells
 * in all (0 where nothing is received). */
typedef struct {
    int *counts, *dis, *cells, total;
} owners;

static owners owners_gather(MPI_Comm c, const dist_rank *d, const int *places, int root_only)
{
    int me = d->rank, n = d->nranks, nown = d->nown;
    owners o;
    o.counts = xalloc(sizeof(int) * (size_t)n);
    o.dis = xalloc(sizeof(int) * (size_t)n);
    int get = !root_only || me == 0;
    if (root_only)
        MPI_Gather(&nown, 1, MPI_INT, o.counts, 1, MPI_INT, 0, c);
    else
        MPI_Allgather(&nown, 1, MPI_INT, o.counts, 1, MPI_INT, c);
    o.total = 0;
    for (int q = 0; q < n; q++) {
        o.dis[q] = o.total;
        o.total += get ? o.counts[q] : 0;
    }
    o.cells = xalloc(sizeof(int) * (size_t)(o.total + 1));
    const int *mine = places ? places : d->gid + d->pt.first[0];
    if (root_only)
        MPI_Gatherv(mine, nown, MPI_INT, o.cells, o.counts, o.dis, MPI_INT, 0, c);
    else
        MPI_Allgatherv(mine, nown, MPI_INT, o.cells, o.counts, o.dis, MPI_INT, c);
    return o;
}

static void owners_free(owners *o)
{
    xfree(o->counts);
    xfree(o->dis);
    xfree(o->cells);
}

/* Carried field j's own values at level z of every rank into recv (rank 0, or every rank unless
 * root_only), in the order of o->cells; send: room for nown values. */
static void level_gather(MPI_Comm c, const dist_rank *d, fieldset loc, int j, int z,
                         const owners *o, char *send, char *recv, int root_only)
{
    const iter_carry *ca = iter_carried(d->stencil);
    size_t es = prec_size(d->prec);
    MPI_Datatype ty = d->prec == PREC_FLOAT ? MPI_FLOAT : MPI_DOUBLE;
    const char *lz = (const char *)loc.p[ca->in[j]] +
                     ((size_t)z * (size_t)d->pt.zstride + (size_t)d->pt.first[0]) * es;
    memcpy(send, lz, es * (size_t)d->nown);
    if (root_only)
        MPI_Gatherv(send, d->nown, ty, recv, o->counts, o->dis, ty, 0, c);
    else
        MPI_Allgatherv(send, d->nown, ty, recv, o->counts, o->dis, ty, c);
}

/* Every rank's own cells of the carried fields into f on rank 0 (every rank unless root_only):
 * the cells' global ids (the grid's cells: the whole-grid path), then the values level by
 * level. */
static void gather(MPI_Comm c, const dist_rank *d, const ugrid *g, fieldset loc, fieldset f, int root_only)
{
    const iter_carry *ca = iter_carried(d->stencil);
    size_t es = prec_size(d->prec);
    owners o = owners_gather(c, d, NULL, root_only);
    char *send = xalloc(es * (size_t)(d->nown + 1)), *recv = xalloc(es * (size_t)(o.total + 1));
    for (int j = 0; j < ca->n; j++)
        for (int z = 0; z < d->nz; z++) {
            level_gather(c, d, loc, j, z, &o, send, recv, root_only);
            char *gz = (char *)f.p[ca->in[j]] + (size_t)z * (size_t)g->zstride * es;
            for (int i = 0; i < o.total; i++)
                memcpy(gz + (size_t)o.cells[i] * es, recv + (size_t)i * es, es);
        }
    owners_free(&o);
    xfree(send);
    xfree(recv);
}

/* The final state's iter_state_hash on rank 0 (0 elsewhere), with no rank holding more than its
 * part and one level of the grid of nxy cells: level by level, the ranks' own cells gathered
 * into the level at their places (places, or their global ids), the grid's halo cells (no rank
 * owns them; never computed) at their initial values: from e->bare (its grid's [0, nhalo)), else
 * e->fill's of e->fixed at [0, e->nfixed). */
static uint64_t gather_hash(MPI_Comm c, const dist_rank *d, const dist_exec *e, const int *places,
                            fieldset loc)
{
    const iter_carry *ca = iter_carried(d->stencil);
    const problem *pb = e->bare;
    size_t es = prec_size(d->prec), nxy = (size_t)(pb ? pb->ug.nxy : e->ncells);
    owners o = owners_gather(c, d, places, 1);
    int me = d->rank;
    char *send = xalloc(es * (size_t)(d->nown + 1)), *recv = xalloc(es * (size_t)(o.total + 1));
    char *level = me == 0 ? xalloc(es * nxy) : NULL;
    uint64_t h = ITER_HASH_START;
    for (int j = 0; j < ca->n; j++)
        for (int z = 0; z < d->nz; z++) {
            level_gather(c, d, loc, j, z, &o, send, recv, 1);
            if (me != 0)
                continue;
            if (pb)
                problem_fill_inputs(pb, ca->in[j], NULL, pb->ug.nhalo, z, z + 1, level, 0);
            else if (e->nfixed)
                e->fill(e->fill_user, ca->in[j], e->fixed, e->nfixed, z, z + 1, level, 0);
            for (int i = 0; i < o.total; i++)
                memcpy(level + (size_t)o.cells[i] * es, recv + (size_t)i * es, es);
            h = iter_hash_values(h, d->prec, level, nxy);
        }
    owners_free(&o);
    xfree(send);
    xfree(recv);
    xfree(level);
    return me == 0 ? h : 0;
}

static int run_rank(MPI_Comm c, dist_rank *dp, const ugrid *g, fieldset f, int steps,
                    const dist_exec *e, const int *places, dist_timing *t);

/* Whether every rank made its part (collective); a rank that did not has said why. */
static int all_made(MPI_Comm c, dist_rank *d, int rc)
{
    if (all_ok(c, rc))
        return 1;
    if (rc == 0) {
        perr("distributed run: another rank could not make its part");
        dist_rank_free(d);
    }
    return 0;
}

int dist_mpi_run_local(int comm, const dist_local *L, stencil_t s, precision_t p, int chasing,
                       int compressed, int F, int steps, const dist_exec *e, dist_timing *t)
{
    int me, n;
    memset(t, 0, sizeof *t);
    if (dist_comm_info(comm, &me, &n) != 0)
        return -1;
    MPI_Comm c = MPI_Comm_f2c((MPI_Fint)comm);
    if (F < 1 || steps < 1 || !e->fill) {
        perr("distributed run: %d steps, %d between exchanges%s", steps, F,
             e->fill ? ": need at least 1 of each" : ", no inputs to fill");
        return -1;
    }
    dist_rank d;
    int rc = dist_rank_make_local(&d, L, n, me, s, p, chasing, compressed, F);
    if (stencil_table[s].coeffs.n) { /* fluxdiff's: from the rows, its minimum over the ranks */
        coef_set all;
        int cr = dist_local_coeffs(L, s, p, "distributed run", dist_min_all, &comm, &all);
        if (rc == 0 && (cr != 0 || ooc_part_coeffs(&d.pt, s, p, &all, "distributed run") != 0)) {
            dist_rank_free(&d);
            rc = -1;
        }
        coef_set_free(&all);
    }
    if (!all_made(c, &d, rc))
        return -1;
    int *places = NULL; /* the own cells' places in the hash, in the part's order */
    if (L->hix) {
        places = xalloc(sizeof(int) * (size_t)(d.nown + 1));
        for (int i = 0; i < d.nown; i++)
            places[i] = L->hix[d.pt.gcell[d.pt.first[0] + i]];
    }
    fieldset none = {{0}};
    rc = run_rank(c, &d, NULL, none, steps, e, places, t);
    xfree(places);
    return rc;
}

int dist_mpi_run(int comm, const ugrid *g, const coef_set *coef, stencil_t s, precision_t p,
                 int chasing, int compressed, int F, fieldset f, int steps, const dist_exec *e,
                 dist_timing *t)
{
    int me, n;
    memset(t, 0, sizeof *t);
    if (dist_comm_info(comm, &me, &n) != 0)
        return -1;
    MPI_Comm c = MPI_Comm_f2c((MPI_Fint)comm);
    if (F < 1 || steps < 1) {
        perr("distributed run: %d steps, %d between exchanges: need at least 1 of each", steps, F);
        return -1;
    }
    int *part = xalloc(sizeof(int) * (size_t)g->nxy);
    if (partition(c, me, n, g, s, part) != 0) {
        xfree(part);
        return -1;
    }
    dist_rank d;
    int rc = dist_rank_make(&d, g, coef, part, n, me, s, p, chasing, compressed, F);
    xfree(part);
    if (!all_made(c, &d, rc))
        return -1;
    return run_rank(c, &d, g, f, steps, e, NULL, t);
}

/* The run of rank d (made, lists to connect) on comm c; frees d. places: the own cells' places
 * in the hash (gather_hash; NULL: their global ids). */
static int run_rank(MPI_Comm c, dist_rank *dp, const ugrid *g, fieldset f, int steps,
                    const dist_exec *e, const int *places, dist_timing *t)
{
    dist_rank d = *dp;
    int me = d.rank, n = d.nranks, comm = (int)MPI_Comm_c2f(c), F = d.F;
    int rc = connect(c, &d);
    rank_part r;
    memset(&r, 0, sizeof r);
    if (rc == 0)
        rc = part_open(&r, &d, g, f, e);
    if (!all_ok(c, rc)) {
        if (rc == 0)
            perr("distributed run: another rank could not set its part up");
        part_close(&r);
        dist_rank_free(&d);
        return -1;
    }
    if (halo_setup(c, &r, e, t->halo, sizeof t->halo) != 0) {
        part_close(&r);
        dist_rank_free(&d);
        return -1;
    }
    MPI_Request *req = xalloc(sizeof(MPI_Request) * requests_max(&d));
    pieces ps = {0, 0, 0, 0, 0};
    MPI_Barrier(c);
    double t0 = now_ms();
    for (int done = 0; done < steps;) {
        int k = steps - done < F ? steps - done : F;
        pass(c, &r, k, req, &ps);
        done += k;
        t->exchanges++;
        if (me == 0) /* one meter for the job */
            progress_update("steps", done, steps);
    }
    double total = (now_ms() - t0) * 1e-3;
    dist_rates rates = {0, 0, 0, 0, 0};
    double pass_s[5] = {0, 0, 0, 0, 0}; /* median, by buffer, by quarter (dist_pieces) */
#ifdef PILLAR_HAVE_CUDA
    if (r.dev) {
        dist_pieces gt = dist_gpu_timing(r.dev);
        pass_s[0] = gt.interior_median;
        pass_s[1] = gt.interior_parity[0];
        pass_s[2] = gt.interior_parity[1];
        pass_s[3] = gt.interior_quarter[0];
        pass_s[4] = gt.interior_quarter[1];
        ps.pack = gt.pack + gt.d2h;
        ps.wait += gt.wire; /* NCCL: the messages in flight, on the device (no host wait) */
        ps.interior = gt.interior;
        ps.unpack = gt.h2d + gt.unpack;
        ps.rest = gt.boundary + gt.rest;
        rates = dist_pieces_rates(&gt);
    }
#endif
    /* the exchange alone, and how much of it the passes hid */
    double alone = n > 1 ? bare_exchanges(c, &r, req, DIST_BARE_EXCHANGES) : 0, hidden = 1;
    if (alone > 0) {
        double per = total / t->exchanges, computing = (ps.interior + ps.rest) / t->exchanges;
        hidden = (alone + computing - per) / alone;
        hidden = hidden < 0 ? 0 : hidden > 1 ? 1 : hidden;
    }
    xfree(req);
    describe_devices(c, &r, me, n, t->devices, sizeof t->devices);
    t->ring_k = parts_ring_k(c, &d, me, n);
    double inner_alone = 0, by_buffer[2] = {0, 0};
#ifdef PILLAR_HAVE_CUDA
    if (r.dev) {
        dist_gpu_store(r.dev, r.loc);
        inner_alone = dist_gpu_interior_alone(r.dev, DIST_BARE_EXCHANGES, by_buffer);
    }
#endif
    if (e->bare || e->fill)
        t->hash = gather_hash(c, &d, e, places, r.loc);
    else
        gather(c, &d, g, r.loc, f, e->root_only);

    double sent = (double)r.soff[d.nsend], lo, hi0;
    t->nranks = n;
    dist_minmax(comm, total, &lo, &t->total_s);
    dist_minmax(comm, ps.pack, &lo, &t->pack_s);
    dist_minmax(comm, ps.interior, &lo, &t->interior_s);
    dist_minmax(comm, ps.wait, &lo, &t->wait_s);
    dist_minmax(comm, ps.unpack, &lo, &t->unpack_s);
    dist_minmax(comm, ps.rest, &lo, &t->rest_s);
    dist_minmax(comm, sent, &lo, &t->max_rank_sent);
    MPI_Allreduce(&sent, &t->sent_bytes, 1, MPI_DOUBLE, MPI_SUM, c);
    dist_minmax(comm, alone, &lo, &t->exchange_s);
    dist_minmax(comm, n > 1 ? hidden : 0, &t->hidden, &hi0);
    t->pts_per_s = least_positive(c, rates.pts);
    t->pack_bps = least_positive(c, rates.pack_bps);
    t->unpack_bps = least_positive(c, rates.unpack_bps);
    t->host_bps = least_positive(c, rates.host_bps);
    t->wire_bps = least_positive(c, rates.wire_bps);
    t->alone_pts_per_s = least_positive(c, inner_alone);
    rank_rates(c, me, n, n > 1 ? rates.pts : 0, inner_alone, t->rank_rates, sizeof t->rank_rates);
    double *pass_to[5] = {&t->pass_median_s, &t->pass_parity_s[0], &t->pass_parity_s[1],
                          &t->pass_quarter_s[0], &t->pass_quarter_s[1]};
    for (int k = 0; k < 5; k++)
        dist_minmax(comm, pass_s[k], &lo, pass_to[k]);
    for (int b = 0; b < 2; b++)
        t->alone_buffer_pts_per_s[b] = least_positive(c, by_buffer[b]);
    double own = d.nown, ring = d.pt.first[0] - d.pt.nfixed, hi;
    dist_minmax(comm, own, &lo, &hi);
    t->own_min = (long)lo;
    t->own_max = (long)hi;
    dist_minmax(comm, ring, &lo, &hi);
    t->ring_max = (long)hi;
    if (me == 0)
        dist_rank_describe(&d, t->rank0, sizeof t->rank0);
    part_close_all(c, &r);
    dist_rank_free(&d);
    return 0;
}

/* ---- a rank's part kept open across calls (dist_mpi.h, dist_part) ---- */

struct dist_part {
    MPI_Comm c;
    dist_rank *d;
    rank_part r;
    MPI_Request *req;
    pieces ps;
    dist_rank *owned; /* dist_part_open_grid's rank (d), freed with the part */
};

dist_part *dist_part_open(int comm, dist_rank *d, const ugrid *g, fieldset f, const dist_exec *e,
                          char *what, size_t n)
{
    MPI_Comm c = MPI_Comm_f2c((MPI_Fint)comm);
    dist_part *p = xalloc(sizeof *p);
    memset(p, 0, sizeof *p);
    p->c = c;
    p->d = d;
    dist_exec ex = *e;
    ex.bare = NULL; /* the fields come from f */
    ex.fill = NULL;
    int rc = part_open(&p->r, d, g, f, &ex);
    if (!all_ok(c, rc)) {
        if (rc == 0)
            perr("distributed run: another rank could not set its part up");
        part_close(&p->r);
        xfree(p);
        return NULL;
    }
    if (halo_setup(c, &p->r, &ex, what, n) != 0) {
        part_close(&p->r);
        xfree(p);
        return NULL;
    }
    p->req = xalloc(sizeof(MPI_Request) * requests_max(d));
    return p;
}

dist_part *dist_part_open_grid(int comm, const ugrid *g, const coef_set *coef, stencil_t s,
                               precision_t p, int chasing, int compressed, int F, fieldset f,
                               const dist_exec *e, char *what, size_t n)
{
    int me, size;
    if (dist_comm_info(comm, &me, &size) != 0)
        return NULL;
    MPI_Comm c = MPI_Comm_f2c((MPI_Fint)comm);
    int *part = xalloc(sizeof(int) * (size_t)g->nxy);
    if (partition(c, me, size, g, s, part) != 0) {
        xfree(part);
        return NULL;
    }
    dist_rank *d = xalloc(sizeof *d);
    int rc = dist_rank_make(d, g, coef, part, size, me, s, p, chasing, compressed, F);
    xfree(part);
    if (!all_made(c, d, rc)) {
        xfree(d);
        return NULL;
    }
    rc = connect(c, d);
    if (!all_ok(c, rc)) {
        if (rc == 0)
            perr("distributed run: another rank could not connect its part");
        dist_rank_free(d);
        xfree(d);
        return NULL;
    }
    dist_part *pt = dist_part_open(comm, d, g, f, e, what, n);
    if (!pt) {
        dist_rank_free(d);
        xfree(d);
        return NULL;
    }
    pt->owned = d; /* the part keeps the rank */
    return pt;
}

void dist_part_gather(dist_part *p, const ugrid *g, fieldset f)
{
#ifdef PILLAR_HAVE_CUDA
    if (p->r.dev)
        dist_gpu_store(p->r.dev, p->r.loc);
#endif
    gather(p->c, p->d, g, p->r.loc, f, 0);
}

void dist_part_steps(dist_part *p, int steps)
{
    for (int done = 0; done < steps;) {
        int k = steps - done < p->d->F ? steps - done : p->d->F;
        pass(p->c, &p->r, k, p->req, &p->ps);
        done += k;
    }
}

void dist_part_exchange(dist_part *p)
{
    double t0;
    exchange_once(p->c, &p->r, p->req, &t0);
}

void dist_part_load(dist_part *p, const ugrid *g, fieldset f)
{
    dist_fields_load(p->d, g, f, p->r.loc);
#ifdef PILLAR_HAVE_CUDA
    if (p->r.dev)
        dist_gpu_load(p->r.dev, p->r.loc);
#endif
}

void dist_part_cells(dist_part *p, int f, const int *cell, int n, void *buf, int pack)
{
#ifdef PILLAR_HAVE_CUDA
    if (p->r.dev) {
        dist_gpu_cells(p->r.dev, f, cell, n, buf, pack);
        return;
    }
#endif
    const dist_rank *d = p->d;
    field_cells(p->r.loc.p[f], d->nz, d->pt.zstride, prec_size(d->prec), cell, n, buf, pack);
}

void dist_part_close(dist_part *p)
{
    if (!p)
        return;
    part_close_all(p->c, &p->r);
    if (p->owned) {
        dist_rank_free(p->owned);
        xfree(p->owned);
    }
    xfree(p->req);
    xfree(p);
}

/* ---- collectives for dist_decomp.c ---- */

int dist_rank_connect(int comm, dist_rank *d) { return connect(MPI_Comm_f2c((MPI_Fint)comm), d); }

int dist_agree(int comm, int st, char *msg, size_t n)
{
    MPI_Comm c = MPI_Comm_f2c((MPI_Fint)comm);
    int me, size;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &size);
    int mine[2] = {st != 0 ? me : size, st}, first[2];
    MPI_Allreduce(mine, first, 1, MPI_2INT, MPI_MINLOC, c);
    if (first[0] == size)
        return 0;
    int who = first[0], code = st;
    MPI_Bcast(&code, 1, MPI_INT, who, c);
    int len = n > (size_t)INT_MAX ? INT_MAX : (int)n;
    if (len > 0) {
        if (me == who)
            msg[len - 1] = 0;
        MPI_Bcast(msg, len, MPI_CHAR, who, c);
    }
    return code;
}

struct dist_flight {
    int n;
    MPI_Request *req;
};

dist_flight *dist_exchange_start(int comm, int nsend, const int *speer, const size_t *soff,
                                 const void *sbuf, int nrecv, const int *rpeer,
                                 const size_t *roff, void *rbuf)
{
    MPI_Comm c = MPI_Comm_f2c((MPI_Fint)comm);
    dist_flight *x = xalloc(sizeof *x);
    x->n = nsend + nrecv;
    x->req = xalloc(sizeof(MPI_Request) * (size_t)(x->n + 1));
    for (int j = 0; j < nrecv; j++)
        MPI_Irecv((char *)rbuf + roff[j], (int)(roff[j + 1] - roff[j]), MPI_BYTE, rpeer[j], 1, c,
                  &x->req[j]);
    for (int j = 0; j < nsend; j++)
        MPI_Isend((const char *)sbuf + soff[j], (int)(soff[j + 1] - soff[j]), MPI_BYTE, speer[j],
                  1, c, &x->req[nrecv + j]);
    return x;
}

void dist_exchange_wait(dist_flight *x)
{
    MPI_Waitall(x->n, x->req, MPI_STATUSES_IGNORE);
    xfree(x->req);
    xfree(x);
}

#endif

int dist_exchange_bytes(int comm, int nsend, const int *speer, const size_t *soff,
                        const void *sbuf, int nrecv, const int *rpeer, const size_t *roff,
                        void *rbuf)
{
    char msg[160] = "";
    int big = soff[nsend] > INT_MAX || roff[nrecv] > INT_MAX;
    if (big)
        snprintf(msg, sizeof msg, "halo exchange: a rank exchanges more than 2 GB at once; use "
                 "more ranks");
    if (dist_agree(comm, big, msg, sizeof msg) != 0) { /* every rank fails, none waits */
        perr("%s", msg);
        return -1;
    }
    dist_flight *x = dist_exchange_start(comm, nsend, speer, soff, sbuf, nrecv, rpeer, roff, rbuf);
    if (!x)
        return -1; /* built without MPI */
    dist_exchange_wait(x);
    return 0;
}
