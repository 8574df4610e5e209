/* regtile_lanes.h — the lane rule of access/regtile.cu's unstructured kernels, counted on the
 * host: which of a point's values and Laplacians a thread takes from its neighbouring lanes of
 * a warp (equal field indices) instead of loading them. It predicts the kernels' loads per point
 * for a layout and block shape (docs/access.md) and states the rule in plain C, checked against
 * the cells themselves in tests/test_regtile_lanes.c. */
#ifndef PILLAR_REGTILE_LANES_H
#define PILLAR_REGTILE_LANES_H

#include "../grids/grid.h"
#include "../storage/nbtable.h"

/* What may come without a load: the input (and for W, E the Laplacian) at W and E from lanes
 * -1 and +1, the input at WS, ES (WN, EN) from those lanes' S (N) values, and the input at NS
 * (SN) from the cell's own value when that relation is the cell. */
enum { RTL_W, RTL_E, RTL_WS, RTL_ES, RTL_WN, RTL_EN, RTL_NS, RTL_SN, RTL_COUNT };

typedef struct {
    long points;              /* threads x levels counted: inner cells x bz */
    long shared[RTL_COUNT];   /* of those, the ones whose relation comes without a load */
} regtile_lanes;

/* Counts, for the inner cells of g with the table t, launched in blocks of `cells` consecutive
 * cells (bx·by) times bz slices (threads numbered cell-fastest, warps of 32 consecutive
 * threads; lanes at different slices never share), what the kernels share. */
void regtile_lanes_count(const ugrid *g, const nbtable *t, int cells, int bz, regtile_lanes *out);

/* Value loads per point the counts imply: the cell, S, N, SS, NN, each unshared relation of the
 * eight, and five more for each of lap(W), lap(E) computed by the thread itself. */
double regtile_lanes_loads(const regtile_lanes *l);

#endif
