/* dist_model.c — the distributed run on paper (src/dist/dist_model.h). */
#include "dist_model.h"

#include "base/common.h"

#include <math.h>
#include <stdlib.h>

dist_link dist_link_default(void)
{
    dist_link l = {2962e9, 0.75, 0.8 * 450e9, 3e-6, 0.8 * 50e9, 5e-6, 8, 6, 55e9, 4e-6, 0, 0, 0};
    return l;
}

double dist_measured_pts(stencil_t s, precision_t p)
{
    double points = 6.0 * 384 * 384 * 64, scale = p == PREC_FLOAT ? 2 : 1;
    if (s == ST_LAPLAP)
        return scale * points / 0.822e-3;
    if (s == ST_HDIFF)
        return scale * points / 0.920e-3;
    return 0;
}

double dist_model_ring(double n, double w, double k)
{
    return w <= 0 ? 0 : k * w * sqrt(n) + 2 * w * w;
}

dist_estimate dist_model(const dist_problem *pr, const dist_link *l, int P)
{
    const stencil_info *si = &stencil_table[pr->stencil];
    double es = (double)prec_size(pr->prec), zend = stencil_zend(pr->stencil, pr->nz);
    /* bytes a step touches per point: its fields, and a share of the cell's coefficients */
    double point = (si->nin + si->nout) * es + (zend > 0 ? pr->coeff_bytes / zend : 0);
    double rate = l->dev_fraction * l->dev_bps;
    if (pr->pts_per_s > 0) /* a point's bytes at the measured points per second */
        rate = pr->pts_per_s * point;
    int R = si->radius, F = pr->F;
    dist_estimate e = {0};
    e.own = pr->cells / (P > 0 ? P : 1);
    int alone = P <= 1;
    /* cells of step j: own cells plus the ring within radius·(F - j) (none when alone) */
    double step1 = e.own + (alone ? 0 : dist_model_ring(e.own, R * (F - 1), pr->ring_k));
    double boundary = alone ? 0 : fmin(e.own, dist_model_ring(e.own, R, pr->ring_k));
    e.interior_s = (e.own - boundary) * zend * point / rate;
    e.boundary_s = (step1 - (e.own - boundary)) * zend * point / rate;
    for (int j = 2; j <= F; j++)
        e.rest_s += (e.own + (alone ? 0 : dist_model_ring(e.own, R * (F - j), pr->ring_k))) * zend *
                    point / rate;
    if (!alone) {
        e.ring = dist_model_ring(e.own, R * F, pr->ring_k);
        e.halo_bytes = e.ring * zend * si->carry.n * es;
        e.ib = P > l->gpus_per_node;
        double bps = e.ib ? l->ib_bps : l->nvlink_bps, lat = e.ib ? l->ib_lat_s : l->nvlink_lat_s;
        int peers = l->peers < P - 1 ? l->peers : P - 1;
        e.exchange_s = peers * lat + e.halo_bytes / bps;
        if (l->staged)
            e.exchange_s += 2 * e.halo_bytes / l->host_bps;
        /* pack and unpack: at their measured rates, else each a read and a write at the device's
         * copy rate */
        if (l->pack_bps > 0 && l->unpack_bps > 0)
            e.pack_s = e.halo_bytes / l->pack_bps + e.halo_bytes / l->unpack_bps;
        else
            e.pack_s = 4 * e.halo_bytes / (l->dev_fraction * l->dev_bps);
    }
    double overlap = e.exchange_s > e.interior_s ? e.exchange_s : e.interior_s;
    e.comm_hidden = e.exchange_s > 0 ? fmin(e.exchange_s, e.interior_s) / e.exchange_s : 1;
    double launches = (alone ? 1 : 4) + (F - 1);
    e.step_s = (e.pack_s + overlap + e.boundary_s + e.rest_s + launches * l->launch_s) / F;
    return e;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double dist_model_ring_k(const long *nown, const long *ring, int nparts, int w)
{
    if (nparts < 1 || w < 1)
        return 0;
    double *k = xalloc(sizeof(double) * (size_t)nparts);
    for (int i = 0; i < nparts; i++)
        k[i] = nown[i] > 0 ? ((double)ring[i] - 2.0 * w * w) / (w * sqrt((double)nown[i])) : 0;
    double m = dist_median(k, nparts);
    xfree(k);
    return m;
}

double dist_median(double *v, int n)
{
    if (n < 1)
        return 0;
    qsort(v, (size_t)n, sizeof(double), by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
