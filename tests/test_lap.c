/* lap against an independent formula: on a quadratic field q(x, y, z) = x² + 3y² + 5z the
 * 5-point Laplacian 4·q(c) − (q(W) + q(E) + q(S) + q(N)) is −(2 + 6) = −8 at every point, exactly
 * (the values are integers far below 2^24). Checked on the regular grid and on its unstructured
 * twin in every layout, table storage and precision; one iterated step (the fold of the
 * registry line, in − lap/8) gives q + 1 at the inner points and leaves the halo alone. */
#include "check.h"
#include "src/exec/cpu_exec.h"
#include "src/exec/iterate.h"
#include "src/exec/runner.h"

static double q(int x, int y, int z) { return (double)x * x + 3.0 * y * y + 5.0 * z; }

int main(void)
{
    long points = 0;
    for (int prec = 0; prec < 2; prec++)
        for (int lay = 0; lay < LAYOUT_COUNT; lay++)
            for (int storage = 0; storage < 4; storage++) {
                problem_spec s = {ST_LAP, (precision_t)prec, 23, 19, 4, stencil_table[ST_LAP].radius,
                                  (layout_t)lay, 8, 3, storage >> 1, storage & 1};
                problem pb;
                if (problem_make(&pb, &s) != 0) {
                    CHECK(0, "problem_make");
                    continue;
                }
                const rgrid *rg = &pb.twin->rg;
                const ugrid *ug = &pb.ug;
                for (int z = 0; z < s.nz; z++) {
                    for (int y = 0; y < s.ny; y++)
                        for (int x = 0; x < s.nx; x++)
                            field_set(s.prec, pb.twin->rf.p[0], (size_t)rgrid_index(rg, x, y, z), q(x, y, z));
                    for (int c = 0; c < ug->nxy; c++)
                        field_set(s.prec, pb.uf.p[0], (size_t)c + (size_t)z * ug->zstride,
                                  q(ug->cx[c], ug->cy[c], z));
                }
                fieldset r = runner_outputs(&pb, 0), u = runner_outputs(&pb, 1);
                cpu_run_regular(&pb, r);
                cpu_run_unstructured(&pb, u);
                long bad_r = 0, bad_u = 0;
                for (int z = 0; z < s.nz; z++) {
                    for (int y = s.halo; y < s.ny - s.halo; y++)
                        for (int x = s.halo; x < s.nx - s.halo; x++)
                            bad_r += field_get(s.prec, r.p[1], (size_t)rgrid_index(rg, x, y, z)) != -8.0;
                    for (int c = ug->nhalo; c < ug->nxy; c++)
                        bad_u += field_get(s.prec, u.p[1], (size_t)c + (size_t)z * ug->zstride) != -8.0;
                }
                CHECK(bad_r == 0 && bad_u == 0, "%s %s storage %d: %ld regular, %ld unstructured "
                      "points differ from -8", prec_name(s.prec), layout_name[lay], storage, bad_r, bad_u);
                fieldset st = iter_fields_copy(&pb);
                iter_run_incore(&pb, st, 1);
                long bad_i = 0;
                for (int z = 0; z < s.nz; z++)
                    for (int c = 0; c < ug->nxy; c++) {
                        double want = q(ug->cx[c], ug->cy[c], z) + (c >= ug->nhalo ? 1.0 : 0.0);
                        bad_i += field_get(s.prec, st.p[0], (size_t)c + (size_t)z * ug->zstride) != want;
                    }
                CHECK(bad_i == 0, "%s %s storage %d: one step: %ld points differ from q + 1 (inner), "
                      "q (halo)", prec_name(s.prec), layout_name[lay], storage, bad_i);
                points += (long)(ug->nxy - ug->nhalo) * s.nz;
                iter_fields_free(&pb, &st);
                runner_free_outputs(&pb, &r);
                runner_free_outputs(&pb, &u);
                problem_free(&pb);
            }
    printf("lap == -8 on q = x² + 3y² + 5z at %ld points, one step == q + 1\n", points);
    return check_done("test_lap");
}
