/* The shape of a persistent run (src/ooc/persist_plan.c), without a device: block ranges cover
 * the inner cells once, in order, sizes within one of each other (checked cell by cell against
 * a count, not the formula); the number of blocks from a stand-in occupancy; offsets in
 * registers, shared memory or the table by the rules of persist_plan.h; refusals (too many
 * blocks to be resident, blocks no SM holds, thread counts the kernels do not take) with a
 * message and no crash; the stencils that have persistent kernels and the offsets they keep
 * (counted from the relations docs/stencils.md lists for each). */
#include "check.h"
#include "src/ooc/persist_plan.h"

#include <string.h>

/* A stand-in SM: `per` blocks with no shared memory, and as many as fit `room` bytes with. */
typedef struct {
    int per;
    size_t room;
    int calls;
} fake_sm;

static int fake_occ(size_t smem, void *ctx)
{
    fake_sm *f = ctx;
    f->calls++;
    if (smem == 0)
        return f->per;
    long n = (long)(f->room / smem);
    return n < f->per ? (int)n : f->per;
}

static void ranges(void)
{
    static const long cells[] = {1, 7, 31, 508 * 508, 1000003};
    static const int blocks[] = {1, 2, 3, 7, 132, 1056};
    for (size_t a = 0; a < sizeof cells / sizeof cells[0]; a++)
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
            long n = cells[a];
            int nb = blocks[b];
            long next = 0, small = n, big = 0;
            for (int k = 0; k < nb; k++) {
                long lo, hi;
                persist_range(n, nb, k, &lo, &hi);
                CHECK(lo == next, "n=%ld nb=%d block %d starts at %ld, not %ld", n, nb, k, lo, next);
                CHECK(hi >= lo, "n=%ld nb=%d block %d: [%ld, %ld)", n, nb, k, lo, hi);
                next = hi;
                small = hi - lo < small ? hi - lo : small;
                big = hi - lo > big ? hi - lo : big;
            }
            CHECK(next == n, "n=%ld nb=%d: blocks end at %ld", n, nb, next);
            CHECK(big - small <= 1, "n=%ld nb=%d: blocks of %ld to %ld cells", n, nb, small, big);
            /* the largest block holds ceil(n / nb) cells */
            long ceil = n / nb + (n % nb != 0);
            CHECK(big == ceil, "n=%ld nb=%d: largest block %ld, expected %ld", n, nb, big, ceil);
        }
}

static void shapes(void)
{
    char msg[256];
    persist_shape s;
    /* 512x512: 508 * 508 = 258064 inner cells, 132 SMs x 8 blocks of 256 could be 1056 blocks,
     * but 1009 blocks of 256 threads (258064 / 256 rounded up) give every cell its thread */
    fake_sm f = {8, 228 * 1024, 0};
    CHECK(persist_shape_make(&s, 508L * 508, 256, 132, 20, 227 * 1024, 0, fake_occ, &f) == 0,
          "512x512 shape refused");
    CHECK(s.nblocks == 1009 && s.max_cells == 256 && s.where == PERSIST_OFFSETS_REGISTERS &&
              s.smem == 0, "512x512: %d blocks, %ld cells, where %d", s.nblocks, s.max_cells,
          (int)s.where);
    /* a small grid: no more blocks than one per 256 cells (27 * 27 = 729 cells: 3 blocks) */
    CHECK(persist_shape_make(&s, 729, 256, 132, 20, 227 * 1024, 0, fake_occ, &f) == 0, "729");
    CHECK(s.nblocks == 3 && s.max_cells == 243 && s.where == PERSIST_OFFSETS_REGISTERS,
          "729 cells: %d blocks, %ld cells", s.nblocks, s.max_cells);
    /* 4 SMs x 2 blocks of 64 threads over 10000 cells: 8 blocks of 1250; 1250 * 20 * 4 =
     * 100000 bytes, two fit 228 KB: shared memory */
    fake_sm g = {2, 228 * 1024, 0};
    CHECK(persist_shape_make(&s, 10000, 64, 4, 20, 227 * 1024, 0, fake_occ, &g) == 0, "10000");
    CHECK(s.nblocks == 8 && s.max_cells == 1250 && s.where == PERSIST_OFFSETS_SHARED &&
              s.smem == 100000 && s.per_sm == 2,
          "10000 cells: %d blocks, %ld cells, where %d, smem %zu", s.nblocks, s.max_cells,
          (int)s.where, s.smem);
    /* the same with lap's 4 offsets: 20000 bytes */
    CHECK(persist_shape_make(&s, 10000, 64, 4, 4, 227 * 1024, 0, fake_occ, &g) == 0, "lap");
    CHECK(s.where == PERSIST_OFFSETS_SHARED && s.smem == 20000, "lap: where %d smem %zu",
          (int)s.where, s.smem);
    /* only one block of 100000 bytes fits an SM: 8 blocks are no longer resident: the table */
    fake_sm h = {2, 150 * 1024, 0};
    CHECK(persist_shape_make(&s, 10000, 64, 4, 20, 227 * 1024, 0, fake_occ, &h) == 0, "tight");
    CHECK(s.where == PERSIST_OFFSETS_GLOBAL && s.smem == 0 && s.per_sm == 2,
          "tight: where %d smem %zu per_sm %d", (int)s.where, s.smem, s.per_sm);
    /* beyond a block's shared memory: the table, without asking the occupancy */
    h.calls = 0;
    CHECK(persist_shape_make(&s, 100000, 64, 4, 20, 227 * 1024, 0, fake_occ, &h) == 0, "big");
    CHECK(s.where == PERSIST_OFFSETS_GLOBAL && h.calls == 1, "big: where %d, %d queries",
          (int)s.where, h.calls);
    /* blocks asked for: exactly those, up to what is resident (2 x 4 = 8) */
    CHECK(persist_shape_make(&s, 10000, 64, 4, 20, 227 * 1024, 5, fake_occ, &g) == 0, "5 blocks");
    CHECK(s.nblocks == 5 && s.max_cells == 2000, "5 blocks: %d, %ld cells", s.nblocks, s.max_cells);
    perr_capture(msg, sizeof msg);
    int rc = persist_shape_make(&s, 10000, 64, 4, 20, 227 * 1024, 9, fake_occ, &g);
    perr_capture(NULL, 0);
    CHECK(rc == -1 && strstr(msg, "9 blocks cannot all be resident") && strstr(msg, "at most 8"),
          "9 blocks on 8 places: rc %d, message '%s'", rc, msg);
    /* a block no SM holds (the kernel's registers) */
    fake_sm none = {0, 228 * 1024, 0};
    perr_capture(msg, sizeof msg);
    rc = persist_shape_make(&s, 10000, 512, 4, 20, 227 * 1024, 0, fake_occ, &none);
    perr_capture(NULL, 0);
    CHECK(rc == -1 && strstr(msg, "does not fit an SM"), "no block fits: rc %d '%s'", rc, msg);
    /* thread counts the kernels do not take */
    perr_capture(msg, sizeof msg);
    rc = persist_shape_make(&s, 10000, PERSIST_MAX_THREADS + 1, 4, 20, 227 * 1024, 0, fake_occ, &g);
    perr_capture(NULL, 0);
    CHECK(rc == -1 && strstr(msg, "threads"), "%d threads: rc %d '%s'", PERSIST_MAX_THREADS + 1,
          rc, msg);
    persist_shape_describe(&s, msg, sizeof msg); /* of the last good shape: no crash */
}

static void stencils(void)
{
    char why[200];
    /* docs/stencils.md: laplap and hdiff read every relation up to depth 2 (4 + 16), lap the
     * 4 direct ones */
    CHECK(persist_supported(ST_LAPLAP, why, sizeof why) && persist_words(ST_LAPLAP) == 20, "laplap");
    CHECK(persist_supported(ST_HDIFF, why, sizeof why) && persist_words(ST_HDIFF) == 20, "hdiff");
    CHECK(persist_supported(ST_LAP, why, sizeof why) && persist_words(ST_LAP) == 4, "lap");
    why[0] = 0;
    CHECK(!persist_supported(ST_FASTWAVES, why, sizeof why) && strstr(why, "fastwaves"),
          "fastwaves: '%s'", why);
    CHECK(!persist_supported(ST_GRAPHLAP, why, sizeof why), "graphlap");
    CHECK(!persist_supported(ST_FLUXDIFF, why, sizeof why), "fluxdiff");
}

int main(void)
{
    ranges();
    shapes();
    stencils();
    return check_done("test_persist_plan");
}
