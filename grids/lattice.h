/* lattice.h — the generated hexagon and triangle meshes (grids/polygons.c) addressed by
 * arithmetic: the regular twins of the graph stencils (docs/grids.md, "Lattices addressed by
 * arithmetic"). A cell is an index into the mesh's own numbering (hexagon (x, y): y·nx + x;
 * triangle u of square (x, y): 2(y·nx + x) + u), so a twin's fields are the mesh's cells in file
 * order. Neighbour j of a cell is the cell plus an offset that depends only on the cell's parity
 * (hexagons: the row's, y & 1; triangles: u) and on the row width W (nx hexagons, 2·nx
 * triangles), never on a table; the order is the generator's (hexagons E, NE, NW, W, SW, SE;
 * lower triangles bottom, right, diagonal; upper triangles diagonal, top, left). Bounded meshes
 * only: a periodic one's wrap-around is not an offset. */
#ifndef PILLAR_LATTICE_H
#define PILLAR_LATTICE_H

#include "../base/common.h"
#include "mesh.h"

typedef enum { LATTICE_NONE, LATTICE_HEXAGONS, LATTICE_TRIANGLES } lattice_kind;

typedef struct {
    int kind;   /* lattice_kind */
    int nx, ny; /* hexagons, or squares of two triangles */
} lattice;

/* Whether m is a bounded hexagon or triangle mesh exactly as `pillar mesh generate` makes it:
 * its kind names one and an nx x ny extent, and every row of its neighbour table equals the
 * arithmetic's. Fills l (kind LATTICE_NONE when not). */
void lattice_detect(const mesh *m, lattice *l);

/* Row width in cells, and edges per cell. */
PILLAR_HD int lattice_w(int kind, int nx) { return kind == LATTICE_HEXAGONS ? nx : 2 * nx; }
PILLAR_HD int lattice_deg(int kind) { return kind == LATTICE_HEXAGONS ? 6 : 3; }

/* Parity of the cell at column x (0..W-1) of row y. */
PILLAR_HD int lattice_par(int kind, int x, int y) { return kind == LATTICE_HEXAGONS ? (y & 1) : (x & 1); }

/* Parity of the cell with index q (y·W + x) in rows W cells apart: what lattice_par gives for
 * its column and row (W is even for triangles, so x & 1 == q & 1). */
PILLAR_HD int lattice_cell_par(int kind, int W, int q)
{
    return kind == LATTICE_HEXAGONS ? (q / W) & 1 : q & 1;
}

/* Offset of neighbour j of a cell of parity par, rows W cells apart. */
PILLAR_HD int lattice_off(int kind, int W, int par, int j)
{
    if (kind == LATTICE_HEXAGONS) {
        const int dy = (j == 1 || j == 2) ? W : (j == 4 || j == 5) ? -W : 0;
        const int dx = j == 0 ? 1 : j == 3 ? -1 : (j == 1 || j == 5) ? par : par - 1;
        return dy + dx;
    }
    /* lower: -W+1 (the upper triangle below), +3 (the square to the right's upper), +1 (its own
     * upper); upper: the negatives of the lower's entries 2, 0, 1 */
    const int jj = par ? (j == 0 ? 2 : j - 1) : j;
    const int o = jj == 0 ? 1 - W : jj == 1 ? 3 : 1;
    return par ? -o : o;
}

/* Parity of neighbour j of a cell of parity par. */
PILLAR_HD int lattice_npar(int kind, int par, int j)
{
    return kind == LATTICE_HEXAGONS ? (j == 0 || j == 3 ? par : 1 - par) : 1 - par;
}

/* Whether the cell at column x of row y is an inner cell of a stencil of this radius (1 or 2):
 * every cell within distance radius-1 has all its edges, as mesh_graph_halo says (tests check
 * that they agree). */
PILLAR_HD int lattice_inner(int kind, int nx, int ny, int radius, int x, int y)
{
    if (kind == LATTICE_HEXAGONS)
        return x >= radius && x < nx - radius && y >= radius && y < ny - radius;
    const int sx = x >> 1;
    if (radius >= 2)
        return sx >= 1 && sx < nx - 1 && y >= 1 && y < ny - 1;
    return (x & 1) ? sx >= 1 && y < ny - 1 : sx < nx - 1 && y >= 1;
}

#endif
