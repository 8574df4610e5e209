/* fluxdiff.c — fluxdiff's coefficients (stencils/fluxdiff.h: FLUXDIFF_COEFFS), from the cells'
 * centre coordinates:
 *
 *   d(c, j) = |x(n_j) − x(c)|                 distance of the centres across edge j of c
 *   t(c)    = tan(π / sides(c))
 *   κ(c, j) = (t(c) + t(n_j)) / 2             ℓ/d of the edge: exact for regular polygons
 *                                             (ℓ = d·tan(π/k)), symmetric by construction
 *   A(c)    = Σ_j d(c, j)² · t(c) / 4         the cell's area: triangles from the centre to
 *                                             each edge, exact for regular polygons
 *   Δt      = ½ · min over complete cells of A(c) / Σ_j κ(c, j)
 *   r(c)    = Δt / A(c)
 *
 * so that r(c)·Σ_j κ(c, j) <= ½: each output is a convex combination of its inputs. Computed in
 * double, stored in the field precision: array 0 r (per cell), array 1 κ (per slot, a column per
 * slot of the lists). Cells with a missing edge get r = 0 (never computed). */
#include "stencil.h"

#include "../grids/mesh.h"
#include "../storage/field.h"

#include <math.h>
#include <string.h>

static double centre_distance(const mesh *m, int a, int b)
{
    double s = 0;
    for (int k = 0; k < m->ncoord; k++) {
        double d = m->coord[(size_t)m->ncoord * b + k] - m->coord[(size_t)m->ncoord * a + k];
        s += d * d;
    }
    return sqrt(s);
}

static double tan_of(const mesh *m, int f) { return tan(acos(-1.0) / mesh_sides(m, f)); }

/* fluxdiff_coeffs, Δt's minimum taken through min_all where given (fluxdiff_coeffs_part). */
static int build(coef_set *out, const ugrid *g, const mesh *m, precision_t p, int file_order,
                 const char *file, double (*min_all)(void *u, double x), void *u)
{
    memset(out, 0, sizeof *out);
    if (!m->coord || m->ncoord < 2) {
        perr("%s: the flux-form stencil takes edge lengths and cell areas from /coordinates, and "
             "this mesh has none", file);
        if (min_all)
            min_all(u, INFINITY);
        return -1;
    }
    const int n = g->nxy, w = g->adjw;
    double *area = xalloc(sizeof(double) * (size_t)n), *kap = xalloc(sizeof(double) * (size_t)n * w);
    double dt = INFINITY;
    for (int c = 0; c < n; c++) {
        const int f = g->mesh_cell[c];
        double tc = tan_of(m, f), a = 0, ksum = 0;
        int deg = 0;
        for (int j = 0; j < w && g->adj[(size_t)j * n + c] >= 0; j++, deg++) {
            int q = g->adj[(size_t)j * n + c], fq = g->mesh_cell[q];
            double d = centre_distance(m, f, fq);
            if (!(d > 0) || !isfinite(d)) {
                perr("%s: /coordinates: cells %d and %d are neighbours at distance %g; the "
                     "flux-form stencil needs distinct finite centres", file, f, fq, d);
                xfree(area);
                xfree(kap);
                if (min_all)
                    min_all(u, INFINITY);
                return -1;
            }
            kap[(size_t)j * n + c] = (tc + tan_of(m, fq)) / 2;
            ksum += kap[(size_t)j * n + c];
            a += d * d * tc / 4;
        }
        area[c] = deg == mesh_sides(m, f) ? a : 0; /* complete cells only */
        if (area[c] > 0 && area[c] / ksum < dt)
            dt = area[c] / ksum;
    }
    if (min_all) /* exact: the same bits as the whole grid's minimum */
        dt = min_all(u, dt);
    dt = isfinite(dt) ? dt / 2 : 0;
    coef_set_alloc(out, 2, (const int[]){1, w}, n, p);
    for (int c = 0; c < n; c++) {
        size_t at = file_order ? (size_t)g->mesh_cell[c] : (size_t)c;
        field_set(p, out->a[0], at, area[c] > 0 ? dt / area[c] : 0);
        for (int j = 0; j < w; j++)
            field_set(p, out->a[1], (size_t)j * n + at, g->adj[(size_t)j * n + c] >= 0 ? kap[(size_t)j * n + c] : 0);
    }
    xfree(area);
    xfree(kap);
    return 0;
}

int fluxdiff_coeffs(coef_set *out, const ugrid *g, const mesh *m, precision_t p, int file_order,
                    const char *file)
{
    return build(out, g, m, p, file_order, file, NULL, NULL);
}

int fluxdiff_coeffs_part(coef_set *out, const ugrid *g, const mesh *m, precision_t p,
                         const char *file, double (*min_all)(void *u, double x), void *u)
{
    return build(out, g, m, p, 0, file, min_all, u);
}
