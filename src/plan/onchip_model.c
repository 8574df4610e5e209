/* onchip_model.c — the model of the on-chip persistent kernels (src/plan/onchip_model.h). */
#include "onchip_model.h"


onchip_device onchip_device_h100(void)
{
    onchip_device d = {1.755e9, 3.0e12, 5.0e12, 0.794, 0.85, 0.546e-6, 1e-6, 3e-6, 4e-6};
    return d;
}

static double max2(double a, double b) { return a > b ? a : b; }

onchip_prediction onchip_predict(const persist_parts *P, int s, int nz, int levels, size_t es,
                                 const onchip_device *d)
{
    onchip_prediction p = {0, 0, 0, 0, 0};
    /* pass 1 reads a row's value and its four neighbours' (conflicts b1), stores the value and
     * the Laplacian; pass 2 reads the Laplacians at four neighbours (b2; hdiff also the values
     * there, its own two and its coefficient) and stores one value; lap's one pass reads as
     * pass 2 does its values. Each ring cell is read once from L2 and stored once. */
    double b1 = persist_parts_conflicts(P, 1), b2 = persist_parts_conflicts(P, 2), most = 0;
    for (int b = 0; b < P->nblocks; b++) {
        double own = P->own0[b + 1] - P->own0[b], rows = P->tstart[b + 1] - P->tstart[b];
        double ring = (P->r1start[b + 1] - P->r1start[b]) + (P->r2start[b + 1] - P->r2start[b]);
        double k = P->width; /* neighbours a row: 4, or graphlap's list columns (at most) */
        double a = s == ONCHIP_LAP      ? own * (2 + k * b2)
                   : s == ONCHIP_HDIFF ? rows * (2 + 5 * b1) + own * (4 + 8 * b2)
                                       : rows * (2 + (k + 1) * b1) + own * (2 + k * b2);
        a += 2 * ring;
        most = a > most ? a : most;
    }
    double bw = d->dram_bps * d->eta_dram, n = (double)P->n, rings = (double)P->ring_all;
    /* a level: its barriers and latencies, then the largest block's accesses through the pipe */
    p.level_s = d->t_level_s + most / 16 / (d->clock_hz * d->eta);
    /* hdiff reads its coefficients in pass 2 (after the values' barrier: not hidden) */
    double coeff = s == ONCHIP_HDIFF ? n * (double)es / bw : 0;
    /* a streamed level moves its values in and out of DRAM while the blocks compute it */
    double stream = (2 * n + rings) * (double)es / bw + coeff;
    int cached = levels < nz ? levels : nz, streamed = nz - cached;
    p.chip_s = nz * (p.level_s + coeff);
    p.dram_s = streamed * stream;
    p.l2_s = cached * (rings + (double)P->export_all) * (double)es / d->l2_bps;
    p.step_s = cached * max2(p.level_s + coeff, (rings + (double)P->export_all) * (double)es /
                                                    d->l2_bps) +
               streamed * max2(p.level_s + coeff, stream) + d->t_ring0_s + d->t_bar_s;
    return p;
}

int onchip_layout(const persist_parts *P, int s, size_t es, size_t avail, int nz,
                  onchip_params *p)
{
    p->rows_max = P->rows_max;
    p->slots_max = P->slots_max;
    p->own_max = P->own_max;
    p->laps = s == ONCHIP_LAP ? 0 : p->rows_max;
    p->width = P->width;
    p->lists = P->deg != NULL;
    onchip_params q = *p;
    int L = 0;
    for (q.levels = 1; q.levels <= nz && onchip_smem(&q, es) <= avail; q.levels++)
        L = q.levels;
    return L;
}

double onchip_host_step(int s, long points, int nz, size_t es, int sms, const onchip_device *d)
{
    double e = (double)es;
    double values = s == ONCHIP_LAP ? 5 : s == ONCHIP_HDIFF ? 22 : 21; /* hdiff: its coefficient */
    double offsets = s == ONCHIP_LAP ? 4 : 20;
    double dram = (s == ONCHIP_HDIFF ? 3 : 2) * e; /* the state in and out, the coefficient */
    double l1 = (double)points * (values * e + offsets * 4) /
                (128.0 * (sms > 0 ? sms : 1) * d->clock_hz * d->eta);
    double mem = (double)points * dram / (d->dram_bps * d->eta_dram);
    return d->t_launch_s + nz * max2(l1, mem);
}

double onchip_walk_step(long points, int nz, int levels, size_t es, int sms,
                        const onchip_device *d)
{
    double chip = (double)points * ONCHIP_WALK_CLOCKS / ((sms > 0 ? sms : 1) * d->clock_hz);
    double mem = (double)points * 2.0 * (double)es / (d->dram_bps * d->eta_dram);
    int cached = levels < nz ? levels : nz;
    return d->t_bar_s + nz * chip + (nz - cached) * mem;
}

int onchip_reg_layout(int nxi, int nyi, int r, int blocks, size_t es, size_t avail, int nz,
                      onchip_reg_params *p, int *nblocks)
{
    int best_tx = 0, best_ty = 0;
    long best = -1;
    for (int bx = 1; bx <= blocks && bx <= nxi; bx++) {
        int by = blocks / bx < nyi ? blocks / bx : nyi;
        int tx = (nxi + bx - 1) / bx, ty = (nyi + by - 1) / by;
        long cost = (long)(tx + 2 * r) * (ty + 2 * r);
        if (onchip_reg_smem(tx, ty, r, 0, es) > avail)
            continue;
        if (best < 0 || cost < best || (cost == best && tx > best_tx)) {
            best = cost;
            best_tx = tx;
            best_ty = ty;
        }
    }
    if (best < 0)
        return -1;
    p->tx = best_tx;
    p->ty = best_ty;
    p->tiles_x = (nxi + best_tx - 1) / best_tx;
    *nblocks = p->tiles_x * ((nyi + best_ty - 1) / best_ty);
    int L = 0;
    while (L < nz && onchip_reg_smem(best_tx, best_ty, r, L + 1, es) <= avail)
        L++;
    return L;
}
