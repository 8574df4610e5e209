/* The persistent executor out of core, without a device (src/plan/persist_ooc.h,
 * access/persistent.h):
 *  - the schedule of the persistent kernel on a chunk, emulated on the CPU: blocks over the
 *    cells of the chunk's first step (persist_ooc_cells, persist_range), each step computing the
 *    block's cells from persist_step_from on, reading one array of the state and writing the
 *    other (the grid's halo cells copied into the second first, as the pipeline does), every
 *    block's outputs computed before any is folded, local arrays poisoned; a run of several
 *    passes over several chunks gives the CPU in-core iteration's state bit for bit: laplap,
 *    hdiff, lap, double and float, F = 1, 2, 5, 1 to 7 blocks, odd sizes, row-major and z-curve;
 *    a schedule whose steps each compute the next step's region (one band short) differs, so
 *    the comparison can fail;
 *  - each step's cells, over all blocks, are exactly the region the fused path computes
 *    ([first[m], ncells)), counted cell by cell;
 *  - refusals with a message: stencils without persistent kernels, K-step plans;
 *  - launch shapes of every part on a stand-in device, and the budget shrunk
 *    (persist_ooc_shrink) until a part that did not fit does. */
#include "check.h"
#include "src/exec/iterate.h"
#include "src/plan/persist_ooc.h"

#include <string.h>

enum { STEPS = 7 };

/* A stand-in SM: `per` blocks with no shared memory, and as many as fit `room` bytes with. */
typedef struct {
    int per;
    size_t room;
} fake_sm;

static int fake_occ(size_t smem, void *ctx)
{
    const fake_sm *f = ctx;
    if (smem == 0)
        return f->per;
    long n = (long)(f->room / smem);
    return n < f->per ? (int)n : f->per;
}

/* Inputs of chunk (pt, s) from the host fields src into the local arrays loc (every held level
 * of every local cell: no sharing). */
static void gather(const ooc_plan *pl, const ugrid *g, const ooc_part *pt, const ooc_slab *s,
                   fieldset src, fieldset loc)
{
    size_t es = prec_size(pl->prec);
    for (int f = 0; f < stencil_table[pl->stencil].nin; f++)
        for (int z = s->lz0; z < s->lz1; z++)
            for (int l = 0; l < pt->ncells; l++)
                memcpy((char *)loc.p[f] + ((size_t)(z - s->lz0) * (size_t)pt->zstride + (size_t)l) * es,
                       (const char *)src.p[f] + ((size_t)z * (size_t)g->zstride + (size_t)pt->gcell[l]) * es,
                       es);
}

/* Cells [c0, c1) at levels [k0, k1) (global; level 0 of the arrays is lz0) from a to b. */
static void copy_cells(const ooc_plan *pl, const ooc_part *pt, int lz0, int c0, int c1, int k0,
                       int k1, const void *a, void *b)
{
    size_t es = prec_size(pl->prec);
    for (int z = k0; z < k1; z++)
        if (c1 > c0)
            memcpy((char *)b + ((size_t)(z - lz0) * (size_t)pt->zstride + (size_t)c0) * es,
                   (const char *)a + ((size_t)(z - lz0) * (size_t)pt->zstride + (size_t)c0) * es,
                   (size_t)(c1 - c0) * es);
}

/* `steps` steps of chunk (pt, s) as the persistent kernel runs them with nb blocks; scratch: the
 * stencil's output field. wrong: each step but the last computes the next step's (smaller)
 * region only. Returns whether the result is in the output field (odd steps), as run_persistent
 * does. Counts in *bad_region the steps whose cells, over all blocks, are not the fused path's
 * region. */
static int emulate(const ooc_plan *pl, const ooc_part *pt, const ooc_slab *s, int steps, int nb,
                   fieldset loc, void *scratch, int wrong, long *bad_region)
{
    const iter_carry *c = iter_carried(pl->stencil);
    int fin = c->in[0], fout = c->out[0], c0, n;
    int k0 = s->z0, k1 = s->z1 < pl->zend ? s->z1 : pl->zend;
    persist_ooc_cells(pl, pt, &c0, &n);
    if (steps > 1) { /* copy_fixed: halo cells at every held level, levels from zend up */
        copy_cells(pl, pt, s->lz0, 0, pt->nfixed, s->lz0, s->lz1, loc.p[fin], loc.p[fout]);
        if (pl->zend < s->lz1)
            copy_cells(pl, pt, s->lz0, 0, pt->ncells, pl->zend > s->lz0 ? pl->zend : s->lz0,
                       s->lz1, loc.p[fin], loc.p[fout]);
    }
    for (int t = 0; t < steps; t++) {
        void *rd = (t & 1) ? loc.p[fout] : loc.p[fin], *wr = (t & 1) ? loc.p[fin] : loc.p[fout];
        fieldset f = loc;
        f.p[fin] = rd;
        f.p[fout] = scratch;
        int lo_all = pt->ncells, hi_all = 0;
        long cells = 0;
        cpu_block blk[8];
        for (int b = 0; b < nb; b++) { /* every block's outputs from rd */
            long lo, hi;
            persist_range(n, nb, b, &lo, &hi);
            int first = c0 + (int)lo, mine = (int)(hi - lo);
            int tw = wrong && t + 1 < steps ? t + 1 : t;
            int from = persist_step_from(pt->first, steps, tw, first, mine);
            blk[b] = (cpu_block){first + from, first + mine, k0, k1, s->lz0, pt->zstride, NULL};
            if (blk[b].c0 < blk[b].c1) {
                lo_all = blk[b].c0 < lo_all ? blk[b].c0 : lo_all;
                hi_all = blk[b].c1 > hi_all ? blk[b].c1 : hi_all;
                cells += blk[b].c1 - blk[b].c0;
            }
            cpu_run_block(pl->stencil, pl->prec, &pt->nt, NULL, blk[b], f);
        }
        int m = steps - 1 - t;
        if (!wrong && (lo_all != pt->first[m] || hi_all != pt->ncells ||
                       cells != pt->ncells - pt->first[m]))
            (*bad_region)++;
        for (int b = 0; b < nb; b++) { /* then the fold into wr (rd's state at the points) */
            copy_cells(pl, pt, s->lz0, blk[b].c0, blk[b].c1, k0, k1, rd, wr);
            fieldset w = loc;
            w.p[fin] = wr;
            w.p[fout] = scratch;
            iter_fold(pl->stencil, pl->prec, blk[b], w);
        }
    }
    return steps & 1;
}

/* A run of `steps` steps of plan pl in passes, each chunk by emulate(); returns the points that
 * differ from ref. */
static long run_plan(const problem *pb, const ooc_plan *pl, fieldset ref, int nb, int wrong,
                     long *bad_region)
{
    const ugrid *g = &pb->ug;
    const iter_carry *c = iter_carried(pl->stencil);
    size_t es = prec_size(pl->prec), len = 0;
    for (int p = 0; p < pl->nparts; p++)
        for (int k = 0; k < pl->nslabs; k++) {
            size_t l = (size_t)pl->part[p].zstride * (size_t)(pl->slab[k].lz1 - pl->slab[k].lz0);
            len = l > len ? l : len;
        }
    fieldset cur = iter_fields_copy(pb), next = iter_fields_copy(pb), loc = {{0}};
    int nf = stencil_table[pl->stencil].nin + stencil_table[pl->stencil].nout;
    for (int f = 0; f < nf; f++)
        loc.p[f] = field_alloc(pl->prec, len);
    void *scratch = field_alloc(pl->prec, len);
    for (int done = 0; done < STEPS;) {
        int t = STEPS - done < pl->F ? STEPS - done : pl->F;
        for (int i = 0; i < pl->nparts * pl->nslabs; i++) {
            const ooc_part *pt = &pl->part[i / pl->nslabs];
            const ooc_slab *s = &pl->slab[i % pl->nslabs];
            for (int f = 0; f < nf; f++)
                field_poison(pl->prec, loc.p[f], len);
            field_poison(pl->prec, scratch, len);
            gather(pl, g, pt, s, cur, loc);
            int in_out = emulate(pl, pt, s, t, nb, loc, scratch, wrong, bad_region);
            const char *res = loc.p[in_out ? c->out[0] : c->in[0]];
            for (int z = s->z0; z < s->z1; z++) /* own cells back */
                memcpy((char *)next.p[c->in[0]] + ((size_t)z * (size_t)g->zstride + (size_t)pt->own0) * es,
                       res + ((size_t)(z - s->lz0) * (size_t)pt->zstride + (size_t)pt->first[0]) * es,
                       (size_t)(pt->own1 - pt->own0) * es);
        }
        fieldset swap = cur;
        cur = next;
        next = swap;
        done += t;
    }
    long bad = iter_state_differ(pb, cur, ref, NULL);
    for (int f = 0; f < nf; f++)
        xfree(loc.p[f]);
    xfree(scratch);
    iter_fields_free(pb, &cur);
    iter_fields_free(pb, &next);
    return bad;
}

static void schedules(void)
{
    static const stencil_t sts[] = {ST_LAPLAP, ST_HDIFF, ST_LAP};
    static const int Fs[] = {1, 2, 5}, nbs[] = {1, 3, 7};
    int wrong_seen = 0, wrong_runs = 0, runs = 0, fewest = 1 << 30;
    for (int si = 0; si < 3; si++)
        for (int prec = 0; prec < 2; prec++)
            for (int fi = 0; fi < 3; fi++) {
                stencil_t st = sts[si];
                int F = Fs[fi];
                problem_spec s = {st, (precision_t)prec, 47, 39, 5, stencil_table[st].radius,
                                  fi == 1 ? LAYOUT_ZCURVE_W : LAYOUT_ROWMAJOR, 8, 5, fi & 1, prec};
                problem pb;
                if (problem_make(&pb, &s) != 0) {
                    CHECK(0, "problem_make");
                    continue;
                }
                fieldset ref = iter_fields_copy(&pb);
                iter_run_incore(&pb, ref, STEPS);
                size_t min = ooc_min_budget(&pb.ug, st, s.prec, s.chasing, s.compressed, F);
                ooc_plan pl;
                if (ooc_plan_make(&pl, &pb.ug, st, s.prec, s.chasing, s.compressed, (F > 2 ? 2 : 4) * min, F) != 0) {
                    CHECK(0, "%s F=%d: no plan", stencil_table[st].name, F);
                } else {
                    ooc_plan_share(&pl, 0);
                    CHECK(persist_ooc_check(&pl) == 0, "%s: refused", stencil_table[st].name);
                    CHECK(pl.nparts * pl.nslabs > 2, "%s F=%d: %d chunks, want several",
                          stencil_table[st].name, F, pl.nparts * pl.nslabs);
                    fewest = pl.nparts * pl.nslabs < fewest ? pl.nparts * pl.nslabs : fewest;
                    for (int b = 0; b < 3; b++) {
                        long bad_region = 0;
                        runs++;
                        long d = run_plan(&pb, &pl, ref, nbs[b], 0, &bad_region);
                        CHECK(d == 0 && bad_region == 0, "%s %s F=%d %d blocks (%d chunks): %ld "
                              "points differ from the CPU in core, %ld steps off the fused "
                              "region", stencil_table[st].name, prec_name(s.prec), F, nbs[b],
                              pl.nparts * pl.nslabs, d, bad_region);
                    }
                    if (F > 1) {
                        long ignore = 0;
                        wrong_runs++;
                        wrong_seen += run_plan(&pb, &pl, ref, 3, 1, &ignore) != 0;
                    }
                    ooc_plan_free(&pl);
                }
                iter_fields_free(&pb, &ref);
                problem_free(&pb);
            }
    printf("%d emulated runs of %d steps, %d chunks at least; %d of %d runs one band short "
           "differ\n", runs, STEPS, fewest, wrong_seen, wrong_runs);
    CHECK(wrong_seen == wrong_runs, "a schedule one band short matched the CPU in "
          "%d of %d runs", wrong_runs - wrong_seen, wrong_runs);
}

static void refusals(void)
{
    problem_spec s = {ST_FASTWAVES, PREC_DOUBLE, 20, 18, 6, 1, LAYOUT_ROWMAJOR, 8, 5, 0, 0};
    problem pb;
    if (problem_make(&pb, &s) != 0) {
        CHECK(0, "problem_make");
        return;
    }
    ooc_plan pl;
    size_t min = ooc_min_budget(&pb.ug, s.stencil, s.prec, 0, 0, 2);
    if (ooc_plan_make(&pl, &pb.ug, s.stencil, s.prec, 0, 0, 4 * min, 2) == 0) {
        char msg[300] = "";
        perr_capture(msg, sizeof msg);
        CHECK(persist_ooc_check(&pl) == -1 && strstr(msg, "fastwaves has no persistent kernel"),
              "fastwaves accepted: '%s'", msg);
        perr_capture(NULL, 0);
        ooc_plan_free(&pl);
    }
    problem_free(&pb);
    problem_spec l = {ST_LAPLAP, PREC_DOUBLE, 20, 18, 4, 2, LAYOUT_ROWMAJOR, 8, 5, 0, 0};
    if (problem_make(&pb, &l) != 0) {
        CHECK(0, "problem_make");
        return;
    }
    min = ooc_min_budget(&pb.ug, l.stencil, l.prec, 0, 0, 2);
    if (ooc_plan_make(&pl, &pb.ug, l.stencil, l.prec, 0, 0, 4 * min, 2) == 0) {
        if (ooc_plan_tiles(&pl, 2, 32) == 0) {
            char msg[300] = "";
            perr_capture(msg, sizeof msg);
            CHECK(persist_ooc_check(&pl) == -1 && strstr(msg, "K-step balls"),
                  "a K-step plan accepted: '%s'", msg);
            perr_capture(NULL, 0);
        }
        ooc_plan_free(&pl);
    }
    problem_free(&pb);
}

/* Shapes on a stand-in device of 4 SMs with room for 2 KB of offsets each (a block of 32
 * threads; laplap: 80 bytes a cell, so about 100 cells in all): a plan whose parts are larger is
 * refused with a message naming the part, and the budget shrunk by persist_ooc_shrink until
 * every part fits, within a few tries; then every part's shape holds its cells. */
static void shrinking(void)
{
    problem_spec s = {ST_LAPLAP, PREC_DOUBLE, 41, 37, 3, 2, LAYOUT_ZCURVE_W, 8, 5, 0, 0};
    problem pb;
    if (problem_make(&pb, &s) != 0) {
        CHECK(0, "problem_make");
        return;
    }
    fake_sm sm = {8, 2048};
    persist_device d = {4, 64, 2048, 2048, 1e9, 1e11};
    size_t budget = (size_t)pb.nf * 8 * pb.ug.len; /* about a third of the grid a chunk */
    int tries = 0, fits = 0;
    for (; tries < 40 && !fits; tries++) {
        ooc_plan pl;
        if (ooc_plan_make(&pl, &pb.ug, s.stencil, s.prec, 0, 0, budget, 2) != 0) {
            CHECK(0, "no plan at %zu bytes", budget);
            break;
        }
        persist_shape *shape = xalloc(sizeof(persist_shape) * (size_t)pl.nparts);
        long most = 0;
        char msg[400] = "";
        perr_capture(msg, sizeof msg);
        fits = persist_ooc_shapes(shape, &pl, 32, &d, fake_occ, &sm, &most) == 0;
        perr_capture(NULL, 0);
        CHECK(most > 0, "no cells counted");
        if (!fits) {
            CHECK(strstr(msg, "does not fit") != NULL || strstr(msg, "leave room") != NULL,
                  "refusal without a message: '%s'", msg);
            double f = persist_ooc_shrink(&pl, &d, most);
            CHECK(f >= 0.1 && f <= 0.9, "shrink %g", f);
            budget = (size_t)((double)budget * f);
        } else {
            for (int p = 0; p < pl.nparts; p++) {
                int c0, n;
                persist_ooc_cells(&pl, &pl.part[p], &c0, &n);
                CHECK(c0 == pl.part[p].first[1] && n == pl.part[p].ncells - c0,
                      "part %d: cells [%d, +%d)", p, c0, n);
                CHECK((long)shape[p].nblocks * shape[p].max_cells >= n &&
                          shape[p].smem == (size_t)shape[p].max_cells * 20 * 4 &&
                          shape[p].smem <= d.smem_block && shape[p].nblocks <= 4 * 8,
                      "part %d: %d blocks of %ld cells, %zu bytes", p, shape[p].nblocks,
                      shape[p].max_cells, shape[p].smem);
            }
            CHECK(tries > 0, "the first plan fitted: the stand-in device is too large to test");
        }
        xfree(shape);
        ooc_plan_free(&pl);
    }
    CHECK(fits, "no plan fitted after %d tries", tries);
    problem_free(&pb);
}

int main(void)
{
    refusals();
    shrinking();
    schedules();
    return check_done("test_persist_ooc");
}
