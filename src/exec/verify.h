/* verify.h — comparing outputs: bit for bit (unstructured vs regular) or within a tolerance
 * (GPU vs CPU reference). Unwritten (still poisoned) points always fail. */
#ifndef PILLAR_VERIFY_H
#define PILLAR_VERIFY_H

#include "problem.h"

typedef struct {
    long checked;    /* output points compared */
    long unwritten;  /* points still holding the poison */
    long differ;     /* points whose bits differ */
    double max_err;  /* max |a - b| / max |b| over each field */
    int bad_x, bad_y, bad_z, bad_field; /* first failing point, if any */
} verify_result;

/* a and b are output field sets; a_uns / b_uns say whether each is laid out on the unstructured
 * grid (else the regular one; for a graph stencil its lattice twin, problem_has_lattice(pb), compared
 * cell by cell over the unstructured grid's inner cells). */
verify_result verify_compare(const problem *pb, fieldset a, int a_uns, fieldset b, int b_uns);

/* Both on the unstructured grid, over its inner cells (for meshes without a regular twin); a
 * failing point is reported by the mesh file's cell index in bad_x (bad_y = -1). */
verify_result verify_compare_cells(const problem *pb, fieldset a, fieldset b);

/* Tolerance (docs/verification.md): 1e-12 (double), 1e-5 (float). */
double verify_tolerance(precision_t p);

/* One line: "bit-exact (N points)" or what failed. */
void verify_describe(const problem *pb, const verify_result *r, int need_exact, char *buf, size_t n);
int verify_ok(const problem *pb, const verify_result *r, int need_exact);

#endif
