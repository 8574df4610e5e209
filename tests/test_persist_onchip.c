/* test_persist_onchip.c — issue 35: the on-chip persistent kernels of laplap, hdiff, lap and
 * graphlap (access/persist_onchip.cu, src/plan/persist_onchip.c) against the CPU iteration
 * (iter_run_incore), bit for bit: graphlap on hexagons, triangles, a refined patch and the cubed
 * sphere (file and METIS order); the lattice in row-major, z-curve and random order (halo of the stencil's radius), and
 * the quad meshes whose labels
 * turn (the cubed sphere, a rotated patch, a scrambled one: tests/quad_meshes.h, in METIS order);
 * 1, 3, 7 and every SM's blocks; no level, one, two and every level cached; 1, 2 and 7 steps;
 * the next level loaded ahead or not (and one block of 64 threads, too few for it); blocks owning
 * runs of the order or METIS's parts; pass 1 one row or two a thread at once; double and float. Refusals: another stencil (fastwaves),
 * parts too large, too many
 * cached levels. laplap also walked over the grid's flat chart (onchip_request.walk: on, and auto
 * picking it) on the
 * lattices, and that refused on the quad meshes and for the other stencils. --small: without the
 * 512 x 512 x 16 runs; --tiny: 12 lattice cases a stencil and precision (and 3 walks), for
 * compute-sanitizer racecheck. Exits 77 (skipped) without a device. */
#include "check.h"
#include "graph_meshes.h"
#include "quad_meshes.h"
#include "src/exec/gpu.h"
#include "src/exec/iterate.h"
#include "src/io/mesh_io.h"
#include "src/plan/persist_onchip.h"

#include <cuda_runtime_api.h>
#include <string.h>
#include <unistd.h>

static long runs;

/* Runs pb's stencil `steps` steps on chip with request r; compares with the CPU, and checks that
 * the walk ran where r asked for it and not where r asked for the parts. Returns t.walk, or -1
 * where the run was refused. */
static int run_case(const problem *pb, int steps, onchip_request r, const char *what)
{
    fieldset ref = iter_fields_copy(pb), gpu = iter_fields_copy(pb);
    iter_run_incore(pb, ref, steps);
    onchip_timing t;
    char msg[512] = "";
    perr_saved saved = perr_capture_save();
    perr_capture(msg, sizeof msg);
    int rc = persist_onchip_run(pb, gpu, steps, &r, &t);
    perr_capture_restore(saved);
    CHECK(rc == 0, "%s: %d steps, %d blocks, %d levels, prefetch %d: refused: %s", what, steps,
          r.blocks, r.levels, r.prefetch, msg);
    if (rc == 0) {
        long bad = iter_state_differ(pb, ref, gpu, NULL);
        CHECK(bad == 0, "%s: %d steps on %d blocks x %d threads (%s), %d levels cached, prefetch "
              "%d, %d row(s) at once: %ld points differ", what, steps, t.blocks, t.threads,
              t.walk ? "the walk" : t.metis ? "METIS's parts" : "runs", t.levels, t.prefetch,
              t.rows, bad);
        CHECK(r.walk == ONCHIP_WALK_AUTO || t.walk == (r.walk == ONCHIP_WALK_ON),
              "%s: the walk %s", what, t.walk ? "ran where the parts were asked for" : "did not run");
        runs++;
    }
    iter_fields_free(pb, &ref);
    iter_fields_free(pb, &gpu);
    return rc == 0 ? t.walk : -1;
}

static int tiny; /* --tiny: a few cases (for compute-sanitizer's slow tools) */

static void cases_of(const problem *pb, const char *what, int sms)
{
    int nz = pb->ug.nz;
    if (tiny) { /* 3 blocks and all SMs, 1 and all levels cached, 2 steps, 512 and 1024 threads */
        for (int i = 0; i < 4; i++)
            run_case(pb, 2,
                     (onchip_request){i % 2 ? sms : 3, i / 2 ? 512 : 0, i % 2 ? nz : 1, 1,
                                      i % 2 ? ONCHIP_PARTS_METIS : ONCHIP_PARTS_RUNS,
                                      i == 1 ? 2 : 1, 0},
                     what);
        return;
    }
    const int blocks[] = {1, 3, 7, sms}, levels[] = {0, 1, 2, nz}, steps[] = {1, 2, 7};
    for (int i = 0; i < 4; i++)
        for (int l = 0; l < 4; l++)
            for (int k = 0; k < 3; k++)
                for (int pf = 0; pf < 2; pf++) {
                    if (levels[l] > nz || (long)blocks[i] > pb->ug.nxy - pb->ug.nhalo)
                        continue;
                    /* one block of 64 threads: more slots than its prefetch registers hold (the
                     * kernel that prefetches loads each level before it computes there); else
                     * 512 threads (8 values a thread ahead) at 2 steps, 1024 (4) otherwise */
                    int threads = blocks[i] == 1 ? 64 : k == 1 ? 512 : 0;
                    /* the parts: auto, runs of the order and METIS's in turn */
                    run_case(pb, steps[k],
                             (onchip_request){blocks[i], threads, levels[l], pf, (l + k) % 3,
                                              1 + (i + l) % 2, 0},
                             what);
                }
}

/* laplap walked over the grid's flat chart (onchip_request.walk): 1, 3 and every SM's blocks,
 * no level, one and every level cached, 1, 2 and 7 steps. */
static void walk_cases(const problem *pb, const char *what, int sms)
{
    const int blocks[] = {1, 3, sms}, levels[] = {0, 1, -1}, steps[] = {1, 2, 7};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < (tiny ? 1 : 3); k++) {
            char w[160];
            snprintf(w, sizeof w, "%s, walk", what);
            run_case(pb, steps[k], (onchip_request){blocks[i], 0, levels[(i + k) % 3], 1,
                                                    ONCHIP_PARTS_AUTO, 1, 1},
                     w);
        }
}

/* The walk refused, its message holding `needle`. */
static void walk_refused(const problem *pb, const char *what, const char *needle)
{
    fieldset f = iter_fields_copy(pb);
    onchip_timing t;
    char msg[512] = "";
    perr_saved saved = perr_capture_save();
    perr_capture(msg, sizeof msg);
    onchip_request rq = {3, 0, 1, 1, ONCHIP_PARTS_AUTO, 1, 1};
    int rc = persist_onchip_run(pb, f, 1, &rq, &t);
    perr_capture_restore(saved);
    CHECK(rc != 0 && strstr(msg, needle), "%s: the walk %s (%s)", what,
          rc ? "refused for another reason" : "accepted", msg);
    iter_fields_free(pb, &f);
}

static const stencil_t stencils[] = {ST_LAPLAP, ST_HDIFF, ST_LAP};

static void lattices(int sms, int small)
{
    static const layout_t lays[] = {LAYOUT_ROWMAJOR, LAYOUT_ZCURVE, LAYOUT_RANDOM};
    for (int si = 0; si < 3; si++)
        for (int prec = 0; prec < 2; prec++)
            for (int k = 0; k < (tiny ? 1 : 3); k++) {
                stencil_t st = stencils[si];
                problem_spec s = {st, (precision_t)prec, 37, 29, 5, stencil_table[st].radius,
                                  lays[k], 8, 5, 0, 0};
                problem pb;
                if (problem_make(&pb, &s) != 0) {
                    CHECK(0, "problem %s", layout_name[lays[k]]);
                    continue;
                }
                char what[96];
                snprintf(what, sizeof what, "%s lattice 37x29x5 %s %s", stencil_table[st].name,
                         layout_name[lays[k]], prec_name(s.prec));
                cases_of(&pb, what, sms);
                if (st == ST_LAPLAP)
                    walk_cases(&pb, what, sms);
                else
                    walk_refused(&pb, what, "laplap only");
                problem_free(&pb);
            }
    if (small)
        return;
    /* the design's size: every SM a block, as many levels as fit, and none */
    problem_spec s = {ST_LAPLAP, PREC_DOUBLE, 512, 512, 16, 2, LAYOUT_ZCURVE, 8, 5, 0, 0};
    problem pb;
    if (problem_make(&pb, &s) != 0) {
        CHECK(0, "problem 512x512x16");
        return;
    }
    const char *what = "lattice 512x512x16 z-curve double";
    run_case(&pb, 20, (onchip_request){0, 0, -1, 1, ONCHIP_PARTS_AUTO, 1, 0}, what);
    run_case(&pb, 20, (onchip_request){0, 0, -1, 0, ONCHIP_PARTS_AUTO, 1, 0}, what);
    run_case(&pb, 20, (onchip_request){0, 0, 0, 1, ONCHIP_PARTS_AUTO, 1, 0}, what);
    run_case(&pb, 20, (onchip_request){0, 0, -1, 1, ONCHIP_PARTS_METIS, 1, 0}, what);
    run_case(&pb, 20, (onchip_request){0, 0, -1, 1, ONCHIP_PARTS_RUNS, 2, 0}, what);
    /* the walk over the grid's flat chart (laplap), every level cached and some streamed */
    run_case(&pb, 20, (onchip_request){0, 0, -1, 1, ONCHIP_PARTS_AUTO, 1, 1}, what);
    run_case(&pb, 20, (onchip_request){0, 0, 5, 1, ONCHIP_PARTS_AUTO, 1, 1}, what);
    /* auto (what --persistent on and the library ask for): the walk on a flat chart */
    CHECK(run_case(&pb, 3, (onchip_request){0, 0, -1, 1, ONCHIP_PARTS_AUTO, 1, ONCHIP_WALK_AUTO},
                   what) == 1, "%s: auto did not walk the flat chart", what);
    problem_free(&pb);
}

static void quads(const char *dir, int sms)
{
    for (int k = 0; k < NQUAD_CASES; k++) {
        char path[256];
        snprintf(path, sizeof path, "%s/quad%d.h5", dir, k);
        mesh m;
        int ok = quad_case_make(&quad_cases[k], &m) == 0 && mesh_write(path, &m) == 0;
        CHECK(ok, "%s", quad_cases[k].name);
        mesh_free(&m);
        if (!ok)
            continue;
        stencil_t st = stencils[k % 3];
        problem_spec s = {st, (precision_t)(k / 2 % 2), 0, 0, 0, stencil_table[st].radius,
                          LAYOUT_ROWMAJOR, 16, 5, 0, 0};
        problem pb;
        if (problem_make_mesh(&pb, &s, path, MESH_ORDER_METIS) != 0) {
            CHECK(0, "problem of %s", quad_cases[k].name);
            continue;
        }
        char what[128];
        snprintf(what, sizeof what, "%s %s %s", stencil_table[st].name, quad_cases[k].name,
                 prec_name(s.prec));
        if (st == ST_LAPLAP) { /* labels that turn: not one flat chart; auto takes the parts */
            walk_refused(&pb, what, "not one flat chart");
            if (pb.ug.nhalo == 0 || quad_cases[k].spec.kind == MESH_CUBED_SPHERE)
                CHECK(run_case(&pb, 2, (onchip_request){3, 0, 1, 1, ONCHIP_PARTS_AUTO, 1,
                                                        ONCHIP_WALK_AUTO},
                               what) == 0,
                      "%s: auto walked a grid that is not one flat chart", what);
        }
        if (pb.ug.nhalo == 0 || quad_cases[k].spec.kind == MESH_CUBED_SPHERE)
            cases_of(&pb, what, sms);
        else { /* a bounded patch: its boundary cells lack neighbours the two passes read */
            fieldset f = iter_fields_copy(&pb);
            onchip_timing t;
            char msg[512] = "";
            perr_saved saved = perr_capture_save();
            perr_capture(msg, sizeof msg);
            onchip_request rq = {3, 0, 1, 1, ONCHIP_PARTS_AUTO, 1, 0};
            int rc = persist_onchip_run(&pb, f, 1, &rq, &t);
            perr_capture_restore(saved);
            CHECK(rc == 0 || strstr(msg, "misses its"), "%s: %s", what, msg);
            if (rc == 0)
                cases_of(&pb, what, sms);
            iter_fields_free(&pb, &f);
        }
        problem_free(&pb);
        unlink(path);
    }
}

/* graphlap on meshes of any cells: its rows the neighbour lists (hexagons and triangles, bounded
 * and periodic, a refined patch, the cubed sphere), in file and METIS order. */
static void graphs(const char *dir, int sms)
{
    char path[256];
    snprintf(path, sizeof path, "%s/graph.h5", dir);
    for (int k = 0; k < NGRAPH_CASES; k++) {
        mesh m;
        int ok = mesh_generate(&m, &graph_cases[k].spec) == 0 && mesh_write(path, &m) == 0;
        CHECK(ok, "%s", graph_cases[k].name);
        mesh_free(&m);
        if (!ok)
            continue;
        for (int order = 0; order < 2; order++) {
            problem_spec s = {ST_GRAPHLAP, (precision_t)(k % 2), 0, 0, 0, 2, LAYOUT_ROWMAJOR, 16,
                              5, 0, 0};
            problem pb;
            if (problem_make_mesh(&pb, &s, path, order ? MESH_ORDER_METIS : MESH_ORDER_FILE) !=
                0) {
                CHECK(0, "graphlap on %s", graph_cases[k].name);
                continue;
            }
            char what[128];
            snprintf(what, sizeof what, "graphlap %s %s order %s", graph_cases[k].name,
                     order ? "METIS" : "file", prec_name(s.prec));
            cases_of(&pb, what, sms);
            problem_free(&pb);
        }
    }
    unlink(path);
}

static void refusals(void)
{
    problem_spec s = {ST_FASTWAVES, PREC_DOUBLE, 20, 18, 4, 1, LAYOUT_ROWMAJOR, 8, 5, 0, 0};
    problem pb;
    char msg[512];
    onchip_timing t;
    perr_saved saved = perr_capture_save();
    perr_capture(msg, sizeof msg);
    if (problem_make(&pb, &s) == 0) {
        fieldset f = iter_fields_copy(&pb);
        msg[0] = 0;
        CHECK(persist_onchip_run(&pb, f, 1,
                                 &(onchip_request){0, 0, 0, 1, ONCHIP_PARTS_AUTO, 1, 0}, &t) == -1 &&
                  strstr(msg, "laplap, hdiff, lap and graphlap only"),
              "fastwaves refused: '%s'", msg);
        iter_fields_free(&pb, &f);
        problem_free(&pb);
    }
    problem_spec l = {ST_LAPLAP, PREC_DOUBLE, 300, 300, 64, 2, LAYOUT_ZCURVE, 8, 5, 0, 0};
    if (problem_make(&pb, &l) == 0) {
        fieldset f = iter_fields_copy(&pb);
        msg[0] = 0;
        CHECK(persist_onchip_run(&pb, f, 1,
                                 &(onchip_request){4, 0, 64, 1, ONCHIP_PARTS_AUTO, 1, 0}, &t) == -1 &&
                  strstr(msg, "cannot all be resident"),
              "64 cached levels of 22,000 cells a block refused: '%s'", msg);
        msg[0] = 0;
        CHECK(persist_onchip_run(&pb, f, 1,
                                 &(onchip_request){1, 0, 0, 1, ONCHIP_PARTS_AUTO, 1, 0}, &t) == -1 &&
                  strstr(msg, "16-bit"),
              "one block of 87,616 cells refused: '%s'", msg);
        iter_fields_free(&pb, &f);
        problem_free(&pb);
    }
    perr_capture_restore(saved);
}

int main(int argc, char **argv)
{
    char msg[256];
    if (!gpu_probe(msg, sizeof msg)) {
        printf("test_persist_onchip: skipped: %s\n", msg);
        return 77;
    }
    tiny = argc > 1 && strcmp(argv[1], "--tiny") == 0;
    int small = tiny || (argc > 1 && strcmp(argv[1], "--small") == 0), dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    char dir[] = "/tmp/pillar-test-onchip-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "a temporary folder");
    refusals();
    lattices(sms, small);
    if (!tiny) {
        quads(dir, sms);
        graphs(dir, sms);
    }
    rmdir(dir);
    printf("test_persist_onchip: %ld runs on the device equal the CPU's\n", runs);
    return check_done("test_persist_onchip");
}
