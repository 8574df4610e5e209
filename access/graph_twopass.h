/* graph_twopass.h — the host view of graph-twopass's lists (access/graph_twopass_host.c): what
 * access_prepare builds for it, for the plans and tests that look into them. */
#ifndef PILLAR_GRAPH_TWOPASS_H
#define PILLAR_GRAPH_TWOPASS_H

#include "../storage/gtwopass.h"

/* The lists (storage/gtwopass.h) in data made by access_prepare(ACC_GRAPH_TWOPASS, ...); NULL
 * for NULL. */
const gtwopass *graph_twopass_lists(const void *data);

#endif
