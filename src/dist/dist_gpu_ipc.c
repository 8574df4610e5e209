/* dist_gpu_ipc.c — halos GPU to GPU through CUDA IPC and the copy engines (src/dist/dist_gpu.h):
 * each rank maps its send peers' receive buffers into its own process, and a pass's messages are
 * copied into them by cudaMemcpyAsync on the exchange's stream, device to device: the copy
 * engines move them over NVLink (or PCIe), and no SM of either GPU takes part. An interprocess
 * event recorded after the copies tells the receiver when they are done; MPI only carries an
 * empty message a peer and exchange saying that the event was recorded (src/dist/dist_mpi.c).
 *
 * The receive buffer has two halves, exchange k filling half k & 1: a sender writes half k & 1
 * only after the receiver's message of exchange k - 1, sent once the receiver had unpacked
 * exchange k - 2 (the same half) and waited for it. */
#include "dist_gpu_priv.h"

#include <stdint.h>
#include <string.h>

/* What a receive peer j needs to write into this rank's receive buffer, and what a send peer
 * needs to wait for this rank's copies (dist_gpu_ipc_record_bytes: the larger). */
typedef struct {
    cudaIpcMemHandle_t mem; /* the receive buffer (both halves) */
    uint64_t half, at;      /* a half's bytes; where peer j's message goes in a half */
} mem_record;
typedef struct {
    cudaIpcEventHandle_t ev[2]; /* sent[0], sent[1] */
} event_record;

size_t dist_gpu_ipc_record_bytes(void)
{
    return sizeof(mem_record) > sizeof(event_record) ? sizeof(mem_record) : sizeof(event_record);
}

static int ipc_fail(cudaError_t e, const char *what, int rank)
{
    (void)cudaGetLastError();
    perr("distributed run: rank %d: %s failed: %s (--halo nccl or staged instead)", rank, what,
         cudaGetErrorString(e));
    return -1;
}

int dist_gpu_ipc_prepare(dist_gpu *g)
{
    const dist_rank *d = g->d;
    dist_ipc *x = &g->ipc;
    size_t es = prec_size(d->prec);
    memset(x, 0, sizeof *x);
    x->half = (g->rbytes + 8 + 255) / 256 * 256;
    char *two = NULL;
    cudaError_t e = cudaMalloc((void **)&two, 2 * x->half);
    if (e != cudaSuccess)
        return ipc_fail(e, "the receive buffer's second half (cudaMalloc)", d->rank);
    CK(cudaFree(g->drecv));
    g->drecv = two;
    for (int b = 0; b < 2; b++) {
        e = cudaEventCreateWithFlags(&x->sent[b], cudaEventDisableTiming | cudaEventInterprocess);
        if (e != cudaSuccess) {
            for (int k = 0; k < b; k++)
                CK(cudaEventDestroy(x->sent[k]));
            return ipc_fail(e, "an interprocess event (cudaEventCreateWithFlags)", d->rank);
        }
    }
    x->own_events = 1;
    x->to = xalloc(sizeof(char *) * (size_t)(d->nsend + 1));
    x->to_half = xalloc(sizeof(size_t) * (size_t)(d->nsend + 1));
    x->to_at = xalloc(sizeof(size_t) * (size_t)(d->nsend + 1));
    x->from_at = xalloc(sizeof(size_t) * (size_t)(d->nsend + 1));
    x->from = xalloc(sizeof(cudaEvent_t) * (size_t)(2 * d->nrecv + 1));
    memset(x->to, 0, sizeof(char *) * (size_t)(d->nsend + 1));
    memset(x->from, 0, sizeof(cudaEvent_t) * (size_t)(2 * d->nrecv + 1));
    for (int j = 0; j <= d->nsend; j++)
        x->from_at[j] = dist_msg_values(d, d->sstart[j]) * es;
    /* the messages stay on the device: no pinned copies */
    if (g->hsend)
        CK(cudaFreeHost(g->hsend));
    if (g->hrecv)
        CK(cudaFreeHost(g->hrecv));
    g->hsend = g->hrecv = NULL;
    x->on = 1;
    return 0;
}

int dist_gpu_ipc_mem_record(const dist_gpu *g, int j, void *rec)
{
    const dist_rank *d = g->d;
    mem_record m;
    memset(&m, 0, sizeof m);
    cudaError_t e = cudaIpcGetMemHandle(&m.mem, g->drecv);
    if (e != cudaSuccess)
        return ipc_fail(e, "cudaIpcGetMemHandle", d->rank);
    m.half = g->ipc.half;
    m.at = dist_msg_values(d, d->rstart[j]) * prec_size(d->prec);
    memcpy(rec, &m, sizeof m);
    return 0;
}

int dist_gpu_ipc_event_record(const dist_gpu *g, void *rec)
{
    event_record r;
    memset(&r, 0, sizeof r);
    for (int b = 0; b < 2; b++) {
        cudaError_t e = cudaIpcGetEventHandle(&r.ev[b], g->ipc.sent[b]);
        if (e != cudaSuccess)
            return ipc_fail(e, "cudaIpcGetEventHandle", g->d->rank);
    }
    memcpy(rec, &r, sizeof r);
    return 0;
}

int dist_gpu_ipc_open_peer(dist_gpu *g, int j, const void *rec)
{
    mem_record m;
    memcpy(&m, rec, sizeof m);
    void *p = NULL;
    cudaError_t e = cudaIpcOpenMemHandle(&p, m.mem, cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess)
        return ipc_fail(e, "opening a send peer's receive buffer (cudaIpcOpenMemHandle)",
                        g->d->rank);
    size_t bytes = dist_msg_values(g->d, g->d->sstart[j + 1] - g->d->sstart[j]) *
                   prec_size(g->d->prec);
    if (m.at + bytes > m.half) {
        CK(cudaIpcCloseMemHandle(p));
        perr("distributed run: rank %d: send peer %d takes %llu bytes at %llu of a half of %llu",
             g->d->rank, g->d->speer[j], (unsigned long long)bytes, (unsigned long long)m.at,
             (unsigned long long)m.half);
        return -1;
    }
    g->ipc.to[j] = p;
    g->ipc.to_half[j] = (size_t)m.half;
    g->ipc.to_at[j] = (size_t)m.at;
    return 0;
}

int dist_gpu_ipc_open_event(dist_gpu *g, int j, const void *rec)
{
    event_record r;
    memcpy(&r, rec, sizeof r);
    for (int b = 0; b < 2; b++) {
        cudaError_t e = cudaIpcOpenEventHandle(&g->ipc.from[2 * j + b], r.ev[b]);
        if (e != cudaSuccess)
            return ipc_fail(e, "opening a receive peer's event (cudaIpcOpenEventHandle)",
                            g->d->rank);
    }
    return 0;
}

int dist_gpu_ipc(const dist_gpu *g) { return g->ipc.on; }

void dist_ipc_send(dist_gpu *g)
{
    const dist_rank *d = g->d;
    dist_ipc *x = &g->ipc;
    for (int j = 0; j < d->nsend; j++)
        CK(cudaMemcpyAsync(x->to[j] + (size_t)x->parity * x->to_half[j] + x->to_at[j],
                           g->dsend + x->from_at[j], x->from_at[j + 1] - x->from_at[j],
                           cudaMemcpyDefault, g->stream)); /* to the peer's device (UVA) */
    CK(cudaEventRecord(x->sent[x->parity], g->stream));
}

void dist_ipc_wait(dist_gpu *g)
{
    for (int j = 0; j < g->d->nrecv; j++)
        CK(cudaStreamWaitEvent(g->stream, g->ipc.from[2 * j + g->ipc.parity], 0));
}

char *dist_ipc_received(const dist_gpu *g) { return g->drecv + (size_t)g->ipc.parity * g->ipc.half; }

void dist_ipc_next(dist_gpu *g) { g->ipc.parity ^= 1; }

void dist_gpu_ipc_detach(dist_gpu *g)
{
    dist_ipc *x = &g->ipc;
    if (!x->on)
        return;
    CK(cudaStreamSynchronize(g->stream));
    for (int j = 0; j < g->d->nsend; j++)
        if (x->to[j])
            CK(cudaIpcCloseMemHandle(x->to[j]));
    for (int j = 0; j < 2 * g->d->nrecv; j++)
        if (x->from[j])
            CK(cudaEventDestroy(x->from[j]));
    /* its own events (sent) stay until dist_gpu_ipc_free: the peers may still hold them open */
    xfree(x->to);
    xfree(x->to_half);
    xfree(x->to_at);
    xfree(x->from_at);
    xfree(x->from);
    x->on = 0;
}

void dist_gpu_ipc_free(dist_gpu *g)
{
    dist_ipc *x = &g->ipc;
    dist_gpu_ipc_detach(g);
    if (!x->own_events)
        return;
    for (int b = 0; b < 2; b++)
        CK(cudaEventDestroy(x->sent[b]));
    x->own_events = 0;
}
