/* cubed_sphere.c — the cubed-sphere quad mesh: 6 panels of n x n cells on the faces of a cube,
 * projected onto the unit sphere (equiangular). Inside a panel W/E/S/N are -u/+u/-v/+v of the
 * panel's axes; across a seam the neighbour lies on the next panel, whose axes are rotated, so
 * the relation that leads back is generally not the opposite one. Every cell has 4 neighbours;
 * at the 8 cube corners 3 cells (not 4) meet around a vertex, so the neighbour graph has exactly
 * 8 triangles there. Nodes are the cells' corners, the points of the cube between them projected
 * alike, one node per point of the cube (keyed by its integer position). */
#include "mesh.h"

#include "../base/common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* normal, u, v of each panel (u x v = normal, outward) */
static const int panel_axes[6][3][3] = {
    {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},   {{0, 1, 0}, {-1, 0, 0}, {0, 0, 1}},
    {{-1, 0, 0}, {0, -1, 0}, {0, 0, 1}}, {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}},
    {{0, 0, 1}, {0, 1, 0}, {-1, 0, 0}},  {{0, 0, -1}, {0, 1, 0}, {1, 0, 0}},
};

static int dot(const int *a, const int *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Cell at integer point q (units: half a cell; the cube spans -n..n): the panel whose normal
 * coordinate is n, then the in-panel indices. */
static int cell_at_point(int n, const int *q)
{
    for (int p = 0; p < 6; p++) {
        if (dot(q, panel_axes[p][0]) != n)
            continue;
        int i = (dot(q, panel_axes[p][1]) + n - 1) / 2, j = (dot(q, panel_axes[p][2]) + n - 1) / 2;
        return p * n * n + j * n + i;
    }
    return -1; /* not reached for points built below */
}

/* The point of the unit sphere over (a, b) of panel p, in half cells from its centre. */
static void project(int n, int p, int a, int b, double *x)
{
    const int *nrm = panel_axes[p][0], *u = panel_axes[p][1], *v = panel_axes[p][2];
    const double quarter = atan(1.0);
    double ta = tan(quarter * a / n), tb = tan(quarter * b / n), len = 0;
    for (int k = 0; k < 3; k++) {
        x[k] = nrm[k] + ta * u[k] + tb * v[k];
        len += x[k] * x[k];
    }
    for (int k = 0; k < 3; k++)
        x[k] /= sqrt(len);
}

/* The nodes: the 4 corners of cell (i, j) of panel p, counter-clockwise seen from outside. */
static void gen_nodes(mesh *m, int n)
{
    mesh_corners_in in = {4, 3, NULL, NULL, NULL};
    size_t entries = 4 * (size_t)m->ncells;
    in.key = xalloc(sizeof(long long) * 3 * entries);
    in.pos = xalloc(sizeof(double) * 3 * entries);
    static const int at[4][2] = {{0, 0}, {2, 0}, {2, 2}, {0, 2}};
    for (int p = 0; p < 6; p++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                for (int q = 0; q < 4; q++) {
                    size_t e = 4 * ((size_t)p * n * n + (size_t)j * n + i) + (size_t)q;
                    int a = 2 * i - n + at[q][0], b = 2 * j - n + at[q][1];
                    for (int k = 0; k < 3; k++)
                        in.key[3 * e + k] = (long long)n * panel_axes[p][0][k] +
                                            (long long)a * panel_axes[p][1][k] +
                                            (long long)b * panel_axes[p][2][k];
                    project(n, p, a, b, in.pos + 3 * e);
                }
    mesh_nodes_from_corners(m, &in);
    xfree(in.key);
    xfree(in.pos);
}

int mesh_gen_cubed_sphere(mesh *m, int n, int nlevels)
{
    memset(m, 0, sizeof *m);
    if (n < 1 || n > 8192) {
        perr("mesh generate: --n %d: the panel edge must be from 1 to 8192", n);
        return -1;
    }
    m->ncells = 6 * n * n;
    m->nlevels = nlevels;
    m->nbr = xalloc(sizeof(int) * 4 * (size_t)m->ncells);
    m->ncoord = 3;
    m->coord = xalloc(sizeof(double) * 3 * (size_t)m->ncells);
    snprintf(m->kind, sizeof m->kind, "cubed-sphere: 6 panels of %dx%d, equiangular", n, n);
    for (int p = 0; p < 6; p++) {
        const int *nrm = panel_axes[p][0], *u = panel_axes[p][1], *v = panel_axes[p][2];
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                int c = p * n * n + j * n + i, a = 2 * i + 1 - n, b = 2 * j + 1 - n;
                int ctr[3];
                for (int k = 0; k < 3; k++)
                    ctr[k] = n * nrm[k] + a * u[k] + b * v[k];
                /* relations W, E, S, N: directions -u, +u, -v, +v */
                for (int r = 0; r < NREL1; r++) {
                    const int *ax = r < 2 ? u : v;
                    int sg = (r & 1) ? 1 : -1, along = r < 2 ? a : b, q[3];
                    if (along + 2 * sg > -n && along + 2 * sg < n) /* same panel */
                        for (int k = 0; k < 3; k++)
                            q[k] = ctr[k] + 2 * sg * ax[k];
                    else /* over the seam: to the edge, then down the next panel */
                        for (int k = 0; k < 3; k++)
                            q[k] = ctr[k] + sg * ax[k] - nrm[k];
                    m->nbr[4 * c + r] = cell_at_point(n, q);
                }
                project(n, p, a, b, m->coord + 3 * c);
            }
    }
    gen_nodes(m, n);
    return 0;
}
