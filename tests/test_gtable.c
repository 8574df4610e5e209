/* Tables of general meshes (storage/gtable.h): on bounded hexagons, periodic triangles and the
 * refined patch, in file, METIS and z-curve order, every storage (chasing / non-chasing x
 * uncompressed / compressed) decompresses to the mesh's own rows: each cell's degree and
 * neighbours in row order, and for non-chasing each neighbour's own degree and neighbours, all
 * checked against the mesh file's neighbour rows (not the grid's lists the table is built from).
 * Compression keeps the row count (patterns) of the uncompressed table and, on the lattices in
 * file order, stores at most half its entries (a few percent on large lattices: mesh info). */
#include "check.h"
#include "mesh_grid.h"
#include "storage/gtable.h"
#include "grids/mesh.h"

#include <string.h>

/* Mismatches between table t of grid g and mesh m's rows. */
static long table_vs_mesh(const gtable *t, const ugrid *g, const mesh *m)
{
    long bad = 0;
    int n = g->nxy, w = mesh_width(m);
    int *to = xalloc(sizeof(int) * (size_t)n);
    for (int c = 0; c < n; c++)
        to[g->mesh_cell[c]] = c;
    for (int c = 0; c < n; c++) {
        const int *row = mesh_row(m, g->mesh_cell[c]);
        int j = 0;
        for (int e = 0; e < w; e++) {
            if (row[e] < 0)
                continue;
            bad += j >= gtable_deg(t, c) || gtable_nb(t, c, j) != to[row[e]];
            if (!t->chasing && j < gtable_deg(t, c)) { /* the neighbour's own row, from c's */
                const int *r2 = mesh_row(m, row[e]);
                int k = 0;
                for (int e2 = 0; e2 < w; e2++) {
                    if (r2[e2] < 0)
                        continue;
                    bad += k >= gtable_deg2(t, c, j) || gtable_nb2(t, c, j, k) != to[r2[e2]];
                    k++;
                }
                bad += k != gtable_deg2(t, c, j);
            }
            j++;
        }
        bad += j != gtable_deg(t, c);
    }
    xfree(to);
    return bad;
}

int main(void)
{
    const mesh_gen_spec specs[] = {{MESH_HEXAGONS, 24, 19, 0, 2, 0, 1, 0, 0},
                                   {MESH_TRIANGLES, 16, 12, 0, 2, 0, 1, 1, 0},
                                   {MESH_REFINED, 21, 21, 0, 2, 0, 1, 0, 7}};
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        mesh m;
        if (mesh_generate(&m, &specs[s]) != 0) {
            CHECK(0, "mesh %zu", s);
            continue;
        }
        for (int o = 0; o < MESH_ORDER_COUNT; o++) {
            ugrid g;
            if (mesh_grid_in_order(&m, o, &g) != 0)
                continue;
            int npat[2] = {0, 0};
            for (int st = 0; st < 4; st++) {
                gtable t;
                gtable_build(&t, &g, st >> 1, st & 1);
                long bad = table_vs_mesh(&t, &g, &m);
                CHECK(bad == 0, "%s %s order chasing=%d compressed=%d: %ld entries differ from "
                      "the mesh's rows", mesh_kind_name[specs[s].kind], mesh_order_name[o],
                      st >> 1, st & 1, bad);
                if (st & 1) {
                    CHECK(t.p.npat == npat[st >> 1] && t.p.ntab == t.p.npat &&
                              gtable_entries(&t) == (size_t)t.p.npat * t.width,
                          "%s: compressed: %d patterns, uncompressed counted %d",
                          mesh_kind_name[specs[s].kind], t.p.npat, npat[st >> 1]);
                    if (o == MESH_ORDER_FILE)
                        CHECK(gtable_ratio(&t) < 0.5, "%s file order: compressed to %.3f",
                              mesh_kind_name[specs[s].kind], gtable_ratio(&t));
                    printf("%-9s %-6s %-11s %5d cells: %4d patterns, %6zu of %7zu entries "
                           "(%.2f%%), top pattern %.1f%%\n", mesh_kind_name[specs[s].kind],
                           mesh_order_name[o], st >> 1 ? "chasing" : "non-chasing", t.nxy,
                           t.p.npat, gtable_entries(&t), (size_t)t.nxy * t.width,
                           100.0 * gtable_ratio(&t), 100.0 * gtable_top_share(&t));
                } else {
                    npat[st >> 1] = t.p.npat;
                    CHECK(gtable_ratio(&t) == 1.0 && t.width == (st >> 1 ? 1 + g.adjw
                                                                           : (1 + g.adjw) * (1 + g.adjw)),
                          "uncompressed: ratio %g, width %d", gtable_ratio(&t), t.width);
                }
                gtable_free(&t);
            }
            ugrid_free(&g);
        }
        mesh_free(&m);
    }
    return check_done("test_gtable");
}
