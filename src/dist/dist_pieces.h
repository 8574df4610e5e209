/* dist_pieces.h — what the pieces of a distributed run's passes took on the device and moved:
 * measured by src/dist/dist_gpu.c, printed by `mpirun ... pillar run` and fed into the model by
 * `pillar run --plan-only --backend gpu` (docs/distributed.md). Plain data, no CUDA. */
#ifndef PILLAR_DIST_PIECES_H
#define PILLAR_DIST_PIECES_H

/* Device seconds between CUDA events on a rank's stream (the interior's from its start, the unpacking's from when the host queued it, after
 * MPI_Waitall: no idle time of the stream is counted), and what they moved. */
typedef struct {
    double pack;         /* packing kernels */
    double d2h;          /* the packed messages to the pinned host buffer (0: CUDA-aware MPI) */
    double wire;         /* halos through NCCL: the grouped sends and receives on the device
                          * (from the packing's end to the last message in; 0 otherwise) */
    double interior;     /* step 1's interior */
    double h2d;          /* the received messages from the host buffer */
    double unpack;       /* unpacking kernels */
    double boundary;     /* step 1's boundary (the fold fused) */
    double rest;         /* steps 2..t of the passes */
    double sent, received; /* message bytes packed and unpacked */
    double interior_pts; /* points (cells x levels) of step 1's interiors */
    double interior_median; /* the median pass's step-1 interior (seconds; 0: not kept): the
                             * rate's measure, which the first pass's lazy module load and cold
                             * caches do not move as they move the sum */
    double interior_parity[2];  /* the same of the passes that read the state from the input
                                 * fields [0] and from the output fields [1] (0: none) */
    double interior_quarter[2]; /* the same of the first and of the last quarter of the passes
                                 * (a drift over the run: clocks, power) */
    int passes;
} dist_pieces;

/* a += b, field by field. */
void dist_pieces_add(dist_pieces *a, const dist_pieces *b);

/* The rates m measured (0 where a piece took no time): step 1's interior in points per second,
 * (over the median pass where kept, else over all of them),
 * packing and unpacking in message bytes per second, the host link (the slower of the copies to
 * and from the pinned buffers; 0 when nothing was staged), NCCL's messages (bytes sent per
 * second of the grouped exchange; 0 without NCCL). */
typedef struct {
    double pts, pack_bps, unpack_bps, host_bps, wire_bps;
} dist_rates;
dist_rates dist_pieces_rates(const dist_pieces *m);

#endif
