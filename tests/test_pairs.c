/* test_pairs.c — the lattice pairs of the pairs strategy (access/pairs_host.c) against an
 * independent reference: the lattice the grid was emulated from (ugrid_emulate keeps cell_at,
 * the regular grid's (x, y) -> cell, which the pairs never read). For every pair found, each
 * value either cell's body reads, at lattice displacement (dx, dy) from that cell, must be half
 * (d mod 2, d = q + dx) of the aligned pair that the pattern row's slot names, and that half
 * must be cell_at's cell there. Coverage: in z-curve order, and in row-major order with rows of
 * even width, every inner pair whose stencil reaches inner cells only is a lattice pair; a random order has (nearly) none; a pair
 * found there must pass the same check. On the cubed sphere and the rotated and scrambled
 * meshes (labels that turn), a found pair's rows must reproduce the relations the general
 * code follows. */
#include "check.h"
#include "quad_meshes.h"
#include "access/hooks.h"
#include "src/io/mesh_io.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* lattice displacements of relation r, -1 the cell itself */
static int rdx(int r) { return r < 0 ? 0 : rel_dx[r]; }
static int rdy(int r) { return r < 0 ? 0 : rel_dy[r]; }
/* the slot of (d, dy) (access/pairs.cu PAIR_SLOT) */
static int slot_of(int d, int dy) { return (dy + 2) * 3 + ((d + 2) >> 1); }

/* Lattice nx x ny (halo 2) in order lay, stencil s. Returns the lattice pairs found. */
static long lattice_case(int nx, int ny, layout_t lay, stencil_t s, long *deep_pairs,
                         long *deep_found, long *inner_pairs)
{
    ugrid g;
    if (ugrid_emulate(&g, nx, ny, 3, 2, lay, 8, 5) != 0) {
        CHECK(0, "emulate %dx%d %s", nx, ny, layout_name[lay]);
        return -1;
    }
    const int npairs = (g.nxy + 1) / 2;
    int32_t *pat = xalloc(sizeof(int32_t) * (size_t)npairs), *tab = NULL;
    int npat = 0;
    long found = pairs_lattice_count(&g, s, pat, &tab, &npat);
    CHECK(found >= 0, "%s %s: no lists", layout_name[lay], stencil_table[s].name);
    const unsigned mask = stencil_table[s].rels;
    long bad = 0, counted = 0;
    *deep_pairs = *deep_found = *inner_pairs = 0;
    for (int k = 0; k < npairs; k++) {
        const int p = 2 * k;
        *inner_pairs += p >= g.nhalo && p + 1 < g.nxy;
        if (pat[k] >= 0) {
            counted++;
            CHECK(pat[k] < npat, "row %d of %d", pat[k], npat);
            const int32_t *row = tab + (size_t)pat[k] * PAIRS_SLOTS;
            const int x = g.cx[p], y = g.cy[p];
            for (int q = 0; q < 2; q++)
                for (int r = -1; r < NREL2; r++) {
                    if (r >= 0 && !((mask >> r) & 1u))
                        continue;
                    const int d = q + rdx(r), dy = rdy(r);
                    const long at = (long)p + row[slot_of(d, dy)] + (d & 1);
                    const int want = g.cell_at[(y + dy) * nx + (x + d)];
                    if (at != want && bad++ < 5)
                        CHECK(0, "%s %s: pair %d slot (%d, %d) gives cell %ld, the lattice %d",
                              layout_name[lay], stencil_table[s].name, p, d, dy, at, want);
                    if ((p + row[slot_of(d, dy)]) & 1)
                        bad++;
                }
        }
        /* inner pairs whose two cells' stencils stay on inner cells */
        if (p >= g.nhalo && p + 1 < g.nxy && g.cy[p] == g.cy[p + 1] && g.cx[p + 1] == g.cx[p] + 1) {
            const int x = g.cx[p], y = g.cy[p];
            if (x >= 4 && x + 1 < nx - 4 && y >= 4 && y < ny - 4) {
                (*deep_pairs)++;
                *deep_found += pat[k] >= 0;
            }
        }
    }
    CHECK(counted == found, "%ld pairs counted, %ld returned", counted, found);
    CHECK(bad == 0, "%s %s: %ld slot values off the lattice", layout_name[lay],
          stencil_table[s].name, bad);
    xfree(pat);
    xfree(tab);
    ugrid_free(&g);
    return found;
}

/* A quad mesh whose labels may turn: every found pair's rows reproduce ugrid_follow. */
static void mesh_case(const quad_case *qc)
{
    problem pb;
    problem_spec s = {ST_LAPLAP, PREC_DOUBLE, 0, 0, 0, 2, LAYOUT_ROWMAJOR, 16, 5, 1, 0};
    char dir[] = "/tmp/pillar-test-pairs-XXXXXX", path[80];
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp");
        return;
    }
    snprintf(path, sizeof path, "%s/m.h5", dir);
    mesh mh;
    int written = quad_case_make(qc, &mh) == 0 && mesh_write(path, &mh) == 0;
    if (written)
        mesh_free(&mh);
    if (!written) {
        CHECK(0, "%s: mesh not written", qc->name);
        rmdir(dir);
        return;
    }
    if (problem_make_mesh(&pb, &s, path, MESH_ORDER_FILE) != 0) {
        CHECK(0, "%s: problem", qc->name);
        remove(path);
        rmdir(dir);
        return;
    }
    const ugrid *g = &pb.ug;
    const int npairs = (g->nxy + 1) / 2;
    int32_t *pat = xalloc(sizeof(int32_t) * (size_t)npairs), *tab = NULL;
    long found = pairs_lattice_count(g, ST_LAPLAP, pat, &tab, NULL), bad = 0, inner = 0;
    for (int k = 0; k < npairs; k++) {
        const int p = 2 * k;
        inner += p >= g->nhalo && p + 1 < g->nxy;
        if (pat[k] < 0)
            continue;
        CHECK(p >= g->nhalo && p + 1 < g->nxy, "%s: pair %d is not two inner cells", qc->name, p);
        const int32_t *row = tab + (size_t)pat[k] * PAIRS_SLOTS;
        for (int q = 0; q < 2; q++)
            for (int r = -1; r < NREL2; r++) {
                const int d = q + rdx(r), dy = rdy(r);
                const long at = (long)p + row[slot_of(d, dy)] + (d & 1);
                bad += at != (r < 0 ? p + q : ugrid_follow(g, p + q, r));
            }
    }
    CHECK(bad == 0, "%s: %ld relations off their pair's row", qc->name, bad);
    printf("  %-20s %ld of %ld inner pairs are lattice pairs\n", qc->name, found, inner);
    if (!strncmp(qc->name, "scrambled", 9))
        CHECK(found * 20 < inner, "%s: %ld of %ld pairs found where cells are shuffled", qc->name,
              found, inner);
    xfree(pat);
    xfree(tab);
    problem_free(&pb);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    static const stencil_t st[] = {ST_LAPLAP, ST_HDIFF, ST_LAP, ST_FASTWAVES};
    static const int sizes[][2] = {{36, 28}, {68, 40}, {45, 33}};
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (int lay = 0; lay < LAYOUT_COUNT; lay++)
            for (size_t i = 0; i < sizeof st / sizeof st[0]; i++) {
                long deep = 0, deep_found = 0, inner = 0;
                long n = lattice_case(sizes[z][0], sizes[z][1], (layout_t)lay, st[i], &deep,
                                      &deep_found, &inner);
                printf("  %dx%d %-9s %-9s %5ld lattice pairs, %ld of %ld deep inner pairs\n",
                       sizes[z][0], sizes[z][1], layout_name[lay], stencil_table[st[i]].name, n,
                       deep_found, deep);
                /* row-major keeps pairs aligned where the inner rows are of even width */
                if ((lay == LAYOUT_ROWMAJOR && (sizes[z][0] - 4) % 2 == 0) || lay == LAYOUT_ZCURVE)
                    CHECK(deep_found == deep, "%dx%d %s %s: %ld of %ld deep inner pairs found",
                          sizes[z][0], sizes[z][1], layout_name[lay], stencil_table[st[i]].name,
                          deep_found, deep);
                if (lay == LAYOUT_RANDOM)
                    CHECK(n * 20 < inner, "random order: %ld lattice pairs of %ld", n, inner);
            }
    for (int m = 0; m < NQUAD_CASES; m++)
        mesh_case(&quad_cases[m]);
    return check_done("pairs");
}
