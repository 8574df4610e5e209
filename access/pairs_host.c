/* pairs_host.c — the host hook (access/hooks.h) of pairs on the unstructured grid: the lattice
 * pairs (access/pairs.cu).
 *
 * An aligned pair of inner cells (p even, p + 1) is a lattice pair for a stencil when each value
 * either cell's body reads lies where the regular twin's pair code would find it: for cell q of
 * the pair (0 or 1) and a relation R the body reads (and the cell itself), with lattice
 * displacement (dx, dy) and d = q + dx, the cell R reaches is half d mod 2 of an aligned pair
 * (even plane index) at a displacement from p that depends on (floor(d/2), dy) alone: every
 * (q, R) falling on the same slot names the same aligned pair. The slots' displacements form
 * the pair's pattern row; equal rows are stored once. A lattice in row-major or z-curve order
 * (even row widths, even halo counts) makes nearly every inner pair one; a random order or a
 * pair across a seam where labels turn makes none, and those cells run the general code.
 *
 * Only the grid's relations decide (ugrid_follow, as the neighbour tables are built): nothing
 * assumes a lattice, so a pair that passes reads exactly the cells the general code reads. */
#include "hooks.h"

#include "../base/common.h"

#include <string.h>

typedef struct {
    int npat;     /* distinct pattern rows */
    int npairs;   /* aligned pairs of the plane: (nxy + 1) / 2 */
    int32_t *tab; /* npat rows of PAIRS_SLOTS displacements */
    int32_t *pat; /* each aligned pair's row, -1 where it is not a lattice pair */
} pair_lists;

enum { SLOT_UNSET = INT32_MIN };

/* The slot of (d = q + dx, dy) in a pattern row (access/pairs.cu PAIR_SLOT). */
static int pair_slot(int d, int dy) { return (dy + 2) * 3 + ((d + 2) >> 1); }

/* The pattern row of the pair at p (even) for the relations in mask, into row; 0 if it is no
 * lattice pair. */
static int pair_row(const ugrid *g, unsigned mask, int p, int32_t row[PAIRS_SLOTS])
{
    for (int j = 0; j < PAIRS_SLOTS; j++)
        row[j] = SLOT_UNSET;
    for (int q = 0; q < 2; q++)
        for (int r = -1; r < NREL2; r++) {
            if (r >= 0 && !((mask >> r) & 1u))
                continue;
            const int c = r < 0 ? p + q : ugrid_follow(g, p + q, r);
            if (c < 0)
                return 0;
            const int d = q + (r < 0 ? 0 : rel_dx[r]), dy = r < 0 ? 0 : rel_dy[r];
            const long at = (long)c - (d & 1); /* the aligned pair holding c */
            if ((at & 1) || at < 0 || at + 1 >= g->zstride)
                return 0;
            int32_t *slot = &row[pair_slot(d, dy)];
            if (*slot == SLOT_UNSET)
                *slot = (int32_t)(at - p);
            else if (*slot != at - p)
                return 0;
        }
    for (int j = 0; j < PAIRS_SLOTS; j++)
        if (row[j] == SLOT_UNSET)
            row[j] = 0;
    return 1;
}

/* ---- equal rows stored once: open addressing on the row's words ---- */
typedef struct {
    int *slot; /* pattern index + 1, 0: empty */
    size_t cap;
} row_index;

static uint64_t row_hash(const int32_t *row)
{
    uint64_t h = 1469598103934665603ull;
    for (int j = 0; j < PAIRS_SLOTS; j++) {
        h ^= (uint32_t)row[j];
        h *= 1099511628211ull;
    }
    return h;
}

/* The row's pattern index in l, added if new. */
static int row_intern(pair_lists *l, row_index *ix, size_t *cap_tab, const int32_t *row)
{
    if ((size_t)(l->npat + 1) * 2 > ix->cap) { /* grow the index, rehash */
        size_t cap = ix->cap ? ix->cap * 2 : 1024;
        int *slot = xalloc(cap * sizeof *slot);
        for (int k = 0; k < l->npat; k++) {
            size_t h = (size_t)row_hash(l->tab + (size_t)k * PAIRS_SLOTS) & (cap - 1);
            while (slot[h])
                h = (h + 1) & (cap - 1);
            slot[h] = k + 1;
        }
        xfree(ix->slot);
        ix->slot = slot;
        ix->cap = cap;
    }
    size_t h = (size_t)row_hash(row) & (ix->cap - 1);
    for (; ix->slot[h]; h = (h + 1) & (ix->cap - 1)) {
        const int k = ix->slot[h] - 1;
        if (!memcmp(l->tab + (size_t)k * PAIRS_SLOTS, row, sizeof(int32_t) * PAIRS_SLOTS))
            return k;
    }
    if ((size_t)l->npat == *cap_tab) {
        const size_t row_bytes = sizeof(int32_t) * PAIRS_SLOTS;
        l->tab = xgrow(l->tab, row_bytes * *cap_tab, row_bytes * (*cap_tab ? *cap_tab * 2 : 64));
        *cap_tab = *cap_tab ? *cap_tab * 2 : 64;
    }
    memcpy(l->tab + (size_t)l->npat * PAIRS_SLOTS, row, sizeof(int32_t) * PAIRS_SLOTS);
    ix->slot[h] = l->npat + 1;
    return l->npat++;
}

static int prepare_pairs(void **data, const access_prep_in *in)
{
    const ugrid *g = in->g;
    const stencil_info *si = &stencil_table[in->stencil];
    if (si->graph) /* pairs has no graph kernels */
        return 0;
    pair_lists *l = xalloc(sizeof *l);
    memset(l, 0, sizeof *l);
    l->npairs = (g->nxy + 1) / 2;
    l->pat = xalloc(sizeof(int32_t) * (size_t)(l->npairs > 0 ? l->npairs : 1));
    for (int k = 0; k < l->npairs; k++)
        l->pat[k] = -1;
    row_index ix = {NULL, 0};
    size_t cap_tab = 0;
    int32_t row[PAIRS_SLOTS];
    for (int p = g->nhalo + (g->nhalo & 1); p + 1 < g->nxy; p += 2)
        if (pair_row(g, si->rels, p, row))
            l->pat[p / 2] = row_intern(l, &ix, &cap_tab, row);
    xfree(ix.slot);
    *data = l;
    return 0;
}

static void release_pairs(void *data)
{
    pair_lists *l = data;
    xfree(l->tab);
    xfree(l->pat);
    xfree(l);
}

/* the image: the pattern rows (16-byte aligned at the image's start), then each pair's row */
static size_t words_pairs(const void *data)
{
    const pair_lists *l = data;
    return (size_t)l->npat * PAIRS_SLOTS + (size_t)l->npairs;
}

static void pack_pairs(const void *data, int32_t *at)
{
    const pair_lists *l = data;
    if (l->npat)
        memcpy(at, l->tab, sizeof(int32_t) * PAIRS_SLOTS * (size_t)l->npat);
    memcpy(at + (size_t)l->npat * PAIRS_SLOTS, l->pat, sizeof(int32_t) * (size_t)l->npairs);
}

/* Any range of cells: the kernel checks that both cells of a pair are in its launch. Pairs run
 * as vectors only where every field and the level stride keep them aligned. */
static int bind_pairs(const void *data, const int32_t *image, int c0, int c1, kparams *P,
                      int *column, unsigned *blocks)
{
    const pair_lists *l = data;
    (void)c0;
    (void)c1;
    (void)column;
    int aligned = !(P->zs & 1) && l->npat > 0;
    for (int f = 0; f < PILLAR_MAXF; f++)
        aligned = aligned && !((uintptr_t)P->f.p[f] & 15u);
    P->zp_tab = image;
    P->zp_pat = aligned ? image + (size_t)l->npat * PAIRS_SLOTS : NULL;
    *blocks = 0;
    return 0;
}

static int hmax_pairs(const void *data)
{
    (void)data;
    return 0;
}

const access_prep access_prep_PAIRS = {PREP_FOR_ANY, prepare_pairs, release_pairs, words_pairs,
                                       pack_pairs, bind_pairs, hmax_pairs, 1};

/* Lattice pairs of g for stencil s (the test's view of the lists): *npat rows, and the pair
 * count; pat (npairs entries, may be NULL) gets each pair's row index or -1, tab (npat rows,
 * may be NULL) the rows. Returns the number of lattice pairs. */
long pairs_lattice_count(const ugrid *g, stencil_t s, int32_t *pat, int32_t **tab, int *npat)
{
    access_prep_in in = {g, s, 128, NULL, 0};
    void *data = NULL;
    if (prepare_pairs(&data, &in) != 0 || !data)
        return -1;
    pair_lists *l = data;
    long n = 0;
    for (int k = 0; k < l->npairs; k++)
        n += l->pat[k] >= 0;
    if (pat)
        memcpy(pat, l->pat, sizeof(int32_t) * (size_t)l->npairs);
    if (npat)
        *npat = l->npat;
    if (tab) {
        *tab = l->tab;
        l->tab = NULL;
    }
    release_pairs(l);
    return n;
}
