/* The verifier must fail on unwritten (poisoned) points and on a single flipped bit, and accept
 * identical outputs: a check that cannot fail proves nothing. */
#include "check.h"
#include "src/exec/cpu_exec.h"
#include "src/exec/runner.h"
#include "src/exec/verify.h"

#include <string.h>

int main(void)
{
    for (int prec = 0; prec < 2; prec++) {
        problem_spec s = {ST_HDIFF, (precision_t)prec, 21, 19, 5, 2, LAYOUT_ZCURVE, 8, 1, 1, 0};
        problem pb;
        CHECK(problem_make(&pb, &s) == 0, "problem_make");
        fieldset ref = runner_outputs(&pb, 0), uns = runner_outputs(&pb, 1);
        cpu_run_regular(&pb, ref);
        cpu_run_unstructured(&pb, uns);
        verify_result r = verify_compare(&pb, uns, 1, ref, 0);
        CHECK(verify_ok(&pb, &r, 1), "identical outputs must verify");

        /* flip the lowest bit of one inner point */
        size_t i = (size_t)pb.ug.cell_at[7 * s.nx + 9] + 3 * (size_t)pb.ug.zstride;
        unsigned char *bytes = (unsigned char *)uns.p[2] + i * prec_size(s.prec);
        bytes[0] ^= 1;
        r = verify_compare(&pb, uns, 1, ref, 0);
        CHECK(!verify_ok(&pb, &r, 1) && r.differ == 1, "a flipped bit must fail exact checks");
        CHECK(r.bad_x == 9 && r.bad_y == 7 && r.bad_z == 3, "first bad point %d,%d,%d", r.bad_x,
              r.bad_y, r.bad_z);
        CHECK(verify_ok(&pb, &r, 0), "one ulp is within the tolerance (err %g)", r.max_err);
        bytes[0] ^= 1;

        /* a point that was never written */
        field_poison(s.prec, (char *)uns.p[2] + i * prec_size(s.prec), 1);
        r = verify_compare(&pb, uns, 1, ref, 0);
        CHECK(!verify_ok(&pb, &r, 0) && r.unwritten == 1, "an unwritten point must fail");

        /* a large error fails the tolerance */
        field_set(s.prec, uns.p[2], i, field_get(s.prec, ref.p[2], (size_t)rgrid_index(&pb.twin->rg, 9, 7, 3)) + 1.0);
        r = verify_compare(&pb, uns, 1, ref, 0);
        CHECK(!verify_ok(&pb, &r, 0), "an error of 1 must fail the tolerance");
        runner_free_outputs(&pb, &ref);
        runner_free_outputs(&pb, &uns);
        problem_free(&pb);
    }
    return check_done("test_verify");
}
