/* nbtable.h — neighbourship tables: relative offsets per relation, struct-of-arrays.
 *
 *   uncompressed:  nb_r(i) = i + tab[r*nxy  + p]           (p = i mod zstride, the plane cell)
 *   compressed:    nb_r(i) = i + tab[r*npat + pat[p]]
 *
 * Offset 0 means "no such neighbour" (and, on a lattice, the cell itself: R_EW etc.). Chasing
 * tables hold the 4 direct relations and reach the 16 second-order ones by two dependent
 * look-ups, the second in the first hop's own row (grid.h); non-chasing tables hold all 20. */
#ifndef PILLAR_NBTABLE_H
#define PILLAR_NBTABLE_H

#include "../grids/grid.h"
#include "../base/common.h"

typedef struct {
    int chasing, compressed;
    int nrel;      /* relations stored: NREL1 chasing, NREL2 non-chasing */
    int nxy;       /* cells per level */
    int npat;      /* distinct offset tuples (also counted when uncompressed) */
    int top_count; /* cells that share the most frequent tuple */
    int ntab;      /* rows per relation: nxy uncompressed, npat compressed */
    int32_t *tab;  /* tab[r*ntab + row] */
    int32_t *pat;  /* pattern of each cell; NULL when uncompressed */
} nbtable;

void nbtable_build(nbtable *t, const ugrid *g, int chasing, int compressed);
void nbtable_free(nbtable *t);

/* Statistics of thesis Table 6.7. */
size_t nbtable_entries(const nbtable *t);          /* offsets stored */
double nbtable_ratio(const nbtable *t);            /* entries / uncompressed entries */
double nbtable_top_share(const nbtable *t);        /* share of cells on the top pattern */
size_t nbtable_bytes(const nbtable *t);            /* tables + pattern array */

/* ---- look-ups, shared by the CPU executor and the GPU kernels ---- */
typedef struct {
    const int32_t *tab;
    const int32_t *pat;
    int ntab;
    int crows; /* GPU: leading pattern rows also held in constant memory (0: none) */
} nbview;

static inline nbview nbtable_view(const nbtable *t)
{
    nbview v = {t->tab, t->pat, t->ntab, 0};
    return v;
}

/* Stored entry of relation r for plane cell p. */
PILLAR_HD int32_t nb_entry(nbview t, int compressed, int r, int p)
{
    return compressed ? t.tab[r * t.ntab + t.pat[p]] : t.tab[(long)r * t.ntab + p];
}

/* Entry of relation r for a cell whose pattern row is already known (compressed idxvar). */
PILLAR_HD int32_t nb_entry_row(nbview t, int r, int row) { return t.tab[r * t.ntab + row]; }

/* Offset of relation r (-1 = the cell itself) of plane cell p. */
PILLAR_HD int32_t nb_offset(nbview t, int chasing, int compressed, int r, int p)
{
    if (r < 0)
        return 0;
    if (!chasing || r < NREL1)
        return nb_entry(t, compressed, r, p);
    int32_t o = nb_entry(t, compressed, rel_hop1(r), p);
    return o + nb_entry(t, compressed, rel_hop2(r), p + o);
}

#endif
