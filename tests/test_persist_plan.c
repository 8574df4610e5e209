/* The shape of a persistent run (src/ooc/persist_plan.c), without a device: block ranges cover
 * the inner cells once, in order, sizes within one of each other (checked cell by cell against
 * a count, not the formula); the number of blocks from a stand-in occupancy; offsets in
 * registers, shared memory or the table by the rules of persist_plan.h; refusals (too many
 * blocks to be resident, blocks no SM holds, thread counts the kernels do not take) with a
 * message and no crash; the stencils that have persistent kernels and the offsets they keep
 * (counted from the relations docs/stencils.md lists for each). State caching: each block's
 * halo and export lists equal the sets found by brute force (every plane cell tested against
 * every relation of every cell), every slot leads to the cell its relation names; the model's
 * layout, predictions (against figures worked out by hand from its named constants), choices
 * (nothing cached where the L1 pipe limits, levels cached where DRAM does, the whole state on
 * chip where it fits, shapes the device holds) and refusals. */
#include "check.h"
#include "src/ooc/persist_lists.h"
#include "src/ooc/persist_model.h"
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

/* Brute force: is plane cell d read by a cell of inner range [lo, hi) (0-based) through mask? */
static int read_by(const ugrid *g, long lo, long hi, unsigned mask, int d)
{
    for (long j = lo; j < hi; j++)
        for (int r = 0; r < NREL2; r++)
            if (((mask >> r) & 1u) && ugrid_follow(g, g->nhalo + (int)j, r) == d)
                return 1;
    return 0;
}

static void lists_case(const ugrid *g, int nb, unsigned mask, const char *what)
{
    persist_lists L;
    long n = (long)g->nxy - g->nhalo;
    int c0 = g->nhalo;
    if (persist_lists_build(&L, g, nb, mask) != 0) {
        CHECK(0, "%s nb=%d: lists refused", what, nb);
        return;
    }
    CHECK(L.M == (int)((n + nb - 1) / nb), "%s nb=%d: M %d", what, nb, L.M);
    int hmax = 0;
    long nhalo = 0, nexport = 0, bad = 0;
    for (int b = 0; b < nb; b++) {
        long lo, hi;
        persist_range(n, nb, b, &lo, &hi);
        /* the halo: every plane cell outside the range that a cell of the range reads */
        int h = L.hstart[b], e = L.hstart[b + 1];
        for (int d = 0; d < g->nxy; d++) {
            if (d >= c0 + lo && d < c0 + hi)
                continue;
            if (read_by(g, lo, hi, mask, d)) {
                if (h >= e || L.halo[h] != d)
                    bad++;
                else
                    h++;
            }
        }
        CHECK(h == e, "%s nb=%d block %d: %d halo entries not read by the block", what, nb, b,
              e - h);
        hmax = e - L.hstart[b] > hmax ? e - L.hstart[b] : hmax;
        nhalo += e - L.hstart[b];
        /* exports: own cells read by any other block; slots lead to the cells */
        for (long j = lo; j < hi; j++) {
            int other = read_by(g, 0, lo, mask, c0 + (int)j) || read_by(g, hi, n, mask, c0 + (int)j);
            nexport += other;
            if (L.slots[j] != other)
                bad++;
            for (int r = 0; r < NREL2; r++) {
                int d = ((mask >> r) & 1u) ? ugrid_follow(g, c0 + (int)j, r) : -1;
                int s = L.slots[(size_t)(1 + r) * n + j];
                int at = s < L.M ? (s < hi - lo ? c0 + (int)lo + s : -2)
                                 : (s - L.M < e - L.hstart[b] ? L.halo[L.hstart[b] + s - L.M] : -2);
                if (d >= 0 && at != d)
                    bad++;
            }
        }
    }
    CHECK(bad == 0, "%s nb=%d: %ld halo entries, export flags or slots differ from brute force",
          what, nb, bad);
    CHECK(L.hmax == hmax && L.nhalo_all == nhalo && L.nexport == nexport,
          "%s nb=%d: hmax %d/%d halo %ld/%ld exports %ld/%ld", what, nb, L.hmax, hmax,
          L.nhalo_all, nhalo, L.nexport, nexport);
    int ch;
    long cn, ce;
    CHECK(persist_lists_count(g, nb, mask, &ch, &cn, &ce) == 0 && ch == hmax && cn == nhalo &&
              ce == nexport,
          "%s nb=%d: counted %d %ld %ld, listed %d %ld %ld", what, nb, ch, cn, ce, hmax, nhalo,
          nexport);
    if (nb == 1)
        CHECK(nexport == 0, "%s: one block exports %ld cells", what, nexport);
    persist_lists_free(&L);
}

static void lists(void)
{
    static const int sz[][2] = {{13, 11}, {23, 19}, {9, 17}};
    static const int nbs[] = {1, 2, 7, 33};
    for (int k = 0; k < 3; k++)
        for (int lay = 0; lay < LAYOUT_COUNT; lay++) {
            ugrid g;
            if (ugrid_emulate(&g, sz[k][0], sz[k][1], 4, 2, (layout_t)lay, 4, 7 + k) != 0) {
                CHECK(0, "emulate");
                continue;
            }
            char what[64];
            snprintf(what, sizeof what, "%dx%d %s", sz[k][0], sz[k][1], layout_name[lay]);
            for (int b = 0; b < 4; b++) {
                lists_case(&g, nbs[b], REL_ALL, what);
                lists_case(&g, nbs[b], 0xfu, what);
            }
            char msg[200];
            persist_lists L;
            perr_capture(msg, sizeof msg);
            int rc = persist_lists_build(&L, &g, (int)(g.nxy - g.nhalo) + 1, REL_ALL);
            perr_capture(NULL, 0);
            CHECK(rc == -1 && strstr(msg, "blocks"), "more blocks than cells: rc %d '%s'", rc, msg);
            ugrid_free(&g);
        }
}

/* The H100 as the model sees it; a stand-in occupancy of `per` blocks with no shared memory. */
static const persist_device h100 = {132, 228 * 1024, 227 * 1024, 1.755e9, 3.0e12};

static void model(void)
{
    char msg[400];
    ugrid g;
    if (ugrid_emulate(&g, 512, 512, 64, 2, LAYOUT_ZCURVE, 32, 1) != 0) {
        CHECK(0, "emulate 512x512");
        return;
    }
    long cells = 508L * 508;
    fake_sm f = {4, 228 * 1024, 0};
    persist_cache c;
    /* laplap, double, 64 levels: by hand, 258064 x 64 points x 21 loads x 2/32 wavefronts over
     * 132 x 1.755e9 clocks = 93.57 us (L1), 16 bytes per point at 3 TB/s = 88.09 us (DRAM): the
     * host loop 93.57 + 4 = 97.57 us; the L1 pipe limits, so caching saves little: auto off */
    persist_work lap2 = {cells, 64, 8, 20, 0};
    CHECK(persist_model_plan(&c, &g, REL_ALL, &lap2, &h100, 256, 0, PERSIST_LEVELS_MODEL,
                             fake_occ, &f) == 0, "laplap 64 plan");
    CHECK(c.host_s > 97.5e-6 && c.host_s < 97.65e-6, "laplap host loop %.2f us, by hand 97.57",
          c.host_s * 1e6);
    CHECK(c.host_s / c.persist_s < PERSIST_AUTO_GAIN, "laplap 64 levels: predicted gain %.3f",
          c.host_s / c.persist_s);
    persist_cache_describe(&c, msg, sizeof msg);
    printf("laplap 512x512x64 double: %s\n", msg);
    /* lap, double, 16 levels: 5 loads a point, L1 5.57 us, DRAM 22.02 us: host 26.02 us; the
     * lowest levels on chip cut the DRAM term: auto on */
    persist_work lap1 = {cells, 16, 8, 4, 0};
    CHECK(persist_model_plan(&c, &g, 0xfu, &lap1, &h100, 256, 0, PERSIST_LEVELS_MODEL, fake_occ,
                             &f) == 0, "lap 16 plan");
    CHECK(c.host_s > 25.95e-6 && c.host_s < 26.1e-6, "lap host loop %.2f us, by hand 26.02",
          c.host_s * 1e6);
    CHECK(c.levels > 0 && c.host_s / c.persist_s >= PERSIST_AUTO_GAIN,
          "lap 16 levels: %d cached, predicted gain %.3f", c.levels, c.host_s / c.persist_s);
    /* what the device holds: every block resident with that much shared memory */
    CHECK(c.smem <= h100.smem_block && (long)fake_occ(c.smem, &f) * h100.sms >= c.shape.nblocks,
          "lap: %zu bytes x %d blocks not resident", c.smem, c.shape.nblocks);
    /* the layout by hand: levels x (2M + H) doubles, then the slots (5 words per cell) where a
     * block owns more cells than threads */
    size_t state = (size_t)c.levels * (2 * (size_t)c.shape.max_cells + (size_t)c.hmax) * 8;
    size_t want = c.slots_shared ? (state + 15) / 16 * 16 + 5 * 4 * (size_t)c.shape.max_cells
                                 : state;
    if (c.shape.where == PERSIST_OFFSETS_SHARED && c.levels < 16)
        want += 4 * 4 * (size_t)c.shape.max_cells + 16;
    CHECK(c.smem <= want && c.smem + 32 >= want, "lap layout: %zu bytes, by hand %zu", c.smem,
          want);
    persist_cache_describe(&c, msg, sizeof msg);
    printf("lap 512x512x16 double: %s\n", msg);
    /* predicted time never rises with more levels cached where DRAM limits */
    persist_cache k = c;
    double last = 1;
    for (int L = 0; L <= c.levels; L++) {
        k.levels = L;
        persist_cache_layout(&k, &lap1);
        persist_predict(&k, &lap1, &h100);
        CHECK(k.persist_s <= last, "lap: %d levels predicted %.2f us, more than %d levels",
              L, k.persist_s * 1e6, L - 1);
        CHECK(L > 0 || k.saved == 0, "no level cached saves %.0f bytes", k.saved);
        last = k.persist_s;
    }
    /* none asked for: none; forced levels: exactly those, or refused with the numbers */
    CHECK(persist_model_plan(&c, &g, 0xfu, &lap1, &h100, 256, 0, PERSIST_LEVELS_NONE, fake_occ,
                             &f) == 0 && c.levels == 0 && c.smem == c.shape.smem, "none");
    CHECK(persist_model_plan(&c, &g, 0xfu, &lap1, &h100, 256, 0, 1, fake_occ, &f) == 0 &&
              c.levels == 1, "one level: %d", c.levels);
    perr_capture(msg, sizeof msg);
    int rc = persist_model_plan(&c, &g, REL_ALL, &lap2, &h100, 256, 0, 64, fake_occ, &f);
    perr_capture(NULL, 0);
    CHECK(rc == -1 && strstr(msg, "do not fit"), "64 levels of 512x512 on chip: rc %d '%s'", rc,
          msg);
    /* laplap's 20 offsets and 21 slots a cell leave room for one level once the offsets are
     * looked up every step (the model's other placement), not two */
    CHECK(persist_model_plan(&c, &g, REL_ALL, &lap2, &h100, 256, 0, 1, fake_occ, &f) == 0 &&
              c.levels == 1 && c.shape.where == PERSIST_OFFSETS_GLOBAL,
          "laplap 1 level: %d, offsets where %d", c.levels, (int)c.shape.where);
    perr_capture(msg, sizeof msg);
    rc = persist_model_plan(&c, &g, REL_ALL, &lap2, &h100, 256, 0, 2, fake_occ, &f);
    perr_capture(NULL, 0);
    CHECK(rc == -1 && strstr(msg, "at most 1 do"), "laplap 2 levels: rc %d '%s'", rc, msg);
    perr_capture(msg, sizeof msg);
    rc = persist_model_plan(&c, &g, REL_ALL, &lap2, &h100, 256, 0, 65, fake_occ, &f);
    perr_capture(NULL, 0);
    CHECK(rc == -1 && strstr(msg, "computes 64"), "65 of 64 levels: rc %d '%s'", rc, msg);
    ugrid_free(&g);
    /* a small grid: the whole state on chip (lap, float, 30 x 30 x 6: DRAM limits) */
    if (ugrid_emulate(&g, 30, 30, 6, 2, LAYOUT_ROWMAJOR, 32, 1) != 0) {
        CHECK(0, "emulate 30x30");
        return;
    }
    persist_work small = {26L * 26, 6, 4, 4, 0};
    CHECK(persist_model_plan(&c, &g, 0xfu, &small, &h100, 256, 0, PERSIST_LEVELS_MODEL,
                             fake_occ, &f) == 0 && c.levels == 6 && !c.slots_shared,
          "30x30x6: %d levels cached, slots shared %d", c.levels, c.slots_shared);
    /* 2 blocks of 32 threads: several cells per thread, slots in shared memory */
    CHECK(persist_model_plan(&c, &g, 0xfu, &small, &h100, 32, 2, 6, fake_occ, &f) == 0 &&
              c.levels == 6 && c.slots_shared && c.shape.nblocks == 2,
          "30x30x6, 2 blocks of 32: %d levels, slots shared %d", c.levels, c.slots_shared);
    ugrid_free(&g);
}

int main(void)
{
    ranges();
    shapes();
    stencils();
    lists();
    model();
    return check_done("test_persist_plan");
}
