/* dist_gpu.c — a rank's part on the CUDA device (src/dist/dist_gpu.h). */
#include "dist_gpu_priv.h"
#include "dist_model.h"

#include "src/exec/iterate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One rank per GPU of a node: the launcher's local rank, modulo the devices (ranks beyond the
 * devices share them, e.g. 2 or 4 ranks on one GPU in the tests). */
static void bind_device(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                       "SLURM_LOCALID", "MV2_COMM_WORLD_LOCAL_RANK",
                                       "PMI_LOCAL_RANK"};
    int count = 0, local = 0;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i])) {
            local = atoi(getenv(vars[i]));
            break;
        }
    CK(cudaGetDeviceCount(&count));
    if (count > 0)
        CK(cudaSetDevice((local < 0 ? 0 : local) % count));
}


dist_gpu *dist_gpu_open(dist_rank *d, fieldset loc, access_t a, int bx, int by, int bz,
                        int zslice, int bind)
{
    const ooc_part *pt = &d->pt;
    ooc_kernel k = {a, bx, by, bz, zslice, 0};
    if (bind)
        bind_device();
    const char *alone = getenv("PILLAR_DIST_INTERIOR_ALONE");
    if (alone && *alone && strcmp(alone, "0") != 0 && strcmp(alone, "1") != 0) {
        perr("distributed run: PILLAR_DIST_INTERIOR_ALONE=%s: expected 0 or 1", alone);
        return NULL;
    }
    dist_gpu *g = xalloc(sizeof *g);
    memset(g, 0, sizeof *g);
    g->alone = alone && strcmp(alone, "1") == 0;
    /* a strategy with lists (graph-twopass): the rank's for the launch's blocks replace the
     * ELL lists (access/hooks.h) */
    if (ooc_launch_prepare(&g->launch, &k, d->stencil, d->prec, pt->nt.chasing,
                           pt->nt.compressed) != 0 ||
        dist_rank_lists(d, a, g->launch.bx) != 0) {
        xfree(g);
        return NULL;
    }
    g->d = d;
    int least = 0, greatest = 0;
    CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CK(cudaStreamCreateWithPriority(&g->stream, cudaStreamNonBlocking, greatest));
    CK(cudaStreamCreateWithPriority(&g->inner, cudaStreamNonBlocking, least));
    for (int i = 0; i < NEV; i++)
        CK(cudaEventCreate(&g->ev[i]));
    const stencil_info *si = &stencil_table[d->stencil];
    size_t es = prec_size(d->prec), len = (size_t)pt->zstride * (size_t)d->nz;
    for (int f = 0; f < si->nin + si->nout; f++)
        g->dev.p[f] = gpu_upload(loc.p[f], es * len);
    /* the output fields start as a copy of the state: the grid's halo cells and the levels no
     * step computes hold the same values in both */
    const iter_carry *c = iter_carried(d->stencil);
    for (int j = 0; j < c->n; j++)
        CK(cudaMemcpyAsync(g->dev.p[c->out[j]], g->dev.p[c->in[j]], es * len,
                           cudaMemcpyDeviceToDevice, g->stream));
    CK(cudaStreamSynchronize(g->stream));
    /* the part's table or lists (or its strategy's lists), then the stencil's coefficients
     * (stencils/coeffs.h; what ooc_step_launch reads) */
    size_t words = ooc_part_image_words(pt, d->stencil, d->prec);
    int32_t *image = xalloc(sizeof(int32_t) * (words ? words : 1));
    ooc_part_image_pack(pt, d->stencil, d->prec, image);
    g->tab = gpu_upload(image, sizeof(int32_t) * words);
    xfree(image);
    int nsend = d->sstart[d->nsend], nrecv = d->rstart[d->nrecv], most = 0;
    g->scell = gpu_upload(d->scell, sizeof(int32_t) * (size_t)nsend);
    g->rcell = gpu_upload(d->rcell, sizeof(int32_t) * (size_t)nrecv);
    for (int j = 0; j < d->nsend; j++)
        most = d->sstart[j + 1] - d->sstart[j] > most ? d->sstart[j + 1] - d->sstart[j] : most;
    for (int j = 0; j < d->nrecv; j++)
        most = d->rstart[j + 1] - d->rstart[j] > most ? d->rstart[j + 1] - d->rstart[j] : most;
    int32_t *ident = xalloc(sizeof(int32_t) * (size_t)(most + 1));
    for (int i = 0; i <= most; i++)
        ident[i] = i;
    g->ident = gpu_upload(ident, sizeof(int32_t) * (size_t)(most + 1));
    xfree(ident);
    g->sbytes = dist_msg_values(d, nsend) * es;
    g->rbytes = dist_msg_values(d, nrecv) * es;
    CK(cudaMalloc((void **)&g->dsend, g->sbytes + 8));
    CK(cudaMalloc((void **)&g->drecv, g->rbytes + 8));
#ifndef PILLAR_CUDA_AWARE_MPI
    CK(cudaMallocHost((void **)&g->hsend, g->sbytes + 8));
    CK(cudaMallocHost((void **)&g->hrecv, g->rbytes + 8));
#endif
    return g;
}

void dist_gpu_close(dist_gpu *g)
{
    if (!g)
        return;
#ifdef PILLAR_HAVE_NCCL
    if (g->nccl)
        ncclCommDestroy(g->nccl);
#endif
    dist_gpu_ipc_free(g); /* after part_close_all's barrier: every peer closed its copies */
    const stencil_info *si = &stencil_table[g->d->stencil];
    for (int f = 0; f < si->nin + si->nout; f++)
        CK(cudaFree(g->dev.p[f]));
    CK(cudaFree(g->tab));
    CK(cudaFree(g->scell));
    CK(cudaFree(g->rcell));
    CK(cudaFree(g->ident));
    CK(cudaFree(g->dsend));
    CK(cudaFree(g->drecv));
    if (g->hsend)
        CK(cudaFreeHost(g->hsend));
    if (g->hrecv)
        CK(cudaFreeHost(g->hrecv));
    share_cells_free(&g->cells);
    for (int i = 0; i < NEV; i++)
        CK(cudaEventDestroy(g->ev[i]));
    CK(cudaStreamDestroy(g->stream));
    CK(cudaStreamDestroy(g->inner));
    xfree(g->inner_s);
    xfree(g->inner_b);
    xfree(g);
}

/* ---- halos GPU to GPU through NCCL ---- */

#ifdef PILLAR_HAVE_NCCL
static int nccl_fail(ncclResult_t r, const char *what)
{
    perr("distributed run: NCCL %s failed: %s", what, ncclGetErrorString(r));
    return -1;
}

void dist_gpu_nccl_version(char *buf, size_t n)
{
    int v = 0;
    if (ncclGetVersion(&v) != ncclSuccess || v <= 0) {
        snprintf(buf, n, "NCCL");
        return;
    }
    /* 2.19 and later: major * 10000 + minor * 100 + patch */
    snprintf(buf, n, "NCCL %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
}

int dist_gpu_nccl_id(void *id, size_t n)
{
    setenv("NCCL_NVLS_ENABLE", "0", 0); /* NVLink multicast off unless the user set it; NCCL
                                         * reads its settings once, at its first call */
    ncclUniqueId u;
    if (n < sizeof u) {
        perr("distributed run: an NCCL id needs %zu bytes", sizeof u);
        return -1;
    }
    ncclResult_t r = ncclGetUniqueId(&u);
    if (r != ncclSuccess)
        return nccl_fail(r, "ncclGetUniqueId");
    memcpy(id, &u, sizeof u);
    return 0;
}

static void nccl_exchange(dist_gpu *g);

/* The CTA policy that PILLAR_NCCL_CTA_POLICY asks of NCCL (docs/distributed.md): how many
 * blocks NCCL's kernels may take from the SMs that step 1's interior computes on beside them.
 * Unset or "default": NCCL's choice; "efficiency": the fewest blocks that still move the data
 * well; "zero": none where NCCL can (copy engines). *name gets the value's name. 0 default, 1
 * efficiency, 2 zero; -1 with a message for another value, or one this NCCL lacks. */
static int cta_policy(const char **name)
{
    static const char *const names[] = {"default", "efficiency", "zero"};
    const char *v = getenv("PILLAR_NCCL_CTA_POLICY");
    int k = 0;
    if (v && *v) {
        for (k = 0; k < 3 && strcmp(v, names[k]) != 0; k++)
            ;
        if (k == 3) {
            perr("distributed run: PILLAR_NCCL_CTA_POLICY=%s: expected default, efficiency or "
                 "zero", v);
            return -1;
        }
    }
    int have = 1; /* the policies this NCCL's header names */
#ifdef NCCL_CTA_POLICY_EFFICIENCY
    have = 2;
#endif
#ifdef NCCL_CTA_POLICY_ZERO
    have = 3;
#endif
    if (k >= have) {
        perr("distributed run: PILLAR_NCCL_CTA_POLICY=%s: this NCCL has no such CTA policy "
             "(efficiency since 2.27, zero since 2.28)", v);
        return -1;
    }
    *name = names[k];
    return k;
}

void dist_gpu_nccl_policy(char *buf, size_t n)
{
    const char *name = "default";
    snprintf(buf, n, "%s", cta_policy(&name) < 0 ? "?" : name);
}

int dist_gpu_nccl_attach(dist_gpu *g, const void *id, int nranks, int rank)
{
    ncclUniqueId u;
    memcpy(&u, id, sizeof u);
    setenv("NCCL_NVLS_ENABLE", "0", 0); /* as in dist_gpu_nccl_id, on the other ranks */
    const char *name;
    int policy = cta_policy(&name);
    if (policy < 0)
        return -1;
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
#ifdef NCCL_CTA_POLICY_EFFICIENCY
    if (policy == 1)
        config.CTAPolicy = NCCL_CTA_POLICY_EFFICIENCY;
#endif
#ifdef NCCL_CTA_POLICY_ZERO
    if (policy == 2)
        config.CTAPolicy = NCCL_CTA_POLICY_ZERO;
#endif
    ncclResult_t r = ncclCommInitRankConfig(&g->nccl, nranks, u, rank, &config);
    if (r != ncclSuccess) {
        g->nccl = NULL;
        return nccl_fail(r, "ncclCommInitRankConfig");
    }
    /* the messages stay on the device: no pinned copies (queue_unpack would copy one over what
     * NCCL received) */
    if (g->hsend)
        CK(cudaFreeHost(g->hsend));
    if (g->hrecv)
        CK(cudaFreeHost(g->hrecv));
    g->hsend = g->hrecv = NULL;
    return 0;
}

int dist_gpu_nccl_connect(dist_gpu *g)
{
    nccl_exchange(g);
    cudaError_t e = cudaStreamSynchronize(g->stream);
    if (e == cudaSuccess)
        return 0;
    perr("distributed run: rank %d: the first NCCL exchange failed: %s", g->d->rank,
         cudaGetErrorString(e));
    return -1;
}

/* Every message through NCCL on the exchange's stream, in one group: the receives into drecv
 * and the sends from dsend, each peer's at its offset in peer order (dist_cpu.h's layout). */
static void nccl_exchange(dist_gpu *g)
{
    const dist_rank *d = g->d;
    size_t es = prec_size(d->prec), at = 0;
    ncclResult_t r = ncclGroupStart();
    for (int j = 0; j < d->nrecv && r == ncclSuccess; j++) {
        size_t bytes = dist_msg_values(d, d->rstart[j + 1] - d->rstart[j]) * es;
        r = ncclRecv(g->drecv + at, bytes, ncclInt8, d->rpeer[j], g->nccl, g->stream);
        at += bytes;
    }
    at = 0;
    for (int j = 0; j < d->nsend && r == ncclSuccess; j++) {
        size_t bytes = dist_msg_values(d, d->sstart[j + 1] - d->sstart[j]) * es;
        r = ncclSend(g->dsend + at, bytes, ncclInt8, d->speer[j], g->nccl, g->stream);
        at += bytes;
    }
    ncclResult_t e = ncclGroupEnd();
    if (r == ncclSuccess)
        r = e;
    if (r != ncclSuccess) /* a device fault: the run cannot go on */
        fault_raise(FAULT_DEVICE, "distributed run: rank %d: the NCCL exchange failed: %s", d->rank,
                    ncclGetErrorString(r));
}
#else
void dist_gpu_nccl_version(char *buf, size_t n) { snprintf(buf, n, "no NCCL"); }
void dist_gpu_nccl_policy(char *buf, size_t n) { snprintf(buf, n, "none"); }
int dist_gpu_nccl_id(void *id, size_t n)
{
    (void)id;
    (void)n;
    perr("distributed run: pillar was built without NCCL (PILLAR_NCCL)");
    return -1;
}
int dist_gpu_nccl_attach(dist_gpu *g, const void *id, int nranks, int rank)
{
    (void)g;
    (void)id;
    (void)nranks;
    (void)rank;
    return dist_gpu_nccl_id(NULL, 0);
}
int dist_gpu_nccl_connect(dist_gpu *g)
{
    (void)g;
    return dist_gpu_nccl_id(NULL, 0);
}
#endif

int dist_gpu_nccl_built(void)
{
#ifdef PILLAR_HAVE_NCCL
    return 1;
#else
    return 0;
#endif
}

/* Whether this rank's halos go through NCCL. */
static int through_nccl(const dist_gpu *g)
{
#ifdef PILLAR_HAVE_NCCL
    return g->nccl != NULL;
#else
    (void)g;
    return 0;
#endif
}

int dist_gpu_nccl(const dist_gpu *g) { return through_nccl(g); }

void *dist_gpu_send_buffer(dist_gpu *g) { return g->hsend ? g->hsend : g->dsend; }
void *dist_gpu_recv_buffer(dist_gpu *g) { return g->hrecv ? g->hrecv : g->drecv; }

/* Carried field j's state array on the device. */
static void *state(const dist_gpu *g, int j)
{
    const iter_carry *c = iter_carried(g->d->stencil);
    return g->dev.p[g->in_out ? c->out[j] : c->in[j]];
}

/* Every message between the state and the device buffer `buf` (into: received -> ring), one
 * gather or scatter per peer and carried field (share.cu's kernel, one side the identity). */
static void messages(dist_gpu *g, char *buf, int into)
{
    const dist_rank *d = g->d;
    const iter_carry *c = iter_carried(d->stencil);
    int np = into ? d->nrecv : d->nsend, isf = d->prec == PREC_FLOAT;
    const int *start = into ? d->rstart : d->sstart;
    const int32_t *cells = into ? g->rcell : g->scell;
    size_t es = prec_size(d->prec), at = 0;
    for (int p = 0; p < np; p++) {
        int n = start[p + 1] - start[p];
        for (int j = 0; j < c->n; j++, at += (size_t)n * (size_t)d->zend) {
            char *msg = buf + at * es;
            if (into)
                CK((cudaError_t)share_launch(state(g, j), msg, cells + start[p], g->ident, n,
                                             d->zend, d->pt.zstride, n, isf, g->stream));
            else
                CK((cudaError_t)share_launch(msg, state(g, j), g->ident, cells + start[p], n,
                                             d->zend, n, d->pt.zstride, isf, g->stream));
        }
    }
}

/* Seconds between events a and b (both done). */
static double between(const dist_gpu *g, int a, int b)
{
    float ms;
    CK(cudaEventElapsedTime(&ms, g->ev[a], g->ev[b]));
    return ms * 1e-3;
}

void dist_gpu_pack(dist_gpu *g)
{
    CK(cudaEventRecord(g->ev[EV_PACK0], g->stream));
    messages(g, g->dsend, 0);
    CK(cudaEventRecord(g->ev[EV_PACK1], g->stream));
    if (through_nccl(g) || g->ipc.on) { /* queued: the stream goes on to unpack, nothing waits
                                         * on the host (IPC: MPI's tokens only, dist_mpi.c) */
        if (g->ipc.on)
            dist_ipc_send(g);
#ifdef PILLAR_HAVE_NCCL
        else
            nccl_exchange(g);
#endif
        CK(cudaEventRecord(g->ev[EV_D2H1], g->stream));
        g->times.sent += (double)g->sbytes;
        g->times.passes++;
        return;
    }
    if (g->hsend)
        CK(cudaMemcpyAsync(g->hsend, g->dsend, g->sbytes, cudaMemcpyDeviceToHost, g->stream));
    CK(cudaEventRecord(g->ev[EV_D2H1], g->stream));
    CK(cudaStreamSynchronize(g->stream));
    g->times.pack += between(g, EV_PACK0, EV_PACK1);
    g->times.d2h += between(g, EV_PACK1, EV_D2H1);
    g->times.sent += (double)g->sbytes;
    g->times.passes++;
}

dist_pieces dist_gpu_timing(const dist_gpu *g)
{
    dist_pieces t = g->times;
    int n = g->ninner, q = n / 4;
    if (n > 0) { /* medians of copies (dist_median sorts): all, each buffer's, each quarter's */
        double *v = xalloc(sizeof(double) * (size_t)n);
        memcpy(v, g->inner_s, sizeof(double) * (size_t)n);
        t.interior_median = dist_median(v, n);
        for (int b = 0; b < 2; b++) {
            int m = 0;
            for (int k = 0; k < n; k++)
                if (g->inner_b[k] == b)
                    v[m++] = g->inner_s[k];
            t.interior_parity[b] = dist_median(v, m);
        }
        if (q > 0) {
            memcpy(v, g->inner_s, sizeof(double) * (size_t)q);
            t.interior_quarter[0] = dist_median(v, q);
            memcpy(v, g->inner_s + n - q, sizeof(double) * (size_t)q);
            t.interior_quarter[1] = dist_median(v, q);
        }
        xfree(v);
    }
    return t;
}

/* Step j of a pass of t on cells [c0, c1), on stream s. */
static void step(dist_gpu *g, int c0, int c1, cudaStream_t s)
{
    const dist_rank *d = g->d;
    ooc_step_launch(&g->launch, d->stencil, d->prec, &d->pt, g->tab, g->dev, 0, 0, d->zend, c0, c1,
                    g->in_out, s);
}

void dist_gpu_first_interior(dist_gpu *g, int t)
{
    (void)t;
    if (g->alone) /* after the packing (queued before it on the exchange's stream) */
        CK(cudaStreamWaitEvent(g->inner, g->ev[EV_PACK1], 0));
    CK(cudaEventRecord(g->ev[EV_INNER0], g->inner));
    step(g, g->d->inner0, g->d->pt.ncells, g->inner);
    CK(cudaEventRecord(g->ev[EV_INNER1], g->inner));
    g->inner_from = g->in_out;
    g->times.interior_pts += (double)(g->d->pt.ncells - g->d->inner0) * g->d->zend;
}

/* Queues on the exchange's stream the received messages' copy from the host (when staged) and
 * their unpacking into the ring, bounded by events EV_UNPACK0, EV_H2D1 and EV_UNPACK1. */
static void queue_unpack(dist_gpu *g)
{
    if (g->alone) /* after step 1's interior */
        CK(cudaStreamWaitEvent(g->stream, g->ev[EV_INNER1], 0));
    CK(cudaEventRecord(g->ev[EV_UNPACK0], g->stream));
    if (g->hrecv)
        CK(cudaMemcpyAsync(g->drecv, g->hrecv, g->rbytes, cudaMemcpyHostToDevice, g->stream));
    if (g->ipc.on) /* the receive peers' copies into this exchange's half */
        dist_ipc_wait(g);
    CK(cudaEventRecord(g->ev[EV_H2D1], g->stream));
    messages(g, g->ipc.on ? dist_ipc_received(g) : g->drecv, 1);
    CK(cudaEventRecord(g->ev[EV_UNPACK1], g->stream));
    if (g->ipc.on) /* the next exchange fills the other half */
        dist_ipc_next(g);
}

void dist_gpu_finish(dist_gpu *g, int t)
{
    const dist_rank *d = g->d;
    queue_unpack(g);
    CK(cudaStreamWaitEvent(g->stream, g->ev[EV_INNER1], 0));
    CK(cudaEventRecord(g->ev[EV_BOUND0], g->stream));
    step(g, d->pt.first[t - 1], d->inner0, g->stream);
    CK(cudaEventRecord(g->ev[EV_BOUND1], g->stream));
    g->in_out = !g->in_out;
    for (int j = 2; j <= t; j++) {
        step(g, d->pt.first[t - j], d->pt.ncells, g->stream);
        g->in_out = !g->in_out;
    }
    CK(cudaEventRecord(g->ev[EV_REST1], g->stream));
    /* IPC relies on this wait: the "half free" message (tag 22, dist_gpu_ipc.c) of the next
     * exchange says this one is unpacked only because the pass waits here */
    CK(cudaStreamSynchronize(g->stream));
    if (through_nccl(g) || g->ipc.on) { /* the packing and the messages, queued by
                                         * dist_gpu_pack */
        g->times.pack += between(g, EV_PACK0, EV_PACK1);
        g->times.wire += between(g, EV_PACK1, EV_D2H1);
    }
    double inner = between(g, EV_INNER0, EV_INNER1);
    g->times.interior += inner;
    if (g->ninner == g->inner_cap) {
        int cap = g->inner_cap ? 2 * g->inner_cap : 64;
        g->inner_s = xgrow(g->inner_s, sizeof(double) * (size_t)g->ninner,
                           sizeof(double) * (size_t)cap);
        g->inner_b = xgrow(g->inner_b, (size_t)g->ninner, (size_t)cap);
        g->inner_cap = cap;
    }
    g->inner_b[g->ninner] = (unsigned char)g->inner_from;
    g->inner_s[g->ninner++] = inner;
    /* staged: the copy from the host; IPC: the device waiting for the peers' copies (messages
     * in flight, as NCCL's) */
    if (g->ipc.on)
        g->times.wire += between(g, EV_UNPACK0, EV_H2D1);
    else
        g->times.h2d += between(g, EV_UNPACK0, EV_H2D1);
    g->times.unpack += between(g, EV_H2D1, EV_UNPACK1);
    g->times.boundary += between(g, EV_BOUND0, EV_BOUND1);
    g->times.rest += between(g, EV_BOUND1, EV_REST1);
    g->times.received += (double)g->rbytes;
}

void dist_gpu_unpack(dist_gpu *g)
{
    queue_unpack(g);
    CK(cudaStreamSynchronize(g->stream)); /* IPC relies on it, as dist_gpu_finish's */
}

void dist_gpu_describe(const dist_gpu *g, char *buf, size_t n)
{
    (void)g;
    int dev = 0;
    char bus[32] = "?";
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetPCIBusId(bus, (int)sizeof bus, dev));
    snprintf(buf, n, "GPU %d (%s)", dev, bus);
}

double dist_gpu_interior_alone(dist_gpu *g, int reps, double by_buffer[2])
{
    const dist_rank *d = g->d;
    double pts = (double)(d->pt.ncells - d->inner0) * d->zend;
    by_buffer[0] = by_buffer[1] = 0;
    if (reps < 1 || pts <= 0)
        return 0;
    /* every launch's time, then those of each buffer */
    double *ts = xalloc(sizeof(double) * (size_t)reps * 3), *tb[2] = {ts + reps, ts + 2 * reps};
    int nb[2] = {0, 0}, keep = g->in_out;
    CK(cudaDeviceSynchronize());
    for (int k = 0; k < reps; k++) {
        int b = g->in_out = (keep + k) & 1;
        CK(cudaEventRecord(g->ev[EV_INNER0], g->inner));
        step(g, d->inner0, d->pt.ncells, g->inner);
        CK(cudaEventRecord(g->ev[EV_INNER1], g->inner));
        CK(cudaEventSynchronize(g->ev[EV_INNER1]));
        ts[k] = between(g, EV_INNER0, EV_INNER1);
        tb[b][nb[b]++] = ts[k];
    }
    g->in_out = keep;
    for (int b = 0; b < 2; b++) {
        double m = nb[b] ? dist_median(tb[b], nb[b]) : 0;
        by_buffer[b] = m > 0 ? pts / m : 0;
    }
    double med = dist_median(ts, reps);
    xfree(ts);
    return med > 0 ? pts / med : 0;
}

void dist_gpu_store(dist_gpu *g, fieldset loc)
{
    const dist_rank *d = g->d;
    const iter_carry *c = iter_carried(d->stencil);
    size_t es = prec_size(d->prec), pitch = (size_t)d->pt.zstride * es,
           own = (size_t)d->pt.first[0] * es;
    for (int j = 0; j < c->n; j++)
        CK(cudaMemcpy2D((char *)loc.p[c->in[j]] + own, pitch, (const char *)state(g, j) + own,
                        pitch, (size_t)d->nown * es, (size_t)d->nz, cudaMemcpyDeviceToHost));
}

void dist_gpu_load(dist_gpu *g, fieldset loc)
{
    const dist_rank *d = g->d;
    const iter_carry *c = iter_carried(d->stencil);
    size_t es = prec_size(d->prec), len = (size_t)d->pt.zstride * (size_t)d->nz;
    /* on the part's stream, waited for: a synchronous cudaMemcpy from pageable memory may return
     * before its DMA is done, and the passes' streams are not ordered after the legacy stream
     * (the GPU tests of a model's decomposition read stale inputs after a reload) */
    for (int f = 0; f < stencil_table[d->stencil].nin; f++)
        CK(cudaMemcpyAsync(g->dev.p[f], loc.p[f], es * len, cudaMemcpyHostToDevice, g->stream));
    for (int j = 0; j < c->n; j++) /* as dist_gpu_open leaves them */
        CK(cudaMemcpyAsync(g->dev.p[c->out[j]], g->dev.p[c->in[j]], es * len,
                           cudaMemcpyDeviceToDevice, g->stream));
    CK(cudaStreamSynchronize(g->stream));
    g->in_out = 0;
}

void dist_gpu_cells(dist_gpu *g, int f, const int *cell, int n, void *buf, int pack)
{
    const dist_rank *d = g->d;
    const iter_carry *c = iter_carried(d->stencil);
    /* where field f is: a carried field's state array (both of its arrays when written: the
     * cells no step writes must read the same from either), else its own */
    void *at[2] = {g->dev.p[f], NULL};
    for (int j = 0; j < c->n; j++)
        if (c->in[j] == f) {
            at[0] = state(g, j);
            at[1] = pack ? NULL : g->dev.p[g->in_out ? c->in[j] : c->out[j]];
        }
    share_cells_move(&g->cells, at, d->pt.zstride, d->nz, d->prec == PREC_FLOAT, cell, n, buf,
                     pack, g->stream);
}
