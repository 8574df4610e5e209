/* onchip_model.h — what a step of the on-chip persistent kernels should take (issue 35;
 * notes/issue35-design.md, sections 4 and 5), from their parts (src/plan/persist_parts.h): the
 * larger of
 * - the chip: every level runs its passes through the L1/shared pipe; a block's reads and
 *   writes of 8-byte values (its rows' gathers weighted by their bank conflicts, its own cells',
 *   its rings') cost 1/16 of a clock each at a share eta of the pipe's peak (the largest block
 *   sets the pace);
 * - DRAM: the streamed levels' values (own cells and rings read, own cells written) and hdiff's
 *   coefficients at every level, at a share eta_dram of the memory's rate;
 * - L2: the cached levels' rings read and exports written;
 * plus the first ring's latency and the grid barrier. Plain C; the constants are the design's
 * assumptions until a device measures them. */
#ifndef PILLAR_ONCHIP_MODEL_H
#define PILLAR_ONCHIP_MODEL_H

#include "persist_parts.h"

#include <stddef.h>

typedef struct {
    double clock_hz;  /* the SMs' clock */
    double dram_bps;  /* bytes read and written a second */
    double l2_bps;    /* bytes a second of the rings and exports through L2 */
    double eta;       /* share of the L1/shared pipe's peak reached (assumed 0.75) */
    double eta_dram;  /* share of dram_bps the streamed levels reach (assumed 0.85) */
    double t_ring0_s; /* a step's first ring read (assumed 1 us) */
    double t_bar_s;   /* a grid barrier (assumed 3 us) */
} onchip_device;

/* The H100's figures and the design's assumptions (1.755 GHz, 3.0 TB/s, 5 TB/s, 0.75, 0.85,
 * 1 us, 3 us). */
onchip_device onchip_device_h100(void);

typedef struct {
    double level_s; /* one level's passes in the largest block */
    double chip_s, dram_s, l2_s;
    double step_s;  /* the prediction */
} onchip_prediction;

/* The prediction of one step of stencil s (ONCHIP_LAPLAP, ONCHIP_HDIFF or ONCHIP_LAP,
 * access/persist_onchip.h) over parts P (rings to the stencil's depth) with nz levels computed,
 * the lowest `levels` of them on chip, values of es bytes. */
onchip_prediction onchip_predict(const persist_parts *P, int s, int nz, int levels, size_t es,
                                 const onchip_device *d);

#endif
