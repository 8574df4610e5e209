/* dist_model.h — time per step of a distributed iterated run on P GPUs, on paper
 * (docs/distributed.md#the-model). Pure arithmetic: no MPI, no device.
 *
 * A rank owns n = N / P columns of nz levels; its ring of F steps holds h(w) cells at graph
 * distance up to w = radius·F, h(w) = k·w·sqrt(n) (+ 2w² for the corners), k the ring constant of
 * the partition (measured on a real METIS partition: dist_model_ring_k). A pass of F steps:
 *   pack + unpack   the ring's carried fields read and written once each on the device
 *   exchange        latency per peer + the ring's bytes over the link (NVLink when all P GPUs
 *                   share a node, else InfiniBand), each way at once; staged through pinned
 *                   host buffers (an MPI that is not CUDA-aware) the bytes also cross the host
 *                   link twice (device -> host before sending, host -> device after)
 *   compute         step j of F computes the own cells and the ring bands within radius·(F - j)
 *                   at the stencil's measured points per second on the device, or where none was
 *                   measured, every field once at a fraction of the measured device copy rate
 *   overlap         step 1's interior runs during the exchange, so a pass costs
 *                   pack + max(exchange, interior) + boundary + steps 2..F + unpack
 *                   + a launch overhead per kernel (4 with an exchange, + F - 1 steps)
 * and a step costs a pass / F. */
#ifndef PILLAR_DIST_MODEL_H
#define PILLAR_DIST_MODEL_H

#include "base/common.h"
#include "stencils/stencil.h"

typedef struct {
    double dev_bps;       /* measured device copy rate, bytes/s (both ways counted) */
    double dev_fraction;  /* of it a step's kernel reaches (0.75, as src/plan's model) */
    double nvlink_bps;    /* per GPU, per direction */
    double nvlink_lat_s;  /* per message */
    double ib_bps;        /* per GPU (one NIC each), per direction */
    double ib_lat_s;
    int gpus_per_node;    /* NVLink within a node, InfiniBand between nodes */
    int peers;            /* messages per exchange (a METIS part of a 2D mesh has ~6 neighbours) */
    double host_bps;      /* pinned host link per direction (staged exchanges) */
    double launch_s;      /* per kernel launch: pack, interior, boundary, unpack, steps 2..F */
    int staged;           /* 1: halos staged through pinned host buffers; 0: CUDA-aware MPI */
    /* measured message bytes per second of the packing and unpacking kernels (dist_pieces.h:
     * their launches included, at the measured halo size); 0: each byte read and written once
     * at dev_fraction of dev_bps */
    double pack_bps, unpack_bps;
} dist_link;

/* The rates docs/distributed.md states: the H100's measured copy rate (2,962 GB/s), NVLink 4 at
 * 450 GB/s per direction (H100 SXM, 18 links) derated to 80%, InfiniBand NDR 400 Gb/s (50 GB/s)
 * per GPU derated to 80%, latencies 3 us (NVLink) and 5 us (InfiniBand), 8 GPUs per node, 6
 * peers, the H100's pinned host link with both directions running (measured 55 GB/s), device
 * buffers handed to a CUDA-aware MPI (staged = 0), 4 us per kernel launch; packing from the
 * copy rate (pack_bps = unpack_bps = 0). */
dist_link dist_link_default(void);

typedef struct {
    stencil_t stencil;
    precision_t prec;
    double cells;  /* N: horizontal cells of the mesh */
    int nz;        /* levels */
    int F;         /* steps between exchanges */
    double ring_k; /* ring constant k */
    double pts_per_s; /* measured stencil points per second on one device; 0: from the bytes */
    double coeff_bytes; /* read-only bytes a cell column carries besides its fields, read once a
                         * step (fluxdiff's coefficients: 1 + list width values); else 0 */
} dist_problem;

/* The points per second of stencil s measured on the H100 (README: a cubed sphere of 6x384^2
 * cells x 64 levels in METIS order, double: laplap 0.822 ms, hdiff 0.920 ms), scaled by 2 in
 * float; 0 where none was measured. */
double dist_measured_pts(stencil_t s, precision_t p);

typedef struct {
    double own;           /* n, cells per rank */
    double ring;          /* ring cells of F steps */
    double halo_bytes;    /* sent per exchange by one rank (= received) */
    double pack_s, exchange_s, interior_s, boundary_s, rest_s; /* one pass */
    double step_s;        /* a pass / F */
    double comm_hidden;   /* share of the exchange hidden behind step 1's interior (0..1) */
    int ib;               /* 1: the exchange crosses InfiniBand */
} dist_estimate;

/* Ring cells at distance up to w of a part of n cells with ring constant k. */
double dist_model_ring(double n, double w, double k);

/* The estimate for P ranks (P >= 1; P = 1 exchanges nothing). */
dist_estimate dist_model(const dist_problem *pr, const dist_link *l, int P);

/* The median of v[0..n) (sorted in place; the mean of the middle two for even n; 0 for none). */
double dist_median(double *v, int n);

/* The ring constant k of a partition: ring cells / (w·sqrt(n)) over the parts, the corner term
 * taken off, from the parts' measured rings (nown[i] own cells, ring[i] ring cells at distance up
 * to w, i < nparts); the median over the parts. */
double dist_model_ring_k(const long *nown, const long *ring, int nparts, int w);

#endif
