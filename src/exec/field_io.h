/* field_io.h — field files (HDF5, docs/field-format.md): the fields of a run as datasets
 * [nz][ncells] named after the stencil's fields, in the user's cell order — the mesh file's rows
 * for a grid from a mesh, y*nx + x over the whole nx x ny plane (halo included) for an emulated
 * grid — so a file does not depend on --layout, storage or access strategy. */
#ifndef PILLAR_FIELD_IO_H
#define PILLAR_FIELD_IO_H

#include "problem.h"

#define FIELD_FORMAT_VERSION 2 /* written (netCDF-4, named dimensions, UGRID); 1 is still read */

/* The user's cell order mapped onto pb's grids: for every user cell, its cell in the
 * unstructured grid and, when there is a regular twin, its position there. */
typedef struct {
    int ncells;
    int *cell;  /* user cell -> unstructured grid cell */
    long *roff; /* user cell -> index of its (x, y) at level 0 of the regular twin; NULL if none */
} user_order;
void user_order_make(const problem *pb, user_order *u);
void user_order_free(user_order *u);
/* Element of user cell i at level z in a field of the unstructured grid (uns) or regular twin. */
size_t user_order_element(const problem *pb, const user_order *u, int uns, int i, int z);
/* Whether the stencil computes user cell i at level z (not a halo cell, not a top level it
 * leaves out): where an output field holds a result. */
int user_order_computed(const problem *pb, const user_order *u, int i, int z);

/* Cells per level of pb in the user's order (the second dimension of every dataset). */
int field_ncells(const problem *pb);

/* Replaces the initial values of every input field of pb's stencil with the datasets of the same
 * name in path, in both the unstructured fields and (when pb has one) the regular twin's, so that
 * verification compares like with like. Every input dataset must be present, of rank 2 and shape
 * [nz][ncells] of pb, floating point of either precision (converted), and hold finite values that
 * fit the run's precision. Returns 0, or -1 after a message naming the file, the dataset and the
 * first bad index; pb's inputs may then be partly replaced, and pb should be discarded. */
int field_read_inputs(problem *pb, const char *path);

/* The states of an iterated run after some of its steps (--output-every N), for field_write's
 * time axis: copies of pb's input fields (on its unstructured grid). */
typedef struct {
    int n, cap;
    int *step;       /* step[i]: the steps done when state i was taken */
    fieldset *state; /* state[i].p[k], k < nin: the input fields then */
} field_snapshots;

/* Appends a copy of pb's state (its input fields) as the state after `step` steps. */
void field_snapshot_add(field_snapshots *s, const problem *pb, int step);
/* Frees s's copies (s may be empty); s is empty afterwards. */
void field_snapshots_free(field_snapshots *s, const problem *pb);

/* What field_write records besides the outputs. */
typedef struct {
    int with_inputs;   /* also write the input fields (from pb's unstructured grid) */
    const char *flags; /* the command line, stored as the attribute `flags` */
    int steps;         /* an iterated run's time steps, 0 for one application: the file then
                        * holds the state after them, the input fields only (attribute steps) */
    int inputs_only;   /* write the input fields only (with_inputs implied) */
    const field_snapshots *snaps; /* with steps: NULL for the state after the last step alone,
                                   * else the states of the time axis (the last one is the
                                   * state after `steps`) */
} field_write_opts;

/* Writes the output fields of out (laid out on pb's unstructured grid when uns, else on its
 * regular twin) to path; with w->steps, the input fields of pb's unstructured grid only (the
 * state after w->steps steps, with a scalar coordinate `time` = steps), or with w->snaps the
 * states of its snapshots along an unlimited dimension `time`. Points where the stencil computes
 * nothing (halo cells, the top levels of fastwaves) are written as NaN, declared as the field's
 * _FillValue. Every field has the vertical coordinate `nLevels` (the level index). The file
 * appears complete or not at all (written to a temporary file and renamed). Returns 0, or -1
 * after a message. */
int field_write(const problem *pb, fieldset out, int uns, const field_write_opts *w,
                const char *path);

/* Whether a file can be created at path (its directory exists and is writable): checked before
 * a run so that a bad --output fails before the work. Returns 0, or -1 after a message. */
int field_output_check(const char *path);

#endif
