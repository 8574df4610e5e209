/* refined.c — a locally refined quad mesh: an nx x ny patch of unit squares in which a centred
 * m x m square of them is split 2 x 2 into half-size cells. Along the square's border the nodes
 * of the fine cells hang in the middle of the coarse cells' edges: a coarse cell next to the
 * square touches two fine cells on that side (5 edges, written as a general mesh), a fine cell one
 * coarse cell. Cells are numbered row by row of the fine lattice by their lower-left corner; each
 * lists its neighbours counter-clockwise (E side upwards, N leftwards, W downwards, S rightwards),
 * -1 for a side on the patch's boundary; coordinates are the cell centres. Nodes are the points
 * of the fine lattice at the cells' corners and, where a side has two edges, its hanging middle,
 * in the order of the edges (corner j to corner j+1 is the edge of neighbour j). */
#include "mesh.h"

#include "../base/common.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

enum { MOST_EDGES = 8 }; /* 4 sides of at most 2 edges each */

typedef struct {
    int fnx, fny; /* the fine lattice: 2nx x 2ny squares of half size */
    int *cover;   /* cover[fy*fnx + fx]: the cell covering fine square (fx, fy) */
} lattice;

static int covering(const lattice *l, int fx, int fy)
{
    if (fx < 0 || fx >= l->fnx || fy < 0 || fy >= l->fny)
        return -1;
    return l->cover[fy * l->fnx + fx];
}

/* Neighbours of the cell of size s (2 coarse, 1 fine, in fine squares) whose lower-left fine
 * square is (fx, fy), counter-clockwise into row; returns their number (the cell's edges). With
 * corner (not NULL): the fine lattice point where each edge starts, (x, y) pairs. */
static int cell_edges(const lattice *l, int fx, int fy, int s, int *row, int *corner)
{
    /* per side: the lattice point where it starts, going counter-clockwise */
    const int from[4][2] = {{fx + s, fy}, {fx + s, fy + s}, {fx, fy + s}, {fx, fy}};
    /* per side: the first fine square outside it and the step along the side */
    const int start[4][2] = {
        {fx + s, fy}, {fx + s - 1, fy + s}, {fx - 1, fy + s - 1}, {fx, fy - 1}};
    const int step[4][2] = {{0, 1}, {-1, 0}, {0, -1}, {1, 0}};
    int k = 0;
    for (int side = 0; side < 4; side++) {
        int first = k;
        for (int i = 0; i < s; i++) {
            int d = covering(l, start[side][0] + i * step[side][0],
                             start[side][1] + i * step[side][1]);
            if (k == first || d != row[k - 1]) { /* one coarse cell covers both halves of a side */
                if (corner) {
                    corner[2 * k] = from[side][0] + i * step[side][0];
                    corner[2 * k + 1] = from[side][1] + i * step[side][1];
                }
                row[k++] = d;
            }
        }
    }
    return k;
}

/* The nodes from each cell's sides[c] corners (fine lattice points, MOST_EDGES per cell), m's
 * maxdeg columns of them: node positions in unit squares, half a unit per fine square. */
static void gen_nodes(mesh *m, const int *corner, int *sides)
{
    mesh_corners_in in = {m->maxdeg, 2, NULL, NULL, sides};
    size_t entries = (size_t)m->maxdeg * (size_t)m->ncells;
    in.key = xalloc(sizeof(long long) * 3 * entries);
    in.pos = xalloc(sizeof(double) * 2 * entries);
    for (size_t e = 0; e < entries; e++) {
        const int *p = corner + 2 * (MOST_EDGES * (e / (size_t)m->maxdeg) + e % (size_t)m->maxdeg);
        in.key[3 * e] = p[0];
        in.key[3 * e + 1] = p[1];
        in.key[3 * e + 2] = 0;
        in.pos[2 * e] = p[0] / 2.0;
        in.pos[2 * e + 1] = p[1] / 2.0;
    }
    mesh_nodes_from_corners(m, &in);
    xfree(in.key);
    xfree(in.pos);
}

int mesh_gen_refined(mesh *m, const mesh_gen_spec *s)
{
    int nx = s->nx, ny = s->ny, short_side = nx < ny ? nx : ny;
    int r = s->refine ? s->refine : short_side / 3 > 0 ? short_side / 3 : 1;
    if (nx < 1 || ny < 1 || 4.0 * nx * ny > INT_MAX) { /* the fine lattice's squares are ints */
        perr("mesh generate: --size %dx%d: expected a positive patch of at most 5e8 cells", nx, ny);
        return -1;
    }
    if (r < 1 || r > short_side) {
        perr("mesh generate: --refine %d: the refined square must be from 1 to %d cells wide (the "
             "patch is %dx%d)", r, short_side, nx, ny);
        return -1;
    }
    memset(m, 0, sizeof *m);
    int x0 = (nx - r) / 2, y0 = (ny - r) / 2;
    lattice l = {2 * nx, 2 * ny, xalloc(sizeof(int) * 4 * (size_t)nx * (size_t)ny)};
    m->ncells = nx * ny + 3 * r * r;
    m->nlevels = s->nlevels;
    m->ncoord = 2;
    m->coord = xalloc(sizeof(double) * 2 * (size_t)m->ncells);
    int *size = xalloc(sizeof(int) * (size_t)m->ncells), /* 2 coarse, 1 fine */
        *at = xalloc(sizeof(int) * (size_t)m->ncells);    /* lower-left fine square */
    int c = 0;
    for (int fy = 0; fy < l.fny; fy++)
        for (int fx = 0; fx < l.fnx; fx++) {
            int x = fx / 2, y = fy / 2;
            int fine = x >= x0 && x < x0 + r && y >= y0 && y < y0 + r;
            if (!fine && (fx % 2 || fy % 2))
                continue; /* inside a coarse cell numbered at its lower-left square */
            int cs = fine ? 1 : 2;
            for (int j = 0; j < cs; j++)
                for (int i = 0; i < cs; i++)
                    l.cover[(fy + j) * l.fnx + fx + i] = c;
            m->coord[2 * c] = (fx + 0.5 * cs) / 2;
            m->coord[2 * c + 1] = (fy + 0.5 * cs) / 2;
            size[c] = cs;
            at[c++] = fy * l.fnx + fx;
        }

    int *adj = xalloc(sizeof(int) * MOST_EDGES * (size_t)m->ncells);
    int *sides = xalloc(sizeof(int) * (size_t)m->ncells);
    int *corner = xalloc(sizeof(int) * 2 * MOST_EDGES * (size_t)m->ncells);
    for (c = 0; c < m->ncells; c++) {
        sides[c] = cell_edges(&l, at[c] % l.fnx, at[c] / l.fnx, size[c],
                              adj + MOST_EDGES * (size_t)c, corner + 2 * MOST_EDGES * (size_t)c);
        m->maxdeg = sides[c] > m->maxdeg ? sides[c] : m->maxdeg;
    }
    gen_nodes(m, corner, sides);
    xfree(corner);
    m->adj = xalloc(sizeof(int) * (size_t)m->maxdeg * (size_t)m->ncells);
    int uneven = 0;
    for (c = 0; c < m->ncells; c++) {
        for (int j = 0; j < m->maxdeg; j++)
            m->adj[(size_t)m->maxdeg * c + j] = j < sides[c] ? adj[MOST_EDGES * (size_t)c + j] : -1;
        uneven |= sides[c] != m->maxdeg;
    }
    if (uneven)
        m->sides = sides;
    else
        xfree(sides);
    xfree(adj);
    xfree(at);
    xfree(size);
    xfree(l.cover);
    snprintf(m->kind, sizeof m->kind,
             "refined: %dx%d patch, %dx%d square at (%d,%d) split 2x2 (hanging nodes)", nx, ny, r,
             r, x0, y0);
    return 0;
}
