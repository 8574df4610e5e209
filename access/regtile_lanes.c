/* regtile_lanes.c — the lane rule of access/regtile.cu on the host (regtile_lanes.h). */
#include "regtile_lanes.h"

#include <string.h>

void regtile_lanes_count(const ugrid *g, const nbtable *t, int cells, int bz, regtile_lanes *out)
{
    memset(out, 0, sizeof *out);
    const nbview v = nbtable_view(t);
    const int c0 = g->nhalo, n = g->nxy - g->nhalo;
#define RTL_OFF(r, p) ((long)nb_offset(v, t->chasing, t->compressed, (r), (p)))
    for (int cell = 0; cell < n; cell++) {
        const int p = c0 + cell, cl = cell % cells;
        for (int z = 0; z < bz; z++) {
            const int lane = (cl + z * cells) & 31;
            /* lane - 1 (+ 1) holds cell - 1 (+ 1) at the same level */
            const int up = lane > 0 && cl > 0, down = lane < 31 && cl + 1 < cells && cell + 1 < n;
            const int ok[RTL_COUNT] = {
                up && RTL_OFF(R_W, p) == -1,
                down && RTL_OFF(R_E, p) == 1,
                up && p - 1 + RTL_OFF(R_S, p - 1) == p + RTL_OFF(R_WS, p),
                down && p + 1 + RTL_OFF(R_S, p + 1) == p + RTL_OFF(R_ES, p),
                up && p - 1 + RTL_OFF(R_N, p - 1) == p + RTL_OFF(R_WN, p),
                down && p + 1 + RTL_OFF(R_N, p + 1) == p + RTL_OFF(R_EN, p),
                RTL_OFF(R_NS, p) == 0,
                RTL_OFF(R_SN, p) == 0,
            };
            out->points++;
            for (int r = 0; r < RTL_COUNT; r++)
                out->shared[r] += ok[r];
        }
    }
#undef RTL_OFF
}

double regtile_lanes_loads(const regtile_lanes *l)
{
    if (l->points == 0)
        return 0.0;
    double loads = 5.0 * (double)l->points;
    for (int r = 0; r < RTL_COUNT; r++)
        loads += (double)(l->points - l->shared[r]);
    loads += 5.0 * (double)(2 * l->points - l->shared[RTL_W] - l->shared[RTL_E]);
    return loads / (double)l->points;
}
