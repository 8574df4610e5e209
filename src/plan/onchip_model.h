/* onchip_model.h — what a step of the on-chip persistent kernels should take (issue 35;
 * notes/issue35-design.md, sections 4 and 5), from their parts (src/plan/persist_parts.h). Each
 * level takes the larger of
 * - the chip: a fixed cost (its block barriers and the latencies between them) plus the largest
 *   block's reads and writes of 8-byte values through the L1/shared pipe (its rows' gathers
 *   weighted by their bank conflicts, its own cells', its rings'), 1/16 of a clock each at a
 *   share eta of the pipe's peak; hdiff adds its coefficients' DRAM reads, which pass 2 waits for;
 * - a streamed level's DRAM traffic (own cells and rings read, own cells written) at a share
 *   eta_dram of the memory's rate, or a cached level's rings and exports through L2;
 * plus a step's first ring read and its grid barrier. The constants were fitted on the H100 to
 * laplap and lap at 512x512x16 in z-curve order (bench/results/2026-11-27-h100-onchip); the
 * other measured points stay within 15% (tests/test_persist_parts.c). Plain C. */
#ifndef PILLAR_ONCHIP_MODEL_H
#define PILLAR_ONCHIP_MODEL_H

#include "persist_parts.h"

#include "access/onchip_regular.h"
#include "access/persist_onchip.h"

#include <stddef.h>

typedef struct {
    double clock_hz;  /* the SMs' clock */
    double dram_bps;  /* bytes read and written a second */
    double l2_bps;    /* bytes a second of the rings and exports through L2 */
    double eta;       /* share of the L1/shared pipe's peak reached (fitted: 0.794) */
    double eta_dram;  /* share of dram_bps the streamed levels reach (assumed 0.85) */
    double t_level_s; /* a level's fixed cost: barriers, latencies (fitted: 0.546 us) */
    double t_ring0_s; /* a step's first ring read (assumed 1 us) */
    double t_bar_s;   /* a grid barrier (assumed 3 us) */
    double t_launch_s; /* the host loop's kernel boundary (assumed 4 us, PERSIST_T_LAUNCH_S) */
} onchip_device;

/* The H100's figures, the fitted constants and the design's assumptions (1.755 GHz, 3.0 TB/s,
 * 5 TB/s, 0.794, 0.85, 0.546 us, 1 us, 3 us, 4 us). */
onchip_device onchip_device_h100(void);

typedef struct {
    double level_s; /* one level's passes in the largest block, its fixed cost included */
    double chip_s, dram_s, l2_s; /* the step's sums of each bound (chip: with hdiff's
                                  * coefficients) */
    double step_s;  /* the prediction */
} onchip_prediction;

/* The prediction of one step of stencil s (ONCHIP_LAPLAP, ONCHIP_HDIFF, ONCHIP_LAP or
 * ONCHIP_GRAPHLAP: its rows as wide as its lists,
 * access/persist_onchip.h) over parts P (rings to the stencil's depth) with nz levels computed,
 * the lowest `levels` of them on chip, values of es bytes. */
onchip_prediction onchip_predict(const persist_parts *P, int s, int nz, int levels, size_t es,
                                 const onchip_device *d);

/* The shared-memory layout of a launch of P's parts for stencil s (ONCHIP_*) into p's layout
 * fields (rows_max, slots_max, own_max, laps, width, lists), and the most levels of nz whose
 * cache, with that layout and values of es bytes, fits `avail` bytes a block (p->levels is left
 * as it was). */
int onchip_layout(const persist_parts *P, int s, size_t es, size_t avail, int nz,
                  onchip_params *p);

/* The prediction of one step of the host loop (one in-core launch a step of the table-reading
 * kernels) of stencil s (ONCHIP_LAPLAP, ONCHIP_HDIFF or ONCHIP_LAP) over `points` inner cells a
 * level and nz levels, values of es bytes, on `sms` SMs: a kernel boundary plus, each level, the
 * larger of its L1 traffic (every value the body reads and its 32-bit offsets: laplap 21 values
 * and 20 offsets a point, hdiff those and its coefficient, lap 5 and 4; 128 bytes a clock and SM
 * at the share eta of the pipe) and its DRAM traffic (the state read and written once, hdiff's
 * coefficient read, at eta_dram). The same shares as the on-chip model's; within 10% of the
 * row-major host loops measured on the H100 at 512x512 x 16 and x 64 (tests/test_persist_parts.c).
 * Orders whose tables read slower (z-curve: up to 1.45x) are predicted as fast: the model errs
 * towards the host loop. */
double onchip_host_step(int s, long points, int nz, size_t es, int sms, const onchip_device *d);

/* The prediction of one step of laplap's walk (access/onchip_walk.cu, src/plan/onchip_walk.h)
 * over `points` inner cells a level and nz levels, the lowest `levels` of them in shared memory,
 * values of es bytes, on `sms` SMs: a grid barrier plus, each cached level, its points at
 * ONCHIP_WALK_CLOCKS clocks a point and SM, and each streamed level the same plus its DRAM
 * traffic (the state read and written once at eta_dram): the walk's loads of a streamed level
 * wait on the rows it computes, so the two add. Fitted on the H200 (1.98 GHz, 4.8 TB/s) at
 * 512x512 x 16 and x 64 (bench/results/2026-11-29-h200-onchip-walk-chart: 15.9 and 106.1 us; the
 * model there 18.1 and 103.6). */
#define ONCHIP_WALK_CLOCKS 0.75
double onchip_walk_step(long points, int nz, int levels, size_t es, int sms,
                        const onchip_device *d);

/* The tiles of the regular twin's launch (access/onchip_regular.h) over nxi x nyi inner cells
 * for a stencil of radius r (1 or 2) with at most `blocks` blocks, values of es bytes and
 * `avail` bytes of shared memory a block, into p's tx, ty and tiles_x: of the tilings of
 * tiles_x x tiles_y <= blocks tiles, the one whose largest staged level ((tx + 2r) x (ty + 2r))
 * is smallest, the wider tile on a tie; every tile holds a cell. Returns the most levels of nz
 * that fit `avail` with those tiles (p->levels is left as it was), or -1 where not even the
 * staged levels fit (p unchanged), with *nblocks the tiles. */
int onchip_reg_layout(int nxi, int nyi, int r, int blocks, size_t es, size_t avail, int nz,
                      onchip_reg_params *p, int *nblocks);

/* --persistent auto runs on chip from this predicted speed-up over the host loop on: above the
 * two models' errors on the points measured (tests/test_persist_parts.c). */
#define ONCHIP_AUTO_GAIN 1.10

/* Where the model says on, `pillar run --persistent auto` times both launches on the device
 * first: this many steps each, and on chip from this measured speed-up (src/tools/run_iterated.c). */
#define ONCHIP_TRIAL_STEPS 8
#define ONCHIP_TRIAL_GAIN 1.03

#endif
