/* K steps per launch on the CPU twin of the GPU kernel (access/tiles_cpu.c, storage/tiles.h):
 *  - a ball lists its block's cells first, then the cells at distance 1, 2, ... by layer, each
 *    once, every cell within radius·K of the block and no other; its slots follow the grid's
 *    relations (W/E/S/N) wherever the neighbour is in the ball;
 *  - runs with K = 2..4 steps per launch, in core and out of core (F = K .. K+2, budgets that
 *    cut many parts, blocks of 8, 32 and 256 cells), equal the in-core iteration bit for bit:
 *    laplap and hdiff, double and float, layouts rowmajor / zcurve-w / random. */
#include "check.h"
#include "src/iterate.h"
#include "src/ooc_cpu.h"

#include <string.h>

enum { NX = 30, NY = 26, NZ = 7, STEPS = 7 };
static const layout_t layouts[] = {LAYOUT_ROWMAJOR, LAYOUT_ZCURVE_W, LAYOUT_RANDOM};

/* Distances from block b's cells through g (breadth-first), -1 beyond depth. */
static void block_distances(const ugrid *g, const tiles *t, int b, int *dist, int *queue)
{
    int head = 0, tail = 0;
    for (int c = 0; c < g->nxy; c++)
        dist[c] = -1;
    for (int c = t->from + b * t->B; c < t->from + (b + 1) * t->B && c < g->nxy; c++) {
        dist[c] = 0;
        queue[tail++] = c;
    }
    while (head < tail) {
        int u = queue[head++];
        if (dist[u] == t->depth)
            continue;
        for (int r = 0; r < NREL1; r++) {
            int v = g->nbr[r * g->nxy + u];
            if (v >= 0 && dist[v] < 0) {
                dist[v] = dist[u] + 1;
                queue[tail++] = v;
            }
        }
    }
}

/* Every ball of t on grid g against a breadth-first search of its own. */
static void check_balls(const ugrid *g, const tiles *t, const char *what)
{
    int *dist = xalloc(sizeof(int) * (size_t)g->nxy), *queue = xalloc(sizeof(int) * (size_t)g->nxy);
    int *seen = xalloc(sizeof(int) * (size_t)g->nxy);
    long bad = 0;
    for (int b = 0; b < t->nblocks; b++) {
        const int32_t *cell = t->cell + t->start[b], *layer = t->layer + (size_t)b * (t->depth + 1);
        const uint16_t *nb = t->nb + 4 * (size_t)t->start[b];
        int n = t->start[b + 1] - t->start[b], within = 0;
        block_distances(g, t, b, dist, queue);
        for (int c = 0; c < g->nxy; c++)
            within += dist[c] >= 0;
        bad += n != within || layer[t->depth] != n;
        for (int e = 0; e < n; e++) {
            int d = dist[cell[e]];
            bad += d < 0 || seen[cell[e]] == b + 1; /* in the ball, listed once */
            seen[cell[e]] = b + 1;
            bad += (d == 0) != (e < layer[0]) || (d > 0 && (e < layer[d - 1] || e >= layer[d]));
            if (e < layer[0])
                bad += cell[e] != t->from + b * t->B + e;
            for (int r = 0; r < NREL1; r++) {
                int v = g->nbr[r * g->nxy + cell[e]], s = nb[4 * e + r];
                bad += s >= n || (v >= 0 && dist[v] >= 0 ? cell[s] != v : s != e);
            }
        }
    }
    CHECK(bad == 0, "%s: %ld wrong ball entries", what, bad);
    xfree(dist);
    xfree(queue);
    xfree(seen);
}

/* Plans (in core, then out of core under budgets that cut several parts), adds balls for K
 * steps per launch in blocks of B cells, runs STEPS steps and compares with ref. */
static int test_one(const problem *pb, fieldset ref, int K, int F, int B, size_t budget,
                    const char *what)
{
    ooc_plan pl;
    char name[256];
    snprintf(name, sizeof name, "%s K=%d F=%d B=%d budget=%zu", what, K, F, B, budget);
    int rc = budget ? ooc_plan_make(&pl, &pb->ug, pb->s.stencil, pb->s.prec, pb->s.chasing,
                                    pb->s.compressed, budget, F)
                    : ooc_plan_incore(&pl, &pb->ug, pb->s.stencil, pb->s.prec, pb->s.chasing,
                                      pb->s.compressed, F);
    CHECK(rc == 0, "%s: no plan", name);
    if (rc != 0)
        return 0;
    rc = ooc_plan_tiles(&pl, K, B);
    CHECK(rc == 0, "%s: no balls", name);
    int parts = pl.nparts;
    if (rc == 0) {
        CHECK(pl.K == (K < F ? K : F), "%s: K = %d", name, pl.K);
        for (int p = 0; p < pl.nparts; p++)
            check_balls(&pl.part[p].lg, &pl.part[p].tl, name);
        fieldset st = iter_fields_copy(pb);
        CHECK(ooc_cpu_run(&pl, &pb->ug, st, STEPS) == 0, "%s: run failed", name);
        long d = iter_state_differ(pb, st, ref, NULL);
        CHECK(d == 0, "%s (%d chunks): %ld points differ from in core", name, pl.nparts * pl.nslabs, d);
        iter_fields_free(pb, &st);
    }
    ooc_plan_free(&pl);
    return rc == 0 ? parts : 0;
}

int main(void)
{
    static const stencil_t stencils[] = {ST_LAPLAP, ST_HDIFF};
    static const int blocks[] = {8, 32, 256};
    int runs = 0, multipart = 0;
    for (int si = 0; si < 2; si++)
        for (int prec = 0; prec < 2; prec++)
            for (int li = 0; li < 3; li++) {
                stencil_t st = stencils[si];
                problem_spec s = {st, (precision_t)prec, NX, NY, NZ, stencil_table[st].radius,
                                  layouts[li], 8, 11, li & 1, prec};
                problem pb;
                if (problem_make(&pb, &s) != 0) {
                    CHECK(0, "problem_make");
                    continue;
                }
                char what[128];
                snprintf(what, sizeof what, "%s %s %s", stencil_table[st].name, prec_name(s.prec),
                         layout_name[s.layout]);
                fieldset ref = iter_fields_copy(&pb);
                iter_run_incore(&pb, ref, STEPS);
                for (int K = 2; K <= 4; K++)
                    for (int F = K; F <= K + 2; F++) {
                        int B = blocks[(K + F + li) % 3];
                        size_t min = ooc_min_budget(&pb.ug, st, s.prec, s.chasing, s.compressed, F);
                        size_t budgets[] = {0, 8 * min, 24 * min};
                        for (int b = 0; b < 3; b++) {
                            int parts = test_one(&pb, ref, K, F, B, budgets[b], what);
                            runs += parts > 0;
                            multipart += parts > 1;
                        }
                    }
                printf("%s: K = 2..4 bit-exact\n", what);
                iter_fields_free(&pb, &ref);
                problem_free(&pb);
            }
    printf("%d runs with K steps per launch compared bit for bit with in core (%d with several "
           "parts)\n", runs, multipart);
    CHECK(runs >= 80 && multipart >= 40, "too few runs (%d) or too few cut into parts (%d)", runs,
          multipart);
    return check_done("test_tiles");
}
