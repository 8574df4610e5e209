/* index.h — how a neighbour's field index is found, for the two grid kinds.
 *
 * Executors define NB(R) as one of these. Each expects in scope:
 *   regular:       i (field index of the cell), ys (row stride)
 *   unstructured:  i, p (plane cell of i), nbv (an nbview), and the compile-time constants
 *                  CHASING and COMPRESSED */
#ifndef PILLAR_INDEX_H
#define PILLAR_INDEX_H

#include "../stencils/registry.h"
#include "../storage/nbtable.h"

#define REG_NB(R) (i + RX_##R + RY_##R * ys)
#define UNS_NB(R) (i + nb_offset(nbv, CHASING, COMPRESSED, RIDX_##R, p))

/* FOR_EACH_STENCIL(X, A) expands X(PREFIX, A) for each W/E/S/N stencil: stencils/registry.h. */

#endif
