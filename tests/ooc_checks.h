/* ooc_checks.h — the checks of iterated and out-of-core runs on the CPU that tests/test_ooc.c
 * (W/E/S/N stencils) and tests/test_ooc_graph.c (graph stencils) share: one step equals the
 * executor's output folded into the state; plans cover every inner point once, carry every
 * neighbour the trapezoid reads (through the part's table or lists) and share correctly; chunked
 * runs of every F and budget equal the in-core run bit for bit (a stencil that reads
 * coefficients, fluxdiff, gets each part's from ooc_plan_coeffs). The including file defines
 * STEPS (steps of each run) and MAXF (largest F tried). */
#ifndef PILLAR_OOC_CHECKS_H
#define PILLAR_OOC_CHECKS_H

#include "check.h"
#include "src/exec/iterate.h"
#include "src/exec/runner.h"
#include "src/plan/ooc_cpu.h"

#include <string.h>

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

/* Whether local cell l's list (graph stencils) names, in the same order, the global cells of
 * its list on the whole grid. */
static int list_held(const problem *pb, const ooc_part *pt, int l)
{
    int g = pt->gcell[l], n = pt->ell.nxy, gn = pb->ell.nxy;
    if (pt->ell.deg[l] != pb->ell.deg[g])
        return 0;
    for (int j = 0; j < pt->ell.deg[l]; j++) {
        int q = pt->ell.nb[(size_t)j * n + l];
        if (q < 0 || q >= pt->ncells || pt->gcell[q] != pb->ell.nb[(size_t)j * gn + g])
            return 0;
    }
    return 1;
}

/* Whether every relation the body reads of local cell l leads, through the local table, to the
 * same global cell as on the whole grid; for a graph stencil, whether l's list and (radius 2)
 * the lists of its neighbours are those of the whole grid. */
static int neighbours_held(const problem *pb, const ooc_part *pt, int l)
{
    if (stencil_table[pb->s.stencil].graph) {
        int ok = list_held(pb, pt, l), r2 = stencil_table[pb->s.stencil].radius > 1;
        for (int j = 0; ok && r2 && j < pt->ell.deg[l]; j++)
            ok = list_held(pb, pt, pt->ell.nb[(size_t)j * pt->ell.nxy + l]);
        return ok;
    }
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
    CHECK(ooc_plan_coeffs(pl, &pb->coef) == 0, "%s: coefficients", what); /* fluxdiff's */
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
    CHECK(ooc_plan_coeffs(&pl, &pb->coef) == 0, "%s: in-core plan: coefficients", what);
    CHECK(ooc_cpu_run(&pl, &pb->ug, st, STEPS) == 0, "%s: in-core plan: run failed", what);
    long d = iter_state_differ(pb, st, ref, NULL);
    CHECK(d == 0, "%s: in-core plan: %ld points differ from in core", what, d);
    CHECK(pl.nparts == 1 && pl.part[0].ncells == pb->ug.nxy, "%s: in-core plan of %d parts", what,
          pl.nparts);
    iter_fields_free(pb, &st);
    ooc_plan_free(&pl);
}

#endif
