/* Lists of the graph two-pass strategy (storage/gtwopass.h), on the CPU: on bounded hexagons,
 * triangles, periodic triangles and the refined patch, in file, METIS and z-curve order, for
 * blocks of 32, 96 and 256 threads and radius 2 and 1,
 *   - the blocks cut the inner cells into consecutive runs, each closed only when the next cell
 *     would not fit (greedy), own cells first, then exactly the neighbours of the run outside
 *     it, ascending, at most nt entries; every entry's degree and offsets are the grid's lists;
 *     every own cell's slots name the entries of its neighbours (all checked by brute force
 *     against the neighbour lists);
 *   - the two passes run on these lists with stencils/graphlap.h's split (GRAPHLAP_INNER into a
 *     block's buffer, GRAPHLAP_OUTER from it) equal, bit for bit, a plain two-loop graph
 *     Laplacian applied twice written here from the neighbour lists. */
#include "check.h"
#include "mesh_grid.h"
#include "base/common.h"
#include "grids/mesh.h"
#include "stencils/graphlap.h"
#include "storage/gtwopass.h"

#include <stdlib.h>
#include <string.h>

/* |run ∪ N(run)| for the run [c0, c1) (radius 2), or its length (radius 1). */
static int held(const ugrid *g, int c0, int c1, int radius, unsigned char *mark)
{
    int h = 0;
    for (int c = c0; c < c1; c++) {
        h += !mark[c];
        mark[c] = 1;
        for (int k = 0, d = radius >= 2 ? ugrid_deg(g, c) : 0; k < d; k++) {
            int q = ugrid_nb(g, c, k);
            h += !mark[q];
            mark[q] = 1;
        }
    }
    for (int c = c0; c < c1; c++) {
        mark[c] = 0;
        for (int k = 0, d = ugrid_deg(g, c); k < d; k++)
            mark[ugrid_nb(g, c, k)] = 0;
    }
    return h;
}

/* Mismatches of the lists s against brute force on g. */
static long lists_vs_brute(const gtwopass *s, const ugrid *g)
{
    long bad = 0;
    const int nb = s->nblocks, n = g->nxy - g->nhalo;
    const size_t ne = s->nent > 0 ? s->nent : 1;
    unsigned char *mark = xalloc((size_t)g->nxy);
    int *want = xalloc(sizeof(int) * (size_t)g->nxy);
    int next = g->nhalo;
    for (int b = 0; b < nb; b++) {
        const int e0 = s->blk[b], nent = s->blk[b + 1] - e0, own = s->blk[nb + 1 + b];
        const int c0 = s->blk[2 * nb + 1 + b], c1 = c0 + own;
        bad += c0 != next || own < 1 || nent > s->nt;
        next = c1;
        if (c1 < g->nxy) /* greedy: the next cell would not have fit */
            bad += held(g, c0, c1 + 1, s->radius, mark) <= s->nt;
        /* the ring by brute force: neighbours of the run outside it, ascending */
        int nw = 0;
        if (s->radius >= 2)
            for (int q = 0; q < g->nxy; q++) {
                if (q >= c0 && q < c1)
                    continue;
                int in_ring = 0;
                for (int c = c0; c < c1 && !in_ring; c++)
                    for (int k = 0, d = ugrid_deg(g, c); k < d; k++)
                        in_ring |= ugrid_nb(g, c, k) == q;
                if (in_ring)
                    want[nw++] = q;
            }
        bad += nent != own + nw;
        for (int e = 0; e < nent && e < own + nw; e++) {
            const size_t i = (size_t)e0 + (size_t)e;
            const int q = s->ent[i];
            bad += q != (e < own ? c0 + e : want[e - own]);
            bad += s->ent[ne + i] != ugrid_deg(g, q);
            for (int j = 0; j < ugrid_deg(g, q); j++)
                bad += q + s->ent[(size_t)(2 + j) * ne + i] != ugrid_nb(g, q, j);
        }
        if (s->radius < 2)
            continue;
        for (int c = c0; c < c1; c++) /* slots name the neighbours' entries */
            for (int k = 0, d = ugrid_deg(g, c); k < d; k++) {
                uint32_t w = (uint32_t)s->slot[(size_t)(k / 2) * n + (c - g->nhalo)];
                int e = (int)((k & 1) ? w >> 16 : w & 0xffffu);
                bad += e >= nent || s->ent[(size_t)e0 + (size_t)e] != ugrid_nb(g, c, k);
            }
    }
    bad += next != g->nxy;
    xfree(mark);
    xfree(want);
    return bad;
}

/* The plain reference: lap of every cell that has all its list, then out of every inner cell. */
static void reference(const ugrid *g, int nz, const double *in, double *lap, double *out)
{
    for (int z = 0; z < nz; z++) {
        const long lev = (long)z * g->nxy;
        for (int c = 0; c < g->nxy; c++) {
            int d = ugrid_deg(g, c);
            if (d == 0)
                continue;
            double s = in[lev + ugrid_nb(g, c, 0)];
            for (int j = 1; j < d; j++)
                s += in[lev + ugrid_nb(g, c, j)];
            lap[lev + c] = (double)d * in[lev + c] - s;
        }
        for (int c = g->nhalo; c < g->nxy; c++) {
            int d = ugrid_deg(g, c);
            double s = lap[lev + ugrid_nb(g, c, 0)];
            for (int j = 1; j < d; j++)
                s += lap[lev + ugrid_nb(g, c, j)];
            out[lev + c] = (double)d * lap[lev + c] - s;
        }
    }
}

/* The two passes of access/graph_twopass.cu on the CPU, block by block: pass 1 into buf[nt]
 * from the entries' rows, pass 2 from buf through the own cells' slots. */
static void two_passes(const gtwopass *s, int nhalo, int nz, long zs, const double *in,
                       double *out, double *buf)
{
    typedef double T;
    const int nb = s->nblocks;
    const size_t ne = s->nent > 0 ? s->nent : 1;
#define GTP_BASE nhalo
#include "gtp_lists.h"
    for (int b = 0; b < nb; b++) {
        const int e0 = s->blk[b], nent = s->blk[b + 1] - e0, own = s->blk[nb + 1 + b];
        for (int z = 0; z < nz; z++) {
            const long lev = (long)z * zs;
            for (int e = 0; e < nent; e++) {
                const size_t i = (size_t)e0 + (size_t)e;
                const int ecell = s->ent[i], edeg = s->ent[ne + i];
                GRAPHLAP_INNER(buf[e], ecell);
            }
            for (int e = 0; e < own; e++) {
                const size_t i = (size_t)e0 + (size_t)e;
                const int ecell = s->ent[i], edeg = s->ent[ne + i];
                GRAPHLAP_OUTER(ecell);
            }
        }
    }
}

int main(void)
{
    const mesh_gen_spec specs[] = {{MESH_HEXAGONS, 37, 21, 0, 3, 0, 1, 0, 0},
                                   {MESH_TRIANGLES, 23, 17, 0, 3, 0, 1, 0, 0},
                                   {MESH_TRIANGLES, 16, 12, 0, 3, 0, 1, 1, 0},
                                   {MESH_REFINED, 27, 25, 0, 3, 0, 1, 0, 9}};
    const int nts[] = {32, 96, 256};
    long lists = 0, runs = 0;
    for (size_t sp = 0; sp < sizeof specs / sizeof specs[0]; sp++) {
        mesh m;
        if (mesh_generate(&m, &specs[sp]) != 0) {
            CHECK(0, "mesh %zu", sp);
            continue;
        }
        for (int o = 0; o < MESH_ORDER_COUNT; o++) {
            ugrid g;
            if (mesh_grid_in_order(&m, o, &g) != 0)
                continue;
            const int nz = m.nlevels;
            const size_t len = (size_t)g.nxy * (size_t)nz;
            double *in = xalloc(sizeof(double) * len), *lap = xalloc(sizeof(double) * len);
            double *want = xalloc(sizeof(double) * len), *got = xalloc(sizeof(double) * len);
            srand(7 + (unsigned)sp);
            for (size_t i = 0; i < len; i++)
                in[i] = (double)rand() / RAND_MAX * 2 - 1;
            reference(&g, nz, in, lap, want);
            for (size_t k = 0; k < sizeof nts / sizeof nts[0]; k++)
                for (int radius = 1; radius <= 2; radius++) {
                    gtwopass s;
                    if (gtwopass_build(&s, &g, nts[k], radius) != 0) {
                        CHECK(0, "build nt %d", nts[k]);
                        continue;
                    }
                    long bad = lists_vs_brute(&s, &g);
                    lists++;
                    CHECK(bad == 0, "%s %s order, blocks of %d, radius %d: %ld list entries "
                          "differ from brute force", mesh_kind_name[specs[sp].kind],
                          mesh_order_name[o], nts[k], radius, bad);
                    if (radius == 2) {
                        double *buf = xalloc(sizeof(double) * (size_t)nts[k]);
                        memset(got, 0, sizeof(double) * len);
                        two_passes(&s, g.nhalo, nz, g.nxy, in, got, buf);
                        long diff = 0;
                        for (int z = 0; z < nz; z++)
                            for (int c = g.nhalo; c < g.nxy; c++) {
                                size_t i = (size_t)z * g.nxy + c;
                                diff += memcmp(&got[i], &want[i], sizeof(double)) != 0;
                            }
                        runs++;
                        CHECK(diff == 0, "%s %s order, blocks of %d: %ld outputs of the two "
                              "passes differ from the reference", mesh_kind_name[specs[sp].kind],
                              mesh_order_name[o], nts[k], diff);
                        if (k == 2)
                            printf("%-9s %-6s blocks of %3d: %5d blocks, %.2f Laplacians per "
                                   "output\n", mesh_kind_name[specs[sp].kind], mesh_order_name[o],
                                   nts[k], s.nblocks, gtwopass_ratio(&s));
                        xfree(buf);
                    }
                    gtwopass_free(&s);
                }
            gtwopass bad_nt;
            CHECK(gtwopass_build(&bad_nt, &g, 16, 2) != 0, "blocks of 16 threads accepted");
            xfree(in), xfree(lap), xfree(want), xfree(got);
            ugrid_free(&g);
        }
        mesh_free(&m);
    }
    printf("test_gtwopass: %ld lists checked, %ld two-pass runs bit-exact\n", lists, runs);
    return check_done("test_gtwopass");
}
