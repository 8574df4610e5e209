/* Persistent kernels (access/persistent.cu, src/ooc/persist_gpu.c): every step of an in-core
 * iterated run in one cooperative launch gives the CPU in-core iteration's state
 * (iter_run_incore, a separate code path: the CPU body then a fold pass) bit for bit, at every
 * cell and level, halo included. laplap, hdiff and lap, double and float, the four table
 * storages, the four layouts, small odd grids, T = 1, 2 and 7 steps; blocks of 32 to 512
 * threads; the three places of the offsets (registers, shared memory, the table: checked that
 * each was used); quad meshes whose labels turn (tests/quad_meshes.h); then 512x512x16 (not with
 * --small). State caching (levels kept in shared memory across the steps): none, one level
 * (the smallest cache: blocks exchange their rings every step), half, and every level (the
 * whole state on chip), with the cells' slots in registers (one cell per thread) and in shared
 * memory (several), each stencil, double and float, odd sizes, every storage and layout; on
 * 512x512x16 one level and the model's choice. A launch that cannot be resident (more blocks
 * than the SMs hold at once, blocks of more threads than the kernels take) or cached levels the
 * device cannot hold are refused with a message, the state left as it was.
 * Exits 77 (skipped) without a device. */
#include "check.h"
#include "quad_meshes.h"
#include "src/exec/gpu.h"
#include "src/exec/iterate.h"
#include "src/exec/runner.h"
#include "src/io/mesh_io.h"
#include "src/ooc/persist_gpu.h"

#include <cuda_runtime_api.h>
#include <string.h>
#include <unistd.h>

static const stencil_t stencils[] = {ST_LAPLAP, ST_HDIFF, ST_LAP};
enum { NSTENCILS = sizeof stencils / sizeof stencils[0] };
static const int step_counts[] = {1, 2, 7};

static long runs, used[3]; /* runs compared, and by where the offsets were */

/* One persistent run of `steps` steps with request r against the CPU iteration's state ref;
 * want >= 0: the offsets must be there. */
static void run_one(const problem *pb, fieldset ref, int steps, persist_request r, int want,
                    const char *what)
{
    fieldset st = iter_fields_copy(pb);
    persist_timing t;
    int rc = persist_gpu_run(pb, st, steps, &r, &t);
    CHECK(rc == 0, "%s T=%d: persistent run failed", what, steps);
    if (rc == 0) {
        long d = iter_state_differ(pb, st, ref, NULL);
        CHECK(d == 0, "%s T=%d (%d blocks x %d threads, offsets where=%d): %ld points differ from "
              "the CPU in-core iteration", what, steps, t.shape.nblocks, t.shape.threads,
              (int)t.shape.where, d);
        CHECK(want < 0 || (int)t.shape.where == want, "%s: offsets where=%d, wanted %d", what,
              (int)t.shape.where, want);
        used[t.shape.where]++;
        runs++;
    }
    iter_fields_free(pb, &st);
}

/* For each of T = 1, 2, 7: the CPU reference, then the runs of the requests given. */
static void runs_of(const problem *pb, const persist_request *r, const int *want, int nr,
                    const char *what)
{
    for (size_t j = 0; j < sizeof step_counts / sizeof step_counts[0]; j++) {
        fieldset ref = iter_fields_copy(pb);
        iter_run_incore(pb, ref, step_counts[j]);
        for (int q = 0; q < nr; q++)
            run_one(pb, ref, step_counts[j], r[q], want[q], what);
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
                    long cells = (long)pb.ug.nxy - pb.ug.nhalo;
                    /* default: one cell per thread (registers); 32 threads in 2 blocks: several
                     * cells per thread in shared memory; 3 blocks of 64, 512 threads */
                    persist_request r[] = {{0, 0, 0, 0}, {32, 2, 0, 0}, {64, 3, 0, 0}, {512, 0, 0, 0}};
                    int want[] = {PERSIST_OFFSETS_REGISTERS, cells > 64 ? PERSIST_OFFSETS_SHARED : -1,
                                  -1, PERSIST_OFFSETS_REGISTERS};
                    runs_of(&pb, r, want, 4, what);
                    problem_free(&pb);
                }
}

/* A run of 2 steps with request r must be refused with a message naming `needle`, the state
 * left as it was. */
static void expect_refused(const problem *pb, persist_request r, const char *needle,
                           const char *what)
{
    fieldset st = iter_fields_copy(pb), before = iter_fields_copy(pb);
    persist_timing t;
    char msg[256] = "";
    perr_capture(msg, sizeof msg);
    int rc = persist_gpu_run(pb, st, 2, &r, &t);
    perr_capture(NULL, 0);
    CHECK(rc == -1 && strstr(msg, needle), "%s (%d blocks x %d threads, %d levels): rc %d, "
          "message '%s'", what, r.blocks, r.threads, r.levels, rc, msg);
    CHECK(iter_state_differ(pb, st, before, NULL) == 0, "%s: a refused run changed the state",
          what);
    iter_fields_free(pb, &st);
    iter_fields_free(pb, &before);
}

static long cached_runs, whole_runs, slots_in[2]; /* runs with levels cached, all of them;
                                                   * slots in registers, shared memory */

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
        CHECK(d == 0, "%s T=%d (%d blocks x %d threads, %d levels cached, slots shared %d, "
              "offsets where=%d): %ld points differ from the CPU in-core iteration", what, steps,
              t.shape.nblocks, t.shape.threads, t.cache.levels, t.cache.slots_shared,
              (int)t.shape.where, d);
        CHECK(t.cache.levels == want, "%s: %d levels cached, asked for %d", what, t.cache.levels,
              want);
        if (t.cache.levels > 0) {
            cached_runs++;
            whole_runs += t.cache.levels == stencil_zend(pb->s.stencil, pb->ug.nz);
            slots_in[t.cache.slots_shared]++;
        }
        runs++;
    }
    iter_fields_free(pb, &st);
}

/* Caching forced: none, 1, half and all levels, slots in registers and in shared memory. */
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
                    {64, 3, PERSIST_LEVELS_NONE, 0}, /* nothing cached */
                    {0, 0, 1, 0},                    /* one cell per thread: slots in registers */
                    {32, 7, 1, 0},                   /* several a thread: slots in shared memory */
                    {128, 5, (zend + 1) / 2, 0},     /* half the levels */
                    {0, 0, zend, 0},                 /* the whole state on chip */
                    {32, 2, zend, 0},                /* the whole state, 2 blocks */
                };
                for (size_t j = 0; j < sizeof step_counts / sizeof step_counts[0]; j++) {
                    fieldset ref = iter_fields_copy(&pb);
                    iter_run_incore(&pb, ref, step_counts[j]);
                    for (size_t q = 0; q < sizeof r / sizeof r[0]; q++)
                        run_cached(&pb, ref, step_counts[j], r[q], what);
                    iter_fields_free(&pb, &ref);
                }
                /* more levels than the stencil computes: refused, the state unchanged */
                expect_refused(&pb, (persist_request){0, 0, zend + 1, 0}, "cached levels", what);
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
            persist_request r[] = {{0, 0, 0, 0}, {32, 2, 0, 0}};
            int want[] = {PERSIST_OFFSETS_REGISTERS, -1};
            runs_of(&pb, r, want, 2, what);
            problem_free(&pb);
        }
    }
    unlink(path);
}

/* 512x512x16, T = 7: the default shape (registers or shared memory, as the kernel's occupancy
 * allows), and 2 blocks of 64 threads, whose ~130000 cells' offsets do not fit shared memory
 * (the table every step). */
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
            run_one(&pb, ref, 7, (persist_request){0, 0, 0, 0}, -1, what);
            run_one(&pb, ref, 7, (persist_request){64, 2, 0, 0}, PERSIST_OFFSETS_GLOBAL, what);
            run_cached(&pb, ref, 7, (persist_request){0, 0, 1, 0}, what);
            iter_fields_free(&pb, &ref);
            if (si == 0 && prec == 0) /* 16 levels of 512x512 laplap in double do not fit */
                expect_refused(&pb, (persist_request){0, 0, 16, 0}, "do not fit", what);
            problem_free(&pb);
        }
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
    persist_request bad[] = {{32, sms * (2048 / 32) + 1, 0, 0}, {PERSIST_MAX_THREADS + 1, 0, 0, 0},
                             {1024, 0, 0, 0}};
    const char *expect[] = {"cannot all be resident", "threads", "threads"};
    for (int b = 0; b < 3; b++)
        expect_refused(&pb, bad[b], expect[b], "a launch that cannot be resident");
    /* a stencil without persistent kernels */
    problem_spec f = {ST_FASTWAVES, PREC_DOUBLE, 20, 20, 6, 1, LAYOUT_ZCURVE, 8, 3, 1, 0};
    problem pf;
    if (problem_make(&pf, &f) == 0) {
        expect_refused(&pf, (persist_request){0, 0, 0, 0}, "fastwaves", "fastwaves");
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
    refusals();
    small_cases();
    printf("small grids: %ld runs, %.1f s\n", runs, (now_ms() - t0) * 1e-3);
    cache_cases();
    printf("cached levels: %ld runs with levels on chip (%ld the whole state; slots in "
           "registers %ld, in shared memory %ld), %.1f s\n", cached_runs, whole_runs, slots_in[0],
           slots_in[1], (now_ms() - t0) * 1e-3);
    CHECK(whole_runs > 0 && slots_in[0] > 0 && slots_in[1] > 0,
          "caching cases not all reached: whole %ld, slots in registers %ld, shared %ld",
          whole_runs, slots_in[0], slots_in[1]);
    char dir[] = "/tmp/pillar-test-persistent-XXXXXX", path[80];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/q.h5", dir);
    quad_mesh_cases(path);
    rmdir(dir);
    printf("quad meshes: %ld runs in all\n", runs);
    if (!(argc > 1 && !strcmp(argv[1], "--small")))
        big_cases();
    printf("%ld persistent runs (offsets in registers %ld, shared memory %ld, the table %ld) "
           "compared bit for bit with the CPU in-core iteration\n", runs, used[0], used[1], used[2]);
    CHECK(used[PERSIST_OFFSETS_REGISTERS] > 0 && used[PERSIST_OFFSETS_SHARED] > 0,
          "offsets in registers and in shared memory were not both used");
    CHECK(argc > 1 || used[PERSIST_OFFSETS_GLOBAL] > 0, "offsets in the table were not used");
    return check_done("test_persistent");
}
