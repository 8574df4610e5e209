/* The lane rule of access/regtile.cu (access/regtile_lanes.h: counted from the table's offsets,
 * lanes found by arithmetic on the thread number) against brute force: every block's threads laid
 * out in an array, a thread's neighbouring lanes looked up there, relations followed through the
 * grid's own cells (ugrid_follow), never the table. On emulated grids in every layout (odd sizes,
 * zcurve-w of 8 and 32), every table storage, blocks of 24x1x3 (a partial warp, warps across
 * slices), 48x1x2, 128x1x1 and 8x2x16; on the quad meshes whose labels turn (cubed spheres, a
 * scrambled patch). Prints the predicted value loads per point of each layout. */
#include "check.h"
#include "access/regtile_lanes.h"
#include "quad_meshes.h"
#include "scratch.h"
#include "src/exec/problem.h"
#include "src/io/mesh_io.h"

#include <string.h>
#include <unistd.h>

/* The rule once more, from cell ids and an explicit thread array. */
static void brute(const ugrid *g, int cells, int bz, regtile_lanes *out)
{
    memset(out, 0, sizeof *out);
    const int c0 = g->nhalo, n = g->nxy - g->nhalo, nt = cells * bz;
    int *thr = xalloc(sizeof(int) * (size_t)nt), *lev = xalloc(sizeof(int) * (size_t)nt);
    for (int b0 = 0; b0 < n; b0 += cells) {
        for (int tl = 0; tl < nt; tl++) { /* thread tl of the block: cell tl % cells, slice tl / cells */
            const int cell = b0 + tl % cells;
            thr[tl] = cell < n ? c0 + cell : -1;
            lev[tl] = tl / cells;
        }
        for (int tl = 0; tl < nt; tl++) {
            const int c = thr[tl];
            if (c < 0)
                continue;
            const int warp = tl / 32;
            int q[2] = {-1, -1}; /* the cells of the lanes below and above at the same slice */
            for (int d = 0; d < 2; d++) {
                const int u = d ? tl + 1 : tl - 1;
                if (u >= 0 && u < nt && u / 32 == warp && lev[u] == lev[tl])
                    q[d] = thr[u];
            }
            const int W = ugrid_follow(g, c, R_W), E = ugrid_follow(g, c, R_E);
            const int ok[RTL_COUNT] = {
                q[0] >= 0 && q[0] == W,
                q[1] >= 0 && q[1] == E,
                q[0] >= 0 && ugrid_follow(g, q[0], R_S) == ugrid_follow(g, c, R_WS),
                q[1] >= 0 && ugrid_follow(g, q[1], R_S) == ugrid_follow(g, c, R_ES),
                q[0] >= 0 && ugrid_follow(g, q[0], R_N) == ugrid_follow(g, c, R_WN),
                q[1] >= 0 && ugrid_follow(g, q[1], R_N) == ugrid_follow(g, c, R_EN),
                ugrid_follow(g, c, R_NS) == c,
                ugrid_follow(g, c, R_SN) == c,
            };
            out->points++;
            for (int r = 0; r < RTL_COUNT; r++)
                out->shared[r] += ok[r];
        }
    }
    xfree(thr);
    xfree(lev);
}

static const int shapes[][2] = {{24, 3}, {48, 2}, {128, 1}, {16, 16}}; /* cells, slices */

/* Both counts for every storage and shape of grid g; returns the loads per point at 128x1x1. */
static double compare(const ugrid *g, const char *what)
{
    double loads = 0;
    for (int storage = 0; storage < 4; storage++) {
        nbtable t;
        nbtable_build(&t, g, storage >> 1, storage & 1);
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            regtile_lanes a, b;
            regtile_lanes_count(g, &t, shapes[s][0], shapes[s][1], &a);
            brute(g, shapes[s][0], shapes[s][1], &b);
            CHECK(a.points == b.points && a.points == (long)(g->nxy - g->nhalo) * shapes[s][1],
                  "%s: points %ld / %ld", what, a.points, b.points);
            for (int r = 0; r < RTL_COUNT; r++)
                CHECK(a.shared[r] == b.shared[r], "%s storage %d shape %dx%d relation %d: %ld "
                      "shared by the rule, %ld by brute force", what, storage, shapes[s][0],
                      shapes[s][1], r, a.shared[r], b.shared[r]);
            if (shapes[s][0] == 128 && storage == 0)
                loads = regtile_lanes_loads(&a);
        }
        nbtable_free(&t);
    }
    return loads;
}

int main(void)
{
    /* a lattice in row-major order, blocks of 128: lanes share W/E and the diagonals except at
     * warp and row ends; NS and SN are always the cell. */
    {
        ugrid g;
        CHECK(ugrid_emulate(&g, 68, 20, 2, 2, LAYOUT_ROWMAJOR, 8, 1) == 0, "grid");
        nbtable t;
        nbtable_build(&t, &g, 0, 0);
        regtile_lanes a;
        regtile_lanes_count(&g, &t, 128, 1, &a);
        CHECK(a.shared[RTL_NS] == a.points && a.shared[RTL_SN] == a.points, "NS/SN on a lattice");
        CHECK(a.shared[RTL_W] > a.points / 2 && a.shared[RTL_W] < a.points, "W shared %ld of %ld",
              a.shared[RTL_W], a.points);
        CHECK(regtile_lanes_loads(&a) > 5.0 && regtile_lanes_loads(&a) < 13.0, "loads %g",
              regtile_lanes_loads(&a));
        nbtable_free(&t);
        ugrid_free(&g);
    }
    const int sizes[][2] = {{37, 33}, {68, 68}};
    for (int sz = 0; sz < 2; sz++)
        for (int lay = 0; lay < LAYOUT_COUNT; lay++)
            for (int w = 8; w <= (lay == LAYOUT_ZCURVE_W ? 32 : 8); w += 24) {
                ugrid g;
                CHECK(ugrid_emulate(&g, sizes[sz][0], sizes[sz][1], 2, 2, (layout_t)lay, w, 5) == 0,
                      "grid");
                char what[96];
                snprintf(what, sizeof what, "%dx%d %s w=%d", sizes[sz][0], sizes[sz][1],
                         layout_name[lay], w);
                double l = compare(&g, what);
                printf("%-24s value loads per point (128x1x1): %.2f\n", what, l);
                ugrid_free(&g);
            }
    if (scratch_open("regtile", NULL) != 0)
        return 1;
    const char *path = tmpname("q.h5");
    for (int k = 0; k < NQUAD_CASES; k++) {
        mesh mh;
        CHECK(quad_case_make(&quad_cases[k], &mh) == 0 && mesh_write(path, &mh) == 0, "%s",
              quad_cases[k].name);
        mesh_free(&mh);
        problem_spec s = {ST_LAPLAP, PREC_DOUBLE, 0, 0, 0, 2, LAYOUT_ROWMAJOR, 16, 9, 0, 0};
        problem pb;
        if (problem_make_mesh(&pb, &s, path, MESH_ORDER_FILE) != 0) {
            CHECK(0, "%s: problem", quad_cases[k].name);
            continue;
        }
        double l = compare(&pb.ug, quad_cases[k].name);
        printf("%-24s value loads per point (128x1x1): %.2f\n", quad_cases[k].name, l);
        problem_free(&pb);
    }
    unlink(path);
    rmdir(dir);
    return check_done("test_regtile_lanes");
}
