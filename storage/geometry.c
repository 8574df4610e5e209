/* geometry.c — the coefficient fields of flux-form stencils (geometry.h). */
#include "geometry.h"

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

int geometry_build(geometry *geo, const ugrid *g, const mesh *m, precision_t p, int file_order,
                   const char *file)
{
    memset(geo, 0, sizeof *geo);
    if (!m->coord || m->ncoord < 2) {
        perr("%s: the flux-form stencil takes edge lengths and cell areas from /coordinates, and "
             "this mesh has none", file);
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
    geo->n = n;
    geo->width = w;
    geo->dt = isfinite(dt) ? dt / 2 : 0;
    geo->r = field_alloc(p, (size_t)n);
    geo->k = field_alloc(p, (size_t)n * w);
    for (int c = 0; c < n; c++) {
        size_t at = file_order ? (size_t)g->mesh_cell[c] : (size_t)c;
        field_set(p, geo->r, at, area[c] > 0 ? geo->dt / area[c] : 0);
        for (int j = 0; j < w; j++)
            field_set(p, geo->k, (size_t)j * n + at, g->adj[(size_t)j * n + c] >= 0 ? kap[(size_t)j * n + c] : 0);
    }
    xfree(area);
    xfree(kap);
    return 0;
}

void geometry_free(geometry *geo)
{
    xfree(geo->r);
    xfree(geo->k);
    memset(geo, 0, sizeof *geo);
}
