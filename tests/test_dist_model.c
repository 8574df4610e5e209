/* test_dist_model.c — the distributed model (src/dist/dist_model.h) against figures worked out by
 * hand from docs/distributed.md's formulas (numbers in the comments), its limits (one GPU
 * exchanges nothing; InfiniBand beyond a node; staging costs more; strong scaling saturates),
 * and the ring constant measured on METIS parts of a lattice against a square part's ring. */
#include "check.h"
#include "grids/mesh.h"
#include "src/dist/dist_model.h"
#include "src/dist/dist_plan.h"
#include "src/exec/problem.h"

#include <math.h>

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * fabs(b) + 1e-15; }

int main(void)
{
    dist_link l = dist_link_default();
    CHECK(near(dist_model_ring(100, 2, 4), 88), "ring(100, 2, 4) = 4*2*10 + 8");
    CHECK(dist_model_ring(100, 0, 4) == 0, "no ring at width 0");

    /* laplap, double, 10^6 cells x 10 levels, F = 1, 4 GPUs (NVLink), k = 4, bytes at
     * 0.75 x 2962 GB/s: own 250000, boundary = ring(250000, 2) = 4008 cells, halo 4008 x 10 x 8
     * = 320640 bytes, exchange 3 peers x 3 us + 320640 / 360e9 = 9.8907 us, interior 245992 x
     * 10 x 16 / 2.2215e12 = 17.717 us, a step pack + interior + boundary + 4 launches = 34.583 us */
    dist_problem pr = {ST_LAPLAP, PREC_DOUBLE, 1e6, 10, 1, 4, 0, 0};
    dist_estimate e = dist_model(&pr, &l, 4);
    CHECK(near(e.own, 250000) && near(e.ring, 4008) && near(e.halo_bytes, 320640),
          "own %g ring %g halo %g", e.own, e.ring, e.halo_bytes);
    CHECK(near(e.exchange_s, 9.890666666666667e-06), "exchange %.9g", e.exchange_s);
    CHECK(near(e.interior_s, 1.7717182084177356e-05), "interior %.9g", e.interior_s);
    CHECK(near(e.step_s, 3.458319153724961e-05), "step %.9g", e.step_s);
    CHECK(!e.ib && e.comm_hidden == 1, "4 GPUs: NVLink, exchange hidden");
    /* read-only coefficients of 80 bytes a cell column (zend = 10 - ztop levels) add 80 / zend
     * bytes to a point's 16: the interior's time grows by that ratio */
    dist_problem co = pr;
    co.coeff_bytes = 80;
    double zend = stencil_zend(ST_LAPLAP, 10);
    CHECK(near(dist_model(&co, &l, 4).interior_s / e.interior_s, (16 + 80 / zend) / 16),
          "coefficients: interior %.9g vs %.9g", dist_model(&co, &l, 4).interior_s, e.interior_s);
    /* staged: + 2 x 320640 / 55e9 on the exchange, now longer than the interior: 38.416 us */
    dist_link st = l;
    st.staged = 1;
    CHECK(near(dist_model(&pr, &st, 4).step_s, 3.8416312483375275e-05), "staged step %.9g",
          dist_model(&pr, &st, 4).step_s);
    /* measured packing rates replace the copy rate: 320640 / 1e9 + 320640 / 0.5e9 = 961.92 us */
    dist_link ms = l;
    ms.pack_bps = 1e9;
    ms.unpack_bps = 0.5e9;
    CHECK(near(dist_model(&pr, &ms, 4).pack_s, 320640 / 1e9 + 320640 / 0.5e9), "measured pack %.9g",
          dist_model(&pr, &ms, 4).pack_s);
    CHECK(near(dist_model(&pr, &ms, 4).step_s - dist_model(&pr, &l, 4).step_s,
               320640 / 1e9 + 320640 / 0.5e9 - 4 * 320640 / (0.75 * 2962e9)),
          "measured pack: the step changes by the packing's difference");
    /* 16 GPUs (InfiniBand, 6 peers), F = 2: (pack + max + boundary + step 2 + 5 launches) / 2 */
    pr.F = 2;
    e = dist_model(&pr, &l, 16);
    CHECK(e.ib && near(e.step_s, 3.171775286968265e-05), "16 GPUs F 2: step %.9g", e.step_s);

    /* one GPU: nothing exchanged, a step is its points at the rate */
    pr.F = 1;
    e = dist_model(&pr, &l, 1);
    CHECK(e.halo_bytes == 0 && e.exchange_s == 0 && e.pack_s == 0, "one GPU exchanges nothing");
    CHECK(near(e.step_s, 1e6 * 10 * 16 / (0.75 * 2962e9) + 4e-6), "one GPU step %.9g", e.step_s);
    /* measured points per second replace the bytes */
    pr.pts_per_s = dist_measured_pts(ST_LAPLAP, PREC_DOUBLE);
    CHECK(near(pr.pts_per_s, 6.0 * 384 * 384 * 64 / 0.822e-3), "laplap's measured rate");
    CHECK(near(dist_model(&pr, &l, 1).step_s, 1e7 / pr.pts_per_s + 4e-6), "measured rate used");
    CHECK(dist_measured_pts(ST_FASTWAVES, PREC_DOUBLE) == 0, "no fastwaves measurement");

    /* strong scaling on the R2B10-sized mesh: faster up to a point, then the exchange dominates */
    dist_problem big = {ST_HDIFF, PREC_DOUBLE, 20971520.0, 90, 1, 4, 0, 0};
    double t1 = dist_model(&big, &l, 1).step_s, t8 = dist_model(&big, &l, 8).step_s,
           t1024 = dist_model(&big, &l, 1024).step_s;
    CHECK(t8 < t1 / 7 && t1024 > t1 / 1024 * 1.2, "strong scaling: %g, %g, %g", t1, t8, t1024);

    /* the ring constant: medians, and METIS parts of a lattice near a square part's 4 - 2/s */
    long own[3] = {100, 100, 100}, ring[3] = {88, 90, 80};
    CHECK(near(dist_model_ring_k(own, ring, 3, 2), 4.0), "median k");
    problem_spec s = {ST_LAPLAP, PREC_DOUBLE, 100, 100, 4, 2, LAYOUT_ROWMAJOR, 32, 1, 1, 0};
    problem pb;
    CHECK(problem_make_lean(&pb, &s, NULL, MESH_ORDER_FILE, 0) == 0, "problem");
    int P = 16, *part = xalloc(sizeof(int) * (size_t)pb.ug.nxy);
    long mown[16], mring[16];
    CHECK(ugrid_partition(&pb.ug, 0, P, part) == 0, "partition");
    for (int r = 0; r < P; r++) {
        dist_rank d;
        CHECK(dist_rank_make(&d, &pb.ug, NULL, part, P, r, ST_LAPLAP, PREC_DOUBLE, 1, 0, 1) == 0, "rank");
        mown[r] = d.nown;
        mring[r] = d.pt.first[0] - d.pt.nfixed;
        dist_rank_free(&d);
    }
    double k = dist_model_ring_k(mown, mring, P, 2);
    printf("ring constant of 16 METIS parts of a 96x96 lattice: k = %.2f (a square part: 3.92; "
           "parts on the grid's edge have shorter rings)\n", k);
    CHECK(k > 2.0 && k < 6.0, "k = %g", k);
    xfree(part);
    problem_free(&pb);
    return check_done("test_dist_model");
}
