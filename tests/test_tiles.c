/* K steps per launch on the CPU twin of the GPU kernel (access/tiles_cpu.c, storage/tiles.h):
 *  - a ball lists its block's cells first, then the cells at distance 1, 2, ... by layer, each
 *    once, every cell within radius·K of the block and no other; its slots follow the grid's
 *    relations (W/E/S/N) wherever the neighbour is in the ball;
 *  - the balls of the emulated grids are lattice-like (laplap takes the two-pass steps); those of
 *    a whole cubed sphere are not (its seams: laplap keeps the one-pass steps), those of some of
 *    its parts out of core are;
 *  - one launch of k = 1..K steps on balls for K = 1..3, on the whole grid, equals k steps of the
 *    in-core iteration bit for bit;
 *  - runs with K = 2..4 steps per launch, in core and out of core (F = K .. K+2, budgets that
 *    cut many parts, blocks of 8, 32 and 256 cells), equal the in-core iteration bit for bit
 *    (launches of fewer than K steps where a pass of F steps is no multiple of K);
 *  - all of it for laplap and hdiff, double and float, layouts rowmajor / zcurve-w / random, and
 *    on the cubed sphere;
 *  - and for graphlap (balls grown through the neighbour lists, rows of degree and list slots,
 *    tiles_build_lists, never lattice-like) on bounded hexagons and triangles, periodic
 *    triangles and the refined patch, double in file order and float in METIS order. */
#include "check.h"
#include "access/tiles_run.h"
#include "scratch.h"
#include "src/exec/iterate.h"
#include "src/io/mesh_io.h"
#include "src/plan/ooc_cpu.h"

#include <string.h>

enum { NX = 30, NY = 26, NZ = 7, STEPS = 7 };
static const layout_t layouts[] = {LAYOUT_ROWMAJOR, LAYOUT_ZCURVE_W, LAYOUT_RANDOM};

/* Neighbour r of cell c as t's balls see it: relation r (W/E/S/N), or entry r of g's lists for
 * balls built through them (t->graph); -1 for none. Neighbours per cell: nbr_n. */
static int nbr_r(const ugrid *g, const tiles *t, int c, int r)
{
    return t->graph ? g->adj[(size_t)r * g->nxy + c] : g->nbr[(size_t)r * g->nxy + c];
}
static int nbr_n(const ugrid *g, const tiles *t) { return t->graph ? g->adjw : NREL1; }

/* Distances from block b's cells through g (breadth-first), -1 beyond depth. */
static void block_distances(const ugrid *g, const tiles *t, int b, int *dist, int *queue)
{
    int head = 0, tail = 0;
    for (int c = 0; c < g->nxy; c++)
        dist[c] = -1;
    const int32_t *cell = t->cell + t->start[b], *layer = t->layer + (size_t)b * (t->depth + 1);
    for (int e = 0; e < layer[0]; e++) {
        dist[cell[e]] = 0;
        queue[tail++] = cell[e];
    }
    while (head < tail) {
        int u = queue[head++];
        if (dist[u] == t->depth)
            continue;
        for (int r = 0; r < nbr_n(g, t); r++) {
            int v = nbr_r(g, t, u, r);
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
    int *seen = xalloc(sizeof(int) * (size_t)g->nxy), *owner = xalloc(sizeof(int) * (size_t)g->nxy);
    long bad = 0;
    for (int c = 0; c < g->nxy; c++)
        owner[c] = 0;
    for (int b = 0; b < t->nblocks; b++) {
        const int32_t *cell = t->cell + t->start[b], *layer = t->layer + (size_t)b * (t->depth + 1);
        const uint16_t *nb = t->nb + (size_t)t->width * (size_t)t->start[b];
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
            if (e < layer[0]) { /* own cells: each cell >= from in one block, bmax its largest */
                bad += cell[e] < t->from || owner[cell[e]]++ || cell[e] > t->bmax[b];
                bad += layer[0] > t->B || (b > 0 && t->bmax[b] < t->bmax[b - 1]);
            }
            const uint16_t *row = nb + (size_t)t->width * (size_t)e; /* [degree,] slots */
            for (int r = 0; r < nbr_n(g, t); r++) {
                int v = nbr_r(g, t, cell[e], r), s = row[t->graph + r];
                bad += s >= n || (v >= 0 && dist[v] >= 0 ? cell[s] != v : s != e);
            }
            bad += t->graph && row[0] != ugrid_deg(g, cell[e]);
            for (int r = t->graph + nbr_n(g, t); r < t->width; r++) /* padding */
                bad += row[r] != e;
        }
    }
    for (int c = t->from; c < g->nxy; c++)
        bad += owner[c] != 1;
    for (int b = 0; b < t->nblocks; b++) {
        const int32_t *cell = t->cell + t->start[b];
        int m = -1;
        for (int e = 0; e < t->layer[(size_t)b * (t->depth + 1)]; e++)
            m = cell[e] > m ? cell[e] : m;
        bad += m != t->bmax[b];
    }
    CHECK(bad == 0, "%s: %ld wrong ball entries", what, bad);
    xfree(owner);
    xfree(dist);
    xfree(queue);
    xfree(seen);
}

/* Plans (in core, then out of core under budgets that cut several parts), adds balls for K
 * steps per launch in blocks of B cells, runs STEPS steps and compares with ref. Counts the parts
 * with lattice-like balls and those without in lattice[1] and lattice[0]; with `grid_lattice`
 * (an emulated grid) all must be. */
static int test_one(const problem *pb, fieldset ref, int K, int F, int B, size_t budget,
                    int grid_lattice, int lattice[2], const char *what)
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
        for (int p = 0; p < pl.nparts; p++) {
            check_balls(&pl.part[p].lg, &pl.part[p].tl, name);
            lattice[pl.part[p].tl.lattice]++;
            CHECK(pl.part[p].tl.lattice || !grid_lattice, "%s: part %d: balls not lattice-like",
                  name, p);
        }
        fieldset st = iter_fields_copy(pb);
        CHECK(ooc_cpu_run(&pl, &pb->ug, st, STEPS) == 0, "%s: run failed", name);
        long d = iter_state_differ(pb, st, ref, NULL);
        CHECK(d == 0, "%s (%d chunks): %ld points differ from in core", name, pl.nparts * pl.nslabs, d);
        iter_fields_free(pb, &st);
    }
    ooc_plan_free(&pl);
    return rc == 0 ? parts : 0;
}

/* One launch of k = 1..K steps on balls for K = 1..3 over the whole grid (blocks of B cells from
 * its first inner cell) against k steps in core (ref[k]); the balls must be lattice-like or not
 * as `lattice` says. */
static void test_launches(const problem *pb, fieldset ref[4], int B, int lattice, const char *what)
{
    const ugrid *g = &pb->ug;
    const iter_carry *c = iter_carried(pb->s.stencil);
    size_t es = prec_size(pb->s.prec);
    for (int K = 1; K <= 3; K++) {
        tiles t;
        int (*make)(tiles *, const ugrid *, int, int, int, int, int, const int *) =
            stencil_table[pb->s.stencil].graph ? tiles_build_lists : tiles_build;
        if (make(&t, g, g->nhalo, g->nhalo, B, K, stencil_table[pb->s.stencil].radius, NULL) != 0) {
            CHECK(0, "%s K=%d: no balls", what, K);
            continue;
        }
        check_balls(g, &t, what);
        CHECK(t.lattice == lattice, "%s K=%d: lattice-like %d, expected %d", what, K, t.lattice,
              lattice);
        for (int k = 1; k <= K; k++) {
            fieldset st = iter_fields_copy(pb);
            tiles_step_args a = {pb->s.stencil, pb->s.prec, k, g->nhalo, g->nz, g->zstride,
                                 st.p[c->in[0]], tiles_fixed_input(pb->s.stencil, st),
                                 st.p[c->out[0]]};
            tiles_steps_cpu(&t, &a);
            for (int z = 0; z < g->nz; z++) {
                size_t at = ((size_t)z * (size_t)g->zstride + (size_t)g->nhalo) * es;
                memcpy((char *)st.p[c->in[0]] + at, (const char *)st.p[c->out[0]] + at,
                       (size_t)(g->nxy - g->nhalo) * es);
            }
            long d = iter_state_differ(pb, st, ref[k], NULL);
            CHECK(d == 0, "%s: one launch of %d step(s) on balls for K=%d B=%d: %ld points differ "
                  "from in core", what, k, K, B, d);
            iter_fields_free(pb, &st);
        }
        tiles_free(&t);
    }
}

/* Everything on one problem: single launches, then runs of STEPS steps in launches of up to K
 * (counted in *runs, those cut into several parts in *multipart). On an emulated grid (`lattice`)
 * all balls are lattice-like; on the cubed sphere the whole grid's are not, but parts within a
 * panel have them, so that both kinds of steps meet there. */
static void test_problem(const problem *pb, int index, int lattice, const char *what, int *runs,
                         int *multipart)
{
    static const int blocks[] = {8, 32, 256};
    const problem_spec *s = &pb->s;
    fieldset ref[4];
    for (int k = 0; k < 4; k++) {
        ref[k] = iter_fields_copy(pb);
        iter_run_incore(pb, ref[k], k);
    }
    test_launches(pb, ref, blocks[index % 3], lattice, what);
    fieldset full = iter_fields_copy(pb);
    iter_run_incore(pb, full, STEPS);
    int parts[2] = {0, 0};
    for (int K = 2; K <= 4; K++)
        for (int F = K; F <= K + 2; F++) {
            int B = blocks[(K + F + index) % 3];
            size_t min = ooc_min_budget(&pb->ug, s->stencil, s->prec, s->chasing, s->compressed, F);
            size_t budgets[] = {0, 8 * min, 24 * min};
            for (int b = 0; b < 3; b++) {
                int n = test_one(pb, full, K, F, B, budgets[b], lattice, parts, what);
                *runs += n > 0;
                *multipart += n > 1;
            }
        }
    if (stencil_table[s->stencil].graph) /* balls through neighbour lists: never lattice-like */
        CHECK(parts[1] == 0 && parts[0] > 0, "%s: %d parts with lattice-like balls", what, parts[1]);
    else
        CHECK(lattice || (parts[0] > 0 && parts[1] > 0),
              "%s: %d parts with lattice-like balls, %d without", what, parts[1], parts[0]);
    printf("%s: K = 1..3 single launches, K = 2..4 runs bit-exact (%d parts with lattice-like "
           "balls, %d without)\n", what, parts[1], parts[0]);
    iter_fields_free(pb, &full);
    for (int k = 0; k < 4; k++)
        iter_fields_free(pb, &ref[k]);
}

int main(void)
{
    int runs = 0, multipart = 0;
    if (scratch_open("tiles", NULL) != 0)
        return 1;
    mesh sphere;
    CHECK(mesh_gen_cubed_sphere(&sphere, 12, NZ) == 0 &&
              mesh_write(tmpname("sphere.h5"), &sphere) == 0,
          "cubed sphere");
    mesh_free(&sphere);
    for (int si = 0; si < ST_QUAD_COUNT; si++)
        for (int prec = 0; prec < 2 && tiles_supported((stencil_t)si); prec++)
            for (int li = 0; li <= 3; li++) { /* 3: the cubed sphere */
                stencil_t st = (stencil_t)si;
                problem_spec s = {st, (precision_t)prec, NX, NY, NZ, stencil_table[st].radius,
                                  layouts[li % 3], 8, 11, li & 1, prec};
                problem pb;
                int rc = li < 3 ? problem_make(&pb, &s)
                                : problem_make_mesh(&pb, &s, tmpname("sphere.h5"), MESH_ORDER_FILE);
                if (rc != 0) {
                    CHECK(0, "problem_make");
                    continue;
                }
                char what[128];
                snprintf(what, sizeof what, "%s %s %s", stencil_table[st].name, prec_name(s.prec),
                         li < 3 ? layout_name[s.layout] : "cubed sphere");
                test_problem(&pb, li, li < 3, what, &runs, &multipart);
                problem_free(&pb);
            }
    /* graphlap (ksteps 2): balls through the neighbour lists, general meshes */
    const mesh_gen_spec gspecs[] = {{MESH_HEXAGONS, 20, 17, 0, NZ, 0, 1, 0, 0},
                                    {MESH_TRIANGLES, 16, 14, 0, NZ, 0, 1, 0, 0},
                                    {MESH_TRIANGLES, 14, 12, 0, NZ, 0, 1, 1, 0},
                                    {MESH_REFINED, 19, 19, 0, NZ, 0, 1, 0, 7}};
    const char *gnames[] = {"hexagons", "triangles", "periodic triangles", "refined patch"};
    int graph_runs = 0;
    for (size_t m = 0; m < sizeof gspecs / sizeof gspecs[0]; m++) {
        mesh me;
        char file[32];
        snprintf(file, sizeof file, "g%zu.h5", m);
        if (mesh_generate(&me, &gspecs[m]) != 0 || mesh_write(tmpname(file), &me) != 0) {
            CHECK(0, "%s: generate and write", gnames[m]);
            continue;
        }
        mesh_free(&me);
        for (int prec = 0; prec < 2; prec++) {
            mesh_order_t order = prec ? MESH_ORDER_METIS : MESH_ORDER_FILE;
            problem_spec s = {ST_GRAPHLAP, (precision_t)prec, 0, 0, 0, 0, LAYOUT_ROWMAJOR, 12, 7,
                              0, 0};
            problem pb;
            if (problem_make_mesh(&pb, &s, tmpname(file), order) != 0) {
                CHECK(0, "%s: problem", gnames[m]);
                continue;
            }
            char what[128];
            snprintf(what, sizeof what, "graphlap %s %s (%s order)", prec_name(s.prec), gnames[m],
                     mesh_order_name[order]);
            int before = runs;
            test_problem(&pb, (int)m + prec, 0, what, &runs, &multipart);
            graph_runs += runs - before;
            problem_free(&pb);
        }
    }
    CHECK(graph_runs >= 50, "too few graphlap runs with K steps per launch (%d)", graph_runs);
    scratch_remove();
    printf("%d runs with K steps per launch compared bit for bit with in core (%d with several "
           "parts; %d of graphlap)\n", runs, multipart, graph_runs);
    CHECK(runs >= 100 && multipart >= 50, "too few runs (%d) or too few cut into parts (%d)", runs,
          multipart);
    return check_done("test_tiles");
}
