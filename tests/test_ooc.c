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
enum { NX = 30, NY = 26, NZ = 13, STEPS = 5, MAXF = 3 };

#include "ooc_checks.h"
#include "scratch.h"
#include "src/io/mesh_io.h"

#include <omp.h>
#include <string.h>

static const layout_t layouts[] = {LAYOUT_ROWMAJOR, LAYOUT_ZCURVE_W, LAYOUT_RANDOM};

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

/* The steps per launch nothing asks for: ooc_kernel_steps gives 1 unless K > 1 is requested, and
 * the plans made without ooc_plan_tiles, in core and by the model (F from 1 and from 4, fast and
 * slow links), all launch one step at a time. */
static void test_kernel_steps_policy(const problem *pb)
{
    const problem_spec *s = &pb->s;
    CHECK(ooc_kernel_steps(0) == 1 && ooc_kernel_steps(1) == 1 && ooc_kernel_steps(3) == 3,
          "ooc_kernel_steps: %d %d %d, want 1 1 3", ooc_kernel_steps(0), ooc_kernel_steps(1),
          ooc_kernel_steps(3));
    ooc_plan pl;
    CHECK(ooc_plan_incore(&pl, &pb->ug, s->stencil, s->prec, s->chasing, s->compressed, 8) == 0 &&
              pl.K == 1, "in-core plan: K = %d, want 1", pl.K);
    ooc_plan_free(&pl);
    size_t budget = (size_t)pb->nf * prec_size(s->prec) * pb->ug.len;
    ooc_rates links[2] = {{1e15, 1e15, 1e9}, {1e6, 1e6, 1e15}};
    for (int l = 0; l < 2; l++)
        for (int minf = 1; minf <= 4; minf *= 4) {
            if (ooc_plan_choose(&pl, &pb->ug, s->stencil, s->prec, s->chasing, s->compressed,
                                budget, 0, minf, MAXF, &links[l]) != 0)
                continue; /* F = 4 may not fit: test_model checks the plans */
            CHECK(pl.K == 1, "model plan (F >= %d, link %d): K = %d, want 1", minf, l, pl.K);
            ooc_plan_free(&pl);
        }
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
                    test_kernel_steps_policy(&pb);
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
