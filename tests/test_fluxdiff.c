/* fluxdiff (stencils/fluxdiff.h, docs/stencils.md "fluxdiff") on the CPU: on periodic hexagons
 * and triangles, the cubed sphere (closed meshes), bounded hexagons (with the lattice twin) and
 * the refined patch (cells of 4 and 5 edges), in file and METIS order, every offset-table storage
 * and the neighbour lists give, double and float, bit for bit a step written here from the mesh
 * file's rows with the problem's coefficients; those coefficients equal the formulas of
 * stencils/fluxdiff.c evaluated here from the coordinates (κ symmetric bit for bit, r·A = Δt,
 * Δt also from its formula, to rounding); on the closed meshes Σ A·u is conserved to rounding; a
 * constant field stays constant bit for bit; no output leaves the range of the inputs. */
#include "check.h"
#include "graph_checks.h"
#include "scratch.h"
#include "src/exec/cpu_exec.h"
#include "src/exec/runner.h"
#include "src/exec/verify.h"
#include "src/io/mesh_io.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

static double dist(const mesh *m, int a, int b)
{
    double s = 0;
    for (int k = 0; k < m->ncoord; k++) {
        double d = m->coord[m->ncoord * b + k] - m->coord[m->ncoord * a + k];
        s += d * d;
    }
    return sqrt(s);
}

/* The cell's area by the formula of stencils/fluxdiff.c, from the file's rows and coordinates. */
static double area_of(const mesh *m, int f)
{
    const int *row = mesh_row(m, f);
    double t = tan(acos(-1.0) / mesh_sides(m, f)), a = 0;
    for (int e = 0; e < mesh_width(m); e++)
        if (row[e] >= 0)
            a += dist(m, f, row[e]) * dist(m, f, row[e]) * t / 4;
    return a;
}

#define GET(p, f, i) field_get(pb->s.prec, p, (size_t)(i))

/* The step from the file's rows at every inner grid cell, with pb's coefficients. */
static fieldset reference(const problem *pb, const int *to)
{
    fieldset r = runner_outputs(pb, 1);
    const ugrid *g = &pb->ug;
    for (int z = 0; z < pb->s.nz; z++)
        for (int c = g->nhalo; c < g->nxy; c++) {
            size_t lev = (size_t)z * g->zstride;
            const int *row = mesh_row(&pb->mesh, g->mesh_cell[c]);
            int j = 0;
            if (pb->s.prec == PREC_DOUBLE) {
                const double *in = pb->uf.p[0], *k = pb->coef.a[1], u = in[c + lev];
                double s = 0;
                for (int e = 0; e < mesh_width(&pb->mesh); e++)
                    if (row[e] >= 0) {
                        double fl = k[(size_t)j * g->nxy + c] * (in[to[row[e]] + lev] - u);
                        s = j++ ? s + fl : fl;
                    }
                ((double *)r.p[1])[c + lev] = u + ((const double *)pb->coef.a[0])[c] * s;
            } else {
                const float *in = pb->uf.p[0], *k = pb->coef.a[1], u = in[c + lev];
                float s = 0;
                for (int e = 0; e < mesh_width(&pb->mesh); e++)
                    if (row[e] >= 0) {
                        float fl = k[(size_t)j * g->nxy + c] * (in[to[row[e]] + lev] - u);
                        s = j++ ? s + fl : fl;
                    }
                ((float *)r.p[1])[c + lev] = u + ((const float *)pb->coef.a[0])[c] * s;
            }
        }
    return r;
}

/* κ of the edge between file cells f and fq by its formula. */
static double kappa_of(const mesh *m, int f, int fq)
{
    return (tan(acos(-1.0) / mesh_sides(m, f)) + tan(acos(-1.0) / mesh_sides(m, fq))) / 2;
}

/* Δt by its formula: half the least A / Σ κ over the complete cells (all their edges present). */
static double dt_of(const mesh *m)
{
    double dt = INFINITY;
    for (int f = 0; f < m->ncells; f++) {
        const int *row = mesh_row(m, f);
        double ks = 0;
        int deg = 0;
        for (int e = 0; e < mesh_width(m); e++)
            if (row[e] >= 0) {
                ks += kappa_of(m, f, row[e]);
                deg++;
            }
        if (deg == mesh_sides(m, f) && area_of(m, f) / ks < dt)
            dt = area_of(m, f) / ks;
    }
    return dt / 2;
}

/* Coefficients against the formulas; κ the same from both sides of every edge. */
static void check_geometry(const problem *pb, const int *to, const char *name)
{
    const ugrid *g = &pb->ug;
    const mesh *m = &pb->mesh;
    long bad = 0;
    double tol = pb->s.prec == PREC_DOUBLE ? 1e-13 : 1e-6, dt = dt_of(m);
    const void *r = pb->coef.a[0], *kap = pb->coef.a[1];
    for (int c = g->nhalo; c < g->nxy; c++) {
        int f = g->mesh_cell[c];
        double ra = GET(r, 0, c) * area_of(m, f);
        bad += !(fabs(ra - dt) <= tol * dt);
        for (int j = 0; j < g->adjw && g->adj[(size_t)j * g->nxy + c] >= 0; j++) {
            int q = g->adj[(size_t)j * g->nxy + c], fq = g->mesh_cell[q];
            double want = kappa_of(m, f, fq);
            double k = GET(kap, 0, (size_t)j * g->nxy + c);
            bad += !(fabs(k - want) <= tol * want);
            for (int i = 0; i < g->adjw && g->adj[(size_t)i * g->nxy + q] >= 0; i++)
                if (g->adj[(size_t)i * g->nxy + q] == c)
                    bad += k != GET(kap, 0, (size_t)i * g->nxy + q);
        }
    }
    (void)to;
    CHECK(bad == 0, "%s %s: %ld coefficients wrong", name, prec_name(pb->s.prec), bad);
}

/* Σ A·u before and after, per level, on a closed mesh; the range of the inputs kept. */
static void check_conservation(const problem *pb, fieldset out, const char *name)
{
    const ugrid *g = &pb->ug;
    double tol = pb->s.prec == PREC_DOUBLE ? 1e-12 : 1e-5;
    for (int z = 0; z < pb->s.nz; z++) {
        double s0 = 0, s1 = 0, scale = 0, lo = INFINITY, hi = -INFINITY;
        size_t lev = (size_t)z * g->zstride;
        for (int c = 0; c < g->nxy; c++) {
            double a = area_of(&pb->mesh, g->mesh_cell[c]), u = GET(pb->uf.p[0], 0, c + lev);
            s0 += a * u;
            s1 += a * GET(out.p[1], 0, c + lev);
            scale += a * fabs(u);
            lo = fmin(lo, u);
            hi = fmax(hi, u);
        }
        CHECK(fabs(s1 - s0) <= tol * scale, "%s %s level %d: sum A*u %.17g -> %.17g", name,
              prec_name(pb->s.prec), z, s0, s1);
        long out_of_range = 0;
        for (int c = 0; c < g->nxy; c++) {
            double v = GET(out.p[1], 0, c + lev);
            out_of_range += !(v >= lo - tol && v <= hi + tol);
        }
        CHECK(out_of_range == 0, "%s: %ld outputs outside [%g, %g]", name, out_of_range, lo, hi);
    }
}


int main(void)
{
    if (scratch_open("fluxdiff", NULL) != 0)
        return 1;
    const mesh_gen_spec specs[] = {{MESH_HEXAGONS, 12, 10, 0, 2, 0, 1, 1, 0},
                                   {MESH_TRIANGLES, 10, 8, 0, 2, 0, 1, 1, 0},
                                   {MESH_CUBED_SPHERE, 0, 0, 6, 2, 0, 1, 0, 0},
                                   {MESH_HEXAGONS, 13, 11, 0, 2, 0, 1, 0, 0},
                                   {MESH_REFINED, 15, 15, 0, 2, 0, 1, 0, 5}};
    for (size_t m = 0; m < sizeof specs / sizeof specs[0]; m++) {
        const char *path = tmpname("mesh.h5");
        mesh mh;
        CHECK(mesh_generate(&mh, &specs[m]) == 0 && mesh_write(path, &mh) == 0, "mesh %zu", m);
        mesh_free(&mh);
        const char *name = mesh_kind_name[specs[m].kind];
        for (int o = 0; o < 2; o++)
            for (int v = 0; v < 8; v++) {
                problem_spec s = {ST_FLUXDIFF, (precision_t)(v & 1), 0, 0, 0, 1, LAYOUT_ROWMAJOR, 8, 42,
                                  (v >> 1) & 1, (v >> 2) & 1};
                problem pb;
                if (problem_make_mesh(&pb, &s, path, o ? MESH_ORDER_METIS : MESH_ORDER_FILE) != 0) {
                    CHECK(0, "fluxdiff problem on %s", name);
                    continue;
                }
                int *to = xalloc(sizeof(int) * (size_t)pb.ug.nxy);
                for (int c = 0; c < pb.ug.nxy; c++)
                    to[pb.ug.mesh_cell[c]] = c;
                if (v < 2 && o == 0)
                    check_geometry(&pb, to, name);
                fieldset ref = reference(&pb, to), out = runner_outputs(&pb, 1);
                expect_paths(&pb, ref, name);
                cpu_run_gtable(&pb, out);
                if (pb.ug.nhalo == 0 && v < 2)
                    check_conservation(&pb, out, name);
                runner_free_outputs(&pb, &out);
                if (v < 2) { /* a constant field stays constant, bit for bit */
                    for (size_t i = 0; i < pb.ug.len; i++)
                        field_set(pb.s.prec, pb.uf.p[0], i, 0.37);
                    out = runner_outputs(&pb, 1);
                    cpu_run_gtable(&pb, out);
                    long moved = 0;
                    for (int z = 0; z < pb.s.nz; z++)
                        for (int c = pb.ug.nhalo; c < pb.ug.nxy; c++) {
                            size_t i = (size_t)c + (size_t)z * pb.ug.zstride;
                            moved += !field_same_bits(pb.s.prec, out.p[1], i, pb.uf.p[0], i);
                        }
                    CHECK(moved == 0, "%s: a constant field moved at %ld points", name, moved);
                    runner_free_outputs(&pb, &out);
                }
                runner_free_outputs(&pb, &ref);
                xfree(to);
                problem_free(&pb);
            }
        unlink(path);
    }
    /* no coordinates: refused with a message, no crash */
    mesh_gen_spec sp = {MESH_HEXAGONS, 8, 8, 0, 2, 0, 1, 0, 0};
    mesh mh;
    const char *path = tmpname("bare.h5");
    CHECK(mesh_generate(&mh, &sp) == 0, "mesh");
    xfree(mh.coord);
    mh.coord = NULL;
    mh.ncoord = 0;
    CHECK(mesh_write(path, &mh) == 0, "write");
    mesh_free(&mh);
    problem_spec s = {ST_FLUXDIFF, PREC_DOUBLE, 0, 0, 0, 1, LAYOUT_ROWMAJOR, 8, 42, 1, 0};
    problem pb;
    CHECK(problem_make_mesh(&pb, &s, path, MESH_ORDER_FILE) != 0, "a mesh without coordinates accepted");
    unlink(path);
    rmdir(dir);
    return check_done("test_fluxdiff");
}
