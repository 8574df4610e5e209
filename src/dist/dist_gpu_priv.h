/* dist_gpu_priv.h — what dist_gpu.c and dist_gpu_ipc.c share of a rank's device part (private to
 * src/dist; callers use dist_gpu.h). */
#ifndef PILLAR_DIST_GPU_PRIV_H
#define PILLAR_DIST_GPU_PRIV_H

#include "dist_gpu.h"
#include "src/exec/gpu_launch.h"
#include "src/plan/ooc_gpu.h"
#include "src/plan/share.h"

#include <cuda_runtime.h>
#ifdef PILLAR_HAVE_NCCL
#include <nccl.h>
#endif

/* Halos through CUDA IPC (dist_gpu_ipc.c): the receive buffer in two halves, exchange k filling
 * half k & 1, so that a peer may write the next exchange's while this rank still unpacks. */
typedef struct {
    int on;                /* attached (dist_gpu_ipc_prepare) */
    int parity;            /* the half this exchange fills */
    size_t half;           /* bytes of a half (drecv holds two) */
    char **to;             /* nsend: send peer j's receive buffer, opened in this process */
    size_t *to_half, *to_at; /* its half's bytes; where this rank's message goes in a half */
    size_t *from_at;       /* nsend + 1: where message j starts in dsend */
    cudaEvent_t sent[2];   /* interprocess: this rank's copies into half b queued before it */
    int own_events;        /* sent[] created (freed by dist_gpu_ipc_free, after every peer
                            * closed its copies of them) */
    cudaEvent_t *from;     /* 2 x nrecv: receive peer j's sent[b], opened */
} dist_ipc;

/* The events that bound a pass's pieces. Step 1's interior runs on its own stream (inner) beside
 * the exchange's work on the other (stream, of higher priority, so that the packing and unpacking
 * kernels' blocks go ahead of the interior's): nothing the one writes is read by the other (the
 * interior reads no ring cell and writes the output fields; packing reads own cells of the state,
 * unpacking writes its ring cells). The boundary waits for the interior. */
enum {
    EV_PACK0, EV_PACK1, EV_D2H1,     /* stream: packing kernels, the copy to the pinned buffer
                                      * (through NCCL: the grouped sends and receives) */
    EV_INNER0, EV_INNER1,            /* inner: step 1's interior */
    EV_UNPACK0, EV_H2D1, EV_UNPACK1, /* stream: the copy from the host (after MPI_Waitall),
                                      * unpacking */
    EV_BOUND0, EV_BOUND1, EV_REST1,  /* stream, once the interior is done: step 1's boundary;
                                      * steps 2..t */
    NEV
};

struct dist_gpu {
    const dist_rank *d;
    ooc_launch launch;
    cudaStream_t stream;  /* the exchange, the boundary and steps 2..t */
    cudaStream_t inner;   /* step 1's interior */
    fieldset dev;         /* every input and output, pt.zstride x nz each */
    int32_t *tab;         /* the part's table or lists (then the stencil's coefficients) */
    int32_t *scell, *rcell, *ident; /* send and receive cells; 0, 1, 2, ... */
    char *dsend, *drecv;  /* messages on the device */
    char *hsend, *hrecv;  /* their pinned host copies (NULL when MPI takes device pointers) */
    size_t sbytes, rbytes;
    int in_out;           /* the state is in the output fields */
    cudaEvent_t ev[NEV];  /* the pieces' bounds (enum below) */
    dist_pieces times;
    double *inner_s;      /* each pass's step-1 interior (seconds), for the median */
    unsigned char *inner_b; /* the buffer it read the state from (in_out then) */
    int ninner, inner_cap, inner_from; /* inner_from: in_out at this pass's interior */
#ifdef PILLAR_HAVE_NCCL
    ncclComm_t nccl;      /* halos GPU to GPU (dist_gpu_nccl_attach); NULL: through MPI */
#endif
    share_cells cells;    /* dist_gpu_cells' device lists and buffer */
    dist_ipc ipc;         /* halos through CUDA IPC (dist_gpu_ipc.c) */
    int alone;            /* PILLAR_DIST_INTERIOR_ALONE=1: step 1's interior waits for the
                           * packing and the unpacking for it, so none of the exchange's own
                           * kernels runs beside it (a measurement of what they cost it) */
};

/* dist_gpu_ipc.c's part of a pass: queues the copies of the packed messages into the send peers'
 * receive buffers and records this exchange's event (dist_gpu_pack); makes the stream wait for
 * the receive peers' copies (before unpacking); then the received messages of this exchange
 * (its half of drecv) and, after unpacking, the next exchange's half. */
void dist_ipc_send(dist_gpu *g);
void dist_ipc_wait(dist_gpu *g);
char *dist_ipc_received(const dist_gpu *g);
void dist_ipc_next(dist_gpu *g);

#endif
