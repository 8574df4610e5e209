/* verify.c — output comparison. */
#include "verify.h"

#include <math.h>
#include <stdio.h>

static size_t index_of(const problem *pb, int uns, int x, int y, int z)
{
    if (uns)
        return (size_t)pb->ug.cell_at[y * pb->s.nx + x] + (size_t)z * pb->ug.zstride;
    return (size_t)rgrid_index(&pb->rg, x, y, z);
}

verify_result verify_compare(const problem *pb, fieldset a, int a_uns, fieldset b, int b_uns)
{
    verify_result r = {0, 0, 0, 0.0, -1, -1, -1, -1};
    const stencil_info *si = &stencil_table[pb->s.stencil];
    precision_t pr = pb->s.prec;
    int h = pb->s.halo, zend = stencil_zend(pb->s.stencil, pb->s.nz);
    for (int f = si->nin; f < pb->nf; f++) {
        double scale = 0, maxdiff = 0;
        for (int z = 0; z < zend; z++)
            for (int y = h; y < pb->s.ny - h; y++)
                for (int x = h; x < pb->s.nx - h; x++) {
                    size_t ia = index_of(pb, a_uns, x, y, z), ib = index_of(pb, b_uns, x, y, z);
                    int bad = 0;
                    r.checked++;
                    if (field_is_poison(pr, a.p[f], ia) || field_is_poison(pr, b.p[f], ib)) {
                        r.unwritten++;
                        bad = 1;
                    } else if (!field_same_bits(pr, a.p[f], ia, b.p[f], ib)) {
                        double va = field_get(pr, a.p[f], ia), vb = field_get(pr, b.p[f], ib);
                        double d = fabs(va - vb);
                        r.differ++;
                        bad = 1;
                        if (!(d <= maxdiff))
                            maxdiff = d; /* NaN sticks */
                    }
                    if (!bad) {
                        double vb = fabs(field_get(pr, b.p[f], ib));
                        if (vb > scale)
                            scale = vb;
                    }
                    if (bad && r.bad_field < 0) {
                        r.bad_x = x;
                        r.bad_y = y;
                        r.bad_z = z;
                        r.bad_field = f;
                    }
                }
        double e = maxdiff == 0 ? 0 : (scale > 0 ? maxdiff / scale : maxdiff);
        if (!(e <= r.max_err))
            r.max_err = e;
    }
    return r;
}

double verify_tolerance(precision_t p) { return p == PREC_FLOAT ? 1e-5 : 1e-12; }

int verify_ok(const problem *pb, const verify_result *r, int need_exact)
{
    if (r->unwritten || r->checked == 0)
        return 0;
    if (need_exact)
        return r->differ == 0;
    return r->max_err <= verify_tolerance(pb->s.prec);
}

void verify_describe(const problem *pb, const verify_result *r, int need_exact, char *buf, size_t n)
{
    const stencil_info *si = &stencil_table[pb->s.stencil];
    if (r->unwritten)
        snprintf(buf, n, "FAIL: %ld of %ld points unwritten (first: %s at x=%d y=%d z=%d)",
                 r->unwritten, r->checked, si->field[r->bad_field], r->bad_x, r->bad_y, r->bad_z);
    else if (r->differ == 0)
        snprintf(buf, n, "bit-exact (%ld points)", r->checked);
    else
        snprintf(buf, n, "%s: %ld of %ld points differ, max error %.3g (first: %s at x=%d y=%d z=%d)",
                 verify_ok(pb, r, need_exact) ? "within tolerance" : "FAIL", r->differ, r->checked,
                 r->max_err, si->field[r->bad_field], r->bad_x, r->bad_y, r->bad_z);
}
