/* same_cells.h — the outputs of two problems on the cells of one mesh file, each in its own cell
 * order, compared cell by cell of the file. */
#ifndef PILLAR_SAME_CELLS_H
#define PILLAR_SAME_CELLS_H

#include "src/exec/problem.h"

/* Output points (every cell, the stencil's levels) whose bits differ between the same file cell
 * of a (outputs oa) and of b (outputs ob). */
static inline long differ_by_file_cell(const problem *a, fieldset oa, const problem *b,
                                       fieldset ob)
{
    int n = a->ug.nxy, *at = xalloc(sizeof(int) * (size_t)n); /* file cell -> cell of b */
    for (int k = 0; k < n; k++)
        at[b->ug.mesh_cell[k]] = k;
    long differ = 0;
    for (int f = stencil_table[a->s.stencil].nin; f < a->nf; f++)
        for (int z = 0; z < stencil_zend(a->s.stencil, a->s.nz); z++)
            for (int c = 0; c < n; c++) {
                size_t i = (size_t)c + z * a->ug.zstride,
                       j = (size_t)at[a->ug.mesh_cell[c]] + z * b->ug.zstride;
                differ += !field_same_bits(a->s.prec, oa.p[f], i, ob.p[f], j);
            }
    xfree(at);
    return differ;
}

#endif
