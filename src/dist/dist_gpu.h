/* dist_gpu.h — a rank's part of a distributed iterated run on the CUDA device (built with CUDA
 * only; src/dist/dist_mpi.c drives it). The rank's local fields (dist_cpu.h's layout) live on
 * the device with its table; a step is one strategy kernel that writes the new state (the fold
 * fused) into the other of the state and output fields, as out of core (src/plan/ooc_gpu.c).
 *
 * Messages: pack and unpack kernels (src/dist/halo.cu) gather the listed cells of the state into
 * a device buffer and scatter a received one into the ring. MPI sees pinned host copies of those
 * buffers (Debian's OpenMPI is not CUDA-aware), or with PILLAR_CUDA_AWARE_MPI the device
 * buffers themselves. Step 1's interior kernel runs on its own stream while the messages fly. */
#ifndef PILLAR_DIST_GPU_H
#define PILLAR_DIST_GPU_H

#include "dist_pieces.h"
#include "dist_plan.h"
#include "access/access.h"

typedef struct dist_gpu dist_gpu;

/* The device copy of rank d's local fields loc (every input at every local cell and level),
 * its table, message buffers for every peer, strategy a with block bx x by x bz (0: default),
 * zslice levels per thread of zloop-sliced. With a strategy that has its own lists
 * (graph-twopass) it first builds the rank's for blocks of bx threads into d (dist_rank_lists),
 * which go to the device instead of the ELL lists. bind: first make the launcher's local rank's
 * GPU (modulo the devices) the current device; 0: the caller's current device. Raises FAULT_DEVICE on a CUDA failure; returns NULL with a message when the
 * strategy's launch does not fit, the lists cannot be built or PILLAR_DIST_INTERIOR_ALONE is
 * set to another value than 0 or 1. */
dist_gpu *dist_gpu_open(dist_rank *d, fieldset loc, access_t a, int bx, int by, int bz,
                        int zslice, int bind);
void dist_gpu_close(dist_gpu *g);

/* Halos GPU to GPU through NCCL (built with PILLAR_NCCL; otherwise each says so and fails):
 * rank 0 makes an id (n >= 128 bytes) that every rank gets (MPI_Bcast, src/dist/dist_mpi.c),
 * then each attaches its part, collectively (ncclCommInitRank: one GPU per rank; NCCL refuses
 * two ranks on one GPU); attaching frees the pinned host copies (the send and receive buffers
 * are the device's from then on). From then on dist_gpu_pack queues the packing and the messages, grouped
 * ncclSend/ncclRecv, on the part's stream and returns at once: no MPI request, no host copy, no
 * host wait; dist_gpu_finish and dist_gpu_unpack unpack after them on the same stream. 0, or -1
 * with a message. */
int dist_gpu_nccl_built(void);
void dist_gpu_nccl_version(char *buf, size_t n); /* "NCCL 2.28.9", "no NCCL" */
/* The CTA policy asked of NCCL (PILLAR_NCCL_CTA_POLICY: default, efficiency or zero; "?" for a
 * value it refuses, "none" without NCCL). */
void dist_gpu_nccl_policy(char *buf, size_t n);
int dist_gpu_nccl_id(void *id, size_t n);
int dist_gpu_nccl_attach(dist_gpu *g, const void *id, int nranks, int rank);
/* After every rank attached: one exchange, collectively, so that NCCL connects the peers now (at
 * its first message to a peer: a few hundred ms each, measured on 4 H200s) and not inside the
 * first timed pass; what it carries is never unpacked. 0, or -1 with a message. */
int dist_gpu_nccl_connect(dist_gpu *g);
/* Whether g's halos go through NCCL (attached). */
int dist_gpu_nccl(const dist_gpu *g);

/* Halos GPU to GPU through CUDA IPC and the copy engines (src/dist/dist_gpu_ipc.c): ranks of one
 * host, a GPU each or sharing them. Collectively (src/dist/dist_mpi.c): each rank prepares its
 * part (a receive buffer of two halves, two interprocess events; frees the pinned host copies),
 * sends each receive peer j its buffer's record (dist_gpu_ipc_mem_record) and each send peer its
 * events' (dist_gpu_ipc_event_record), records of dist_gpu_ipc_record_bytes bytes, and opens
 * what its send peer j and receive peer j sent it. From then on dist_gpu_pack queues the packing
 * and the copies into the send peers' buffers and returns at once; after MPI's empty messages (one a
 * peer and exchange, in both directions: the event was recorded, the previous exchange unpacked),
 * dist_gpu_finish and dist_gpu_unpack wait for the receive peers' events on the device and
 * unpack. Each 0, or -1 with a message naming the rank and the call that failed. */
size_t dist_gpu_ipc_record_bytes(void);
int dist_gpu_ipc_prepare(dist_gpu *g);
int dist_gpu_ipc_mem_record(const dist_gpu *g, int j, void *rec);
int dist_gpu_ipc_event_record(const dist_gpu *g, void *rec);
int dist_gpu_ipc_open_peer(dist_gpu *g, int j, const void *rec);
int dist_gpu_ipc_open_event(dist_gpu *g, int j, const void *rec);
/* Whether g's halos go through CUDA IPC. */
int dist_gpu_ipc(const dist_gpu *g);
/* Closes the peers' buffers and events this rank opened (waits for its stream first); every
 * rank does so before any frees its own (a barrier between). Nothing without IPC; closing the
 * part calls it too. dist_gpu_ipc_free then (dist_gpu_close calls it) destroys this rank's own
 * events, which the peers opened: only after the barrier. */
void dist_gpu_ipc_detach(dist_gpu *g);
void dist_gpu_ipc_free(dist_gpu *g);

/* What MPI sends from and receives into: messages back to back in peer order (dist_cpu.h's
 * layout), host memory (pinned) or device memory with PILLAR_CUDA_AWARE_MPI. */
void *dist_gpu_send_buffer(dist_gpu *g);
void *dist_gpu_recv_buffer(dist_gpu *g);

/* Packs every message into the send buffer; ready for MPI on return (a step 1's interior started
 * before runs on beside it: call dist_gpu_first_interior first to overlap the two). Through
 * NCCL: packs and exchanges every message on the device, queued, returning at once. */
void dist_gpu_pack(dist_gpu *g);
/* Starts step 1's body at the interior cells of a pass of t steps on a stream of its own (returns
 * at once); before or after dist_gpu_pack, before dist_gpu_finish. */
void dist_gpu_first_interior(dist_gpu *g, int t);
/* Unpacks every received message into the ring (after MPI_Waitall), then the rest of the pass
 * of t steps; done on return. */
void dist_gpu_finish(dist_gpu *g, int t);
/* Unpacks every received message into the ring and waits: a bare exchange's second half (after
 * dist_gpu_pack and MPI_Waitall, nothing computed; not counted in the pieces). */
void dist_gpu_unpack(dist_gpu *g);
/* The device this rank runs on: its ordinal and PCI bus id, "GPU 1 (0000:19:00.0)". */
void dist_gpu_describe(const dist_gpu *g, char *buf, size_t n);
/* The pieces of the passes so far (dist_pieces.h). */
dist_pieces dist_gpu_timing(const dist_gpu *g);

/* Step 1's interior alone, after the run: `reps` launches on the idle device, each timed by
 * events, nothing else running, reading the state from its two buffers in turn as the passes do;
 * the median's rate in points per second (the interior's cells x computed levels / seconds), and
 * in by_buffer[k] the median's rate of the launches that read buffer k (0: input fields, 1:
 * output fields). Each writes the other buffer at the interior cells, which holds no state
 * here: call it after dist_gpu_store. Raises FAULT_DEVICE on a CUDA failure. */
double dist_gpu_interior_alone(dist_gpu *g, int reps, double by_buffer[2]);

/* The carried fields at the own cells, every level, into the host's local fields loc. */
void dist_gpu_store(dist_gpu *g, fieldset loc);

/* Every input at every local cell and level from the host's local fields loc, as dist_gpu_open
 * uploads them (the state's other array a copy of it): after the caller changed them. */
void dist_gpu_load(dist_gpu *g, fieldset loc);

/* Input field f's values at the local cells cell[0..n) of every level, level after level
 * (buf[z * n + j], host memory), copied out of the device's current array (pack) or into it
 * (a carried field: into both of its arrays). Waits for the copies. */
void dist_gpu_cells(dist_gpu *g, int f, const int *cell, int n, void *buf, int pack);

#endif
