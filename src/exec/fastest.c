/* fastest.c — the measured choices behind fastest_known (fastest.h).
 *
 * Source: bench/results/2026-11-23-h100-libpillar-check/after-6a5c2db, `pillar bench --quick`
 * on the H100, 512x512x64 double: for each stencil the storage and strategy of its fastest
 * unstructured row (in µs, z-curve-w order; the packed-row tables that some rows used are not an
 * option of the library). A new measurement that changes a winner changes one line here. */
#include "fastest.h"

#include <string.h>

static const struct {
    const char *stencil; /* registry name */
    fastest_config c;
} table[] = {
    {"laplap", {1, 1, ACC_ZLOOP}},           /* 161.0 (next: idxvar non-chasing compressed 178.5) */
    {"lap", {1, 1, ACC_ZLOOP}},              /* 105.5 */
    {"hdiff", {0, 1, ACC_IDXVAR}},           /* 195.2 (row-major 189.9; chasing 203.6) */
    {"fastwaves", {1, 1, ACC_ZLOOP_SLICED}}, /* 570.2 */
    /* Candidates (issue 21), not measured: if tools/incore-sweep.sh shows twopass fastest, these
     * lines replace the ones above, with the figures of that run. Before that, twopass needs
     * iterated runs (access.h: iterated 0), since the library's steps take this table too.
     *   {"laplap", {0, 1, ACC_TWOPASS}},    (µs: from the sweep, z-curve-w, 128x1x4)
     *   {"lap", {0, 1, ACC_TWOPASS}},
     *   {"hdiff", {0, 1, ACC_TWOPASS}}, */
};

fastest_config fastest_known(stencil_t s)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].stencil, stencil_table[s].name) == 0)
            return table[i].c;
    return (fastest_config){1, 0, ACC_IDXVAR};
}
