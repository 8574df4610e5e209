/* Out-of-core on the CPU (SPEC §5):
 *  - one in-core step is the plain executor's output folded into the state, halo cells (and the
 *    top level of fastwaves) unchanged; in-core runs do not depend on the thread count;
 *  - plans respect the budget, cover every inner point exactly once, carry every neighbour the
 *    trapezoid reads, and reject a budget below the minimum with a message;
 *  - chunked runs equal in-core runs bit for bit: every stencil, F = 1..3, budgets from the
 *    minimum (many parts and slabs) to unlimited, layouts rowmajor / zcurve-w / random, double
 *    and float, the four table storages. */
#include "check.h"
#include "src/iterate.h"
#include "src/ooc_cpu.h"
#include "src/runner.h"
#include "stencils/fastwaves.h"
#include "stencils/hdiff.h"

#include <omp.h>
#include <string.h>

enum { NX = 30, NY = 26, NZ = 13, STEPS = 5, MAXF = 3 };
static const layout_t layouts[] = {LAYOUT_ROWMAJOR, LAYOUT_ZCURVE_W, LAYOUT_RANDOM};

/* The state value one step gives from initial value u and stencil output o. */
static int folded_same(const problem *pb, const void *state, size_t i, double u, double o)
{
    int damp = pb->s.stencil == ST_LAPLAP;
    if (pb->s.prec == PREC_FLOAT) {
        float e = damp ? (float)u - (float)o / 64.0f : (float)o;
        return memcmp((const float *)state + i, &e, sizeof e) == 0;
    }
    double e = damp ? u - o / 64.0 : o;
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

/* Relations each stencil's body reads (bit r = relation r). */
static const unsigned body_rels[ST_QUAD_COUNT] = {LAPLAP_RELS, HDIFF_RELS, FASTWAVES_RELS};

/* Whether every relation the body reads of local cell l leads, through the local table, to the
 * same global cell as on the whole grid. */
static int neighbours_held(const problem *pb, const ooc_part *pt, int l)
{
    nbview v = nbtable_view(&pt->nt);
    for (int r = 0; r < NREL2; r++) {
        int gn = ugrid_follow(&pb->ug, pt->gcell[l], r);
        if (!((body_rels[pb->s.stencil] >> r) & 1u) || gn < 0)
            continue;
        int ln = l + nb_offset(v, pt->nt.chasing, pt->nt.compressed, r, l);
        if (ln < 0 || ln >= pt->ncells || pt->gcell[ln] != gn)
            return 0;
    }
    return 1;
}

/* The part's local numbering: fixed cells, ring, own cells in global order; the suffixes. */
static int part_sane(const problem *pb, const ooc_part *pt, int F)
{
    int ok = pt->nfixed <= pt->first[F] && pt->first[0] + (pt->own1 - pt->own0) == pt->ncells;
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

typedef struct {
    int runs, sliced, multipart_full; /* chunked runs; plans with slabs; several full-height parts */
} tally;

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
            check_plan(pb, &pl, name);
            fieldset st = iter_fields_copy(pb);
            CHECK(ooc_cpu_run(&pl, &pb->ug, st, STEPS) == 0, "%s: run failed", name);
            long d = iter_state_differ(pb, st, ref, NULL);
            CHECK(d == 0, "%s (%d x %d chunks): %ld points differ from in core", name, pl.nparts,
                  pl.nslabs, d);
            iter_fields_free(pb, &st);
            if (b == 0 && stencil_zend(pb->s.stencil, pb->ug.nz) > 1)
                CHECK(pl.nslabs > 1, "%s: the minimum budget cut no slabs", name);
            if (b == 3)
                CHECK(pl.nparts == 1 && pl.nslabs == 1, "%s: %d x %d chunks", name, pl.nparts, pl.nslabs);
            ty->runs++;
            ty->sliced += pl.nslabs > 1;
            ty->multipart_full += pl.nparts > 1 && pl.nslabs == 1;
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
    tally ty = {0, 0, 0};
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
                }
                test_chunked(&pb, ref, what, &ty);
                iter_fields_free(&pb, &ref);
                problem_free(&pb);
            }
    printf("%d chunked runs of %d steps compared bit for bit with in core (%d with Z-slabs, %d with "
           "several full-height parts)\n", ty.runs, STEPS, ty.sliced, ty.multipart_full);
    CHECK(ty.sliced > 0 && ty.multipart_full > 0, "the budgets exercised no slabs or no parts");
    return check_done("test_ooc");
}
