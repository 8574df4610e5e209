/* Unstructured == regular, bit for bit, for every stencil x layout x chasing/non-chasing x
 * compressed/uncompressed x precision, on small odd sizes (CPU backend); each grid then once more
 * in another storage after problem_relayout (the table rebuilt alone). */
#include "check.h"
#include "src/exec/cpu_exec.h"
#include "src/exec/runner.h"
#include "src/exec/verify.h"

static const int sizes[][3] = {{40, 36, 12}, {23, 29, 13}};

int main(void)
{
    int combos = 0;
    for (size_t sz = 0; sz < sizeof sizes / sizeof sizes[0]; sz++)
        for (int st = 0; st < ST_QUAD_COUNT; st++)
            for (int lay = 0; lay < LAYOUT_COUNT; lay++)
                for (int storage = 0; storage < 4; storage++)
                    for (int prec = 0; prec < 2; prec++) {
                        problem_spec s = {(stencil_t)st, (precision_t)prec, sizes[sz][0],
                                          sizes[sz][1], sizes[sz][2], 2, (layout_t)lay, 8,
                                          7 + (uint64_t)sz, storage >> 1, storage & 1};
                        problem pb;
                        CHECK(problem_make(&pb, &s) == 0, "problem_make");
                        fieldset reg = runner_outputs(&pb, 0), uns = runner_outputs(&pb, 1);
                        cpu_run_regular(&pb, reg);
                        cpu_run_unstructured(&pb, uns);
                        verify_result r = verify_compare(&pb, uns, 1, reg, 0);
                        long expect = (long)(s.nx - 4) * (s.ny - 4) * stencil_zend(s.stencil, s.nz) *
                                      stencil_table[st].nout;
                        CHECK(r.checked == expect, "checked %ld of %ld", r.checked, expect);
                        CHECK(r.unwritten == 0 && r.differ == 0,
                              "%s %s %s chasing=%d compressed=%d %dx%dx%d: %ld unwritten, %ld differ "
                              "(max err %g)",
                              stencil_table[st].name, prec_name(s.prec), layout_name[lay], s.chasing,
                              s.compressed, s.nx, s.ny, s.nz, r.unwritten, r.differ, r.max_err);
                        /* the same grid in the next storage, by problem_relayout's path that
                         * rebuilds only the table and keeps the fields: still the regular run's
                         * bits (reg's inputs are pb's, which stay) */
                        int next = (storage + 1) % 4;
                        CHECK(problem_relayout(&pb, (layout_t)lay, 8, next >> 1, next & 1) == 0,
                              "problem_relayout");
                        CHECK(pb.s.chasing == (next >> 1) && pb.s.compressed == (next & 1),
                              "relayout kept the storage");
                        cpu_run_unstructured(&pb, uns);
                        r = verify_compare(&pb, uns, 1, reg, 0);
                        CHECK(r.checked == expect && r.unwritten == 0 && r.differ == 0,
                              "%s after relayout to chasing=%d compressed=%d: %ld unwritten, "
                              "%ld differ", stencil_table[st].name, next >> 1, next & 1,
                              r.unwritten, r.differ);
                        runner_free_outputs(&pb, &reg);
                        runner_free_outputs(&pb, &uns);
                        problem_free(&pb);
                        combos++;
                    }
    printf("%d combinations compared bit for bit\n", combos);
    return check_done("test_bitexact");
}
