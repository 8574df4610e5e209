/* test_onchip_regular.c — issue 35, the regular twin first: iterated laplap, hdiff and lap on
 * the regular grid (src/plan/regular_runs.h), on chip (access/onchip_regular.cu) and as the host
 * loop of a strategy's regular kernel, against the CPU iteration of the grid's unstructured twin
 * (iter_run_incore: neighbours from the table, a different formulation), bit for bit at every
 * cell and level. The twin is numbered in random order, so a mix-up of W/E/S/N or of rows shows.
 * Lattices of 37x29 and 64x48 cells (tiles that do not divide the inner cells; laplap also
 * 130x21: several strips of the walk a tile), 5 levels, halos
 * of the stencil's radius and of 3; 1, 3, 7 and every SM's tiles; 0, 2 and every level cached;
 * 1, 2 and 7 steps; 1024 and 64 threads; the next level loaded ahead or not; the column
 * variant (a thread's column of cells in registers); laplap's walk variant (a warp a strip and
 * level, no block barrier); double and float. Refusals: another stencil, a halo
 * narrower than the radius, more tiles' shared memory than a block has. --tiny: a few cases,
 * for compute-sanitizer. Exits 77 (skipped) without a device. */
#include "check.h"
#include "src/exec/gpu.h"
#include "src/exec/iterate.h"
#include "src/plan/regular_runs.h"

#include <cuda_runtime_api.h>
#include <string.h>

static long runs;
static int tiny;

/* `steps` steps of pb's stencil on its regular twin (on chip with levels, blocks, threads; or
 * the host loop of idxvar where loop is 1) against the CPU iteration. */
static void run_case(const problem *pb, int steps, int loop, int levels, int blocks, int threads,
                     int prefetch, int cols, int walk, const char *what)
{
    int nin = stencil_table[pb->s.stencil].nin;
    fieldset ref = iter_fields_copy(pb), got = iter_fields_copy(pb), reg = {{0}};
    iter_run_incore(pb, ref, steps);
    rgrid rg = rgrid_make(pb->s.nx, pb->s.ny, pb->s.nz, pb->s.halo, prec_size(pb->s.prec));
    for (int i = 0; i < nin; i++) {
        reg.p[i] = field_alloc(pb->s.prec, rg.len);
        field_poison(pb->s.prec, reg.p[i], rg.len); /* the padding: never read */
    }
    for (int i = 0; i < nin; i++)
        ugrid_regular_copy(&pb->ug, &rg, prec_size(pb->s.prec), got.p[i], reg.p[i], 1);
    regular_timing t;
    char msg[512] = "";
    perr_saved saved = perr_capture_save();
    perr_capture(msg, sizeof msg);
    int rc = loop ? regular_loop_run(pb->s.stencil, pb->s.prec, &rg, reg, steps, ACC_IDXVAR, 0,
                                     0, 0, &t)
                  : regular_onchip_run(pb->s.stencil, pb->s.prec, &rg, reg, steps,
                                       &(regular_request){levels, blocks, threads, prefetch, cols,
                                                           walk}, &t);
    perr_capture_restore(saved);
    CHECK(rc == 0, "%s: %s, %d steps, %d levels, %d blocks: refused: %s", what,
          loop ? "host loop" : "on chip", steps, levels, blocks, msg);
    if (rc == 0) {
        for (int i = 0; i < nin; i++)
            ugrid_regular_copy(&pb->ug, &rg, prec_size(pb->s.prec), got.p[i], reg.p[i], 0);
        long bad = iter_state_differ(pb, ref, got, NULL);
        CHECK(bad == 0, "%s: %s, %d steps on %d blocks x %d threads (tiles %dx%d, %d rows a "
              "column, walk %d warps a strip of %d), %d levels cached, %d values loaded ahead: "
              "%ld points differ", what, loop ? "host loop" : "on chip", steps, t.blocks,
              t.threads, t.tx, t.ty, t.cols, t.walk, t.strips, t.levels, t.prefetch, bad);
        runs++;
    }
    for (int i = 0; i < nin; i++)
        xfree(reg.p[i]);
    iter_fields_free(pb, &ref);
    iter_fields_free(pb, &got);
}

static void lattices(int sms)
{
    static const stencil_t stencils[] = {ST_LAPLAP, ST_HDIFF, ST_LAP};
    /* 130x21 for laplap: the walk's tiles of several strips of 60 columns, the last narrow */
    static const int sizes[][2] = {{37, 29}, {64, 48}, {130, 21}};
    for (int si = 0; si < 3; si++)
        for (int prec = 0; prec < 2; prec++)
            for (int k = 0; k < (tiny ? 1 : 3); k++)
                for (int wide = 0; wide < (tiny ? 1 : 2); wide++) {
                    stencil_t st = stencils[si];
                    if (k == 2 && st != ST_LAPLAP)
                        continue;
                    int halo = wide ? 3 : stencil_table[st].radius;
                    problem_spec s = {st, (precision_t)prec, sizes[k][0], sizes[k][1], 5, halo,
                                      LAYOUT_RANDOM, 8, 5, 0, 0};
                    problem pb;
                    if (problem_make(&pb, &s) != 0) {
                        CHECK(0, "problem %dx%d", s.nx, s.ny);
                        continue;
                    }
                    char what[96];
                    snprintf(what, sizeof what, "%s %dx%dx5 halo %d %s", stencil_table[st].name,
                             s.nx, s.ny, halo, prec_name(s.prec));
                    /* one tile (too large to prefetch), 3, 7, one a SM; 64 threads: too few
                     * to prefetch a 64x48 tile */
                    static const int blocks[] = {1, 3, 7, 0};
                    /* variants: the staged kernel without and with prefetch, the columns;
                     * laplap's walk */
                    for (int b = 0; b < 4; b++)
                        for (int l = 0; l < (tiny ? 2 : 3); l++)
                            for (int var = 0; var < (st == ST_LAPLAP ? 4 : 3); var++) {
                                int levels = l == 0 ? 0 : l == 1 ? -1 : 2, pf = var > 0;
                                int cols = var == 2, walk = var == 3;
                                if (cols && k == 2 && b == 0) /* 130 columns: too many */
                                    continue;
                                run_case(&pb, tiny ? 2 : 7, 0, levels, blocks[b], 0, pf, cols,
                                         walk, what);
                                if (!tiny && (b == 0 || b == 3) && !cols && !walk)
                                    run_case(&pb, l + 1, 0, levels, blocks[b], 64, pf, 0, 0,
                                             what);
                            }
                    for (int steps = 1; steps <= (tiny ? 1 : 7); steps += 6)
                        run_case(&pb, steps, 1, 0, 0, 0, 0, 0, 0, what);
                    problem_free(&pb);
                }
    (void)sms;
}

static void refusals(void)
{
    char msg[512];
    perr_saved saved = perr_capture_save();
    perr_capture(msg, sizeof msg);
    rgrid rg = rgrid_make(20, 20, 3, 1, 8);
    fieldset f = {{0}};
    f.p[0] = field_alloc(PREC_DOUBLE, rg.len);
    f.p[1] = field_alloc(PREC_DOUBLE, rg.len);
    memset(f.p[0], 0, sizeof(double) * rg.len);
    memset(f.p[1], 0, sizeof(double) * rg.len);
    regular_timing t;
    regular_request rq = {-1, 0, 0, 1, 0, 0}, one = {-1, 1, 0, 1, 0, 0};
    regular_request odd = {-1, 0, 100, 1, 0, 0}, wide = {-1, 1, 0, 1, 1, 0};
    msg[0] = 0;
    CHECK(regular_onchip_run(ST_FASTWAVES, PREC_DOUBLE, &rg, f, 2, &rq, &t) == -1 &&
              strstr(msg, "fastwaves"), "fastwaves refused: '%s'", msg);
    msg[0] = 0;
    CHECK(regular_onchip_run(ST_LAPLAP, PREC_DOUBLE, &rg, f, 2, &rq, &t) == -1 &&
              strstr(msg, "halo is 1"), "laplap on a halo of 1 refused: '%s'", msg);
    rgrid big = rgrid_make(4000, 40, 3, 2, 8); /* one tile of 3996x36: 2 staged levels too large */
    double *b = field_alloc(PREC_DOUBLE, big.len);
    memset(b, 0, sizeof(double) * big.len);
    fieldset fb = {{b}};
    msg[0] = 0;
    CHECK(regular_onchip_run(ST_LAPLAP, PREC_DOUBLE, &big, fb, 2, &one, &t) == -1 &&
              strstr(msg, "no tiling"), "one tile of 3996x36 cells refused: '%s'", msg);
    msg[0] = 0;
    CHECK(regular_onchip_run(ST_LAP, PREC_DOUBLE, &rg, f, 2, &odd, &t) == -1 &&
              strstr(msg, "100 threads"), "100 threads refused: '%s'", msg);
    /* one tile of 200x10 cells (its staged levels fit shared memory): 204 columns of 14 rows need
     * more than 768 threads at 4 rows */
    rgrid sq = rgrid_make(204, 14, 3, 2, 8);
    double *q = field_alloc(PREC_DOUBLE, sq.len);
    memset(q, 0, sizeof(double) * sq.len);
    fieldset fq = {{q}};
    msg[0] = 0;
    CHECK(regular_onchip_run(ST_LAPLAP, PREC_DOUBLE, &sq, fq, 2, &wide, &t) == -1 &&
              strstr(msg, "204 columns of 14 rows"), "one tile of 200x10 in columns refused: '%s'",
          msg);
    /* the walk variant: laplap only; at most 16 strips of 60 columns a block */
    regular_request walk_hdiff = {-1, 0, 0, 1, 0, 1}, walk_one = {-1, 1, 0, 1, 0, 1};
    rgrid r2 = rgrid_make(20, 20, 3, 2, 8);
    double *f2[2] = {field_alloc(PREC_DOUBLE, r2.len), field_alloc(PREC_DOUBLE, r2.len)};
    memset(f2[0], 0, sizeof(double) * r2.len);
    memset(f2[1], 0, sizeof(double) * r2.len);
    msg[0] = 0;
    CHECK(regular_onchip_run(ST_HDIFF, PREC_DOUBLE, &r2, (fieldset){{f2[0], f2[1]}}, 2,
                             &walk_hdiff, &t) == -1 && strstr(msg, "walk") && strstr(msg, "hdiff"),
          "hdiff walked refused: '%s'", msg);
    msg[0] = 0; /* one block for 1000 inner columns: 17 strips of 60 */
    rgrid wide2 = rgrid_make(1004, 8, 3, 2, 8);
    double *w2 = field_alloc(PREC_DOUBLE, wide2.len);
    memset(w2, 0, sizeof(double) * wide2.len);
    CHECK(regular_onchip_run(ST_LAPLAP, PREC_DOUBLE, &wide2, (fieldset){{w2}}, 2, &walk_one,
                             &t) == -1 && strstr(msg, "17 strips"),
          "a walk of 17 strips in one block refused: '%s'", msg);
    xfree(w2);
    xfree(f2[0]);
    xfree(f2[1]);
    xfree(q);
    xfree(b);
    xfree(f.p[0]);
    xfree(f.p[1]);
    perr_capture_restore(saved);
}

int main(int argc, char **argv)
{
    char msg[256];
    if (!gpu_probe(msg, sizeof msg)) {
        printf("test_onchip_regular: skipped: %s\n", msg);
        return 77;
    }
    tiny = argc > 1 && strcmp(argv[1], "--tiny") == 0;
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    refusals();
    lattices(sms);
    printf("test_onchip_regular: %ld runs on the device equal the CPU's\n", runs);
    return check_done("test_onchip_regular");
}
