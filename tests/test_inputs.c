/* Stencil inputs are physically plausible and never zeros (docs/stencils.md). */
#include "check.h"
#include "stencils/stencil.h"

int main(void)
{
    int nonzero = 0, total = 0;
    for (int y = 0; y < 20; y++)
        for (int x = 0; x < 20; x++)
            for (int z = 0; z < 30; z++) {
                double prev = stencil_input(ST_FASTWAVES, 8, x, y, z, 42);
                double next = stencil_input(ST_FASTWAVES, 8, x, y, z + 1, 42);
                CHECK(next > prev, "hhl not increasing at %d,%d,%d", x, y, z);
                double rho = stencil_input(ST_FASTWAVES, 4, x, y, z, 42);
                CHECK(rho >= 1 && rho <= 2, "rho %g", rho);
                double w = stencil_input(ST_FASTWAVES, 7, x, y, z, 42);
                CHECK(w >= 0 && w <= 1, "wgtfac %g", w);
                double c = stencil_input(ST_HDIFF, 1, x, y, z, 42);
                CHECK(c >= 0 && c <= 0.1, "coeff %g", c);
                for (int f = 0; f < 9; f++) {
                    double v = stencil_input(ST_FASTWAVES, f, x, y, z, 42);
                    if (f != 4 && f != 7 && f != 8)
                        CHECK(v >= -1 && v <= 1, "field %d value %g", f, v);
                    nonzero += v != 0;
                    total++;
                }
            }
    CHECK(nonzero == total, "%d of %d inputs are zero", total - nonzero, total);
    CHECK(stencil_input(ST_LAPLAP, 0, 3, 4, 5, 1) != stencil_input(ST_LAPLAP, 0, 3, 4, 5, 2),
          "the seed changes the data");
    return check_done("test_inputs");
}
