/* polygons.c — generated general meshes: triangles (each square of an nx x ny patch cut along
 * its diagonal into a lower and an upper triangle) and hexagons (nx x ny hexagons in rows, odd
 * rows shifted right by half a cell). Bounded, or periodic in x and y (a torus: every cell
 * complete, no halo). Cells list their neighbours counter-clockwise, one per edge, -1 on the
 * boundary; coordinates are the cell centres in the plane. Nodes are the cells' corners, in the
 * order of their edges (corner j to corner j+1 is the edge of neighbour j); a periodic mesh's
 * cells across the seam keep their own corners (the nodes are not wrapped), so each cell is drawn
 * where it lies in the plane. */
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

/* Corner j of a cell: its point's key (integers) and position into in (entry width*c + j). */
static void put_corner(mesh_corners_in *in, size_t c, int j, long long kx, long long ky, double x,
                       double y)
{
    size_t e = (size_t)in->width * c + (size_t)j;
    in->key[3 * e] = kx;
    in->key[3 * e + 1] = ky;
    in->key[3 * e + 2] = 0;
    in->pos[2 * e] = x;
    in->pos[2 * e + 1] = y;
}

/* The nodes: triangles' corners are lattice points (i, j); a hexagon's lie around its centre at
 * -30, 30, ..., 270 degrees, a circumradius 1/sqrt(3) away, keyed in half cells across and
 * sixths of sqrt(3) up (so neighbours name a shared corner alike). */
static void gen_nodes(mesh *m, const mesh_gen_spec *s, int tri)
{
    mesh_corners_in in = {tri ? 3 : 6, 2, NULL, NULL, NULL};
    size_t entries = (size_t)in.width * (size_t)m->ncells;
    in.key = xalloc(sizeof(long long) * 3 * entries);
    in.pos = xalloc(sizeof(double) * 2 * entries);
    static const int tri_at[2][3][2] = {{{0, 0}, {1, 0}, {1, 1}}, {{0, 0}, {1, 1}, {0, 1}}};
    static const int hex_at[6][2] = {{1, -1}, {1, 1}, {0, 2}, {-1, 1}, {-1, -1}, {0, -2}};
    const double sixth = sqrt(3.0) / 6.0;
    for (int y = 0; y < s->ny; y++)
        for (int x = 0; x < s->nx; x++) {
            size_t q = (size_t)y * (size_t)s->nx + (size_t)x;
            for (int j = 0; tri && j < 3; j++)
                for (int u = 0; u < 2; u++) {
                    int px = x + tri_at[u][j][0], py = y + tri_at[u][j][1];
                    put_corner(&in, 2 * q + (size_t)u, j, px, py, px, py);
                }
            for (int j = 0; !tri && j < 6; j++) {
                long long kx = 2LL * x + (y & 1) + hex_at[j][0], ky = 3LL * y + hex_at[j][1];
                put_corner(&in, q, j, kx, ky, 0.5 * (double)kx, sixth * (double)ky);
            }
        }
    mesh_nodes_from_corners(m, &in);
    xfree(in.key);
    xfree(in.pos);
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
    gen_nodes(m, s, tri);
    snprintf(m->kind, sizeof m->kind, "%s: %s %dx%d %s", mesh_kind_name[s->kind],
             s->periodic ? "periodic" : "bounded", s->nx, s->ny,
             tri ? "squares, each cut into 2 triangles" : "hexagons, odd rows shifted by half");
    return 0;
}
