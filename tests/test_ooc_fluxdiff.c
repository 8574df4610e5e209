/* Iterated and out-of-core runs of fluxdiff (stencils/fluxdiff.h: the output is the next state,
 * in <- out, the coefficients read-only inputs of every step) on the CPU, on a mesh of every cell
 * type with coordinates: bounded hexagons, bounded and periodic triangles, the refined patch
 * (cells of 4 and 5 edges), a regular quad patch and the cubed sphere (quads, closed); file and
 * METIS order; double and float:
 *  - the in-core iteration equals T = 1, 2 and 7 steps written here from the mesh file's rows
 *    with the problem's coefficients (sums in row order, halo cells fixed), bit for bit;
 *  - one step is the executor's output folded into the state (tests/ooc_checks.h);
 *  - chunked runs (ooc_plan_coeffs: every part's coefficients gathered) equal the in-core
 *    iteration bit for bit: T = 7 for F = 1..3 at budgets from the minimum (many parts, slabs)
 *    to in core, with region sharing (ooc_checks.h), and T = 1 and 2 for F = 1..3 on several
 *    chunks; in METIS order some plans are made of whole METIS parts; a plan without the
 *    coefficients is refused with a message;
 *  - the step is stable: over 300 steps max |u| never grows on any mesh, and on the closed meshes
 *    Σ A·u is kept to rounding, while the same step with r 8 times larger (written here) grows
 *    max |u| by orders of magnitude. */
enum { NZ = 4, STEPS = 7, MAXF = 3 };

#include "ooc_checks.h"
#include "scratch.h"
#include "src/io/mesh_io.h"

#include <math.h>
#include <string.h>

/* ---- an independent reference: the step from the mesh's rows ---- */

/* steps steps of fluxdiff on state u (pb's grid: [nz][zstride], grid cell order), each cell's
 * neighbours from its mesh row (file indices, -1 = none) mapped to grid cells, κ of its j-th
 * present neighbour and r from pb->coef (arrays 1 and 0) scaled by rscale; halo cells keep their values. */
#define REFERENCE(TY)                                                                             \
    static void reference_##TY(const problem *pb, TY *u, int steps, TY rscale)                    \
    {                                                                                             \
        const ugrid *g = &pb->ug;                                                                 \
        const mesh *m = &pb->mesh;                                                                \
        const int n = g->nxy;                                                                     \
        const TY *k = pb->coef.a[1], *r = pb->coef.a[0];                                          \
        int *to = xalloc(sizeof(int) * (size_t)n);                                                \
        for (int c = 0; c < n; c++)                                                               \
            to[g->mesh_cell[c]] = c;                                                              \
        TY *next = xalloc(sizeof(TY) * g->len);                                                   \
        for (int t = 0; t < steps; t++) {                                                         \
            memcpy(next, u, sizeof(TY) * g->len);                                                 \
            for (int z = 0; z < g->nz; z++) {                                                     \
                const TY *a = u + (size_t)z * (size_t)g->zstride;                                 \
                TY *b = next + (size_t)z * (size_t)g->zstride;                                    \
                for (int c = g->nhalo; c < n; c++) {                                              \
                    const int *row = mesh_row(m, g->mesh_cell[c]);                                \
                    TY s = 0, uc = a[c];                                                          \
                    for (int e = 0, j = 0; e < mesh_width(m); e++)                                \
                        if (row[e] >= 0) {                                                        \
                            TY fl = k[(size_t)j * (size_t)n + (size_t)c] * (a[to[row[e]]] - uc);  \
                            s = j++ ? s + fl : fl;                                                \
                        }                                                                         \
                    b[c] = uc + (r[c] * rscale) * s;                                              \
                }                                                                                 \
            }                                                                                     \
            memcpy(u, next, sizeof(TY) * g->len);                                                 \
        }                                                                                         \
        xfree(next);                                                                              \
        xfree(to);                                                                                \
    }
REFERENCE(double)
REFERENCE(float)

static void reference(const problem *pb, fieldset u, int steps, double rscale)
{
    if (pb->s.prec == PREC_FLOAT)
        reference_float(pb, u.p[0], steps, (float)rscale);
    else
        reference_double(pb, u.p[0], steps, rscale);
}

/* The in-core iteration of T = 1, 2, 7 steps against the reference; refs[i] gets it. */
static void test_reference(const problem *pb, fieldset refs[3], const int T[3], const char *what)
{
    for (int i = 0; i < 3; i++) {
        refs[i] = iter_fields_copy(pb);
        iter_run_incore(pb, refs[i], T[i]);
        fieldset u = iter_fields_copy(pb);
        reference(pb, u, T[i], 1);
        long points, d = iter_state_differ(pb, u, refs[i], &points);
        CHECK(d == 0, "%s T=%d: %ld of %ld points differ from the steps written from the mesh's "
              "rows", what, T[i], d, points);
        d = iter_state_differ(pb, pb->uf, refs[i], NULL);
        CHECK(d > 0, "%s T=%d: the state did not move", what, T[i]);
        iter_fields_free(pb, &u);
    }
}

/* T = 1 and 2 steps (one pass, or part of one) for F = 1..3 at twice the minimum budget and at
 * budgets doubling from there until a plan of whole METIS parts comes (METIS order), each plan
 * of several chunks: bit for bit the in-core iteration. Returns the plans of whole METIS parts
 * run. */
static int test_short(const problem *pb, fieldset refs[3], const int T[3], const char *what)
{
    const problem_spec *s = &pb->s;
    int units = 0;
    for (int F = 1; F <= MAXF; F++) {
        size_t min = ooc_min_budget(&pb->ug, s->stencil, s->prec, 0, 0, F);
        for (size_t b = 2 * min;; b *= 2) {
            ooc_plan pl;
            if (ooc_plan_make(&pl, &pb->ug, s->stencil, s->prec, 0, 0, b, F) != 0) {
                CHECK(0, "%s F=%d: no plan for %zu bytes", what, F, b);
                break;
            }
            int several = pl.nparts * pl.nslabs > 1;
            if (b == 2 * min)
                CHECK(several, "%s F=%d: twice the minimum budget gave one chunk", what, F);
            if (several && (b == 2 * min || pl.units > 0)) {
                CHECK(ooc_plan_coeffs(&pl, &pb->coef) == 0, "%s: coefficients", what);
                for (int i = 0; i < 2; i++) {
                    fieldset st = iter_fields_copy(pb);
                    CHECK(ooc_cpu_run(&pl, &pb->ug, st, T[i]) == 0, "%s: run", what);
                    long d = iter_state_differ(pb, st, refs[i], NULL);
                    CHECK(d == 0, "%s F=%d T=%d (%d x %d chunks%s): %ld points differ from in "
                          "core", what, F, T[i], pl.nparts, pl.nslabs,
                          pl.units > 0 ? ", whole METIS parts" : "", d);
                    iter_fields_free(pb, &st);
                }
                units += pl.units > 0;
            }
            int done = !several || pl.units > 0 || pb->mesh_order != MESH_ORDER_METIS;
            ooc_plan_free(&pl);
            if (done)
                break;
        }
    }
    return units;
}

/* A plan whose parts lack the coefficients: refused with a message, the state untouched. */
static void test_refused(const problem *pb, const char *what)
{
    ooc_plan pl;
    const problem_spec *s = &pb->s;
    size_t min = ooc_min_budget(&pb->ug, s->stencil, s->prec, 0, 0, 1);
    if (ooc_plan_make(&pl, &pb->ug, s->stencil, s->prec, 0, 0, 2 * min, 1) != 0) {
        CHECK(0, "%s: no plan", what);
        return;
    }
    char msg[256] = "";
    fieldset st = iter_fields_copy(pb);
    perr_capture(msg, sizeof msg);
    int rc = ooc_cpu_run(&pl, &pb->ug, st, 2);
    perr_capture(NULL, 0);
    CHECK(rc == -1 && strstr(msg, "fluxdiff") && strstr(msg, "coefficients"),
          "%s: a plan without coefficients: rc %d '%s'", what, rc, msg);
    CHECK(iter_state_differ(pb, st, pb->uf, NULL) == 0, "%s: a refused run changed the state",
          what);
    coef_set none;
    memset(&none, 0, sizeof none);
    perr_capture(msg, sizeof msg);
    rc = ooc_plan_coeffs(&pl, &none);
    perr_capture(NULL, 0);
    CHECK(rc == -1 && strstr(msg, "coefficients"), "%s: empty coefficients: rc %d '%s'", what, rc,
          msg);
    iter_fields_free(pb, &st);
    ooc_plan_free(&pl);
}

/* ---- stability ---- */

/* max |u| over every cell and level; infinite where a value overflowed (inf, NaN). */
static double max_abs(const problem *pb, fieldset u)
{
    double m = 0;
    for (int z = 0; z < pb->ug.nz; z++)
        for (int c = 0; c < pb->ug.nxy; c++) {
            double v = fabs(field_get(pb->s.prec, u.p[0], (size_t)z * pb->ug.zstride + c));
            m = isfinite(v) ? fmax(m, v) : INFINITY;
        }
    return m;
}

/* Σ A·u over the cells and levels, A from the coordinates (the formula of stencils/fluxdiff.c). */
static double mass(const problem *pb, fieldset u, double *scale)
{
    const mesh *m = &pb->mesh;
    double s = 0;
    *scale = 0;
    for (int c = 0; c < pb->ug.nxy; c++) {
        int f = pb->ug.mesh_cell[c];
        const int *row = mesh_row(m, f);
        double t = tan(acos(-1.0) / mesh_sides(m, f)), a = 0;
        for (int e = 0; e < mesh_width(m); e++)
            if (row[e] >= 0) {
                double d2 = 0;
                for (int k = 0; k < m->ncoord; k++) {
                    double d = m->coord[m->ncoord * row[e] + k] - m->coord[m->ncoord * f + k];
                    d2 += d * d;
                }
                a += d2 * t / 4;
            }
        for (int z = 0; z < pb->ug.nz; z++) {
            double v = field_get(pb->s.prec, u.p[0], (size_t)z * pb->ug.zstride + c);
            s += a * v;
            *scale += a * fabs(v);
        }
    }
    return s;
}

/* `steps` single steps in core: max |u| never grows; on a closed mesh Σ A·u is kept. Then the
 * reference with r scaled by 8: returns how much it grows max |u|. */
static double test_stable(const problem *pb, const char *what, int steps)
{
    fieldset u = iter_fields_copy(pb);
    double m0 = max_abs(pb, u), prev = m0, scale, mass0 = mass(pb, u, &scale);
    int grew = 0;
    for (int t = 0; t < steps; t++) {
        iter_run_incore(pb, u, 1);
        double m = max_abs(pb, u);
        grew += m > prev;
        prev = m;
    }
    CHECK(grew == 0, "%s: max |u| grew in %d of %d steps", what, grew, steps);
    CHECK(prev < m0, "%s: %d steps did not damp max |u| (%g -> %g)", what, steps, m0, prev);
    if (pb->ug.nhalo == 0) {
        double sc, m1 = mass(pb, u, &sc), tol = pb->s.prec == PREC_DOUBLE ? 1e-11 : 1e-3;
        CHECK(fabs(m1 - mass0) <= tol * scale, "%s: sum A*u %.17g -> %.17g", what, mass0, m1);
    }
    iter_fields_free(pb, &u);
    u = iter_fields_copy(pb);
    reference(pb, u, steps, 8);
    double grown = max_abs(pb, u) / m0;
    iter_fields_free(pb, &u);
    printf("%s: %d steps, max |u| %.6g -> %.6g, never growing; with r x 8: %.3gx\n", what, steps,
           m0, prev, grown);
    return grown;
}

/* ---- main ---- */

/* Every cell type with coordinates: bounded hexagons and triangles, periodic triangles (closed),
 * the refined patch (4 and 5 edges), a regular quad patch, the cubed sphere (closed quads). */
static const mesh_gen_spec meshes[] = {
    {MESH_HEXAGONS, 14, 11, 0, NZ, 0, 1, 0, 0},  {MESH_TRIANGLES, 12, 9, 0, NZ, 0, 1, 0, 0},
    {MESH_TRIANGLES, 10, 8, 0, NZ, 0, 1, 1, 0},  {MESH_REFINED, 15, 15, 0, NZ, 0, 1, 0, 5},
    {MESH_REGULAR, 16, 12, 0, NZ, 0, 1, 0, 0},   {MESH_CUBED_SPHERE, 0, 0, 5, NZ, 0, 1, 0, 0},
};

/* Mesh m written into the scratch directory; its path into path, its name into name. */
static int write_mesh(size_t m, char *path, char *name, size_t n)
{
    mesh me;
    char file[64];
    snprintf(file, sizeof file, "mesh%zu.h5", m);
    snprintf(name, n, "%s%s", meshes[m].periodic ? "periodic " : "", mesh_kind_name[meshes[m].kind]);
    snprintf(path, 512, "%s", tmpname(file));
    int rc = mesh_generate(&me, &meshes[m]);
    if (rc == 0) {
        rc = mesh_write(path, &me);
        mesh_free(&me);
    }
    CHECK(rc == 0, "%s: generate and write", name);
    return rc;
}

int main(void)
{
    if (scratch_open("ooc-fluxdiff", NULL) != 0)
        return 1;
    const int T[3] = {1, 2, STEPS};
    tally ty = {0, 0, 0, 0};
    int units = 0, unstable = 0;
    for (size_t m = 0; m < sizeof meshes / sizeof meshes[0]; m++) {
        char path[512], name[64];
        if (write_mesh(m, path, name, sizeof name) != 0)
            continue;
        for (int order = 0; order < 2; order++)
            for (int prec = 0; prec < 2; prec++) {
                mesh_order_t mo = order ? MESH_ORDER_METIS : MESH_ORDER_FILE;
                problem_spec s = {ST_FLUXDIFF, (precision_t)prec, 0, 0, 0, 0, LAYOUT_ROWMAJOR, 12,
                                  7, 0, 0};
                problem pb;
                if (problem_make_mesh(&pb, &s, path, mo) != 0) {
                    CHECK(0, "%s: problem", name);
                    continue;
                }
                char what[128];
                snprintf(what, sizeof what, "fluxdiff %s %s %s order", prec_name(s.prec),
                         name, mesh_order_name[mo]);
                test_one_step(&pb, what);
                fieldset refs[3];
                test_reference(&pb, refs, T, what);
                test_chunked(&pb, refs[2], what, &ty);
                units += test_short(&pb, refs, T, what);
                if (order == 0 && prec == 0)
                    test_refused(&pb, what);
                if (order == 0)
                    unstable += test_stable(&pb, what, 300) > 100;
                for (int i = 0; i < 3; i++)
                    iter_fields_free(&pb, &refs[i]);
                problem_free(&pb);
            }
    }
    printf("%d chunked fluxdiff runs of %d steps compared bit for bit with in core (%d with "
           "Z-slabs, %d with several full-height parts, %d sharing); %d plans of whole METIS "
           "parts for T = 1, 2\n", ty.runs, STEPS, ty.sliced, ty.multipart_full, ty.shared, units);
    CHECK(ty.sliced > 0 && ty.multipart_full > 0 && ty.shared > 0,
          "the budgets exercised no slabs, no parts or no sharing");
    CHECK(units > 0, "no plan of whole METIS parts");
    CHECK(unstable > 0, "r x 8 grew max |u| by 100x on no mesh: the stability check cannot fail");
    scratch_remove();
    return check_done("test_ooc_fluxdiff");
}
