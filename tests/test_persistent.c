/* Persistent kernels (access/persistent.cu, src/plan/persist_gpu.c): every step of an in-core
 * iterated run in one cooperative launch gives the CPU in-core iteration's state
 * (iter_run_incore, a separate code path: the CPU body then a fold pass) bit for bit, at every
 * cell and level, halo included. laplap, hdiff and lap, double and float, the four table
 * storages, the four layouts, small odd grids, T = 1, 2 and 7 steps; blocks of 32 to 512
 * threads, one cell a thread and several; quad meshes whose labels turn (tests/quad_meshes.h);
 * then 512x512x16 (not with --small). The lean kernels: every kernel of the table has at most 64
 * registers a thread and no local memory (cudaFuncGetAttributes: no spills), the SM holds 4 of
 * its blocks of 256 threads and 8 of 128 (the occupancy query), and the default shape at
 * 512x512 has 4 blocks of 256 an SM (32 warps). State caching (levels kept in shared memory
 * across the steps): none, one level (the smallest cache: blocks exchange their rings every
 * step), half, and every level (the whole state on chip), one cell a thread and several, each
 * stencil, double and float, odd sizes, every storage and layout; on 512x512x16 (lap: laplap's
 * offsets and slots leave no room) one level. A launch that cannot be resident (more blocks
 * than the SMs hold at once, blocks of more threads than the kernels take, offsets that do not
 * fit shared memory) or cached levels the device cannot hold are refused with a message, the
 * state left as it was.
 * Exits 77 (skipped) without a device. */
#include "check.h"
#include "persist_checks.h"
#include "quad_meshes.h"
#include "src/exec/gpu.h"
#include "src/exec/iterate.h"
#include "src/exec/runner.h"
#include "src/io/mesh_io.h"
#include "src/plan/persist_gpu.h"

#include <cuda_runtime_api.h>
#include <string.h>
#include <unistd.h>

static const stencil_t stencils[] = {ST_LAPLAP, ST_HDIFF, ST_LAP};
enum { NSTENCILS = sizeof stencils / sizeof stencils[0] };
static const int step_counts[] = {1, 2, 7};

static long runs, several; /* runs compared; of them with several cells a thread */

/* One persistent run of `steps` steps with request r against the CPU iteration's state ref. */
static void run_one(const problem *pb, fieldset ref, int steps, persist_request r,
                    const char *what)
{
    fieldset st = iter_fields_copy(pb);
    persist_timing t;
    int rc = persist_gpu_run(pb, st, steps, &r, &t);
    CHECK(rc == 0, "%s T=%d: persistent run failed", what, steps);
    if (rc == 0) {
        long d = iter_state_differ(pb, st, ref, NULL);
        CHECK(d == 0, "%s T=%d (%d blocks x %d threads, %ld cells a block): %ld points differ "
              "from the CPU in-core iteration", what, steps, t.shape.nblocks, t.shape.threads,
              t.shape.max_cells, d);
        several += t.shape.max_cells > t.shape.threads;
        runs++;
    }
    iter_fields_free(pb, &st);
}

/* For each of T = 1, 2, 7: the CPU reference, then the runs of the requests given. */
static void runs_of(const problem *pb, const persist_request *r, int nr, const char *what)
{
    for (size_t j = 0; j < sizeof step_counts / sizeof step_counts[0]; j++) {
        fieldset ref = iter_fields_copy(pb);
        iter_run_incore(pb, ref, step_counts[j]);
        for (int q = 0; q < nr; q++)
            run_one(pb, ref, step_counts[j], r[q], what);
        iter_fields_free(pb, &ref);
    }
}

/* The problem of spec s (on mesh file `mesh` in METIS order when not NULL) and its name in
 * what; 0, or -1 after a failed check. */
static int make_case(problem *pb, const problem_spec *s, const char *mesh, char *what, size_t n)
{
    int rc = mesh ? problem_make_mesh(pb, s, mesh, MESH_ORDER_METIS) : problem_make(pb, s);
    CHECK(rc == 0, "problem of %s", mesh ? mesh : "an emulated grid");
    if (rc != 0)
        return -1;
    snprintf(what, n, "%s %s %d cells x %d levels %s chasing=%d compressed=%d",
             stencil_table[s->stencil].name, prec_name(s->prec), pb->ug.nxy, pb->ug.nz,
             mesh ? "METIS" : layout_name[s->layout], s->chasing, s->compressed);
    return 0;
}

/* The emulated grid of size sz for stencil stencils[si] in precision prec, storage 0..3 and
 * case number v (layout v % LAYOUT_COUNT, seed from v); 0, or -1 after a failed check. */
static int grid_case(problem *pb, int si, int prec, int storage, const int sz[3], int v,
                     char *what, size_t n)
{
    stencil_t st = stencils[si];
    problem_spec s = {st, (precision_t)prec, sz[0], sz[1], sz[2], stencil_table[st].radius,
                      (layout_t)(v % LAYOUT_COUNT), 8, (uint64_t)(5 + v), storage >> 1,
                      storage & 1};
    return make_case(pb, &s, NULL, what, n);
}

static void small_cases(void)
{
    static const int sizes[][3] = {{37, 29, 14}, {23, 41, 3}, {9, 11, 2}};
    int v = 0;
    for (int si = 0; si < NSTENCILS; si++)
        for (int prec = 0; prec < 2; prec++)
            for (int storage = 0; storage < 4; storage++)
                for (int z = 0; z < 3; z++, v++) {
                    problem pb;
                    char what[160];
                    if (grid_case(&pb, si, prec, storage, sizes[z], v, what, sizeof what) != 0)
                        continue;
                    /* default: one cell per thread; 32 threads in 2 blocks: several cells per
                     * thread; 3 blocks of 64, 512 threads */
                    persist_request r[] = {{0, 0, 0, 0, 0}, {32, 2, 0, 0, 0}, {64, 3, 0, 0, 0},
                                           {512, 0, 0, 0, 0}};
                    runs_of(&pb, r, 4, what);
                    problem_free(&pb);
                }
}

static long cached_runs, whole_runs, cached_several; /* runs with levels cached, all of them;
                                                      * several cells a thread */

/* One run with `levels` forced (PERSIST_LEVELS_NONE or N) against ref: the state and the
 * levels cached must be as asked. */
static void run_cached(const problem *pb, fieldset ref, int steps, persist_request r,
                       const char *what)
{
    fieldset st = iter_fields_copy(pb);
    persist_timing t;
    int rc = persist_gpu_run(pb, st, steps, &r, &t);
    int want = r.levels > 0 ? r.levels : 0;
    CHECK(rc == 0, "%s T=%d levels %d: persistent run failed", what, steps, r.levels);
    if (rc == 0) {
        long d = iter_state_differ(pb, st, ref, NULL);
        CHECK(d == 0, "%s T=%d (%d blocks x %d threads, %ld cells a block, %d levels cached): "
              "%ld points differ from the CPU in-core iteration", what, steps, t.shape.nblocks,
              t.shape.threads, t.shape.max_cells, t.cache.levels, d);
        CHECK(t.cache.levels == want, "%s: %d levels cached, asked for %d", what, t.cache.levels,
              want);
        if (t.cache.levels > 0) {
            cached_runs++;
            whole_runs += t.cache.levels == stencil_zend(pb->s.stencil, pb->ug.nz);
            cached_several += t.shape.max_cells > t.shape.threads;
        }
        runs++;
    }
    iter_fields_free(pb, &st);
}

/* Caching forced: none, 1, half and all levels, one cell a thread and several. */
static void cache_cases(void)
{
    static const int sizes[][3] = {{37, 29, 14}, {23, 41, 3}, {17, 13, 5}};
    int v = 0;
    for (int si = 0; si < NSTENCILS; si++)
        for (int prec = 0; prec < 2; prec++)
            for (int z = 0; z < 3; z++, v++) {
                problem pb;
                char what[160];
                if (grid_case(&pb, si, prec, v % 4, sizes[z], v + 6, what, sizeof what) != 0)
                    continue;
                int zend = stencil_zend(stencils[si], pb.ug.nz);
                persist_request r[] = {
                    {64, 3, PERSIST_LEVELS_NONE, 0, 0}, /* nothing cached */
                    {0, 0, 1, 0, 0},                    /* one cell per thread */
                    {32, 7, 1, 0, 0},                   /* several a thread */
                    {128, 5, (zend + 1) / 2, 0, 0},     /* half the levels */
                    {0, 0, zend, 0, 0},                 /* the whole state on chip */
                    {32, 2, zend, 0, 0},                /* the whole state, 2 blocks */
                };
                for (size_t j = 0; j < sizeof step_counts / sizeof step_counts[0]; j++) {
                    fieldset ref = iter_fields_copy(&pb);
                    iter_run_incore(&pb, ref, step_counts[j]);
                    for (size_t q = 0; q < sizeof r / sizeof r[0]; q++)
                        run_cached(&pb, ref, step_counts[j], r[q], what);
                    iter_fields_free(&pb, &ref);
                }
                /* more levels than the stencil computes: refused, the state unchanged */
                expect_refused(&pb, (persist_request){0, 0, zend + 1, 0, 0}, "cached levels", what);
                problem_free(&pb);
            }
}

/* laplap, hdiff and lap on the quad meshes whose labels turn, METIS order, each written to the
 * scratch file path. */
static void quad_mesh_cases(const char *path)
{
    for (int k = 2; k < NQUAD_CASES; k++) {
        mesh mh;
        int ok = quad_case_make(&quad_cases[k], &mh) == 0 && mesh_write(path, &mh) == 0;
        CHECK(ok, "%s", quad_cases[k].name);
        mesh_free(&mh);
        for (int si = 0; si < NSTENCILS && ok; si++) {
            int prec = (k + si) % 2, storage = (k + si) % 4;
            problem_spec s = {stencils[si], (precision_t)prec, 0, 0, 0, 2, LAYOUT_ROWMAJOR, 16, 5,
                              storage >> 1, storage & 1};
            problem pb;
            char what[160];
            if (make_case(&pb, &s, path, what, sizeof what) != 0)
                continue;
            persist_request r[] = {{0, 0, 0, 0, 0}, {32, 2, 0, 0, 0}};
            runs_of(&pb, r, 2, what);
            problem_free(&pb);
        }
    }
    unlink(path);
}

/* 512x512x16, T = 7: the default shape (4 blocks of 256 an SM on the lean kernels: 32 warps,
 * about 489 cells a block), one level cached where it fits (lap; laplap's and hdiff's offsets
 * and slots leave no room: refused), and 2 blocks of 64 threads, whose ~130000 cells' offsets
 * do not fit shared memory (refused). */
static void big_cases(void)
{
    for (int si = 0; si < NSTENCILS; si++)
        for (int prec = 0; prec < 2; prec++) {
            int storage = (si + prec) % 4;
            problem_spec s = {stencils[si], (precision_t)prec, 512, 512, 16,
                              stencil_table[stencils[si]].radius, (layout_t)((si + prec) % 3), 32,
                              9, storage >> 1, storage & 1};
            problem pb;
            char what[160];
            if (make_case(&pb, &s, NULL, what, sizeof what) != 0)
                continue;
            fieldset ref = iter_fields_copy(&pb);
            iter_run_incore(&pb, ref, 7);
            run_one(&pb, ref, 7, (persist_request){0, 0, 0, 0, 0}, what);
            persist_cache pc;
            const persist_request none = {0, 0, PERSIST_LEVELS_NONE, 0, 0};
            CHECK(persist_gpu_plan(&pb, &none, &pc) == 0 && pc.shape.per_sm >= 4 &&
                      persist_warps(&pc.shape) >= 32,
                  "%s: the default shape holds %d blocks (%d warps) an SM, not 4 (32)", what,
                  pc.shape.per_sm, persist_warps(&pc.shape));
            if (stencils[si] == ST_LAP)
                run_cached(&pb, ref, 7, (persist_request){0, 0, 1, 0, 0}, what);
            else
                expect_refused(&pb, (persist_request){0, 0, 1, 0, 0}, "at most 0 do", what);
            expect_refused(&pb, (persist_request){64, 2, 0, 0, 0}, "give more blocks", what);
            iter_fields_free(&pb, &ref);
            if (si == 0 && prec == 0) /* 16 levels of 512x512 laplap in double do not fit */
                expect_refused(&pb, (persist_request){0, 0, 16, 0, 0}, "do not fit", what);
            problem_free(&pb);
        }
}

/* The lean kernels as compiled: at most 64 registers a thread, no local memory (no spills), and
 * an SM holds 4 blocks of 256 threads and 8 of 128 of each (without shared memory). */
static void lean_kernels(void)
{
    int n = 0;
    for (int st = 0; st < ST_QUAD_COUNT; st++)
        for (int prec = 0; prec < 2; prec++)
            for (int v = 0; v < 4; v++)
                n += expect_lean(persist_kernels[st][prec][v], st, prec, "storage", v);
    CHECK(n == 24, "%d persistent kernels, expected 24 (laplap, hdiff, lap x 2 x 4)", n);
    printf("lean kernels: %d checked (<= 64 registers, no local memory, 4 x 256 / 8 x 128 an SM)\n",
           n);
}

/* Requests that cannot be resident: refused with a message, the state unchanged. */
static void refusals(void)
{
    problem_spec s = {ST_LAPLAP, PREC_DOUBLE, 37, 29, 6, 2, LAYOUT_ZCURVE, 8, 3, 1, 0};
    problem pb;
    if (problem_make(&pb, &s) != 0) {
        CHECK(0, "problem_make");
        return;
    }
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    /* no SM holds more than 2048 threads, so 2048 / 32 + 1 blocks of 32 per SM are too many */
    persist_request bad[] = {{32, sms * (2048 / 32) + 1, 0, 0, 0},
                             {PERSIST_MAX_THREADS + 1, 0, 0, 0, 0}, {1024, 0, 0, 0, 0}};
    const char *expect[] = {"cannot all be resident", "threads", "threads"};
    for (int b = 0; b < 3; b++)
        expect_refused(&pb, bad[b], expect[b], "a launch that cannot be resident");
    /* a stencil without persistent kernels */
    problem_spec f = {ST_FASTWAVES, PREC_DOUBLE, 20, 20, 6, 1, LAYOUT_ZCURVE, 8, 3, 1, 0};
    problem pf;
    if (problem_make(&pf, &f) == 0) {
        expect_refused(&pf, (persist_request){0, 0, 0, 0, 0}, "fastwaves", "fastwaves");
        problem_free(&pf);
    }
    problem_free(&pb);
}

int main(int argc, char **argv)
{
    char msg[256];
    if (!gpu_probe(msg, sizeof msg)) {
        printf("test_persistent: skipped: %s\n", msg);
        return 77;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    double t0 = now_ms();
    lean_kernels();
    refusals();
    small_cases();
    printf("small grids: %ld runs, %.1f s\n", runs, (now_ms() - t0) * 1e-3);
    cache_cases();
    printf("cached levels: %ld runs with levels on chip (%ld the whole state, %ld with several "
           "cells a thread), %.1f s\n", cached_runs, whole_runs, cached_several,
           (now_ms() - t0) * 1e-3);
    CHECK(whole_runs > 0 && cached_several > 0 && cached_several < cached_runs,
          "caching cases not all reached: whole %ld, several cells a thread %ld of %ld",
          whole_runs, cached_several, cached_runs);
    char dir[] = "/tmp/pillar-test-persistent-XXXXXX", path[80];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/q.h5", dir);
    quad_mesh_cases(path);
    rmdir(dir);
    printf("quad meshes: %ld runs in all\n", runs);
    if (!(argc > 1 && !strcmp(argv[1], "--small")))
        big_cases();
    printf("%ld persistent runs (%ld with several cells a thread) compared bit for bit with the "
           "CPU in-core iteration\n", runs, several);
    CHECK(several > 0 && several < runs, "one cell a thread and several were not both run");
    return check_done("test_persistent");
}
