/* coeffs.h — the coefficients of a stencil, as its descriptor states them (stencil_info.coeffs,
 * stencils/stencil.h): read-only arrays of the cells besides the fields, built once from the mesh
 * (storage/coeffs.h holds them). A stencil's header defines PREFIX_COEFFS as a coef_desc
 * initializer and declares its build hook; its own .c beside the header defines the hook. Every
 * executor then carries the set for it: the problem builds it (stencil_coeffs), chunk and rank
 * parts gather theirs (coef_set_gather), device images and kernels take the arrays back to back
 * (access/launch.h: kparams coef, coef_n). The body reads them through
 *   GCOEF(i, c)      per-cell array i at cell c
 *   GCOEFJ(i, c, j)  per-slot array i at cell c, slot j (c's j-th present neighbour)
 * which every graph executor defines (src/exec/cpu_loops.h, access/graph.cu,
 * access/graph_kernels.cuh, src/jit/compose.c). */
#ifndef PILLAR_STENCIL_COEFFS_H
#define PILLAR_STENCIL_COEFFS_H

#include "../storage/coeffs.h"

struct ugrid;
struct mesh;

/* Builds the set of grid g's cells (g->adj, g->mesh_cell) from mesh m in precision p, as the
 * descriptor says (count, a width of 1 or g->adjw each); file_order: index the cells by the
 * mesh file's cell (the lattice twin) instead of the grid's. Returns 0, or -1 with a message
 * naming `file`. */
typedef int (*coef_build_fn)(coef_set *out, const struct ugrid *g, const struct mesh *m,
                             precision_t p, int file_order, const char *file);

/* coef_build_fn on a piece of the grid (a rank's cells of a distributed run): g holds the piece's
 * cells (g->mesh_cell its cells in m, which holds only them), and each value the build takes as a
 * minimum over the grid (fluxdiff's time step) is min_all(u, the piece's): the minimum over
 * every rank's piece, so that the values equal the whole grid's bit for bit for every cell whose
 * row the piece holds whole (the others' are not meant to be read). Every piece calls min_all
 * the same number of times, even when it fails (then after its message). Returns 0, or -1. */
typedef int (*coef_build_part_fn)(coef_set *out, const struct ugrid *g, const struct mesh *m,
                                  precision_t p, const char *file,
                                  double (*min_all)(void *u, double x), void *u);

/* Bit i of `slots`: array i has a column per neighbour slot (the list width); else per cell. */
#define COEF_SLOT(i) (1u << (i))

typedef struct {
    int n;             /* arrays (0: the stencil reads none), at most PILLAR_MAXC */
    unsigned slots;    /* COEF_SLOT(i) for each per-slot array */
    coef_build_fn build;
    coef_build_part_fn build_part; /* NULL: built from the whole grid only */
} coef_desc;

/* Columns of array i with lists `width` wide. */
static inline int coef_desc_width(const coef_desc *d, int i, int width)
{
    return (d->slots & COEF_SLOT(i)) ? width : 1;
}

/* Bytes of one cell's coefficients in precision p with lists `width` wide (what device images,
 * chunk budgets and the distributed model count); 0 for a stencil without. */
static inline size_t coef_desc_cell_bytes(const coef_desc *d, precision_t p, int width)
{
    size_t v = 0;
    for (int i = 0; i < d->n; i++)
        v += (size_t)coef_desc_width(d, i, width);
    return prec_size(p) * v;
}

#endif
