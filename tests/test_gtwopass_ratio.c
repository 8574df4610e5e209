/* Laplacians per output of the graph two-pass lists (storage/gtwopass.h) at the size of the H100
 * runs (issue 18 item 5): bounded hexagons 1024x1024 and triangles 724x724 (~1M cells), z-curve
 * and METIS order (parts of 32 cells, as `--layout metis`), blocks of 256 and 512 threads, cut
 * as runs of the order (graph-twopass, -lean) and grown as balls (graph-twopass-balls,
 * -lean-balls). Prints the table (entries per own cell = Laplacians computed per output) and
 * checks, in time linear in the lists, that every list is sound: every inner cell is owned by
 * exactly one block, no block holds more than nt entries, every entry's degree and offsets are
 * the grid's, and every own cell's slots name entries holding exactly its neighbours. The ratio
 * of balls must not exceed that of runs by more than 2% (they are grown to cut it), both must
 * lie in [1, 2], and balls must not take more than 5% more blocks than runs (blocks left part
 * empty idle their threads). `--small` runs a 256x256 / 181x181 version (the sanitizer build). */
#include "check.h"
#include "mesh_grid.h"
#include "base/common.h"
#include "grids/mesh.h"
#include "storage/gtwopass.h"

#include <string.h>
#include <time.h>

/* Faults in the lists s of g (0 when sound, see above). */
static long unsound(const gtwopass *s, const ugrid *g)
{
    long bad = 0;
    const int nb = s->nblocks, n = g->nxy - g->nhalo;
    const size_t ne = s->nent > 0 ? s->nent : 1;
    unsigned char *owned = xalloc((size_t)g->nxy);
    for (int b = 0; b < nb; b++) {
        const int e0 = s->blk[b], nent = s->blk[b + 1] - e0, own = s->blk[nb + 1 + b];
        const int pos0 = s->blk[2 * nb + 1 + b] - g->nhalo;
        if (nent > s->nt || own < 1 || own > nent || pos0 < 0 || pos0 + own > n) {
            bad++;
            continue;
        }
        for (int e = 0; e < nent; e++) {
            const size_t i = (size_t)e0 + (size_t)e;
            const int q = s->ent[i];
            if (q < 0 || q >= g->nxy || s->ent[ne + i] != ugrid_deg(g, q)) {
                bad++;
                continue;
            }
            for (int j = 0; j < ugrid_deg(g, q); j++)
                bad += q + s->ent[(size_t)(2 + j) * ne + i] != ugrid_nb(g, q, j);
            if (e >= own)
                continue;
            bad += q < g->nhalo || owned[q];
            owned[q] = 1;
            for (int k = 0; k < ugrid_deg(g, q); k++) {
                uint32_t w = (uint32_t)s->slot[(size_t)(k / 2) * n + (size_t)(pos0 + e)];
                int sl = (int)((k & 1) ? w >> 16 : w & 0xffffu);
                bad += sl >= nent || s->ent[(size_t)e0 + (size_t)sl] != ugrid_nb(g, q, k);
            }
        }
    }
    for (int c = g->nhalo; c < g->nxy; c++)
        bad += !owned[c];
    xfree(owned);
    return bad;
}

int main(int argc, char **argv)
{
    const int small = argc > 1 && strcmp(argv[1], "--small") == 0;
    const mesh_gen_spec specs[] = {
        {MESH_HEXAGONS, small ? 256 : 1024, small ? 256 : 1024, 0, 1, 0, 1, 0, 0},
        {MESH_TRIANGLES, small ? 181 : 724, small ? 181 : 724, 0, 1, 0, 1, 0, 0}};
    const int orders[] = {MESH_ORDER_ZCURVE, MESH_ORDER_METIS}, nts[] = {256, 512};
    long lists = 0;
    printf("%-9s %7s %-6s %6s  %-6s %7s %10s  %-6s %7s %10s\n", "mesh", "cells", "order", "block",
           "runs", "blocks", "Lap/output", "balls", "blocks", "Lap/output");
    for (size_t sp = 0; sp < sizeof specs / sizeof specs[0]; sp++) {
        mesh m;
        if (mesh_generate(&m, &specs[sp]) != 0) {
            CHECK(0, "mesh %zu", sp);
            continue;
        }
        for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++) {
            int *order, parts;
            if (mesh_order_make(&m, (mesh_order_t)orders[o], 32, "mesh", &order, &parts, NULL) != 0) {
                CHECK(0, "order %d", orders[o]);
                continue;
            }
            unsigned char *halo = xalloc((size_t)m.ncells);
            mesh_graph_halo(&m, 2, halo);
            ugrid g;
            ugrid_from_mesh_halo(&g, &m, halo, 2, m.nlevels, order);
            xfree(halo);
            xfree(order);
            for (size_t k = 0; k < sizeof nts / sizeof nts[0]; k++) {
                gtwopass r, b;
                double r_ratio = 0, b_ratio = 0;
                int r_nb = 0, b_nb = 0;
                if (gtwopass_build(&r, &g, nts[k], 2) != 0 || gtwopass_build_balls(&b, &g, nts[k], 2) != 0) {
                    CHECK(0, "build");
                    continue;
                }
                long bad_r = unsound(&r, &g), bad_b = unsound(&b, &g);
                lists += 2;
                r_ratio = gtwopass_ratio(&r), b_ratio = gtwopass_ratio(&b);
                r_nb = r.nblocks, b_nb = b.nblocks;
                CHECK(bad_r == 0 && bad_b == 0, "%s %s blocks of %d: %ld (runs) %ld (balls) faults",
                      mesh_kind_name[specs[sp].kind], mesh_order_name[orders[o]], nts[k], bad_r, bad_b);
                CHECK(r_ratio >= 1 && r_ratio <= 2 && b_ratio >= 1 && b_ratio <= 2 &&
                          b_ratio <= r_ratio * 1.02 && b_nb <= r_nb * 1.05,
                      "%s %s blocks of %d: ratios %.3f (runs) %.3f (balls), %d and %d blocks",
                      mesh_kind_name[specs[sp].kind], mesh_order_name[orders[o]], nts[k], r_ratio,
                      b_ratio, r_nb, b_nb);
                printf("%-9s %7d %-6s %6d  %-6s %7d %10.3f  %-6s %7d %10.3f\n",
                       mesh_kind_name[specs[sp].kind], g.nxy - g.nhalo, mesh_order_name[orders[o]],
                       nts[k], "runs", r_nb, r_ratio, "balls", b_nb, b_ratio);
                gtwopass_free(&r);
                gtwopass_free(&b);
            }
            ugrid_free(&g);
        }
        mesh_free(&m);
    }
    printf("test_gtwopass_ratio: %ld lists checked\n", lists);
    return check_done("test_gtwopass_ratio");
}
