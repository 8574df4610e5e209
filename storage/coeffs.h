/* coeffs.h — a coefficient set: the read-only per-cell arrays a graph stencil reads besides its
 * fields (stencils/coeffs.h describes which; fluxdiff's r and κ, stencils/fluxdiff.h).
 *
 * Array i holds width[i] columns of n cells, in the field precision: a[i][j·n + c] is column j
 * of cell c. A per-cell array has width 1; a per-slot array one column per slot of the cells'
 * neighbour lists (the list width), column j belonging to the cell's j-th present neighbour.
 * The arrays of a set are numbered as the cells of whatever holds it: a grid's cells (problem),
 * a mesh file's (the lattice twin), a part's local cells (ooc_part, gathered by coef_set_gather).
 * Device images and kernels see the arrays back to back: a[0], a[1], ... (access/launch.h). */
#ifndef PILLAR_STORAGE_COEFFS_H
#define PILLAR_STORAGE_COEFFS_H

#include "../base/common.h"

#include <stdint.h>

/* Arrays of a set at most. */
#define PILLAR_MAXC 4

typedef struct coef_set {
    int n;                   /* cells: the column stride of every array */
    int count;               /* arrays; 0: an empty set */
    int width[PILLAR_MAXC];  /* columns of array i */
    void *a[PILLAR_MAXC];    /* array i: width[i]·n values */
} coef_set;

/* An empty set of `count` arrays of the given widths for n cells in precision p (zeroed).
 * count in [1, PILLAR_MAXC], widths >= 1. */
void coef_set_alloc(coef_set *c, int count, const int *width, int n, precision_t p);
void coef_set_free(coef_set *c);

/* Values of one cell across the set: Σ width[i]. */
static inline size_t coef_set_cell_values(const coef_set *c)
{
    size_t v = 0;
    for (int i = 0; i < c->count; i++)
        v += (size_t)c->width[i];
    return v;
}

/* The set of `ncells` cells gathered from `all` (numbered as gcell's targets): column j of cell
 * l is all's column j of cell gcell[l], every array. *out is freed first. Returns 0, or -1 with
 * a message naming `who` when a gcell lies outside all. */
int coef_set_gather(coef_set *out, const coef_set *all, const int32_t *gcell, int ncells,
                    precision_t p, const char *who);

/* Copies the arrays of c back to back (a[0], a[1], ...) to dst: coef_set_cell_values(c)·n
 * values of es bytes. */
void coef_set_pack(const coef_set *c, size_t es, void *dst);

#endif
