/* Cell orders: every layout is a dense renumbering with halo cells first; rowmajor, zcurve and
 * zcurve-w follow their keys; zcurve-w forms runs of w cells; random is a seeded permutation;
 * regular-grid paddings align the first inner cell of every row to 32 bytes. */
#include "check.h"
#include "grids/grid.h"
#include "base/common.h"

#include <stdlib.h>
#include <string.h>

static int is_halo(const ugrid *g, int c)
{
    int x = g->cx[c], y = g->cy[c], h = g->halo;
    return x < h || x >= g->nx - h || y < h || y >= g->ny - h;
}

static void check_dense(const ugrid *g)
{
    char *seen = calloc((size_t)g->nxy, 1);
    for (int c = 0; c < g->nxy; c++) {
        int xy = g->cy[c] * g->nx + g->cx[c];
        CHECK(xy >= 0 && xy < g->nxy && !seen[xy], "%s: cell %d maps to a used position",
              layout_name[g->layout], c);
        if (xy >= 0 && xy < g->nxy)
            seen[xy] = 1;
        CHECK(g->cell_at[xy] == c, "cell_at is not the inverse at %d", c);
        CHECK(is_halo(g, c) == (c < g->nhalo), "%s: cell %d halo/inner order", layout_name[g->layout], c);
    }
    free(seen);
    CHECK(g->nhalo == g->nxy - (g->nx - 2 * g->halo) * (g->ny - 2 * g->halo), "halo count %d", g->nhalo);
    /* relations agree with the geometry */
    for (int c = 0; c < g->nxy; c++)
        for (int r = 0; r < NREL2; r++) {
            int x = g->cx[c] + rel_dx[r], y = g->cy[c] + rel_dy[r], d = ugrid_follow(g, c, r);
            int inside = x >= 0 && x < g->nx && y >= 0 && y < g->ny;
            if (!is_halo(g, c))
                CHECK(d >= 0 && g->cx[d] == x && g->cy[d] == y, "cell %d relation %s", c, rel_name[r]);
            else if (!inside && r < NREL1)
                CHECK(d == -1, "halo cell %d relation %s should be missing", c, rel_name[r]);
        }
}

static uint64_t morton(int x, int y)
{
    uint64_t k = 0;
    for (int b = 0; b < 16; b++)
        k |= (uint64_t)((x >> b) & 1) << (2 * b) | (uint64_t)((y >> b) & 1) << (2 * b + 1);
    return k;
}

int main(void)
{
    const int nx = 75, ny = 45, nz = 3, h = 2;
    for (int lay = 0; lay < LAYOUT_COUNT; lay++) {
        ugrid g;
        CHECK(ugrid_emulate(&g, nx, ny, nz, h, (layout_t)lay, 16, 5) == 0, "emulate");
        check_dense(&g);
        for (int c = g.nhalo + 1; c < g.nxy; c++) {
            int x0 = g.cx[c - 1] - h, y0 = g.cy[c - 1] - h, x1 = g.cx[c] - h, y1 = g.cy[c] - h;
            if (lay == LAYOUT_ROWMAJOR)
                CHECK(y1 * nx + x1 > y0 * nx + x0, "rowmajor order at %d", c);
            if (lay == LAYOUT_ZCURVE)
                CHECK(morton(x1, y1) > morton(x0, y0), "zcurve order at %d", c);
            if (lay == LAYOUT_ZCURVE_W)
                CHECK((morton(x1 >> 4, y1) << 4 | (x1 & 15)) > (morton(x0 >> 4, y0) << 4 | (x0 & 15)),
                      "zcurve-w order at %d", c);
        }
        ugrid_free(&g);
    }

    /* zcurve-w: runs of w consecutive cells on one row with consecutive x */
    for (int w = 1; w <= 64; w *= 2) {
        ugrid g;
        CHECK(ugrid_emulate(&g, 4 + 128, 4 + 40, 1, 2, LAYOUT_ZCURVE_W, w, 0) == 0, "emulate w=%d", w);
        for (int c = g.nhalo; c < g.nxy; c += w)
            for (int k = 1; k < w; k++)
                CHECK(g.cy[c + k] == g.cy[c] && g.cx[c + k] == g.cx[c] + k,
                      "w=%d: run at cell %d broken at +%d", w, c, k);
        ugrid_free(&g);
    }
    ugrid g;
    CHECK(ugrid_emulate(&g, 40, 40, 1, 2, LAYOUT_ZCURVE_W, 12, 0) != 0, "w=12 must be refused");

    /* random: a permutation, reproducible from the seed, different for another seed */
    ugrid a, b, c;
    ugrid_emulate(&a, 50, 40, 1, 2, LAYOUT_RANDOM, 32, 11);
    ugrid_emulate(&b, 50, 40, 1, 2, LAYOUT_RANDOM, 32, 11);
    ugrid_emulate(&c, 50, 40, 1, 2, LAYOUT_RANDOM, 32, 12);
    CHECK(!memcmp(a.cell_at, b.cell_at, sizeof(int) * (size_t)a.nxy), "same seed, same order");
    CHECK(memcmp(a.cell_at, c.cell_at, sizeof(int) * (size_t)a.nxy), "other seed, other order");
    ugrid_free(&a);
    ugrid_free(&b);
    ugrid_free(&c);

    /* regular grid paddings */
    for (size_t elem = 4; elem <= 8; elem += 4)
        for (int n = 5; n < 40; n += 7) {
            rgrid r = rgrid_make(n, n + 3, 4, 2, elem);
            for (int z = 0; z < 4; z++)
                for (int y = 0; y < n + 3; y++)
                    CHECK(rgrid_index(&r, 2, y, z) * (long)elem % 32 == 0,
                          "row %d level %d not aligned (n=%d elem=%zu)", y, z, n, elem);
            CHECK(r.ystride >= n + r.a && r.zstride >= (long)r.ystride * (n + 3), "strides");
        }

    /* ugrid_regular_copy: value v(x, y, z) = x + 1000 y + 100000 z at cell_at[y nx + x] lands at
     * the regular index of (x, y, z), and copies back unchanged (every layout, halo 3) */
    for (int lay = 0; lay < LAYOUT_COUNT; lay++) {
        ugrid u;
        CHECK(ugrid_emulate(&u, 23, 17, 3, 3, (layout_t)lay, 8, 4) == 0, "emulate %d", lay);
        rgrid r = rgrid_make(23, 17, 3, 3, sizeof(double));
        double *f = xalloc(sizeof(double) * u.len), *back = xalloc(sizeof(double) * u.len);
        double *reg = xalloc(sizeof(double) * r.len);
        for (size_t i = 0; i < r.len; i++)
            reg[i] = -1;
        for (int z = 0; z < 3; z++)
            for (int y = 0; y < 17; y++)
                for (int x = 0; x < 23; x++)
                    f[(size_t)u.cell_at[y * 23 + x] + (size_t)z * (size_t)u.zstride] =
                        x + 1000.0 * y + 100000.0 * z;
        ugrid_regular_copy(&u, &r, sizeof(double), f, reg, 1);
        long bad = 0;
        for (int z = 0; z < 3; z++)
            for (int y = 0; y < 17; y++)
                for (int x = 0; x < 23; x++)
                    bad += reg[rgrid_index(&r, x, y, z)] != x + 1000.0 * y + 100000.0 * z;
        CHECK(bad == 0, "%s: %ld regular values misplaced", layout_name[lay], bad);
        memcpy(back, f, sizeof(double) * u.len);
        for (int z = 0; z < 3; z++)
            for (int c = 0; c < u.nxy; c++)
                back[(size_t)c + (size_t)z * (size_t)u.zstride] = 0;
        ugrid_regular_copy(&u, &r, sizeof(double), back, reg, 0);
        CHECK(!memcmp(back, f, sizeof(double) * u.len), "%s: the copy back differs",
              layout_name[lay]);
        xfree(f);
        xfree(back);
        xfree(reg);
        ugrid_free(&u);
    }
    return check_done("test_grids");
}
