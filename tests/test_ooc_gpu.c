/* Out-of-core on the GPU: the chunk pipeline (src/plan/ooc_gpu.c) gives the CPU in-core iteration's
 * state bit for bit, for every stencil and precision, the four table storages, the access
 * strategies, F = 1..3 and budgets from twice the minimum (a thousand chunks and more, Z-slabs;
 * tests/test_ooc.c runs the minimum, where every part is one cell, on the CPU) to in core, with
 * region sharing (and without it at the larger budget), and moves host->device exactly the
 * bytes its plan counts (shared inputs excluded, share lists included); K = 2, 3
 * steps per launch (access/tiles.cu) for laplap and hdiff, in core and in chunks, blocks of 32
 * to 256 cells; laplap and hdiff on quad meshes whose labels turn (cubed spheres, rotated, a
 * scrambled patch: tests/quad_meshes.h) in chunks and K = 2 per launch; graphlap on hexagons,
 * triangles and the refined patch in file, METIS and z-curve order (graph_mesh_cases), with the
 * ELL kernel and with graph-twopass (in core with blocks of 256 and 32, out of core F = 1, 3;
 * refused without its lists) and with K = 2, 3 steps per launch (access/gtiles.cu); fluxdiff
 * (each part with its cells' coefficients) on hexagons, triangles, the refined patch, a quad
 * patch and the cubed sphere, T = 1, 2, 7, in core and F = 1..3, ELL and graph-twopass; then
 * 512x512x64 runs of each stencil at a third of its size (and with K = 2 in core), and graphlap
 * on 512x512 hexagons x 64 levels in METIS order (also graph-twopass in core). With
 * --persistent (ctest ooc_gpu_persistent), only each chunk's steps in one persistent launch
 * (src/plan/persist_ooc.h):
 * laplap, hdiff, lap, both precisions, the four storages, F = 1, 2, 5 in several chunks and in
 * one, refusals, and laplap 512x512x64 at a third of its size. Exits 77 (skipped) without a
 * device. */
#include "check.h"
#include "access/tiles_run.h"
#include "quad_meshes.h"
#include "src/io/mesh_io.h"
#include "access/hooks.h"
#include "src/exec/gpu.h"
#include "src/exec/iterate.h"
#include "src/exec/runner.h"
#include "src/plan/ooc_gpu.h"

#include <string.h>
#include <unistd.h>

enum { STEPS = 5 };

static const access_t accesses[] = {ACC_IDXVAR, ACC_NAIVE, ACC_ZLOOP_SLICED, ACC_SHARED,
                                    ACC_SHARED_WARP, ACC_ZLOOP, ACC_ZLOOP_PLAIN, ACC_PAIRS};

/* A new scratch directory made from the template dir (…XXXXXX) and path = dir/name; 0 or -1. */
static int scratch_file(char *dir, char *path, size_t n, const char *name)
{
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp");
        return -1;
    }
    snprintf(path, n, "%s/%s", dir, name);
    return 0;
}

/* The lists of a strategy that reads them (pairs) on plan pl, for its default blocks, as the
 * engine makes them (src/engine/run_plan.c). */
static void lists_for(ooc_plan *pl, access_t a, const char *what)
{
    if (!access_table[a].prep->prepare)
        return;
    int bx, by, bz;
    gpu_default_shape(a, 1, &bx, &by, &bz);
    CHECK(ooc_plan_lists(pl, a, bx) == 0, "%s: no %s lists", what, access_name[a]);
}

/* One GPU run of plan pl against ref; returns the number of chunks. */
static int run_one(const problem *pb, const ooc_plan *pl, fieldset ref, access_t a, int steps,
                   const char *what)
{
    fieldset st = iter_fields_copy(pb), spare = {{0}};
    const iter_carry *c = iter_carried(pb->s.stencil);
    for (int j = 0; j < c->n; j++)
        spare.p[c->in[j]] = field_alloc(pb->s.prec, pb->ug.len);
    ooc_kernel k = {a, 0, 0, 0, 4, 0};
    ooc_timing t;
    CHECK(ooc_gpu_run(pl, &pb->ug, &st, &spare, steps, &k, &t) == 0, "%s: run failed", what);
    long d = iter_state_differ(pb, st, ref, NULL);
    CHECK(d == 0, "%s access %s (%d x %d chunks, F=%d%s): %ld points differ from the CPU in core",
          what, access_name[a], pl->nparts, pl->nslabs, pl->F, pl->share ? "" : ", no sharing", d);
    double pass = pl->h2d_field_bytes + pl->h2d_table_bytes + pl->list_bytes;
    CHECK(t.h2d_bytes == t.passes * pass, "%s: %.0f bytes host->device in %d passes, the plan "
          "counts %.0f a pass", what, t.h2d_bytes, t.passes, pass);
    for (int j = 0; j < c->n; j++)
        xfree(spare.p[c->in[j]]);
    iter_fields_free(pb, &st);
    return pl->nparts * pl->nslabs;
}

/* Plan pb for F steps per transfer under `budget` (table storage of pb's spec) and run it with
 * strategy a against ref; with `unshared`, also without region sharing. Counts runs and runs of
 * several chunks. */
static void run_budget(const problem *pb, fieldset ref, access_t a, int F, size_t budget,
                       int unshared, const char *what, long *runs, long *chunked)
{
    const problem_spec *s = &pb->s;
    ooc_plan pl;
    if (ooc_plan_make(&pl, &pb->ug, s->stencil, s->prec, s->chasing, s->compressed, budget, F) != 0) {
        CHECK(0, "%s F=%d: no plan", what, F);
        return;
    }
    CHECK(ooc_plan_coeffs(&pl, &pb->coef) == 0, "%s: coefficients", what); /* fluxdiff's */
    lists_for(&pl, a, what);
    *chunked += run_one(pb, &pl, ref, a, STEPS, what) > 1;
    (*runs)++;
    if (unshared) {
        ooc_plan_share(&pl, 0);
        run_one(pb, &pl, ref, a, STEPS, what);
        (*runs)++;
    }
    ooc_plan_free(&pl);
}

/* The problem of spec s, its CPU in-core result after STEPS steps and its name. */
static int setup(problem *pb, const problem_spec *s, fieldset *ref, char *what, size_t n)
{
    if (problem_make(pb, s) != 0) {
        CHECK(0, "problem_make");
        return -1;
    }
    *ref = iter_fields_copy(pb);
    iter_run_incore(pb, *ref, STEPS);
    snprintf(what, n, "%s %s %s chasing=%d compressed=%d", stencil_table[s->stencil].name,
             prec_name(s->prec), layout_name[s->layout], s->chasing, s->compressed);
    return 0;
}

static void small_cases(long *runs, long *chunked)
{
    static const layout_t layouts[] = {LAYOUT_ROWMAJOR, LAYOUT_ZCURVE_W, LAYOUT_ZCURVE};
    int ai = 0;
    for (int st = 0; st < ST_QUAD_COUNT; st++) /* graphlap: graph_mesh_cases */
        for (int prec = 0; prec < 2; prec++)
            for (int storage = 0; storage < 4; storage++) {
                problem_spec s = {(stencil_t)st, (precision_t)prec, 37, 29, 14,
                                  stencil_table[st].radius, layouts[storage % 3], 8, 5,
                                  storage >> 1, storage & 1};
                problem pb;
                fieldset ref;
                char what[160];
                if (setup(&pb, &s, &ref, what, sizeof what) != 0)
                    continue;
                for (int F = 1; F <= 3; F++) {
                    size_t min = ooc_min_budget(&pb.ug, s.stencil, s.prec, s.chasing, s.compressed, F);
                    size_t budgets[] = {2 * min, 5 * min};
                    for (int b = 0; b < 2; b++)
                        run_budget(&pb, ref, accesses[ai++ % (sizeof accesses / sizeof accesses[0])],
                                   F, budgets[b], b == 1, what, runs, chunked);
                }
                ooc_plan pl;
                CHECK(ooc_plan_incore(&pl, &pb.ug, s.stencil, s.prec, s.chasing, s.compressed,
                                      STEPS) == 0, "%s: no in-core plan", what);
                run_one(&pb, &pl, ref, ACC_IDXVAR, STEPS, what);
                (*runs)++;
                ooc_plan_free(&pl);
                iter_fields_free(&pb, &ref);
                problem_free(&pb);
            }
}

/* Plan pl with balls for K steps per launch in blocks of B cells, run against ref; returns the
 * number of chunks (0: no balls). */
static int run_tiles(const problem *pb, ooc_plan *pl, fieldset ref, int K, int B, int steps,
                     const char *what)
{
    int rc = ooc_plan_tiles(pl, K, B);
    CHECK(rc == 0, "%s: no balls for K=%d", what, K);
    char name[200];
    snprintf(name, sizeof name, "%s K=%d B=%d", what, K, B);
    return rc == 0 ? run_one(pb, pl, ref, ACC_IDXVAR, steps, name) : 0;
}

static void kernel_steps_cases(long *runs, long *chunked)
{
    static const int blocks[] = {32, 64, 256};
    int bi = 0;
    for (int st = 0; st < ST_QUAD_COUNT; st++)
        for (int prec = 0; prec < 2 && tiles_supported((stencil_t)st); prec++) {
            problem_spec s = {(stencil_t)st, (precision_t)prec, 61, 47, 9, stencil_table[st].radius,
                              prec ? LAYOUT_RANDOM : LAYOUT_ZCURVE, 8, 5, 1, 1};
            problem pb;
            fieldset ref;
            char what[160];
            if (setup(&pb, &s, &ref, what, sizeof what) != 0)
                continue;
            for (int K = 2; K <= 3; K++)
                for (int F = K; F <= K + 1; F++) {
                    size_t min = ooc_min_budget(&pb.ug, s.stencil, s.prec, 1, 1, F);
                    ooc_plan pl;
                    CHECK(ooc_plan_incore(&pl, &pb.ug, s.stencil, s.prec, 1, 1, F) == 0,
                          "%s: no in-core plan", what);
                    *runs += run_tiles(&pb, &pl, ref, K, blocks[bi++ % 3], STEPS, what) > 0;
                    ooc_plan_free(&pl);
                    if (ooc_plan_make(&pl, &pb.ug, s.stencil, s.prec, 1, 1, 16 * min, F) != 0) {
                        CHECK(0, "%s F=%d: no plan", what, F);
                        continue;
                    }
                    int n = run_tiles(&pb, &pl, ref, K, blocks[bi++ % 3], STEPS, what);
                    *runs += n > 0;
                    *chunked += n > 1;
                    ooc_plan_free(&pl);
                }
            iter_fields_free(&pb, &ref);
            problem_free(&pb);
        }
}

/* laplap and hdiff on the quad meshes whose labels turn (tests/quad_meshes.h), iterated out of
 * core (F = 1, 2, budgets 2x and 5x the minimum) and K = 2 steps per launch (in core and in
 * chunks), each against the CPU in-core iteration bit for bit. */
static void quad_mesh_cases(long *runs, long *chunked)
{
    char dir[] = "/tmp/pillar-test-ooc-gpu-XXXXXX", path[80];
    if (scratch_file(dir, path, sizeof path, "q.h5") != 0)
        return;
    int ai = 0;
    for (int k = 2; k < NQUAD_CASES; k++) {
        mesh mh;
        CHECK(quad_case_make(&quad_cases[k], &mh) == 0 && mesh_write(path, &mh) == 0, "%s",
              quad_cases[k].name);
        mesh_free(&mh);
        for (int st = 0; st < ST_QUAD_COUNT; st++) /* framed stencils are refused there */
            for (int prec = 0; prec < 2 && !stencil_table[st].framed; prec++) {
                int storage = (k + st + prec) % 4;
                problem_spec s = {(stencil_t)st, (precision_t)prec, 0, 0, 0, 2, LAYOUT_ROWMAJOR,
                                  16, 5, storage >> 1, storage & 1};
                problem pb;
                if (problem_make_mesh(&pb, &s, path, MESH_ORDER_METIS) != 0) {
                    CHECK(0, "%s: problem", quad_cases[k].name);
                    continue;
                }
                fieldset ref = iter_fields_copy(&pb);
                iter_run_incore(&pb, ref, STEPS);
                char what[160];
                snprintf(what, sizeof what, "%s %s %s chasing=%d compressed=%d",
                         quad_cases[k].name, stencil_table[st].name, prec_name(s.prec), s.chasing,
                         s.compressed);
                for (int F = 1; F <= 2; F++) {
                    size_t min = ooc_min_budget(&pb.ug, s.stencil, s.prec, s.chasing, s.compressed, F);
                    for (int b = 2; b <= 5; b += 3) {
                        ooc_plan pl;
                        if (ooc_plan_make(&pl, &pb.ug, s.stencil, s.prec, s.chasing, s.compressed,
                                          b * min, F) != 0) {
                            CHECK(0, "%s F=%d: no plan", what, F);
                            continue;
                        }
                        access_t a = accesses[ai++ % (sizeof accesses / sizeof accesses[0])];
                        lists_for(&pl, a, what);
                        *chunked += run_one(&pb, &pl, ref, a, STEPS, what) > 1;
                        (*runs)++;
                        ooc_plan_free(&pl);
                    }
                }
                if (!tiles_supported(s.stencil)) {
                    iter_fields_free(&pb, &ref);
                    problem_free(&pb);
                    continue;
                }
                ooc_plan pl;
                CHECK(ooc_plan_incore(&pl, &pb.ug, s.stencil, s.prec, s.chasing, s.compressed, 2) == 0,
                      "%s: no in-core plan", what);
                *runs += run_tiles(&pb, &pl, ref, 2, 64, STEPS, what) > 0;
                ooc_plan_free(&pl);
                size_t min = ooc_min_budget(&pb.ug, s.stencil, s.prec, s.chasing, s.compressed, 2);
                if (ooc_plan_make(&pl, &pb.ug, s.stencil, s.prec, s.chasing, s.compressed, 16 * min,
                                  2) == 0) {
                    int n = run_tiles(&pb, &pl, ref, 2, 32, STEPS, what);
                    *runs += n > 0;
                    *chunked += n > 1;
                    ooc_plan_free(&pl);
                } else {
                    CHECK(0, "%s: no plan for K = 2", what);
                }
                iter_fields_free(&pb, &ref);
                problem_free(&pb);
            }
    }
    unlink(path);
    rmdir(dir);
}

/* Two steps of pb (ref: its CPU in-core result) in chunks at a third of its size, F = 1, 2, with
 * idxvar; each must take several chunks. */
static void run_thirds(const problem *pb, fieldset ref, const char *what, long *runs)
{
    const problem_spec *s = &pb->s;
    size_t whole = (size_t)pb->nf * prec_size(s->prec) * pb->ug.len;
    for (int F = 1; F <= 2; F++) {
        ooc_plan pl;
        if (ooc_plan_make(&pl, &pb->ug, s->stencil, s->prec, s->chasing, s->compressed, whole / 3,
                          F) != 0) {
            CHECK(0, "%s: no plan", what);
            continue;
        }
        int n = run_one(pb, &pl, ref, ACC_IDXVAR, 2, what);
        CHECK(n > 1, "%s: %d chunk(s) at a third of the size", what, n);
        printf("%s F=%d: %d chunks, bit-exact\n", what, F, n);
        (*runs)++;
        ooc_plan_free(&pl);
    }
}

/* graph-twopass (access/graph_twopass.cu) as the step kernel of plan pl: its lists built for
 * blocks of nt threads (ooc_plan_lists), then run against ref. Returns the number of chunks
 * (0: no lists). */
static int run_gtwopass(const problem *pb, ooc_plan *pl, fieldset ref, int nt, int steps,
                        const char *what)
{
    CHECK(ooc_plan_lists(pl, ACC_GRAPH_TWOPASS, nt) == 0, "%s: no graph-twopass lists for blocks of %d", what, nt);
    CHECK(ooc_plan_coeffs(pl, &pb->coef) == 0, "%s: coefficients", what); /* fluxdiff's */
    if (pl->lists_bx != nt)
        return 0;
    fieldset st = iter_fields_copy(pb), spare = {{0}};
    spare.p[0] = field_alloc(pb->s.prec, pb->ug.len);
    ooc_kernel k = {ACC_GRAPH_TWOPASS, nt, 1, 1, 4, 0};
    ooc_timing t;
    CHECK(ooc_gpu_run(pl, &pb->ug, &st, &spare, steps, &k, &t) == 0, "%s: twopass run failed", what);
    long d = iter_state_differ(pb, st, ref, NULL);
    CHECK(d == 0, "%s graph-twopass blocks of %d (%d x %d chunks, F=%d): %ld points differ from "
          "the CPU in core", what, nt, pl->nparts, pl->nslabs, pl->F, d);
    double pass = pl->h2d_field_bytes + pl->h2d_table_bytes + pl->list_bytes;
    CHECK(t.h2d_bytes == t.passes * pass, "%s: graph-twopass: %.0f bytes host->device in %d "
          "passes, the plan counts %.0f a pass", what, t.h2d_bytes, t.passes, pass);
    xfree(spare.p[0]);
    iter_fields_free(pb, &st);
    return pl->nparts * pl->nslabs;
}

/* graph-twopass on pb: in core (blocks of 256 and 32 threads) and out of core with F = 1, 3 at
 * twice the minimum budget (blocks of 32 and 96), against ref (STEPS steps) bit for bit; a plan
 * without its lists is refused. */
static void graph_twopass_cases(const problem *pb, fieldset ref, const char *what, long *runs,
                                long *chunked)
{
    const problem_spec *s = &pb->s;
    static const int nts[] = {256, 32};
    for (int i = 0; i < 2; i++) {
        ooc_plan pl;
        CHECK(ooc_plan_incore(&pl, &pb->ug, s->stencil, s->prec, 0, 0, STEPS) == 0,
              "%s: no in-core plan", what);
        if (i == 0) { /* without lists: refused */
            ooc_kernel k = {ACC_GRAPH_TWOPASS, 0, 0, 0, 4, 0};
            ooc_timing t;
            fieldset st = iter_fields_copy(pb), spare = {{0}};
            spare.p[0] = field_alloc(s->prec, pb->ug.len);
            fprintf(stderr, "(expected) ");
            CHECK(ooc_gpu_run(&pl, &pb->ug, &st, &spare, STEPS, &k, &t) == -1,
                  "%s: graph-twopass without lists accepted", what);
            xfree(spare.p[0]);
            iter_fields_free(pb, &st);
        }
        *runs += run_gtwopass(pb, &pl, ref, nts[i], STEPS, what) > 0;
        ooc_plan_free(&pl);
    }
    static const int Fs[] = {1, 3}, onts[] = {32, 96};
    for (int i = 0; i < 2; i++) {
        size_t min = ooc_min_budget(&pb->ug, s->stencil, s->prec, 0, 0, Fs[i]);
        ooc_plan pl;
        if (ooc_plan_make(&pl, &pb->ug, s->stencil, s->prec, 0, 0, 2 * min, Fs[i]) != 0) {
            CHECK(0, "%s F=%d: no plan", what, Fs[i]);
            continue;
        }
        int n = run_gtwopass(pb, &pl, ref, onts[i], STEPS, what);
        *runs += n > 0;
        *chunked += n > 1;
        ooc_plan_free(&pl);
    }
}

/* graphlap with K = 2, 3 steps per launch (access/gtiles.cu: balls through the neighbour
 * lists): in core (F = K + 1) and out of core (F = K, K + 1 at 8x the minimum budget), blocks of
 * 32, 64 and 256 cells, against ref (STEPS steps) bit for bit. */
static void graph_ksteps_cases(const problem *pb, fieldset ref, const char *what, long *runs,
                               long *chunked)
{
    static const int blocks[] = {32, 64, 256};
    const problem_spec *s = &pb->s;
    int bi = 0;
    for (int K = 2; K <= 3; K++) {
        ooc_plan pl;
        CHECK(ooc_plan_incore(&pl, &pb->ug, s->stencil, s->prec, 0, 0, K + 1) == 0,
              "%s: no in-core plan", what);
        *runs += run_tiles(pb, &pl, ref, K, blocks[bi++ % 3], STEPS, what) > 0;
        ooc_plan_free(&pl);
        for (int F = K; F <= K + 1; F++) {
            size_t min = ooc_min_budget(&pb->ug, s->stencil, s->prec, 0, 0, F);
            if (ooc_plan_make(&pl, &pb->ug, s->stencil, s->prec, 0, 0, 8 * min, F) != 0) {
                CHECK(0, "%s F=%d: no plan", what, F);
                continue;
            }
            int n = run_tiles(pb, &pl, ref, K, blocks[bi++ % 3], STEPS, what);
            *runs += n > 0;
            *chunked += n > 1;
            ooc_plan_free(&pl);
        }
    }
}

/* graphlap on general meshes (bounded hexagons, periodic triangles, the refined patch with its
 * 5-neighbour cells) in file, METIS and z-curve order, double and float: the in-core plan and
 * F = 1..3 at budgets 2x and 5x the minimum (also without sharing), against the CPU in-core
 * iteration bit for bit; the strategies without a graph kernel are refused with a message. */
static void graph_mesh_cases(long *runs, long *chunked)
{
    char dir[] = "/tmp/pillar-test-ooc-gpu-graph-XXXXXX", path[80];
    if (scratch_file(dir, path, sizeof path, "g.h5") != 0)
        return;
    const mesh_gen_spec specs[] = {{MESH_HEXAGONS, 40, 31, 0, 9, 0, 1, 0, 0},
                                   {MESH_TRIANGLES, 30, 24, 0, 9, 0, 1, 1, 0},
                                   {MESH_REFINED, 33, 33, 0, 9, 0, 1, 0, 11}};
    for (size_t m = 0; m < sizeof specs / sizeof specs[0]; m++) {
        mesh mh;
        CHECK(mesh_generate(&mh, &specs[m]) == 0 && mesh_write(path, &mh) == 0, "mesh %zu", m);
        mesh_free(&mh);
        for (int order = 0; order < MESH_ORDER_COUNT; order++)
            for (int prec = 0; prec < 2; prec++) {
                problem_spec s = {ST_GRAPHLAP, (precision_t)prec, 0, 0, 0, 2, LAYOUT_ROWMAJOR, 24,
                                  5, 0, 0};
                problem pb;
                if (problem_make_mesh(&pb, &s, path, (mesh_order_t)order) != 0) {
                    CHECK(0, "graph mesh %zu: problem", m);
                    continue;
                }
                fieldset ref = iter_fields_copy(&pb);
                iter_run_incore(&pb, ref, STEPS);
                char what[160];
                snprintf(what, sizeof what, "graphlap %s on %s mesh %zu (%s order)",
                         prec_name(s.prec), mesh_kind_name[specs[m].kind], m,
                         mesh_order_name[order]);
                ooc_plan pl;
                CHECK(ooc_plan_incore(&pl, &pb.ug, s.stencil, s.prec, 0, 0, STEPS) == 0,
                      "%s: no in-core plan", what);
                run_one(&pb, &pl, ref, ACC_IDXVAR, STEPS, what);
                (*runs)++;
                if (m == 0 && order == 0 && prec == 0) { /* one kernel: idxvar's descriptor */
                    ooc_kernel k = {ACC_ZLOOP, 0, 0, 0, 4, 0};
                    ooc_timing t;
                    fieldset st = iter_fields_copy(&pb), spare = {{0}};
                    spare.p[0] = field_alloc(s.prec, pb.ug.len);
                    fprintf(stderr, "(expected) ");
                    CHECK(ooc_gpu_run(&pl, &pb.ug, &st, &spare, STEPS, &k, &t) == -1,
                          "%s: --access zloop accepted", what);
                    xfree(spare.p[0]);
                    iter_fields_free(&pb, &st);
                }
                ooc_plan_free(&pl);
                for (int F = 1; F <= 3; F++) {
                    size_t min = ooc_min_budget(&pb.ug, s.stencil, s.prec, 0, 0, F);
                    for (int b = 2; b <= 5; b += 3)
                        run_budget(&pb, ref, ACC_IDXVAR, F, b * min, b == 5, what, runs, chunked);
                }
                graph_twopass_cases(&pb, ref, what, runs, chunked);
                graph_ksteps_cases(&pb, ref, what, runs, chunked);
                iter_fields_free(&pb, &ref);
                problem_free(&pb);
            }
    }
    unlink(path);
    rmdir(dir);
}

/* fluxdiff (in <- out, its coefficients gathered per part: ooc_plan_coeffs) on pb for T steps:
 * the in-core plan and F = 1..3 at twice the minimum budget with the ELL kernel, graph-twopass
 * in core (blocks of 256) and at F = 3 (blocks of 32), against the CPU in-core iteration ref. */
static void fluxdiff_runs(const problem *pb, fieldset ref, int T, const char *what, long *runs,
                          long *chunked)
{
    const problem_spec *s = &pb->s;
    for (int F = 0; F <= 3; F++) { /* 0: in core */
        ooc_plan pl;
        size_t min = F ? ooc_min_budget(&pb->ug, s->stencil, s->prec, 0, 0, F) : 0;
        int rc = F ? ooc_plan_make(&pl, &pb->ug, s->stencil, s->prec, 0, 0, 2 * min, F)
                   : ooc_plan_incore(&pl, &pb->ug, s->stencil, s->prec, 0, 0, T);
        if (rc != 0) {
            CHECK(0, "%s F=%d: no plan", what, F);
            continue;
        }
        CHECK(ooc_plan_coeffs(&pl, &pb->coef) == 0, "%s: coefficients", what);
        int n = run_one(pb, &pl, ref, ACC_IDXVAR, T, what);
        CHECK(F == 0 || n > 1, "%s F=%d: one chunk at twice the minimum budget", what, F);
        (*runs)++;
        *chunked += n > 1;
        ooc_plan_free(&pl);
        if (F % 3) /* graph-twopass: in core and F = 3 */
            continue;
        rc = F ? ooc_plan_make(&pl, &pb->ug, s->stencil, s->prec, 0, 0, 2 * min, F)
               : ooc_plan_incore(&pl, &pb->ug, s->stencil, s->prec, 0, 0, T);
        n = rc == 0 ? run_gtwopass(pb, &pl, ref, F ? 32 : 256, T, what) : 0;
        CHECK(n > 0, "%s F=%d: no graph-twopass run", what, F);
        *runs += n > 0;
        *chunked += n > 1;
        if (rc == 0)
            ooc_plan_free(&pl);
    }
}

/* The meshes of fluxdiff_mesh_cases: every cell type, with coordinates. */
static const mesh_gen_spec fluxdiff_meshes[] = {
    {MESH_HEXAGONS, 30, 23, 0, 7, 0, 1, 0, 0},  {MESH_TRIANGLES, 20, 16, 0, 7, 0, 1, 1, 0},
    {MESH_REFINED, 25, 25, 0, 7, 0, 1, 0, 9},   {MESH_REGULAR, 28, 20, 0, 7, 0, 1, 0, 0},
    {MESH_CUBED_SPHERE, 0, 0, 9, 7, 0, 1, 0, 0},
};

/* fluxdiff on a mesh of every cell type with coordinates (bounded hexagons, periodic triangles,
 * the refined patch, a regular quad patch, the cubed sphere) in file and METIS order, double and
 * float, T = 1, 2, 7 (fluxdiff_runs); a plan without the coefficients and K = 2 steps per launch
 * are refused with a message. */
static void fluxdiff_mesh_cases(long *runs, long *chunked)
{
    static const int Ts[] = {1, 2, 7};
    char dir[] = "/tmp/pillar-test-ooc-gpu-fluxdiff-XXXXXX", path[80];
    if (scratch_file(dir, path, sizeof path, "f.h5") != 0)
        return;
    for (size_t m = 0; m < sizeof fluxdiff_meshes / sizeof fluxdiff_meshes[0]; m++) {
        const mesh_gen_spec *sp = &fluxdiff_meshes[m];
        mesh mh;
        int made = mesh_generate(&mh, sp) == 0;
        CHECK(made && mesh_write(path, &mh) == 0, "fluxdiff mesh %zu", m);
        if (made)
            mesh_free(&mh);
        for (int order = 0; order < 2; order++)
            for (int prec = 0; prec < 2; prec++) {
                problem_spec s = {ST_FLUXDIFF, (precision_t)prec, 0, 0, 0, 1, LAYOUT_ROWMAJOR, 24,
                                  5, 0, 0};
                problem pb;
                mesh_order_t mo = order ? MESH_ORDER_METIS : MESH_ORDER_FILE;
                if (problem_make_mesh(&pb, &s, path, mo) != 0) {
                    CHECK(0, "fluxdiff mesh %zu: problem", m);
                    continue;
                }
                char what[160];
                for (int i = 0; i < 3; i++) {
                    fieldset ref = iter_fields_copy(&pb);
                    iter_run_incore(&pb, ref, Ts[i]);
                    snprintf(what, sizeof what, "fluxdiff %s on %s mesh %zu (%s order) T=%d",
                             prec_name(s.prec), mesh_kind_name[sp->kind], m,
                             mesh_order_name[mo], Ts[i]);
                    fluxdiff_runs(&pb, ref, Ts[i], what, runs, chunked);
                    iter_fields_free(&pb, &ref);
                }
                if (m == 0 && order == 0 && prec == 0) { /* refusals */
                    ooc_plan pl;
                    CHECK(ooc_plan_incore(&pl, &pb.ug, s.stencil, s.prec, 0, 0, 2) == 0, "plan");
                    ooc_kernel k = {ACC_IDXVAR, 0, 0, 0, 4, 0};
                    ooc_timing t;
                    fieldset st = iter_fields_copy(&pb), spare = {{0}};
                    spare.p[0] = field_alloc(s.prec, pb.ug.len);
                    fprintf(stderr, "(expected) ");
                    CHECK(ooc_gpu_run(&pl, &pb.ug, &st, &spare, 2, &k, &t) == -1,
                          "%s: a plan without coefficients accepted", what);
                    fprintf(stderr, "(expected) ");
                    CHECK(ooc_plan_tiles(&pl, 2, 64) == -1, "%s: K = 2 accepted", what);
                    xfree(spare.p[0]);
                    iter_fields_free(&pb, &st);
                    ooc_plan_free(&pl);
                }
                problem_free(&pb);
            }
    }
    unlink(path);
    rmdir(dir);
}

/* graphlap on 512x512 bounded hexagons x 64 levels (double), in chunks at a third of its size,
 * F = 1, 2, against the CPU in-core iteration bit for bit. */
static void big_graph_case(long *runs)
{
    char dir[] = "/tmp/pillar-test-ooc-gpu-hex-XXXXXX", path[80];
    if (scratch_file(dir, path, sizeof path, "hex.h5") != 0)
        return;
    mesh_gen_spec sp = {MESH_HEXAGONS, 512, 512, 0, 64, 0, 1, 0, 0};
    mesh mh;
    CHECK(mesh_generate(&mh, &sp) == 0 && mesh_write(path, &mh) == 0, "512x512 hexagons");
    mesh_free(&mh);
    problem_spec s = {ST_GRAPHLAP, PREC_DOUBLE, 0, 0, 0, 2, LAYOUT_ROWMAJOR, 4096, 42, 0, 0};
    problem pb;
    if (problem_make_mesh(&pb, &s, path, MESH_ORDER_METIS) == 0) {
        fieldset ref = iter_fields_copy(&pb);
        iter_run_incore(&pb, ref, 2);
        run_thirds(&pb, ref, "graphlap hexagons 512x512x64 (METIS order)", runs);
        ooc_plan pl; /* graph-twopass in core */
        CHECK(ooc_plan_incore(&pl, &pb.ug, s.stencil, s.prec, 0, 0, 2) == 0, "no in-core plan");
        *runs += run_gtwopass(&pb, &pl, ref, 256, 2, "graphlap hexagons 512x512x64 (METIS order)") > 0;
        ooc_plan_free(&pl);
        iter_fields_free(&pb, &ref);
        problem_free(&pb);
    } else {
        CHECK(0, "graphlap hexagons 512x512x64: problem");
    }
    unlink(path);
    rmdir(dir);
}

static void big_cases(long *runs)
{
    for (int st = 0; st < ST_QUAD_COUNT; st++) { /* graphlap: big_graph_case */
        problem_spec s = {(stencil_t)st, PREC_DOUBLE, 512, 512, 64, stencil_table[st].radius,
                          LAYOUT_ZCURVE_W, 32, 42, 1, 1};
        problem pb;
        if (problem_make(&pb, &s) != 0) {
            CHECK(0, "problem_make");
            continue;
        }
        fieldset ref = iter_fields_copy(&pb);
        iter_run_incore(&pb, ref, 2);
        char what[64];
        snprintf(what, sizeof what, "%s 512x512x64", stencil_table[st].name);
        run_thirds(&pb, ref, what, runs);
        if (tiles_supported((stencil_t)st)) { /* two steps in one launch, in core */
            ooc_plan pl;
            CHECK(ooc_plan_incore(&pl, &pb.ug, s.stencil, s.prec, 1, 1, 2) == 0, "no in-core plan");
            *runs += run_tiles(&pb, &pl, ref, 2, 256, 2, what) > 0;
            ooc_plan_free(&pl);
        }
        iter_fields_free(&pb, &ref);
        problem_free(&pb);
    }
}

/* Plan pl run with each chunk's steps in one persistent launch (blocks of nt threads, 0: the
 * default), `steps` steps against ref (the CPU in-core result); host->device: the plan's bytes a
 * pass plus every part's first[] once. Returns the number of chunks (0: refused). */
static int run_persistent(const problem *pb, const ooc_plan *pl, fieldset ref, int nt, int steps,
                          const char *what)
{
    fieldset st = iter_fields_copy(pb), spare = {{0}};
    const iter_carry *c = iter_carried(pb->s.stencil);
    for (int j = 0; j < c->n; j++)
        spare.p[c->in[j]] = field_alloc(pb->s.prec, pb->ug.len);
    ooc_kernel k = {ACC_IDXVAR, nt, 0, 0, 0, 1};
    ooc_timing t;
    int rc = ooc_gpu_run(pl, &pb->ug, &st, &spare, steps, &k, &t);
    CHECK(rc == 0, "%s persistent: run failed", what);
    if (rc == 0) {
        long d = iter_state_differ(pb, st, ref, NULL);
        CHECK(d == 0, "%s persistent, blocks of %d (%d x %d chunks, F=%d%s): %ld points differ "
              "from the CPU in core", what, nt, pl->nparts, pl->nslabs, pl->F,
              pl->share ? "" : ", no sharing", d);
        double pass = pl->h2d_field_bytes + pl->h2d_table_bytes + pl->list_bytes,
               once = 4.0 * pl->nparts * (pl->F + 1);
        CHECK(t.h2d_bytes == t.passes * pass + once, "%s persistent: %.0f bytes host->device in "
              "%d passes, the plan counts %.0f a pass and %.0f once", what, t.h2d_bytes, t.passes,
              pass, once);
    }
    for (int j = 0; j < c->n; j++)
        xfree(spare.p[c->in[j]]);
    iter_fields_free(pb, &st);
    return rc == 0 ? pl->nparts * pl->nslabs : 0;
}

/* Persistent chunks (src/plan/persist_ooc.h): laplap, hdiff and lap, double and float, the four
 * table storages, F = 1, 2, 5 on 41x31x9 in several chunks (with and without sharing, blocks of
 * 256 and 64 threads; 7 steps: passes of fewer steps than F too), in one chunk, and refused for
 * fastwaves and for a K-step plan. */
static void persistent_cases(long *runs, long *chunked)
{
    static const stencil_t sts[] = {ST_LAPLAP, ST_HDIFF, ST_LAP};
    static const layout_t layouts[] = {LAYOUT_ROWMAJOR, LAYOUT_ZCURVE_W, LAYOUT_ZCURVE};
    static const int Fs[] = {1, 2, 5};
    enum { T = 7 };
    for (int si = 0; si < 3; si++)
        for (int prec = 0; prec < 2; prec++)
            for (int storage = 0; storage < 4; storage++) {
                stencil_t stn = sts[si];
                problem_spec s = {stn, (precision_t)prec, 41, 31, 9, stencil_table[stn].radius,
                                  layouts[storage % 3], 8, 5, storage >> 1, storage & 1};
                problem pb;
                if (problem_make(&pb, &s) != 0) {
                    CHECK(0, "problem_make");
                    continue;
                }
                fieldset ref = iter_fields_copy(&pb);
                iter_run_incore(&pb, ref, T);
                char what[160];
                snprintf(what, sizeof what, "%s %s %s chasing=%d compressed=%d", stencil_table[stn].name,
                         prec_name(s.prec), layout_name[s.layout], s.chasing, s.compressed);
                for (int fi = 0; fi < 3; fi++) {
                    int F = Fs[fi];
                    size_t min = ooc_min_budget(&pb.ug, stn, s.prec, s.chasing, s.compressed, F);
                    ooc_plan pl;
                    if (ooc_plan_make(&pl, &pb.ug, stn, s.prec, s.chasing, s.compressed,
                                      (F > 2 ? 2 : 4) * min, F) != 0) {
                        CHECK(0, "%s F=%d: no plan", what, F);
                        continue;
                    }
                    int n = run_persistent(&pb, &pl, ref, (storage + fi) % 2 ? 64 : 0, T, what);
                    *chunked += n > 1;
                    CHECK(n > 1, "%s F=%d: %d chunk(s), want several", what, F, n);
                    ooc_plan_share(&pl, 0);
                    run_persistent(&pb, &pl, ref, 0, T, what);
                    *runs += 2;
                    ooc_plan_free(&pl);
                }
                ooc_plan pl; /* the whole grid as one chunk */
                CHECK(ooc_plan_incore(&pl, &pb.ug, stn, s.prec, s.chasing, s.compressed, T) == 0,
                      "%s: no in-core plan", what);
                run_persistent(&pb, &pl, ref, 128, T, what);
                (*runs)++;
                ooc_plan_free(&pl);
                iter_fields_free(&pb, &ref);
                problem_free(&pb);
            }
    /* refusals: no kernel (fastwaves), K-step balls */
    static const stencil_t no[] = {ST_FASTWAVES, ST_LAPLAP};
    for (int i = 0; i < 2; i++) {
        problem_spec s = {no[i], PREC_DOUBLE, 20, 18, 6, stencil_table[no[i]].radius,
                          LAYOUT_ROWMAJOR, 8, 5, 0, 0};
        problem pb;
        if (problem_make(&pb, &s) != 0) {
            CHECK(0, "problem_make");
            continue;
        }
        ooc_plan pl;
        size_t min = ooc_min_budget(&pb.ug, s.stencil, s.prec, 0, 0, 2);
        if (ooc_plan_make(&pl, &pb.ug, s.stencil, s.prec, 0, 0, 4 * min, 2) == 0) {
            if (i == 0 || ooc_plan_tiles(&pl, 2, 64) == 0) {
                fieldset st = iter_fields_copy(&pb), spare = iter_fields_copy(&pb);
                ooc_kernel k = {ACC_IDXVAR, 0, 0, 0, 0, 1};
                ooc_timing t;
                char msg[300] = "";
                perr_capture(msg, sizeof msg);
                int rc = ooc_gpu_run(&pl, &pb.ug, &st, &spare, 2, &k, &t);
                perr_capture(NULL, 0);
                CHECK(rc == -1 && strstr(msg, i == 0 ? "no persistent kernel" : "K-step balls"),
                      "%s persistent out of core: rc %d, '%s'", stencil_table[no[i]].name, rc, msg);
                iter_fields_free(&pb, &st);
                iter_fields_free(&pb, &spare);
            }
            ooc_plan_free(&pl);
        }
        problem_free(&pb);
    }
}

/* laplap 512x512x64 double in chunks at a third of its size, F = 4, each chunk's steps in one
 * persistent launch, 6 steps (a pass of 4, one of 2). */
static void big_persistent_case(long *runs)
{
    problem_spec s = {ST_LAPLAP, PREC_DOUBLE, 512, 512, 64, 2, LAYOUT_ZCURVE_W, 32, 42, 0, 1};
    problem pb;
    if (problem_make(&pb, &s) != 0) {
        CHECK(0, "problem_make");
        return;
    }
    fieldset ref = iter_fields_copy(&pb);
    iter_run_incore(&pb, ref, 6);
    ooc_plan pl;
    size_t whole = (size_t)pb.nf * prec_size(s.prec) * pb.ug.len;
    if (ooc_plan_make(&pl, &pb.ug, s.stencil, s.prec, s.chasing, s.compressed, whole / 3, 4) == 0) {
        int n = run_persistent(&pb, &pl, ref, 0, 6, "laplap 512x512x64");
        CHECK(n > 1, "laplap 512x512x64 persistent: %d chunk(s) at a third of the size", n);
        printf("laplap 512x512x64 persistent F=4: %d chunks, bit-exact\n", n);
        (*runs)++;
        ooc_plan_free(&pl);
    } else {
        CHECK(0, "laplap 512x512x64: no plan");
    }
    iter_fields_free(&pb, &ref);
    problem_free(&pb);
}

int main(int argc, char **argv)
{
    char msg[256];
    if (!gpu_probe(msg, sizeof msg)) {
        printf("test_ooc_gpu: skipped: %s\n", msg);
        return 77;
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress shows even when a run is cut short */
    long runs = 0, chunked = 0;
    double t0 = now_ms();
    if (argc > 1 && !strcmp(argv[1], "--persistent")) { /* the persistent chunks alone */
        persistent_cases(&runs, &chunked);
        big_persistent_case(&runs);
        printf("persistent chunks: %ld runs (%ld with several chunks) compared bit for bit with "
               "the CPU in-core iteration, %.1f s\n", runs, chunked, (now_ms() - t0) * 1e-3);
        CHECK(chunked > 0, "no run had several chunks");
        return check_done("test_ooc_gpu --persistent");
    }
    small_cases(&runs, &chunked);
    printf("small grids: %ld runs (%ld with several chunks), %.1f s\n", runs, chunked,
           (now_ms() - t0) * 1e-3);
    t0 = now_ms();
    kernel_steps_cases(&runs, &chunked);
    printf("K steps per launch: %ld runs in all, %.1f s\n", runs, (now_ms() - t0) * 1e-3);
    t0 = now_ms();
    quad_mesh_cases(&runs, &chunked);
    printf("quad meshes with turning labels: %ld runs in all, %.1f s\n", runs, (now_ms() - t0) * 1e-3);
    t0 = now_ms();
    graph_mesh_cases(&runs, &chunked);
    printf("graphlap on general meshes: %ld runs in all, %.1f s\n", runs, (now_ms() - t0) * 1e-3);
    t0 = now_ms();
    fluxdiff_mesh_cases(&runs, &chunked);
    printf("fluxdiff on general meshes: %ld runs in all, %.1f s\n", runs, (now_ms() - t0) * 1e-3);

    if (!(argc > 1 && !strcmp(argv[1], "--small"))) {
        big_cases(&runs);
        big_graph_case(&runs);
    }
    printf("%ld out-of-core GPU runs (%ld with several chunks) compared bit for bit with the CPU "
           "in-core iteration\n", runs, chunked);
    CHECK(chunked > 0, "no run had several chunks");
    return check_done("test_ooc_gpu");
}
