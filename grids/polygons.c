/* polygons.c — generated general meshes: triangles (each square of an nx x ny patch cut along
 * its diagonal into a lower and an upper triangle) and hexagons (nx x ny hexagons in rows, odd
 * rows shifted right by half a cell). Bounded, or periodic in x and y (a torus: every cell
 * complete, no halo). Cells list their neighbours counter-clockwise, one per edge, -1 on the
 * boundary; coordinates are the cell centres in the plane. */
#include "mesh.h"

#include "../base/common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Coordinate v of a cell in 0..n-1, wrapped when periodic; -1 if outside a bounded patch. */
static int wrap(int v, int n, int periodic)
{
    if (v >= 0 && v < n)
        return v;
    return periodic ? (v + n) % n : -1;
}

/* Cell index of square/hexagon (x, y), or -1. */
static int at(const mesh_gen_spec *s, int x, int y)
{
    x = wrap(x, s->nx, s->periodic);
    y = wrap(y, s->ny, s->periodic);
    return x < 0 || y < 0 ? -1 : y * s->nx + x;
}

/* Triangle u (0 lower, 1 upper) of square (x, y), or -1 if the square is outside. */
static int triangle(const mesh_gen_spec *s, int x, int y, int u)
{
    int q = at(s, x, y);
    return q < 0 ? -1 : 2 * q + u;
}

static void gen_triangles(mesh *m, const mesh_gen_spec *s)
{
    for (int y = 0; y < s->ny; y++)
        for (int x = 0; x < s->nx; x++) {
            int lo = 2 * (y * s->nx + x), up = lo + 1;
            /* lower (x,y)-(x+1,y)-(x+1,y+1): bottom, right, diagonal */
            int *r = m->adj + 3 * lo;
            r[0] = triangle(s, x, y - 1, 1);
            r[1] = triangle(s, x + 1, y, 1);
            r[2] = up;
            /* upper (x,y)-(x+1,y+1)-(x,y+1): diagonal, top, left */
            r = m->adj + 3 * up;
            r[0] = lo;
            r[1] = triangle(s, x, y + 1, 0);
            r[2] = triangle(s, x - 1, y, 0);
            m->coord[2 * lo] = x + 2.0 / 3.0;
            m->coord[2 * lo + 1] = y + 1.0 / 3.0;
            m->coord[2 * up] = x + 1.0 / 3.0;
            m->coord[2 * up + 1] = y + 2.0 / 3.0;
        }
}

static void gen_hexagons(mesh *m, const mesh_gen_spec *s)
{
    for (int y = 0; y < s->ny; y++)
        for (int x = 0; x < s->nx; x++) {
            int c = y * s->nx + x, odd = y & 1;
            int *r = m->adj + 6 * c;
            r[0] = at(s, x + 1, y);           /* E */
            r[1] = at(s, x + odd, y + 1);     /* NE */
            r[2] = at(s, x + odd - 1, y + 1); /* NW */
            r[3] = at(s, x - 1, y);           /* W */
            r[4] = at(s, x + odd - 1, y - 1); /* SW */
            r[5] = at(s, x + odd, y - 1);     /* SE */
            m->coord[2 * c] = x + 0.5 * odd;
            m->coord[2 * c + 1] = y * (sqrt(3.0) / 2.0);
        }
}

int mesh_gen_polygons(mesh *m, const mesh_gen_spec *s)
{
    int tri = s->kind == MESH_TRIANGLES;
    /* a torus smaller than this would make a cell its own neighbour or list one cell twice */
    int minx = s->periodic ? (tri ? 2 : 3) : 1, miny = s->periodic ? (tri ? 2 : 4) : 1;
    if (s->nx < minx || s->ny < miny || (double)s->nx * s->ny * (tri ? 2 : 1) > 1.5e9 ||
        (!tri && s->periodic && s->ny % 2)) {
        perr("mesh generate: --size %dx%d: %s%s need at least %dx%d cells%s (and at most 1.5e9)",
             s->nx, s->ny, s->periodic ? "periodic " : "", mesh_kind_name[s->kind], minx, miny,
             !tri && s->periodic ? ", an even number of rows" : "");
        return -1;
    }
    memset(m, 0, sizeof *m);
    m->ncells = s->nx * s->ny * (tri ? 2 : 1);
    m->nlevels = s->nlevels;
    m->maxdeg = tri ? 3 : 6;
    m->adj = xalloc(sizeof(int) * (size_t)m->maxdeg * (size_t)m->ncells);
    m->ncoord = 2;
    m->coord = xalloc(sizeof(double) * 2 * (size_t)m->ncells);
    if (tri)
        gen_triangles(m, s);
    else
        gen_hexagons(m, s);
    snprintf(m->kind, sizeof m->kind, "%s: %s %dx%d %s", mesh_kind_name[s->kind],
             s->periodic ? "periodic" : "bounded", s->nx, s->ny,
             tri ? "squares, each cut into 2 triangles" : "hexagons, odd rows shifted by half");
    return 0;
}
