/* Persistent kernels of the graph stencils (access/persistent_graph.cu, src/plan/persist_gpu.c):
 * graphlap's in-core iteration as one cooperative launch gives the CPU in-core iteration's state
 * (iter_run_incore: the CPU body on the neighbour lists, then a fold pass) bit for bit, at every
 * cell and level, halo included: on bounded hexagons, bounded and periodic triangles, the
 * refined patch (cells of 4 and 5 neighbours) and a quad mesh (a cubed sphere), in file, METIS
 * and z-curve order, double and float, T = 1, 2 and 7 steps; the cells' lists in shared memory
 * and read from the table; the default shape (one cell a thread), 2 blocks of 32 threads
 * (several cells a thread), 3 blocks of 64 and blocks of 512. The kernels as compiled: at most
 * 64 registers a thread, no local memory, 4 blocks of 256 and 8 of 128 an SM. Where the lists
 * do not fit shared memory (one block for 15,600 hexagons) auto reads them from the table and
 * is still exact, and asking for shared memory is refused; cached levels are refused; refusals
 * leave the state as it was.
 * --quick: double only, T = 2, file and METIS order, two requests (tools/gpu-check.sh's
 * compute-sanitizer runs). Exits 77 (skipped) without a device. */
#include "check.h"
#include "persist_checks.h"
#include "scratch.h"
#include "src/exec/gpu.h"
#include "src/exec/iterate.h"
#include "src/exec/runner.h"
#include "src/io/mesh_io.h"
#include "src/plan/persist_gpu.h"

#include <cuda_runtime_api.h>
#include <string.h>
#include <unistd.h>

static int quick;
static long runs, several, in_shared, in_table;

/* One run of `steps` steps with request r against the CPU iteration's state ref. */
static void run_one(const problem *pb, fieldset ref, int steps, persist_request r,
                    const char *what)
{
    fieldset st = iter_fields_copy(pb);
    persist_timing t;
    int rc = persist_gpu_run(pb, st, steps, &r, &t);
    CHECK(rc == 0, "%s T=%d (%d threads, %d blocks, lists %d): persistent run failed", what,
          steps, r.threads, r.blocks, r.lists);
    if (rc == 0) {
        long d = iter_state_differ(pb, st, ref, NULL);
        CHECK(d == 0, "%s T=%d (%d blocks x %d threads, %ld cells a block, lists %s): %ld points "
              "differ from the CPU in-core iteration", what, steps, t.shape.nblocks,
              t.shape.threads, t.shape.max_cells,
              t.cache.graph_lists == PERSIST_LISTS_SHARED ? "shared" : "table", d);
        CHECK(t.cache.levels == 0, "%s: %d levels cached", what, t.cache.levels);
        CHECK(r.lists == PERSIST_LISTS_AUTO || t.cache.graph_lists == r.lists,
              "%s: lists %d asked, %d used", what, r.lists, t.cache.graph_lists);
        several += t.shape.max_cells > t.shape.threads;
        in_shared += t.cache.graph_lists == PERSIST_LISTS_SHARED;
        in_table += t.cache.graph_lists == PERSIST_LISTS_TABLE;
        runs++;
    }
    iter_fields_free(pb, &st);
}

/* The kernels as compiled: lean (64 registers, no local memory), 4 x 256 and 8 x 128 an SM. */
static void lean_kernels(void)
{
    int n = 0;
    for (int st = ST_QUAD_COUNT; st < ST_COUNT; st++)
        for (int prec = 0; prec < 2; prec++)
            for (int lists = 0; lists < 2; lists++) {
                const void *fn = persist_graph_kernel((stencil_t)st, prec, lists);
                char why[300];
                CHECK((fn != NULL) == persist_supported((stencil_t)st, why, sizeof why),
                      "%s: a kernel %s, persist_supported says %s", stencil_table[st].name,
                      fn ? "exists" : "is missing", fn ? "no" : "yes");
                n += expect_lean(fn, st, prec, "lists", lists);
            }
    CHECK(n == 4, "%d graph persistent kernels, expected 4 (graphlap x 2 precisions x 2)", n);
}

/* spec: kind, nx, ny, n, nlevels, window, seed, periodic, refine */
static const struct {
    const char *name;
    mesh_gen_spec spec;
} meshes[] = {
    {"hexagons", {MESH_HEXAGONS, 37, 21, 0, 5, 0, 1, 0, 0}},
    {"triangles", {MESH_TRIANGLES, 23, 17, 0, 4, 0, 1, 0, 0}},
    {"triangles (periodic)", {MESH_TRIANGLES, 16, 12, 0, 3, 0, 1, 1, 0}},
    {"refined patch", {MESH_REFINED, 27, 25, 0, 4, 0, 1, 0, 9}},
    {"cubed sphere n=7", {MESH_CUBED_SPHERE, 0, 0, 7, 2, 0, 1, 0, 0}},
};

/* The mesh of spec g written to the scratch file `name`: its path (until the next tmpname), or
 * NULL after a failed check. */
static const char *mesh_file(const mesh_gen_spec *g, const char *name)
{
    const char *path = tmpname(name);
    mesh mh;
    int ok = mesh_generate(&mh, g) == 0 && mesh_write(path, &mh) == 0;
    CHECK(ok, "mesh %s", name);
    mesh_free(&mh);
    return ok ? path : NULL;
}

/* The problem of stencil st in precision prec on the mesh file path, cells in `order`, inputs
 * from seed; 0, or -1 after a failed check. */
static int mesh_problem(problem *pb, const char *path, stencil_t st, int prec, int order,
                        uint64_t seed)
{
    problem_spec s = {st, (precision_t)prec, 0, 0, 0, stencil_table[st].radius, LAYOUT_ROWMAJOR,
                      24, seed, 0, 0};
    int rc = path ? problem_make_mesh(pb, &s, path, (mesh_order_t)order) : -1;
    CHECK(rc == 0, "%s on %s, %s order", stencil_table[st].name, path ? path : "no mesh",
          mesh_order_name[order]);
    return rc;
}

static void mesh_cases(void)
{
    static const int steps_all[] = {1, 2, 7}, steps_quick[] = {2};
    const int *steps = quick ? steps_quick : steps_all, nsteps = quick ? 1 : 3;
    /* threads, blocks, levels, rate, lists */
    const persist_request all[] = {
        {0, 0, 0, 0, PERSIST_LISTS_AUTO},    /* the default shape: one cell a thread */
        {0, 0, 0, 0, PERSIST_LISTS_TABLE},   /* the same, lists from the table */
        {32, 2, 0, 0, PERSIST_LISTS_SHARED}, /* several cells a thread */
        {32, 2, 0, 0, PERSIST_LISTS_TABLE},
        {64, 3, 0, 0, PERSIST_LISTS_SHARED}, /* odd block count */
        {512, 0, 0, 0, PERSIST_LISTS_AUTO},  /* the largest blocks */
    };
    const persist_request few[] = {{32, 2, 0, 0, PERSIST_LISTS_SHARED},
                                   {64, 3, 0, 0, PERSIST_LISTS_TABLE}};
    const persist_request *req = quick ? few : all;
    int nreq = quick ? 2 : (int)(sizeof all / sizeof all[0]);
    for (size_t m = 0; m < sizeof meshes / sizeof meshes[0]; m++) {
        const char *path = mesh_file(&meshes[m].spec, "mesh.h5");
        for (int o = 0; o < MESH_ORDER_COUNT && path; o++) {
            if (quick && o == MESH_ORDER_ZCURVE)
                continue;
            for (int prec = 0; prec < (quick ? 1 : 2); prec++) {
                problem pb;
                if (mesh_problem(&pb, path, ST_GRAPHLAP, prec, o, (uint64_t)(7 + m)) != 0)
                    continue;
                char what[200];
                snprintf(what, sizeof what, "graphlap %s on %s, %s order (%d cells, %d halo, x %d "
                         "levels, up to %d neighbours)", prec_name(pb.s.prec), meshes[m].name,
                         mesh_order_name[o], pb.ug.nxy, pb.ug.nhalo, pb.ug.nz, pb.ell.maxdeg);
                for (int j = 0; j < nsteps; j++) {
                    fieldset ref = iter_fields_copy(&pb);
                    iter_run_incore(&pb, ref, steps[j]);
                    for (int q = 0; q < nreq; q++)
                        run_one(&pb, ref, steps[j], req[q], what);
                    iter_fields_free(&pb, &ref);
                }
                if (o == 0 && prec == 0) /* graph stencils cache no levels */
                    expect_refused(&pb, (persist_request){0, 0, 1, 0, PERSIST_LISTS_AUTO},
                                   "keeps no level", what);
                problem_free(&pb);
            }
        }
        if (path)
            unlink(path);
    }
}

/* One block over 15,600 hexagons: their lists (7 words a cell, 437 KB) exceed a block's shared
 * memory. auto reads them from the table, exactly; shared memory is refused. */
static void lists_too_large(void)
{
    const mesh_gen_spec g = {MESH_HEXAGONS, 130, 120, 0, 2, 0, 3, 0, 0};
    const char *path = mesh_file(&g, "big.h5");
    problem pb;
    if (mesh_problem(&pb, path, ST_GRAPHLAP, PREC_DOUBLE, MESH_ORDER_METIS, 11) != 0) {
        if (path)
            unlink(path);
        return;
    }
    const char *what = "graphlap on 130x120 hexagons, one block of 256 threads";
    fieldset ref = iter_fields_copy(&pb);
    iter_run_incore(&pb, ref, 2);
    long before = in_table;
    run_one(&pb, ref, 2, (persist_request){256, 1, 0, 0, PERSIST_LISTS_AUTO}, what);
    CHECK(in_table == before + 1, "%s: the lists did not go to the table", what);
    iter_fields_free(&pb, &ref);
    expect_refused(&pb, (persist_request){256, 1, 0, 0, PERSIST_LISTS_SHARED}, "shared memory",
                   what);
    problem_free(&pb);
    unlink(path);
}

/* Stencils without persistent kernels: fluxdiff (iterated, but it reads coefficients too). */
static void refusals(void)
{
    const mesh_gen_spec g = {MESH_TRIANGLES, 9, 7, 0, 2, 0, 1, 0, 0};
    const char *path = mesh_file(&g, "f.h5");
    problem pb;
    if (mesh_problem(&pb, path, ST_FLUXDIFF, PREC_DOUBLE, MESH_ORDER_FILE, 1) == 0) {
        persist_cache pc;
        char msg[400] = "";
        perr_capture(msg, sizeof msg);
        int rc = persist_gpu_plan(&pb, &(persist_request){0, 0, 0, 0, PERSIST_LISTS_AUTO}, &pc);
        perr_capture(NULL, 0);
        CHECK(rc == -1 && strstr(msg, "fluxdiff") && strstr(msg, "no persistent kernel"),
              "fluxdiff: rc %d '%s'", rc, msg);
        problem_free(&pb);
    }
    if (path)
        unlink(path);
}

int main(int argc, char **argv)
{
    char msg[256];
    if (argc > 1 && !strcmp(argv[1], "--quick"))
        quick = 1;
    else if (argc > 1) {
        fprintf(stderr, "usage: test_persistent_graph [--quick]\n");
        return 2;
    }
    if (!gpu_probe(msg, sizeof msg)) {
        printf("test_persistent_graph: skipped: %s\n", msg);
        return 77;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (scratch_open("persistent-graph", NULL) != 0)
        return 1;
    double t0 = now_ms();
    lean_kernels();
    refusals();
    mesh_cases();
    if (!quick)
        lists_too_large();
    printf("%ld persistent graphlap runs (%ld with several cells a thread; lists in shared memory "
           "%ld, from the table %ld) compared bit for bit with the CPU in-core iteration, "
           "%.1f s\n", runs, several, in_shared, in_table, (now_ms() - t0) * 1e-3);
    CHECK((quick || (several > 0 && several < runs)) && in_shared > 0 && in_table > 0,
          "not every case was reached");
    scratch_remove();
    return check_done("test_persistent_graph");
}
