/* onchip_chart.c — one flat chart of an unstructured quad grid (src/plan/onchip_chart.h). */
#include "onchip_chart.h"

#include "base/common.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define UNSET INT_MIN

/* Gives cell t the place (x, y), or checks the one it has; 0, or 1 with why. */
static int place(int *cx, int *cy, int t, int x, int y, int from, int r, char *why, size_t n)
{
    if (cx[t] == UNSET) {
        cx[t] = x;
        cy[t] = y;
        return 0;
    }
    if (cx[t] == x && cy[t] == y)
        return 0;
    snprintf(why, n, "relation %s of cell %d reaches cell %d at (%d, %d) of the chart, where the "
             "lattice puts (%d, %d): the labels turn", rel_name[r], from, t, cx[t], cy[t], x, y);
    return 1;
}

int onchip_chart_build(const ugrid *g, onchip_chart *c, char *why, size_t n)
{
    memset(c, 0, sizeof *c);
    const int nxy = g->nxy, h = g->nhalo, inner = nxy - h;
    if (inner < 1) {
        snprintf(why, n, "the grid has no inner cell");
        return 1;
    }
    int *cx = xalloc(sizeof(int) * (size_t)nxy), *cy = xalloc(sizeof(int) * (size_t)nxy);
    int *queue = xalloc(sizeof(int) * (size_t)inner);
    for (int i = 0; i < nxy; i++)
        cx[i] = cy[i] = UNSET;
    int bad = 0, head = 0, tail = 0;
    cx[h] = cy[h] = 0;
    queue[tail++] = h;
    /* the inner cells, breadth first through W, E, S and N */
    while (head < tail && !bad) {
        const int s = queue[head++];
        for (int r = R_W; r <= R_N && !bad; r++) {
            const int t = g->nbr[(size_t)r * nxy + s];
            if (t < 0) {
                snprintf(why, n, "inner cell %d has no %s neighbour", s, rel_name[r]);
                bad = 1;
            } else if (t >= h) {
                const int fresh = cx[t] == UNSET;
                bad = place(cx, cy, t, cx[s] + rel_dx[r], cy[s] + rel_dy[r], s, r, why, n);
                if (!bad && fresh)
                    queue[tail++] = t;
            }
        }
    }
    if (!bad && tail < inner) {
        snprintf(why, n, "%d of %d inner cells are not reached through W, E, S and N from cell %d",
                 inner - tail, inner, h);
        bad = 1;
    }
    /* every relation of every inner cell where the lattice puts it (halo cells placed so). The
     * breadth-first walk placed the inner neighbours; a second-order relation whose first hop is
     * an inner cell is that cell's first-order one (rel_dx and rel_dy add up), placed in its own
     * turn here or above, so only the hops through a halo cell are followed */
    for (int s = h; s < nxy && !bad; s++)
        for (int r = 0; r < NREL2 && !bad; r++) {
            if (g->nbr[(size_t)(r < NREL1 ? r : rel_hop1(r)) * nxy + s] >= h)
                continue;
            const int t = ugrid_follow(g, s, r);
            if (t < 0) {
                snprintf(why, n, "inner cell %d has no relation %s", s, rel_name[r]);
                bad = 1;
            } else
                bad = place(cx, cy, t, cx[s] + rel_dx[r], cy[s] + rel_dy[r], s, r, why, n);
        }
    int x0 = INT_MAX, y0 = INT_MAX, x1 = INT_MIN, y1 = INT_MIN;
    for (int s = h; s < nxy && !bad; s++) {
        x0 = cx[s] < x0 ? cx[s] : x0;
        x1 = cx[s] > x1 ? cx[s] : x1;
        y0 = cy[s] < y0 ? cy[s] : y0;
        y1 = cy[s] > y1 ? cy[s] : y1;
    }
    if (!bad && (long)(x1 - x0 + 1) * (y1 - y0 + 1) != inner) {
        snprintf(why, n, "the %d inner cells do not fill the %dx%d rectangle they span", inner,
                 x1 - x0 + 1, y1 - y0 + 1);
        bad = 1;
    }
    if (!bad) {
        const int R = ONCHIP_CHART_HALO;
        c->nx = x1 - x0 + 1 + 2 * R;
        c->ny = y1 - y0 + 1 + 2 * R;
        const size_t places = (size_t)c->nx * (size_t)c->ny;
        c->cells = xalloc(sizeof(int32_t) * places);
        for (size_t i = 0; i < places; i++)
            c->cells[i] = -1;
        for (int s = 0; s < nxy && !bad; s++) {
            if (cx[s] == UNSET)
                continue; /* a halo cell no relation reaches */
            const int x = cx[s] - x0 + R, y = cy[s] - y0 + R;
            int32_t *at = &c->cells[(size_t)x + (size_t)y * (size_t)c->nx];
            if (*at >= 0) { /* two cells at one place (a halo cell among the inner ones too) */
                snprintf(why, n, "cells %d and %d share the place (%d, %d)", *at, s, cx[s], cy[s]);
                bad = 1;
            } else
                *at = s;
        }
        for (size_t i = 0; i < places && !bad; i++)
            if (c->cells[i] < 0)
                c->cells[i] = h;
    }
    xfree(cx);
    xfree(cy);
    xfree(queue);
    if (bad)
        onchip_chart_free(c);
    return bad;
}

void onchip_chart_free(onchip_chart *c)
{
    xfree(c->cells);
    memset(c, 0, sizeof *c);
}
