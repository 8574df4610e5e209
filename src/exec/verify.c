/* verify.c — output comparison. */
#include "verify.h"

#include <math.h>
#include <stdio.h>

static size_t index_of(const problem *pb, int uns, int x, int y, int z)
{
    if (uns)
        return (size_t)pb->ug.cell_at[y * pb->s.nx + x] + (size_t)z * pb->ug.zstride;
    return (size_t)rgrid_index(&pb->twin->rg, x, y, z);
}

/* Running maxima of one field's comparison. */
typedef struct {
    double scale, maxdiff;
} field_err;

/* Compares element ia of a with ib of b, point (x, y, z) of field f. */
static void compare_point(verify_result *r, field_err *fe, precision_t pr, const void *a, size_t ia,
                          const void *b, size_t ib, int x, int y, int z, int f)
{
    int bad = 0;
    r->checked++;
    if (field_is_poison(pr, a, ia) || field_is_poison(pr, b, ib)) {
        r->unwritten++;
        bad = 1;
    } else if (!field_same_bits(pr, a, ia, b, ib)) {
        double d = fabs(field_get(pr, a, ia) - field_get(pr, b, ib));
        r->differ++;
        bad = 1;
        if (!(d <= fe->maxdiff))
            fe->maxdiff = d; /* NaN sticks */
    }
    if (!bad) {
        double vb = fabs(field_get(pr, b, ib));
        if (vb > fe->scale)
            fe->scale = vb;
    }
    if (bad && r->bad_field < 0) {
        r->bad_x = x;
        r->bad_y = y;
        r->bad_z = z;
        r->bad_field = f;
    }
}

static void field_done(verify_result *r, const field_err *fe)
{
    double e = fe->maxdiff == 0 ? 0 : (fe->scale > 0 ? fe->maxdiff / fe->scale : fe->maxdiff);
    if (!(e <= r->max_err))
        r->max_err = e;
}

/* Over the inner cells of the unstructured grid; a side not on it (x_uns 0) is a graph stencil's
 * lattice twin, the mesh's cells in file order at the same level stride. */
static verify_result compare_cells(const problem *pb, fieldset a, int a_uns, fieldset b, int b_uns)
{
    verify_result r = {0, 0, 0, 0.0, -1, -1, -1, -1};
    const stencil_info *si = &stencil_table[pb->s.stencil];
    const ugrid *g = &pb->ug;
    int zend = stencil_zend(pb->s.stencil, pb->s.nz);
    for (int f = si->nin; f < pb->nf; f++) {
        field_err fe = {0, 0};
        for (int z = 0; z < zend; z++)
            for (int c = g->nhalo; c < g->nxy; c++) {
                size_t lev = (size_t)z * g->zstride, i = (size_t)c + lev;
                size_t t = g->mesh_cell ? (size_t)g->mesh_cell[c] + lev : i;
                compare_point(&r, &fe, pb->s.prec, a.p[f], a_uns ? i : t, b.p[f], b_uns ? i : t,
                              g->mesh_cell ? g->mesh_cell[c] : c, -1, z, f);
            }
        field_done(&r, &fe);
    }
    return r;
}

verify_result verify_compare(const problem *pb, fieldset a, int a_uns, fieldset b, int b_uns)
{
    if (problem_has_lattice(pb))
        return compare_cells(pb, a, a_uns, b, b_uns);
    verify_result r = {0, 0, 0, 0.0, -1, -1, -1, -1};
    const stencil_info *si = &stencil_table[pb->s.stencil];
    int h = pb->s.halo, zend = stencil_zend(pb->s.stencil, pb->s.nz);
    for (int f = si->nin; f < pb->nf; f++) {
        field_err fe = {0, 0};
        for (int z = 0; z < zend; z++)
            for (int y = h; y < pb->s.ny - h; y++)
                for (int x = h; x < pb->s.nx - h; x++)
                    compare_point(&r, &fe, pb->s.prec, a.p[f], index_of(pb, a_uns, x, y, z), b.p[f],
                                  index_of(pb, b_uns, x, y, z), x, y, z, f);
        field_done(&r, &fe);
    }
    return r;
}

verify_result verify_compare_cells(const problem *pb, fieldset a, fieldset b)
{
    return compare_cells(pb, a, 1, b, 1);
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
    char at[96] = "";
    if (r->bad_field >= 0 && r->bad_y < 0) /* a mesh cell */
        snprintf(at, sizeof at, "%s at cell %d z=%d", si->field[r->bad_field], r->bad_x, r->bad_z);
    else if (r->bad_field >= 0)
        snprintf(at, sizeof at, "%s at x=%d y=%d z=%d", si->field[r->bad_field], r->bad_x, r->bad_y,
                 r->bad_z);
    if (r->unwritten)
        snprintf(buf, n, "FAIL: %ld of %ld points unwritten (first: %s)", r->unwritten, r->checked,
                 at);
    else if (r->differ == 0)
        snprintf(buf, n, "bit-exact (%ld points)", r->checked);
    else
        snprintf(buf, n, "%s: %ld of %ld points differ, max error %.3g (first: %s)",
                 verify_ok(pb, r, need_exact) ? "within tolerance" : "FAIL", r->differ, r->checked,
                 r->max_err, at);
}
