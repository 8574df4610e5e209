/* gtable.h — neighbour tables for cells with any number of neighbours (triangles, hexagons,
 * mixed meshes): relative offsets with per-cell degrees, struct-of-arrays like the W/E/S/N
 * tables (nbtable.h), chasing or non-chasing, optionally compressed into patterns
 * (docs/storage.md, "Tables of general meshes"). With D = the grid's list width (g->adjw):
 *
 *   chasing      w = 1 + D columns: deg(c), then the offsets n_j - c of c's neighbours
 *                (j < deg(c); 0 past it); a neighbour's own list is read from its row
 *   non-chasing  w = (1 + D)·(1 + D): block 0 as chasing, then block 1 + j: deg(n_j) and the
 *                offsets, still relative to c, of n_j's own neighbours (n_j's row order): the
 *                first and second ring without a dependent look-up; blocks past deg(c) are 0
 *
 *   uncompressed  entry e of plane cell p: tab[e*ntab + p]
 *   compressed    entry e of plane cell p: tab[e*ntab + pat[p]]  (every distinct row once)
 *
 * Offsets are in plane cells: valid at every level (add to the field index). */
#ifndef PILLAR_GTABLE_H
#define PILLAR_GTABLE_H

#include "../grids/grid.h"
#include "../base/common.h"
#include "patterns.h"

typedef struct {
    int chasing, compressed;
    int maxdeg; /* D */
    int width;  /* entries per cell */
    int nxy;    /* cells per level */
    pattern_table p; /* the rows: patterns counted (npat, top_count) also when uncompressed;
                      * tab[e*ntab + row], pat (NULL when uncompressed) */
} gtable;

/* The table of grid g from its neighbour lists g->adj (a grid made from a mesh file). */
void gtable_build(gtable *t, const ugrid *g, int chasing, int compressed);
void gtable_free(gtable *t);

/* Statistics of thesis Table 6.7, as for nbtable.h. */
size_t gtable_entries(const gtable *t);   /* entries stored */
double gtable_ratio(const gtable *t);     /* entries / uncompressed entries */
double gtable_top_share(const gtable *t); /* share of cells on the most used row */
size_t gtable_bytes(const gtable *t);     /* tables + pattern array */

/* ---- look-ups, for the CPU and the GPU ---- */

/* Entry e of plane cell p. */
PILLAR_HD int32_t gtable_entry(const gtable *t, int e, int p)
{
    return t->p.tab[(long)e * t->p.ntab + (t->compressed ? t->p.pat[p] : p)];
}

/* deg(c), and the plane cell of neighbour j of c (j < deg(c)). */
PILLAR_HD int gtable_deg(const gtable *t, int c) { return gtable_entry(t, 0, c); }
PILLAR_HD int gtable_nb(const gtable *t, int c, int j) { return c + gtable_entry(t, 1 + j, c); }

/* Non-chasing: deg(n_j) and the plane cell of neighbour k of c's neighbour j, from c's row. */
PILLAR_HD int gtable_deg2(const gtable *t, int c, int j)
{
    return gtable_entry(t, (1 + j) * (1 + t->maxdeg), c);
}
PILLAR_HD int gtable_nb2(const gtable *t, int c, int j, int k)
{
    return c + gtable_entry(t, (1 + j) * (1 + t->maxdeg) + 1 + k, c);
}

#endif
