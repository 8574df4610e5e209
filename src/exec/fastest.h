/* fastest.h — the GPU configuration pillar knows to be fastest for a stencil: the storage and
 * access strategy of its best unstructured row in a committed H100 benchmark, for the library's
 * "auto" storage and access (include/pillar.h). Every configuration computes the same bits; only
 * the time differs. */
#ifndef PILLAR_FASTEST_H
#define PILLAR_FASTEST_H

#include "access/access.h"
#include "stencils/stencil.h"

typedef struct {
    int chasing, compressed; /* the storage (storage/nbtable.h) */
    access_t access;         /* the strategy (access/access.h) */
} fastest_config;

/* The fastest known configuration of stencil s. A stencil the table does not list (a new one,
 * or a graph stencil, whose kernel ignores the strategy) gets chasing, uncompressed, idxvar. */
fastest_config fastest_known(stencil_t s);

#endif
