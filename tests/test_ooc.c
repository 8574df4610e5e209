/* Out-of-core on the CPU (docs/out-of-core.md):
 *  - one in-core step is the plain executor's output folded into the state, halo cells (and the
 *    top level of fastwaves) unchanged; in-core runs do not depend on the thread count;
 *  - plans respect the budget, cover every inner point exactly once, carry every neighbour the
 *    trapezoid reads, and reject a budget below the minimum with a message;
 *  - region sharing: what a chunk takes from the previous one is the same cells at levels both
 *    hold, with its pieces from the host it covers its inputs exactly once, it takes every fixed
 *    and ring cell both hold, and the host->device bytes fall by exactly what is shared; a run
 *    whose share list loses a cell differs (the CPU run poisons what it does not fill);
 *  - chunked runs (which share as the device does) equal in-core runs bit for bit: every
 *    stencil, F = 1..3, budgets from the minimum (many parts and slabs) to unlimited, layouts
 *    rowmajor / zcurve-w / random, double and float, the four table storages;
 *  - mesh files in METIS order (the order's own partition, or one stored in the file): parts of
 *    plans are whole METIS parts once one fits, and chunked runs equal in-core runs bit for bit. */
#include "check.h"
#include "scratch.h"
#include "src/exec/iterate.h"
#include "src/io/mesh_io.h"
#include "src/ooc/ooc_cpu.h"
#include "src/exec/runner.h"

#include <omp.h>
#include <string.h>

enum { NX = 30, NY = 26, NZ = 13, STEPS = 5, MAXF = 3 };
static const layout_t layouts[] = {LAYOUT_ROWMAJOR, LAYOUT_ZCURVE_W, LAYOUT_RANDOM};

/* The state value one step gives from initial value u and stencil output o. */
static int folded_same(const problem *pb, const void *state, size_t i, double u, double o)
{
    if (pb->s.prec == PREC_FLOAT) {
        float e = stencil_fold_float(pb->s.stencil, (float)u, (float)o);
        return memcmp((const float *)state + i, &e, sizeof e) == 0;
    }
    double e = stencil_fold_double(pb->s.stencil, u, o);
    return memcmp((const double *)state + i, &e, sizeof e) == 0;
}

static void test_one_step(const problem *pb, const char *what)
{
    fieldset st = iter_fields_copy(pb), out = runner_outputs(pb, 1);
    iter_run_incore(pb, st, 1);
    cpu_run_unstructured(pb, out);
    const iter_carry *c = iter_carried(pb->s.stencil);
    int zend = stencil_zend(pb->s.stencil, pb->ug.nz);
    long bad = 0, changed = 0;
    for (int j = 0; j < c->n; j++)
        for (int z = 0; z < pb->ug.nz; z++)
            for (int cell = 0; cell < pb->ug.nxy; cell++) {
                size_t i = (size_t)cell + (size_t)z * pb->ug.zstride;
                const void *init = pb->uf.p[c->in[j]];
                if (cell < pb->ug.nhalo || z >= zend) {
                    bad += !field_same_bits(pb->s.prec, st.p[c->in[j]], i, init, i);
                    continue;
                }
                double u = field_get(pb->s.prec, init, i), o = field_get(pb->s.prec, out.p[c->out[j]], i);
                bad += !folded_same(pb, st.p[c->in[j]], i, u, o);
                changed += !field_same_bits(pb->s.prec, st.p[c->in[j]], i, init, i);
            }
    CHECK(bad == 0, "%s: one step: %ld points differ from body + fold", what, bad);
    CHECK(changed > 0, "%s: one step changed nothing", what);
    runner_free_outputs(pb, &out);
    iter_fields_free(pb, &st);
}

/* Whether every relation the body reads of local cell l leads, through the local table, to the
 * same global cell as on the whole grid. */
static int neighbours_held(const problem *pb, const ooc_part *pt, int l)
{
    nbview v = nbtable_view(&pt->nt);
    for (int r = 0; r < NREL2; r++) {
        int gn = ugrid_follow(&pb->ug, pt->gcell[l], r);
        if (!((stencil_table[pb->s.stencil].rels >> r) & 1u) || gn < 0)
            continue;
        int ln = l + nb_offset(v, pt->nt.chasing, pt->nt.compressed, r, l);
        if (ln < 0 || ln >= pt->ncells || pt->gcell[ln] != gn)
            return 0;
    }
    return 1;
}

/* The part's local numbering: fixed cells, ring, own cells in global order; the suffixes; the
 * ring order a permutation of [0, first[0]) by ascending global cell. */
static int part_sane(const problem *pb, const ooc_part *pt, int F)
{
    int n = pt->first[0], ok = 1;
    unsigned char *seen = xalloc((size_t)(n > 0 ? n : 1));
    for (int k = 0; k < n; k++) {
        int l = pt->ring_order[k];
        ok = ok && l >= 0 && l < n && !seen[l];
        if (ok)
            seen[l] = 1;
        ok = ok && (k == 0 || pt->gcell[pt->ring_order[k - 1]] < pt->gcell[l]);
    }
    xfree(seen);
    ok = ok && pt->nfixed <= pt->first[F] && pt->first[0] + (pt->own1 - pt->own0) == pt->ncells;
    for (int m = 0; m < F; m++)
        ok = ok && pt->first[m + 1] <= pt->first[m];
    for (int l = 0; l < pt->ncells; l++)
        ok = ok && (l < pt->nfixed) == (pt->gcell[l] < pb->ug.nhalo);
    for (int l = pt->first[0]; l < pt->ncells; l++)
        ok = ok && pt->gcell[l] == pt->own0 + (l - pt->first[0]);
    return ok;
}

static void check_plan(const problem *pb, const ooc_plan *pl, const char *what)
{
    const ugrid *g = &pb->ug;
    int zr = stencil_table[pb->s.stencil].zradius, F = pl->F;
    unsigned char *cover = xalloc((size_t)g->nxy * (size_t)g->nz);
    long over = 0, short_halo = 0, insane = 0, badlev = 0, uncovered = 0;
    for (int p = 0; p < pl->nparts; p++) {
        const ooc_part *pt = &pl->part[p];
        insane += !part_sane(pb, pt, F);
        for (int l = pt->first[F - 1]; l < pt->ncells; l++)
            short_halo += !neighbours_held(pb, pt, l);
        for (int k = 0; k < pl->nslabs; k++) {
            const ooc_slab *s = &pl->slab[k];
            over += OOC_BUFFERS * ooc_chunk_bytes(pl, p, k) > pl->budget;
            int lz0 = s->z0 - zr * F > 0 ? s->z0 - zr * F : 0, lz1 = s->z1 + zr * F;
            badlev += s->lz0 != lz0 || s->lz1 != (lz1 < g->nz ? lz1 : g->nz);
            for (int z = s->z0; z < s->z1; z++)
                for (int c = pt->own0; c < pt->own1; c++)
                    cover[(size_t)z * g->nxy + c]++;
        }
    }
    int zend = stencil_zend(pb->s.stencil, g->nz);
    for (int z = 0; z < g->nz; z++)
        for (int c = 0; c < g->nxy; c++)
            uncovered += cover[(size_t)z * g->nxy + c] != (c >= g->nhalo && z < zend);
    xfree(cover);
    CHECK(over == 0, "%s: %ld chunk(s) over the budget", what, over);
    CHECK(uncovered == 0, "%s: %ld points not covered exactly once", what, uncovered);
    CHECK(insane == 0, "%s: %ld part(s) badly numbered", what, insane);
    CHECK(short_halo == 0, "%s: %ld computed cell(s) miss a neighbour in their chunk", what, short_halo);
    CHECK(badlev == 0, "%s: %ld slab(s) hold the wrong levels", what, badlev);
    double d2h = (double)(g->nxy - g->nhalo) * zend * iter_carried(pb->s.stencil)->n *
                 (double)prec_size(pb->s.prec);
    CHECK(pl->d2h_bytes == d2h, "%s: device->host %.0f bytes a pass, expected %.0f", what,
          pl->d2h_bytes, d2h);
}

/* Bytes of inputs chunks i - 1 and i of plan pl both hold: cells of both parts at levels of both
 * slabs. Marks in *ring the fixed and ring cells of chunk i among them (1), others 0. */
static double overlap_bytes(const ooc_plan *pl, int i, const int *prevloc, unsigned char *ring)
{
    const ooc_part *pt = &pl->part[i / pl->nslabs];
    const ooc_slab *s = &pl->slab[i % pl->nslabs], *ps = &pl->slab[(i - 1) % pl->nslabs];
    int z0 = s->lz0 > ps->lz0 ? s->lz0 : ps->lz0, z1 = s->lz1 < ps->lz1 ? s->lz1 : ps->lz1;
    double cells = 0;
    for (int l = 0; l < pt->ncells; l++) {
        int both = z1 > z0 && prevloc[pt->gcell[l]] >= 0;
        ring[l] = both && l < pt->first[0];
        cells += both;
    }
    return z1 > z0 ? cells * (z1 - z0) * stencil_table[pl->stencil].nin * prec_size(pl->prec) : 0;
}

/* Region sharing of plan pl (see the top). Returns whether chunks shared anything. */
static int check_share(const problem *pb, ooc_plan *pl, const char *what)
{
    const ugrid *g = &pb->ug;
    double in = stencil_table[pl->stencil].nin * (double)prec_size(pl->prec), overlap = 0, full = 0;
    long badmap = 0, badcover = 0, missed = 0;
    int chunks = pl->nparts * pl->nslabs, *prevloc = xalloc(sizeof(int) * (size_t)g->nxy);
    for (int c = 0; c < g->nxy; c++)
        prevloc[c] = -1;
    ooc_piece *pc = xalloc(sizeof(ooc_piece) * (size_t)ooc_max_pieces(pl));
    for (int i = 0; i < chunks; i++) {
        const ooc_part *pt = &pl->part[i / pl->nslabs], *pf = i > 0 ? &pl->part[(i - 1) / pl->nslabs] : NULL;
        const ooc_slab *s = &pl->slab[i % pl->nslabs];
        int lev = s->lz1 - s->lz0;
        unsigned char *cover = calloc((size_t)pt->ncells * (size_t)lev, 1);
        unsigned char *ring = calloc((size_t)pt->ncells, 1), *taken = calloc((size_t)pt->ncells, 1);
        full += (double)pt->ncells * lev * in;
        if (i > 0)
            overlap += overlap_bytes(pl, i, prevloc, ring);
        int np = ooc_chunk_pieces(pl, i, pc);
        for (int j = 0; j < np; j++) {
            const ooc_piece *q = &pc[j];
            int inside = q->c0 >= 0 && q->c0 + q->n <= pt->ncells && q->z0 >= s->lz0 &&
                         q->z1 <= s->lz1 && (q->c0 >= pt->first[0] || q->c0 + q->n <= pt->first[0]);
            badcover += !inside;
            for (int z = q->z0; inside && z < q->z1; z++)
                for (int l = q->c0; l < q->c0 + q->n; l++)
                    cover[(size_t)(z - s->lz0) * pt->ncells + l]++;
        }
        ooc_share sh;
        ooc_chunk_share(pl, i, &sh);
        for (int j = 0; j < sh.n; j++) {
            const ooc_slab *ps = &pl->slab[(i - 1) % pl->nslabs];
            int to = sh.to ? sh.to[j] : j, from = sh.from ? sh.from[j] : j;
            int ok = to >= 0 && to < pt->ncells && from >= 0 && from < pf->ncells &&
                     pf->gcell[from] == pt->gcell[to] && sh.z0 >= s->lz0 && sh.z0 >= ps->lz0 &&
                     sh.z1 <= s->lz1 && sh.z1 <= ps->lz1;
            badmap += !ok;
            for (int z = sh.z0; ok && z < sh.z1; z++)
                cover[(size_t)(z - s->lz0) * pt->ncells + to]++;
            if (ok)
                taken[to] = 1;
        }
        for (size_t k = 0; k < (size_t)pt->ncells * (size_t)lev; k++)
            badcover += cover[k] != 1;
        for (int l = 0; l < pt->ncells; l++)
            missed += ring[l] && !taken[l];
        if (pf)
            for (int l = 0; l < pf->ncells; l++)
                prevloc[pf->gcell[l]] = -1;
        for (int l = 0; l < pt->ncells; l++)
            prevloc[pt->gcell[l]] = l;
        free(cover);
        free(ring);
        free(taken);
    }
    xfree(pc);
    xfree(prevloc);
    CHECK(badmap == 0, "%s: %ld shared cells are not the previous chunk's same cell and levels", what,
          badmap);
    CHECK(badcover == 0, "%s: %ld inputs not covered exactly once by pieces and sharing", what,
          badcover);
    CHECK(missed == 0, "%s: %ld fixed or ring cells held by the previous chunk not taken", what, missed);
    CHECK(pl->shared_bytes <= overlap && (overlap > 0) == (pl->shared_bytes > 0),
          "%s: %.0f bytes shared of an overlap of %.0f", what, pl->shared_bytes, overlap);
    double on = pl->h2d_field_bytes, shared = pl->shared_bytes;
    ooc_plan_share(pl, 0);
    CHECK(pl->h2d_field_bytes == full && pl->shared_bytes == 0 && pl->list_bytes == 0,
          "%s: without sharing %.0f field bytes a pass, expected %.0f", what, pl->h2d_field_bytes, full);
    CHECK(on + shared == full, "%s: sharing %.0f bytes takes %.0f off the host->device field bytes",
          what, shared, full - on);
    ooc_plan_share(pl, 1);
    CHECK(pl->h2d_field_bytes == on, "%s: sharing on again: %.0f, was %.0f", what, pl->h2d_field_bytes, on);
    return shared > 0;
}

typedef struct {
    int runs, sliced, multipart_full; /* chunked runs; plans with slabs; several full-height parts */
    int shared;                       /* plans whose chunks share */
} tally;

/* Checks plan pl (made for what) and runs it against the in-core result ref. */
static void run_plan(const problem *pb, ooc_plan *pl, fieldset ref, const char *what, tally *ty)
{
    check_plan(pb, pl, what);
    ty->shared += check_share(pb, pl, what);
    fieldset st = iter_fields_copy(pb);
    CHECK(ooc_cpu_run(pl, &pb->ug, st, STEPS) == 0, "%s: run failed", what);
    long d = iter_state_differ(pb, st, ref, NULL);
    CHECK(d == 0, "%s (%d x %d chunks): %ld points differ from in core", what, pl->nparts,
          pl->nslabs, d);
    iter_fields_free(pb, &st);
    ty->runs++;
    ty->sliced += pl->nslabs > 1;
    ty->multipart_full += pl->nparts > 1 && pl->nslabs == 1;
}

/* Plans and runs every F and budget on one problem against its in-core result. */
static void test_chunked(const problem *pb, fieldset ref, const char *what, tally *ty)
{
    for (int F = 1; F <= MAXF; F++) {
        size_t min = ooc_min_budget(&pb->ug, pb->s.stencil, pb->s.prec, pb->s.chasing,
                                    pb->s.compressed, F);
        size_t budgets[] = {min, 3 * min, 12 * min, (size_t)1 << 40};
        char line[512];
        int len = snprintf(line, sizeof line, "%s F=%d:", what, F);
        for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
            ooc_plan pl;
            char name[256];
            snprintf(name, sizeof name, "%s F=%d budget=%zu", what, F, budgets[b]);
            if (ooc_plan_make(&pl, &pb->ug, pb->s.stencil, pb->s.prec, pb->s.chasing,
                              pb->s.compressed, budgets[b], F) != 0) {
                CHECK(0, "%s: no plan", name);
                continue;
            }
            run_plan(pb, &pl, ref, name, ty);
            if (b == 0 && stencil_zend(pb->s.stencil, pb->ug.nz) > 1)
                CHECK(pl.nslabs > 1, "%s: the minimum budget cut no slabs", name);
            if (b == 3)
                CHECK(pl.nparts == 1 && pl.nslabs == 1, "%s: %d x %d chunks", name, pl.nparts, pl.nslabs);
            len += snprintf(line + len, sizeof line - (size_t)len, " %dx%d", pl.nparts, pl.nslabs);
            ooc_plan_free(&pl);
        }
        printf("%s bit-exact\n", line);
    }
    /* the in-core plan: one chunk, no ring, several passes of F = 2 */
    ooc_plan pl;
    CHECK(ooc_plan_incore(&pl, &pb->ug, pb->s.stencil, pb->s.prec, pb->s.chasing, pb->s.compressed,
                          2) == 0, "%s: no in-core plan", what);
    fieldset st = iter_fields_copy(pb);
    CHECK(ooc_cpu_run(&pl, &pb->ug, st, STEPS) == 0, "%s: in-core plan: run failed", what);
    long d = iter_state_differ(pb, st, ref, NULL);
    CHECK(d == 0, "%s: in-core plan: %ld points differ from in core", what, d);
    CHECK(pl.nparts == 1 && pl.part[0].ncells == pb->ug.nxy, "%s: in-core plan of %d parts", what,
          pl.nparts);
    iter_fields_free(pb, &st);
    ooc_plan_free(&pl);
}

/* A budget one byte below the minimum is refused with a message, the minimum accepted. */
static void test_too_small(const problem *pb)
{
    size_t min = ooc_min_budget(&pb->ug, pb->s.stencil, pb->s.prec, pb->s.chasing, pb->s.compressed, 2);
    ooc_plan pl;
    fprintf(stderr, "(expected) ");
    CHECK(ooc_plan_make(&pl, &pb->ug, pb->s.stencil, pb->s.prec, pb->s.chasing, pb->s.compressed,
                        min - 1, 2) == -1, "budget %zu below the minimum %zu accepted", min - 1, min);
    CHECK(ooc_plan_make(&pl, &pb->ug, pb->s.stencil, pb->s.prec, pb->s.chasing, pb->s.compressed,
                        min, 2) == 0, "the minimum budget %zu refused", min);
    char line[512];
    ooc_plan_describe(&pl, line, sizeof line);
    printf("%s at the minimum budget: %s\n", stencil_table[pb->s.stencil].name, line);
    CHECK(pl.d2h_bytes > 0 && ooc_h2d_per_step(&pl) > ooc_d2h_per_step(&pl), "traffic: %s", line);
    ooc_plan_free(&pl);
}

/* The model's choice of F (ooc_plan_choose): with a link far faster than the device the kernels
 * dominate from F = 1 on and a larger F only adds redundant steps, so F = 1; with a slow link each
 * F it passed over is modelled at least 5% slower, and the next doubling is not 5% faster or does
 * not fit. Returns the F chosen with the slow link. */
static int test_model(const problem *pb)
{
    const problem_spec *s = &pb->s;
    size_t budget = (size_t)pb->nf * prec_size(s->prec) * pb->ug.len; /* chunks of about a third */
    ooc_rates fast_link = {1e15, 1e15, 1e9}, slow_link = {1e6, 1e6, 1e15};
    ooc_plan pl, cand;
    CHECK(ooc_plan_choose(&pl, &pb->ug, s->stencil, s->prec, s->chasing, s->compressed, budget,
                          0, 1, MAXF, &fast_link) == 0 && pl.F == 1, "fast link: F = %d, want 1", pl.F);
    ooc_plan_free(&pl);
    if (ooc_plan_choose(&pl, &pb->ug, s->stencil, s->prec, s->chasing, s->compressed, budget,
                        1, 1, MAXF, &slow_link) != 0) {
        CHECK(0, "slow link: no plan");
        return 0;
    }
    int F = pl.F;
    double chosen = ooc_model_step_s(&pl, &slow_link);
    CHECK(pl.share == 1 && F <= MAXF, "slow link: sharing %d, F = %d", pl.share, F);
    ooc_plan_free(&pl);
    for (int f = 1; f <= 2 * F && f <= MAXF; f *= 2) {
        if (f == F)
            continue;
        int made = ooc_plan_make(&cand, &pb->ug, s->stencil, s->prec, s->chasing, s->compressed,
                                 budget, f) == 0;
        CHECK(made || f > F, "slow link: no plan for F = %d, below the chosen %d", f, F);
        if (!made)
            continue;
        ooc_plan_share(&cand, 1);
        double t = ooc_model_step_s(&cand, &slow_link);
        CHECK(f < F ? chosen < 0.95 * t : t >= 0.95 * chosen,
              "slow link: F = %d chosen, modelled %g s a step; F = %d %g s", F, chosen, f, t);
        ooc_plan_free(&cand);
    }
    CHECK(ooc_plan_choose(&pl, &pb->ug, s->stencil, s->prec, s->chasing, s->compressed, budget, 0,
                          2, MAXF, &fast_link) == 0 && pl.F == 2,
          "fast link, at least 2 steps per transfer: F = %d", pl.F);
    ooc_plan_free(&pl);
    printf("%s: the model picks F = %d with a slow link, 1 with a fast one\n",
           stencil_table[s->stencil].name, F);
    return F;
}

/* A run whose share list loses its last cell (a cell computed from the first step on: its inputs
 * stay poisoned) differs from in core: the bit-exact checks above see a cell not shared. */
static void test_lost_share(const problem *pb, fieldset ref)
{
    int F = 2, lost = 0;
    size_t min = ooc_min_budget(&pb->ug, pb->s.stencil, pb->s.prec, pb->s.chasing, pb->s.compressed, F);
    ooc_plan pl;
    CHECK(ooc_plan_make(&pl, &pb->ug, pb->s.stencil, pb->s.prec, pb->s.chasing, pb->s.compressed,
                        12 * min, F) == 0, "no plan");
    for (int p = 1; p < pl.nparts && !lost; p++) {
        ooc_part *pt = &pl.part[p];
        if (pl.nslabs > 1 || pt->nshare == 0 || pt->share_to[pt->nshare - 1] < pt->first[F - 1])
            continue;
        pt->nshare--;
        fieldset st = iter_fields_copy(pb);
        CHECK(ooc_cpu_run(&pl, &pb->ug, st, STEPS) == 0, "run failed");
        long d = iter_state_differ(pb, st, ref, NULL);
        CHECK(d > 0, "part %d lost local cell %d of its share list, yet the run equals in core", p,
              pt->share_to[pt->nshare]);
        printf("a share list without its last cell: %ld points differ from in core\n", d);
        iter_fields_free(pb, &st);
        pt->nshare++;
        lost = 1;
    }
    CHECK(lost, "no part shares a cell computed in the first step (%d x %d chunks)", pl.nparts,
          pl.nslabs);
    ooc_plan_free(&pl);
}

/* ---- mesh files in METIS order ---- */

enum { SPHERE_N = 8, SPHERE_LEVELS = 6, PART_CELLS = 12, STORED_PARTS = 7 };

/* Whether every part of plan pl starts and ends where the partition `part` of the mesh's cells
 * changes along the grid's cell order. */
static int cut_at_parts(const ugrid *g, const ooc_plan *pl, const int *part)
{
    for (int p = 0; p < pl->nparts; p++) {
        int a = pl->part[p].own0, b = pl->part[p].own1;
        if (a > g->nhalo && part[g->mesh_cell[a]] == part[g->mesh_cell[a - 1]])
            return 0;
        if (b < g->nxy && part[g->mesh_cell[b]] == part[g->mesh_cell[b - 1]])
            return 0;
    }
    return 1;
}

/* Each stencil on the mesh file at path in METIS order (partition `part`, nparts parts), F = 1, 2,
 * budgets doubling from the minimum to in core: plans of whole METIS parts cut there, several
 * parts of them among them; every plan's run bit-exact. */
static void test_metis_file(const char *path, const int *part, int nparts, const char *what,
                            tally *ty)
{
    for (int st = 0; st < ST_QUAD_COUNT; st++) {
        if (stencil_table[st].framed)
            continue; /* refused on the cubed sphere: its W/E/S/N frame turns at the seams */
        problem_spec s = {(stencil_t)st, PREC_DOUBLE, 0, 0, 0, 0, LAYOUT_ROWMAJOR, PART_CELLS, 11,
                          st == ST_HDIFF, 1};
        problem pb;
        if (problem_make_mesh(&pb, &s, path, 1) != 0) {
            CHECK(0, "%s: problem_make_mesh", what);
            continue;
        }
        CHECK(pb.ug.nparts > 1 && pb.ug.nparts <= nparts, "%s: %d runs of METIS parts, of %d parts",
              what, pb.ug.nparts, nparts);
        fieldset ref = iter_fields_copy(&pb);
        iter_run_incore(&pb, ref, STEPS);
        for (int F = 1; F <= 2; F++) {
            int whole = 0, several = 0, cells = 0, done = 0;
            size_t b = ooc_min_budget(&pb.ug, s.stencil, s.prec, s.chasing, s.compressed, F);
            for (; !done; b *= 2) {
                ooc_plan pl;
                char name[256];
                snprintf(name, sizeof name, "%s %s F=%d budget=%zu", what, stencil_table[st].name,
                         F, b);
                if (ooc_plan_make(&pl, &pb.ug, s.stencil, s.prec, s.chasing, s.compressed, b, F) != 0) {
                    CHECK(0, "%s: no plan", name);
                    break;
                }
                run_plan(&pb, &pl, ref, name, ty);
                if (pl.units > 0) {
                    CHECK(pl.units == pb.ug.nparts && cut_at_parts(&pb.ug, &pl, part),
                          "%s: parts of %d x %d chunks not cut at METIS parts", name, pl.nparts,
                          pl.nslabs);
                    whole++;
                    several += pl.nparts > 1;
                } else {
                    cells++;
                }
                done = pl.nparts == 1 && pl.nslabs == 1;
                ooc_plan_free(&pl);
            }
            printf("%s %s F=%d: %d plans of whole METIS parts (%d of several), %d cut at cells, "
                   "bit-exact\n", what, stencil_table[st].name, F, whole, several, cells);
            CHECK(several > 0, "%s %s F=%d: no plan of several whole METIS parts", what,
                  stencil_table[st].name, F);
        }
        iter_fields_free(&pb, &ref);
        problem_free(&pb);
    }
}

/* A cubed sphere in METIS order: parts of about PART_CELLS cells made for the order, then a
 * partition of STORED_PARTS parts stored in the file. */
static void test_metis(tally *ty)
{
    mesh m;
    if (scratch_open("ooc", NULL) != 0 || mesh_gen_cubed_sphere(&m, SPHERE_N, SPHERE_LEVELS) != 0) {
        CHECK(0, "scratch directory or mesh");
        return;
    }
    int nparts = (m.ncells + PART_CELLS - 1) / PART_CELLS;
    int *part = xalloc(sizeof(int) * (size_t)m.ncells);
    CHECK(mesh_partition(&m, nparts, part) == 0, "partition"); /* the one --layout metis makes */
    CHECK(mesh_write(tmpname("sphere.h5"), &m) == 0, "write");
    test_metis_file(tmpname("sphere.h5"), part, nparts, "cubed sphere, METIS order", ty);
    m.nparts = STORED_PARTS;
    m.part = xalloc(sizeof(int) * (size_t)m.ncells);
    CHECK(mesh_partition(&m, STORED_PARTS, m.part) == 0, "stored partition");
    CHECK(mesh_write(tmpname("stored.h5"), &m) == 0, "write");
    test_metis_file(tmpname("stored.h5"), m.part, STORED_PARTS, "cubed sphere, stored partition", ty);
    xfree(part);
    mesh_free(&m);
    scratch_remove();
}

static void test_threads(const problem *pb, fieldset ref, const char *what)
{
    fieldset one = iter_fields_copy(pb);
    int n = omp_get_max_threads();
    omp_set_num_threads(1);
    iter_run_incore(pb, one, STEPS);
    omp_set_num_threads(n);
    CHECK(iter_state_differ(pb, one, ref, NULL) == 0, "%s: 1 thread and %d differ", what, n);
    iter_fields_free(pb, &one);
}

int main(void)
{
    tally ty = {0, 0, 0, 0};
    int most_f = 0;
    int nl = sizeof layouts / sizeof layouts[0];
    for (int st = 0; st < ST_QUAD_COUNT; st++)
        for (int prec = 0; prec < 2; prec++)
            for (int li = 0; li < nl; li++) {
                int storage = (st + prec + li) % 4;
                problem_spec s = {(stencil_t)st, (precision_t)prec, NX, NY, NZ,
                                  stencil_table[st].radius, layouts[li], 8, 11,
                                  storage >> 1, storage & 1};
                problem pb;
                if (problem_make(&pb, &s) != 0) {
                    CHECK(0, "problem_make");
                    continue;
                }
                char what[128];
                snprintf(what, sizeof what, "%s %s %s chasing=%d compressed=%d", stencil_table[st].name,
                         prec_name(s.prec), layout_name[s.layout], s.chasing, s.compressed);
                test_one_step(&pb, what);
                fieldset ref = iter_fields_copy(&pb);
                iter_run_incore(&pb, ref, STEPS);
                if (li == 0 && prec == 0) {
                    test_threads(&pb, ref, what);
                    test_too_small(&pb);
                    test_lost_share(&pb, ref);
                    int f = test_model(&pb);
                    most_f = f > most_f ? f : most_f;
                }
                test_chunked(&pb, ref, what, &ty);
                iter_fields_free(&pb, &ref);
                problem_free(&pb);
            }
    test_metis(&ty);
    printf("%d chunked runs of %d steps compared bit for bit with in core (%d with Z-slabs, %d with "
           "several full-height parts, %d sharing)\n", ty.runs, STEPS, ty.sliced, ty.multipart_full,
           ty.shared);
    CHECK(ty.sliced > 0 && ty.multipart_full > 0, "the budgets exercised no slabs or no parts");
    CHECK(most_f > 1, "the model never chose more than one step per transfer with a slow link");
    CHECK(ty.shared > ty.multipart_full, "only %d plans shared", ty.shared);
    return check_done("test_ooc");
}
