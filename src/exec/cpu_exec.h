/* cpu_exec.h — the CPU backend: every stencil on the regular grid and, through table look-ups, on
 * the unstructured grid (any layout and storage); OpenMP across cells. It is also the reference. */
#ifndef PILLAR_CPU_EXEC_H
#define PILLAR_CPU_EXEC_H

#include "cpu_loops.h"
#include "problem.h"

/* Computes into the output fields of f (laid out as pb's regular / unstructured grid). A graph
 * stencil runs on the unstructured grid through its neighbour lists pb->ell (the reference), and
 * "regular" means its lattice twin (problem_has_lattice(pb): the mesh's cells in file order, neighbours
 * by arithmetic, grids/lattice.h). */
void cpu_run_regular(const problem *pb, fieldset f);
void cpu_run_unstructured(const problem *pb, fieldset f);
/* A graph stencil on pb's unstructured grid through its offset table pb->gt (chasing or not,
 * compressed or not): the tables the GPU strategies read. A stencil file loaded in the checked
 * mode runs its lists instead (the checks are made on those). */
void cpu_run_gtable(const problem *pb, fieldset f);

/* The inner cells at the computed levels of pb's unstructured grid (what cpu_run_unstructured
 * computes). */
cpu_block cpu_block_inner(const problem *pb);

/* Computes the outputs of f on the points of block b only, with neighbours from table nt (a
 * W/E/S/N stencil) or the neighbour lists ell (a graph stencil; the other may be NULL). */
void cpu_run_block(stencil_t s, precision_t p, const nbtable *nt, const ell_table *ell,
                   cpu_block b, fieldset f);

#endif
