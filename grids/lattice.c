/* lattice.c — recognising a generated hexagon or triangle mesh (lattice.h). */
#include "lattice.h"

#include <stdio.h>
#include <string.h>

void lattice_detect(const mesh *m, lattice *l)
{
    memset(l, 0, sizeof *l);
    char kind[32], bound[32];
    int nx, ny;
    if (!m->adj || sscanf(m->kind, "%31[^:]: %31s %dx%d", kind, bound, &nx, &ny) != 4 ||
        strcmp(bound, "bounded") != 0 || nx < 1 || ny < 1)
        return;
    int k = strcmp(kind, mesh_kind_name[MESH_HEXAGONS]) == 0    ? LATTICE_HEXAGONS
            : strcmp(kind, mesh_kind_name[MESH_TRIANGLES]) == 0 ? LATTICE_TRIANGLES
                                                                : LATTICE_NONE;
    int W = k ? lattice_w(k, nx) : 0, deg = k ? lattice_deg(k) : 0;
    if (!k || m->maxdeg != deg || (long)W * ny != m->ncells)
        return;
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < W; x++) {
            int c = y * W + x, par = lattice_par(k, x, y);
            const int *row = m->adj + (size_t)deg * (size_t)c;
            for (int j = 0; j < deg; j++) {
                int q = c + lattice_off(k, W, par, j);
                /* a neighbour the arithmetic names must be the row's; the row may lack one only
                 * on the border (there the arithmetic is never used: halo cells) */
                int sx = k == LATTICE_HEXAGONS ? x : x >> 1;
                int border = sx == 0 || sx == nx - 1 || y == 0 || y == ny - 1;
                if (row[j] >= 0 ? row[j] != q : !border)
                    return;
            }
        }
    l->kind = k;
    l->nx = nx;
    l->ny = ny;
}
