/* problem.h — one stencil on one grid: the regular grid, its unstructured twin, the neighbour
 * table and host fields for both, inputs filled and outputs poisoned. */
#ifndef PILLAR_PROBLEM_H
#define PILLAR_PROBLEM_H

#include "../grids/grid.h"
#include "../stencils/stencil.h"
#include "../storage/field.h"
#include "../storage/nbtable.h"

typedef struct {
    stencil_t stencil;
    precision_t prec;
    int nx, ny, nz; /* full grid, halo included */
    int halo;
    layout_t layout;
    int w;          /* zcurve-w run width */
    uint64_t seed;
    int chasing, compressed;
} problem_spec;

typedef struct {
    problem_spec s;
    rgrid rg;
    ugrid ug;
    nbtable nt;
    int nf;      /* fields: inputs + outputs */
    fieldset rf; /* regular-grid host fields */
    fieldset uf; /* unstructured-grid host fields */
} problem;

/* Checks the spec (message naming the bad value, -1) and builds everything. */
int problem_check(const problem_spec *s);
int problem_make(problem *pb, const problem_spec *s);
void problem_free(problem *pb);
/* Rebuilds the unstructured twin with another layout/storage (the regular grid stays). */
int problem_relayout(problem *pb, layout_t layout, int w, int chasing, int compressed);
void problem_poison(problem *pb);

/* Output points computed per run, and bytes a perfect implementation moves. */
long problem_points(const problem *pb);
double problem_min_bytes(const problem *pb);

#endif
