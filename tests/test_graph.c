/* General meshes and graphlap: the triangle and hexagon generators survive a write/read round
 * trip and have the degree histograms, edge counts and halos their geometry gives; so does the
 * locally refined patch (cell count, which cells have 5 neighbours, every relation an edge and
 * listed back), where graphlap gives the same bits in every cell order; graphlap on a
 * regular quad patch equals laplap bit for bit and the closed forms (x⁴ + y⁴ -> 48 on quads,
 * |r|² -> 0 on triangles and hexagons); ICON-style grid files import; bad general mesh files
 * and bad ICON files are refused with a message naming the dataset and the first bad index.
 *
 * usage: test_graph                 run the tests
 *        test_graph --bad-files DIR write the bad files into DIR and list them as
 *                                   "mesh|icon <TAB> name <TAB> needle", and a good ICON file
 *                                   DIR/grid.nc of 60 triangles (for mesh_cli.sh) */
#include "check.h"
#include "h5_put.h"
#include "same_cells.h"
#include "scratch.h"
#include "src/exec/cpu_exec.h"
#include "src/io/mesh_import.h"
#include "src/io/mesh_io.h"
#include "src/exec/runner.h"
#include "src/exec/verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* ---- generators ---- */

static long degree_sum(const long *hist)
{
    long s = 0;
    for (int k = 0; k <= MESH_MAXDEG; k++)
        s += k * hist[k];
    return s;
}

static void check_round_trip(const mesh *a, const char *what)
{
    mesh b;
    const char *path = tmpname("gen.h5");
    CHECK(mesh_write(path, a) == 0 && mesh_read(path, &b) == 0, "%s: write/read", what);
    CHECK(b.ncells == a->ncells && b.maxdeg == a->maxdeg && b.nlevels == a->nlevels && !b.nbr,
          "%s: sizes", what);
    if (b.ncells == a->ncells && b.maxdeg == a->maxdeg) {
        size_t n = (size_t)a->ncells;
        CHECK(!memcmp(a->adj, b.adj, sizeof(int) * n * (size_t)a->maxdeg), "%s: adjacency", what);
        CHECK(b.ncoord == 2 && !memcmp(a->coord, b.coord, sizeof(double) * 2 * n),
              "%s: coordinates", what);
        CHECK(!strcmp(a->kind, b.kind), "%s: kind", what);
        CHECK((!a->sides) == (!b.sides) &&
                  (!a->sides || !memcmp(a->sides, b.sides, sizeof(int) * n)),
              "%s: /cell_sides", what);
    }
    mesh_free(&b);
}

static void test_generators(void)
{
    const int sizes[][2] = {{12, 10}, {7, 4}, {3, 9}};
    for (int kind = MESH_TRIANGLES; kind <= MESH_HEXAGONS; kind++)
        for (int periodic = 0; periodic <= 1; periodic++)
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
                int nx = sizes[k][0], ny = sizes[k][1], tri = kind == MESH_TRIANGLES;
                if (!tri && periodic && ny % 2)
                    ny++;
                mesh_gen_spec sp = {(mesh_kind)kind, nx, ny, 0, 3, 0, 1, periodic, 0};
                mesh m;
                char what[96], err[512];
                snprintf(what, sizeof what, "%s %s %dx%d", mesh_kind_name[kind],
                         periodic ? "periodic" : "bounded", nx, ny);
                CHECK(mesh_generate(&m, &sp) == 0, "%s: generate", what);
                CHECK(mesh_check(&m, err, sizeof err) == 0, "%s: %s", what, err);
                long hist[MESH_MAXDEG + 1];
                mesh_histogram(&m, hist);
                unsigned char *halo = xalloc((size_t)m.ncells);
                int nhalo = mesh_graph_halo(&m, 2, halo);
                long n = (long)nx * ny, full = tri ? 3 : 6;
                if (periodic) {
                    CHECK(hist[full] == m.ncells && nhalo == 0, "%s: a torus: all %ld neighbours, "
                          "no halo (%ld, %d)", what, full, hist[full], nhalo);
                } else if (tri) {
                    /* lower triangles lose the bottom and right edges, upper ones top and left */
                    CHECK(m.ncells == 2 * n && hist[1] == 2 && hist[2] == 2 * (nx + ny - 2) &&
                              hist[3] == 2 * n - 2 - 2 * (nx + ny - 2),
                          "%s: histogram 3: %ld, 2: %ld, 1: %ld", what, hist[3], hist[2], hist[1]);
                    long inner_edges = n + (long)(ny - 1) * nx + (long)(nx - 1) * ny;
                    CHECK(degree_sum(hist) == 2 * inner_edges, "%s: edges", what);
                } else {
                    /* hexagons: only the outermost ring lacks neighbours; halo = 2 rings */
                    CHECK(hist[6] == (long)(nx - 2) * (ny - 2), "%s: %ld with 6", what, hist[6]);
                    long edges = (long)(nx - 1) * ny + (long)(ny - 1) * (2 * nx - 1);
                    CHECK(degree_sum(hist) == 2 * edges, "%s: edges", what);
                    long rings = 2L * nx + 2L * (ny - 2) +
                                 (nx > 2 && ny > 2 ? (nx > 3 && ny > 3 ? 2L * (nx - 2) + 2L * (ny - 4)
                                                                       : (long)(nx - 2) * (ny - 2))
                                                   : 0);
                    CHECK(nhalo == rings, "%s: halo %d, expected %ld", what, nhalo, rings);
                }
                xfree(halo);
                check_round_trip(&m, what);
                mesh_free(&m);
            }
    /* tori too small to be simple graphs are refused */
    mesh m;
    mesh_gen_spec small = {MESH_HEXAGONS, 4, 3, 0, 1, 0, 1, 1, 0};
    int saved = stderr_to(tmpname("stderr.txt"));
    int rc = mesh_generate(&m, &small);
    char msg[512];
    stderr_restore(saved, tmpname("stderr.txt"), msg, sizeof msg);
    CHECK(rc != 0 && strstr(msg, "even number of rows"), "4x3 hexagon torus: %s", msg);
}

/* ---- graphlap ---- */

/* A graphlap (or laplap) problem on the mesh file at path. */
static int make(problem *pb, stencil_t st, precision_t prec, const char *path, mesh_order_t order)
{
    problem_spec s = {st, prec, 0, 0, 0, 2, LAYOUT_ROWMAJOR, 16, 11, 1, 0};
    return problem_make_mesh(pb, &s, path, order);
}

/* graphlap == laplap bit for bit on a regular patch: same cells, same order, same inputs. */
static void test_equals_laplap(void)
{
    mesh m;
    mesh_gen_spec sp = {MESH_REGULAR, 23, 19, 0, 5, 0, 1, 0, 0};
    const char *path = tmpname("patch.h5");
    CHECK(mesh_generate(&m, &sp) == 0 && mesh_write(path, &m) == 0, "patch");
    mesh_free(&m);
    for (int prec = 0; prec < 2; prec++)
        for (int order = 0; order < MESH_ORDER_COUNT; order++) {
            problem pl, pg;
            CHECK(make(&pl, ST_LAPLAP, (precision_t)prec, path, (mesh_order_t)order) == 0 &&
                      make(&pg, ST_GRAPHLAP, (precision_t)prec, path, (mesh_order_t)order) == 0,
                  "problems");
            CHECK(pl.ug.nhalo == pg.ug.nhalo && pl.ug.len == pg.ug.len &&
                      !memcmp(pl.ug.mesh_cell, pg.ug.mesh_cell, sizeof(int) * (size_t)pl.ug.nxy),
                  "the same cells in the same order");
            size_t bytes = pl.ug.len * prec_size(pl.s.prec);
            memcpy(pg.uf.p[0], pl.uf.p[0], bytes); /* laplap's inputs (from its regular twin) */
            fieldset ol = runner_outputs(&pl, 1), og = runner_outputs(&pg, 1);
            cpu_run_unstructured(&pl, ol);
            cpu_run_unstructured(&pg, og);
            CHECK(!memcmp(ol.p[1], og.p[1], bytes), "%s %s order: graphlap != laplap",
                  prec_name(pl.s.prec), mesh_order_name[order]);
            runner_free_outputs(&pl, &ol);
            runner_free_outputs(&pg, &og);
            problem_free(&pl);
            problem_free(&pg);
        }
}

/* graphlap of in = f(coordinates) on the inner cells against the closed form `want`, within tol;
 * every inner cell written, no halo cell. */
static void check_formula(const mesh_gen_spec *sp, double (*f)(double, double), double want,
                          double tol)
{
    mesh m;
    const char *path = tmpname("formula.h5");
    CHECK(mesh_generate(&m, sp) == 0 && mesh_write(path, &m) == 0, "formula mesh");
    problem pb;
    CHECK(make(&pb, ST_GRAPHLAP, PREC_DOUBLE, path, MESH_ORDER_FILE) == 0, "formula problem");
    const ugrid *g = &pb.ug;
    double *in = pb.uf.p[0];
    for (int z = 0; z < g->nz; z++)
        for (int c = 0; c < g->nxy; c++) {
            const double *r = m.coord + 2 * g->mesh_cell[c];
            in[c + z * g->zstride] = f(r[0], r[1]) * (1 + z);
        }
    fieldset out = runner_outputs(&pb, 1);
    cpu_run_unstructured(&pb, out);
    const double *o = out.p[1];
    double worst = 0;
    long halo_written = 0;
    for (int z = 0; z < g->nz; z++)
        for (int c = 0; c < g->nxy; c++) {
            double v = o[c + z * g->zstride];
            if (c < g->nhalo)
                halo_written += !isnan(v);
            else
                worst = fmax(worst, isnan(v) ? INFINITY : fabs(v - want * (1 + z)));
        }
    CHECK(g->nhalo > 0 && g->nhalo < g->nxy, "%s: %d halo cells of %d", m.kind, g->nhalo, g->nxy);
    CHECK(worst <= tol, "%s: graphlap is off the closed form by %g", m.kind, worst);
    CHECK(halo_written == 0, "%s: %ld halo points written", m.kind, halo_written);
    runner_free_outputs(&pb, &out);
    problem_free(&pb);
    mesh_free(&m);
}

static double quartic(double x, double y) { return x * x * x * x + y * y * y * y; }
static double square(double x, double y) { return x * x + y * y; }

static void test_closed_forms(void)
{
    /* lap(x⁴) = −(12x² + 2) on the line, lap of that = 24: on quads 24 + 24, exactly */
    mesh_gen_spec quads = {MESH_REGULAR, 15, 12, 0, 3, 0, 1, 0, 0};
    check_formula(&quads, quartic, 48.0, 0.0);
    /* |r|²: every complete hexagon and triangle has lap = −Σ|d|² (the offsets d to its
     * neighbours sum to zero), a constant, so graphlap = 0 up to rounding */
    mesh_gen_spec hex = {MESH_HEXAGONS, 14, 11, 0, 3, 0, 1, 0, 0};
    check_formula(&hex, square, 0.0, 1e-10);
    mesh_gen_spec tri = {MESH_TRIANGLES, 9, 13, 0, 3, 0, 1, 0, 0};
    check_formula(&tri, square, 0.0, 1e-10);
}

/* ---- the locally refined patch ---- */

/* Neighbours and edges cell c of a refined patch must have, from its centre alone: a coarse cell
 * (centre at .5) has 2 neighbours on a side where the square next to it is refined, a fine one
 * (centre at .25 or .75) 1 per side; a side on the patch's border has none but is one edge. */
static void expected_degree(const mesh *m, int c, int nx, int ny, int x0, int y0, int r,
                            int *nbrs, int *edges)
{
    double cx = m->coord[2 * c], cy = m->coord[2 * c + 1];
    int coarse = cx - (int)cx == 0.5, k = coarse ? 1 : 2; /* squares per unit */
    int x = (int)(cx * k), y = (int)(cy * k);               /* in those squares */
    *nbrs = *edges = 0;
    for (int side = 0; side < 4; side++) {
        int xx = x + rel_dx[side], yy = y + rel_dy[side];
        int inside = xx >= 0 && xx < nx * k && yy >= 0 && yy < ny * k;
        int split = coarse && inside && xx >= x0 && xx < x0 + r && yy >= y0 && yy < y0 + r;
        *nbrs += inside ? 1 + split : 0;
        *edges += 1 + split;
    }
}

/* Whether cells c and d share an edge of positive length (centres and sizes from coordinates:
 * exact in binary). */
static int share_edge(const mesh *m, int c, int d)
{
    const double *a = m->coord + 2 * c, *b = m->coord + 2 * d;
    double ha = a[0] - (int)a[0] == 0.5 ? 0.5 : 0.25, hb = b[0] - (int)b[0] == 0.5 ? 0.5 : 0.25;
    double dx = fabs(a[0] - b[0]), dy = fabs(a[1] - b[1]);
    return (dx == ha + hb && dy < ha + hb) || (dy == ha + hb && dx < ha + hb);
}

static void test_refined(void)
{
    /* nx, ny, refine (0: a third of the shorter side) */
    const int cases[][3] = {{12, 12, 4}, {9, 7, 3}, {10, 13, 0}, {5, 5, 1}, {6, 4, 4}, {1, 1, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int nx = cases[i][0], ny = cases[i][1], least = nx < ny ? nx : ny;
        int r = cases[i][2] ? cases[i][2] : (least / 3 > 0 ? least / 3 : 1);
        int x0 = (nx - r) / 2, y0 = (ny - r) / 2;
        mesh_gen_spec sp = {MESH_REFINED, nx, ny, 0, 3, 0, 1, 0, cases[i][2]};
        mesh m;
        char what[64], err[512];
        snprintf(what, sizeof what, "refined %dx%d, %dx%d square", nx, ny, r, r);
        CHECK(mesh_generate(&m, &sp) == 0, "%s: generate", what);
        CHECK(mesh_check(&m, err, sizeof err) == 0, "%s: %s", what, err); /* incl. symmetry */
        CHECK(m.ncells == nx * ny - r * r + 4 * r * r && m.ncoord == 2 && m.adj,
              "%s: %d cells, want %d", what, m.ncells, nx * ny + 3 * r * r);
        int fine = 0, wrong = 0, far = 0, back = 0;
        for (int c = 0; c < m.ncells; c++) {
            int nbrs, edges, listed = 0;
            expected_degree(&m, c, nx, ny, x0, y0, r, &nbrs, &edges);
            fine += m.coord[2 * c] - (int)m.coord[2 * c] != 0.5;
            for (int j = 0; j < mesh_sides(&m, c); j++) {
                int d = mesh_row(&m, c)[j];
                if (d < 0)
                    continue;
                listed++;
                far += !share_edge(&m, c, d);
                for (int k = 0; k < mesh_sides(&m, d); k++)
                    back += mesh_row(&m, d)[k] == c;
            }
            wrong += listed != nbrs || mesh_sides(&m, c) != edges;
        }
        CHECK(fine == 4 * r * r, "%s: %d fine cells, want %d", what, fine, 4 * r * r);
        CHECK(wrong == 0, "%s: %d cells with the wrong neighbour or edge count", what, wrong);
        CHECK(far == 0, "%s: %d neighbours that share no edge", what, far);
        long hist[MESH_MAXDEG + 1];
        mesh_histogram(&m, hist);
        CHECK(back == degree_sum(hist), "%s: %d of %ld relations listed back", what, back,
              degree_sum(hist));
        /* the square 2 cells or more from the border: 4r coarse cells with 5 neighbours */
        if (x0 >= 2 && y0 >= 2 && nx - x0 - r >= 2 && ny - y0 - r >= 2)
            CHECK(hist[5] == 4 * r && m.maxdeg == 5 && m.sides, "%s: %ld cells with 5", what,
                  hist[5]);
        check_round_trip(&m, what);
        mesh_free(&m);
    }
    mesh m;
    mesh_gen_spec big = {MESH_REFINED, 12, 12, 0, 1, 0, 1, 0, 13};
    char msg[512];
    int saved = stderr_to(tmpname("stderr.txt"));
    int rc = mesh_generate(&m, &big);
    stderr_restore(saved, tmpname("stderr.txt"), msg, sizeof msg);
    CHECK(rc != 0 && strstr(msg, "--refine 13: the refined square must be from 1 to 12 cells"),
          "--refine 13 on 12x12: %s", msg);

    /* graphlap: a constant gives 0 on every inner cell; every order gives the same bits */
    mesh_gen_spec sp = {MESH_REFINED, 14, 12, 0, 4, 0, 1, 0, 4};
    const char *path = tmpname("refined.h5");
    CHECK(mesh_generate(&m, &sp) == 0 && mesh_write(path, &m) == 0, "refined mesh");
    mesh_free(&m);
    problem pf;
    CHECK(make(&pf, ST_GRAPHLAP, PREC_DOUBLE, path, MESH_ORDER_FILE) == 0, "refined problem");
    CHECK(pf.ug.nhalo == 14 * 12 - 10 * 8, "refined: %d halo cells, want the frame of 2",
          pf.ug.nhalo);
    fieldset of = runner_outputs(&pf, 1);
    for (int o = MESH_ORDER_METIS; o < MESH_ORDER_COUNT; o++) {
        problem po;
        CHECK(make(&po, ST_GRAPHLAP, PREC_DOUBLE, path, (mesh_order_t)o) == 0, "%s order",
              mesh_order_name[o]);
        fieldset oo = runner_outputs(&po, 1);
        cpu_run_unstructured(&pf, of);
        cpu_run_unstructured(&po, oo);
        long differ = differ_by_file_cell(&pf, of, &po, oo);
        CHECK(differ == 0, "refined: file and %s order differ at %ld points", mesh_order_name[o],
              differ);
        runner_free_outputs(&po, &oo);
        problem_free(&po);
    }
    double *in = pf.uf.p[0], *out = of.p[1];
    for (size_t k = 0; k < pf.ug.len; k++)
        in[k] = 3.0;
    cpu_run_unstructured(&pf, of);
    long nonzero = 0;
    for (int z = 0; z < pf.ug.nz; z++)
        for (int c = pf.ug.nhalo; c < pf.ug.nxy; c++)
            nonzero += out[c + z * pf.ug.zstride] != 0.0;
    CHECK(nonzero == 0, "refined: graphlap of a constant is not 0 at %ld points", nonzero);
    runner_free_outputs(&pf, &of);
    problem_free(&pf);
}

/* ---- ICON import ---- */

/* An ICON-style grid file of a generated triangle mesh: neighbor_cell_index [3][n] 1-based,
 * none as 0 (odd cells) or -1 (even cells); clon, clat in radians. defect: see bad_icon. */
static void write_icon(const char *path, const mesh *m, int defect)
{
    int n = m->ncells;
    int *idx = xalloc(sizeof(int) * 3 * (size_t)n);
    double *lon = xalloc(sizeof(double) * (size_t)n), *lat = xalloc(sizeof(double) * (size_t)n);
    for (int c = 0; c < n; c++) {
        for (int j = 0; j < 3; j++) {
            int d = m->adj[3 * c + j];
            idx[j * n + c] = d >= 0 ? d + 1 : -(c & 1 ? 0 : 1);
        }
        lon[c] = m->coord[2 * c] * 0.1;
        lat[c] = m->coord[2 * c + 1] * 0.1 - 0.5;
    }
    if (defect == 4)
        idx[1 * n + 7] = n + 5;
    if (defect == 5)
        idx[0 * n + 9] = 1; /* cell 9 drops cell 8 for cell 0, which ignores it */
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (defect == 1)
        put_data(f, "neighbor_cell_index", H5T_NATIVE_INT, 1, 3 * (hsize_t)n, 0, idx);
    else if (defect == 2)
        put_data(f, "neighbor_cell_index", H5T_NATIVE_INT, 2, 2, (hsize_t)n, idx);
    else if (defect == 6)
        put_data(f, "neighbor_cell_index", H5T_NATIVE_DOUBLE, 2, 3, (hsize_t)n / 3, lon);
    else if (defect != 3)
        put_data(f, "neighbor_cell_index", H5T_NATIVE_INT, 2, 3, (hsize_t)n, idx);
    put_data(f, "clon", H5T_NATIVE_DOUBLE, 1, (hsize_t)(defect == 7 ? n - 1 : n), 0, lon);
    put_data(f, "clat", H5T_NATIVE_DOUBLE, 1, (hsize_t)n, 0, lat);
    H5Fclose(f);
    xfree(idx);
    xfree(lon);
    xfree(lat);
}

static void icon_mesh(mesh *m)
{
    mesh_gen_spec sp = {MESH_TRIANGLES, 6, 5, 0, 2, 0, 1, 0, 0};
    mesh_generate(m, &sp);
}

/* Cell c's corner polygon in the plane: its signed area (positive: counter-clockwise) and the
 * centroid of its area. */
static double polygon(const mesh *m, int c, double *cx, double *cy)
{
    const int *row = m->cell_nodes + (size_t)m->node_width * (size_t)c;
    int k = 0;
    while (k < m->node_width && row[k] >= 0)
        k++;
    double a = 0, x = 0, y = 0;
    for (int j = 0; j < k; j++) {
        const double *p = m->node_coord + 2 * (size_t)row[j], *q = m->node_coord + 2 * (size_t)row[(j + 1) % k];
        double cross = p[0] * q[1] - q[0] * p[1];
        a += cross;
        x += (p[0] + q[0]) * cross;
        y += (p[1] + q[1]) * cross;
    }
    *cx = x / (3 * a);
    *cy = y / (3 * a);
    return a / 2;
}

/* The cubed sphere's cell c: its corners on the unit sphere, counter-clockwise seen from outside,
 * around its centre (the centre's direction within the corners' cone). */
static int sphere_cell_ok(const mesh *m, int c)
{
    const int *row = m->cell_nodes + 4 * (size_t)c;
    const double *ctr = m->coord + 3 * (size_t)c;
    for (int j = 0; j < 4; j++) {
        const double *p = m->node_coord + 3 * (size_t)row[j], *q = m->node_coord + 3 * (size_t)row[(j + 1) % 4];
        double r = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        double n[3] = {p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0]};
        if (fabs(r - 1) > 1e-12 || n[0] * ctr[0] + n[1] * ctr[1] + n[2] * ctr[2] <= 0)
            return 0; /* off the sphere, or the centre not left of edge p -> q */
    }
    return 1;
}

/* Generated meshes carry nodes (issue 31): the corners of every cell, in order around it. Checked
 * against the generator's own geometry and neighbours: each planar cell's corner polygon is
 * counter-clockwise with its area's centroid at the cell's centre; each cubed-sphere cell's
 * corners lie on the sphere around its centre; and the neighbours derived from shared edges of
 * the corners (mesh_adj_from_nodes, the importers' code) are the generator's, column for column
 * (a quad mesh: the same four), except across a periodic mesh's seam, whose cells keep their
 * own corners. */
static void test_generated_nodes(void)
{
    const mesh_gen_spec specs[] = {
        {MESH_TRIANGLES, 5, 4, 0, 2, 0, 0, 0, 0}, {MESH_HEXAGONS, 5, 4, 0, 2, 0, 0, 0, 0},
        {MESH_HEXAGONS, 6, 7, 0, 2, 0, 0, 0, 0},  {MESH_TRIANGLES, 4, 3, 0, 2, 0, 0, 1, 0},
        {MESH_HEXAGONS, 4, 6, 0, 2, 0, 0, 1, 0},  {MESH_REFINED, 12, 12, 0, 2, 0, 0, 0, 4},
        {MESH_REFINED, 9, 7, 0, 2, 0, 0, 0, 3},   {MESH_REFINED, 6, 4, 0, 2, 0, 0, 0, 4},
        {MESH_CUBED_SPHERE, 0, 0, 5, 2, 0, 0, 0, 0}, {MESH_ROTATED, 8, 8, 0, 2, 4, 7, 0, 0},
    };
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        const mesh_gen_spec *s = &specs[k];
        mesh m;
        char err[256];
        CHECK(mesh_generate(&m, s) == 0 && m.nnodes > 0, "%s: generated with nodes",
              mesh_kind_name[s->kind]);
        if (!m.nnodes)
            continue;
        CHECK(mesh_check(&m, err, sizeof err) == 0, "%s: %s", m.kind, err);
        int bad = -1;
        for (int c = 0; c < m.ncells && bad < 0; c++) {
            double cx, cy;
            if (m.ncoord == 3)
                bad = sphere_cell_ok(&m, c) ? -1 : c;
            else if (!(polygon(&m, c, &cx, &cy) > 0) || fabs(cx - m.coord[2 * c]) > 1e-12 ||
                     fabs(cy - m.coord[2 * c + 1]) > 1e-12)
                bad = c;
        }
        CHECK(bad < 0, "%s: cell %d's corners do not lie counter-clockwise around its centre",
              m.kind, bad);
        mesh d;
        memset(&d, 0, sizeof d);
        d.ncells = m.ncells;
        d.nnodes = m.nnodes;
        d.node_width = m.node_width;
        d.cell_nodes = m.cell_nodes;
        CHECK(mesh_adj_from_nodes(&d, "/cell_nodes", err, sizeof err) == 0, "%s: %s", m.kind, err);
        int w = mesh_width(&m);
        for (int c = 0; c < m.ncells && d.adj && bad < 0; c++) {
            const int *want = mesh_row(&m, c), *got = d.adj + (size_t)d.maxdeg * (size_t)c;
            for (int j = 0; j < w && bad < 0; j++) {
                int found = 0; /* a quad mesh: want[j] among the four; else column j */
                for (int i = 0; i < d.maxdeg && !m.adj; i++)
                    found |= got[i] == want[j];
                if (m.adj ? got[j] != want[j] && !(s->periodic && got[j] == -1) : !found)
                    bad = c;
            }
        }
        CHECK(bad < 0, "%s: cell %d's neighbours from its corners differ from the generator's",
              m.kind, bad);
        xfree(d.adj);
        xfree(d.sides);
        mesh_free(&m);
    }
}

static void test_icon_import(void)
{
    mesh src, m;
    icon_mesh(&src);
    const char *path = tmpname("grid.nc");
    write_icon(path, &src, 0);
    CHECK(mesh_import_icon(path, &(mesh_import_opts){.nlevels = 7}, &m) == 0, "import %s", path);
    CHECK(m.ncells == src.ncells && m.maxdeg == 3 && m.nlevels == 7 && m.ncoord == 3,
          "imported sizes");
    if (m.ncells == src.ncells) {
        CHECK(!memcmp(m.adj, src.adj, sizeof(int) * 3 * (size_t)m.ncells), "imported adjacency");
        double r = m.coord[0] * m.coord[0] + m.coord[1] * m.coord[1] + m.coord[2] * m.coord[2];
        CHECK(fabs(r - 1) < 1e-12, "centres on the unit sphere (|r|² = %g)", r);
    }
    /* and graphlap runs on it, every inner point written */
    const char *out = tmpname("icon.h5");
    CHECK(mesh_write(out, &m) == 0, "write the imported mesh");
    problem pb;
    CHECK(make(&pb, ST_GRAPHLAP, PREC_FLOAT, out, MESH_ORDER_METIS) == 0, "graphlap on the import");
    fieldset a = runner_outputs(&pb, 1);
    cpu_run_unstructured(&pb, a);
    verify_result v = verify_compare_cells(&pb, a, a);
    CHECK(v.checked == (long)(pb.ug.nxy - pb.ug.nhalo) * 7 && v.unwritten == 0,
          "graphlap on the import: %ld checked, %ld unwritten", v.checked, v.unwritten);
    runner_free_outputs(&pb, &a);
    problem_free(&pb);
    mesh_free(&m);
    mesh_free(&src);
}

/* ---- bad files ---- */

typedef struct {
    const char *kind, *name, *needle; /* mesh file or ICON file; what the message must name */
} bad_file;

/* General-mesh files: a strip of 4 cells 0-1-2-3 with 3 columns, one defect each. */
static void write_bad_mesh(const char *path, int which)
{
    int adj[4][3] = {{1, -1, -1}, {0, 2, -1}, {1, 3, -1}, {2, -1, -1}};
    int sides[4] = {3, 3, 3, 3}, wide[4][17];
    memset(wide, 0xff, sizeof wide);
    if (which == 0)
        adj[2][1] = 40; /* out of range */
    if (which == 1)
        adj[2][2] = 2; /* itself */
    if (which == 2)
        adj[1][2] = 0; /* 0 twice */
    if (which == 3)
        adj[3][0] = -1; /* 2 lists 3, 3 does not list 2 */
    if (which == 4)
        sides[1] = 1; /* cell 1 has one edge, but column 1 holds 2 */
    if (which == 7)
        sides[2] = 0;
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    put_attr(f, "pillar_mesh_version", which == 8 ? 1 : 2);
    put_attr(f, "nlevels", 3);
    if (which == 6)
        put_data(f, "/cell_neighbours", H5T_NATIVE_INT, 2, 4, 17, wide);
    else
        put_data(f, "/cell_neighbours", H5T_NATIVE_INT, 2, 4, 3, adj);
    if (which == 4 || which == 7)
        put_data(f, "/cell_sides", H5T_NATIVE_INT, 1, 4, 0, sides);
    if (which == 5) {
        int nbr[4][4];
        memset(nbr, 0xff, sizeof nbr);
        put_data(f, "/neighbours", H5T_NATIVE_INT, 2, 4, 4, nbr);
    }
    H5Fclose(f);
}

static const bad_file bad_files[] = {
    {"mesh", "g-range.h5", "/cell_neighbours: cell 2: column 1 = 40 is out of range"},
    {"mesh", "g-self.h5", "/cell_neighbours: cell 2 is its own neighbour"},
    {"mesh", "g-twice.h5", "/cell_neighbours: cell 1 lists cell 0 twice"},
    {"mesh", "g-asymmetric.h5", "/cell_neighbours: asymmetric at cell 2: column 1 = 3"},
    {"mesh", "g-past-sides.h5", "/cell_neighbours: cell 1: column 1 = 2 lies past its 1 edges"},
    {"mesh", "g-both.h5", "both /neighbours and /cell_neighbours"},
    {"mesh", "g-17-columns.h5", "/cell_neighbours has 17 columns; expected 1 to 16"},
    {"mesh", "g-sides.h5", "/cell_sides: cell 2 has 0 edges"},
    {"mesh", "g-version1.h5", "/neighbours is missing"},
    {"icon", "rank1.nc", "neighbor_cell_index has rank 1"},
    {"icon", "two-rows.nc", "neighbor_cell_index has 2 rows; expected 3"},
    {"icon", "no-neighbours.nc", "neighbor_cell_index is missing"},
    {"icon", "out-of-range.nc", "neighbor_cell_index[1][7] = 65 is out of range"},
    {"icon", "asymmetric.nc", "neighbor_cell_index: asymmetric at cell 8: column 2 = 9"},
    {"icon", "float.nc", "neighbor_cell_index has the wrong type"},
    {"icon", "clon-rows.nc", "clon has 59 values; expected 60"},
};
enum { NBAD = sizeof bad_files / sizeof bad_files[0], NBAD_MESH = 9 };

static void write_bad_files(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    mesh src;
    icon_mesh(&src);
    for (int i = 0; i < NBAD; i++)
        if (i < NBAD_MESH)
            write_bad_mesh(tmpname(bad_files[i].name), i);
        else
            write_icon(tmpname(bad_files[i].name), &src, i - NBAD_MESH + 1);
    mesh_free(&src);
}

static void test_bad_files(void)
{
    write_bad_files();
    for (int i = 0; i < NBAD; i++) {
        char path[512], log[512], msg[1024];
        snprintf(path, sizeof path, "%s", tmpname(bad_files[i].name));
        snprintf(log, sizeof log, "%s", tmpname("stderr.txt"));
        int saved = stderr_to(log);
        mesh m;
        int rc = i < NBAD_MESH ? mesh_read(path, &m)
                               : mesh_import_icon(path, &(mesh_import_opts){.nlevels = 4}, &m);
        stderr_restore(saved, log, msg, sizeof msg);
        CHECK(rc != 0 && m.ncells == 0 && !m.adj, "%s was accepted", path);
        CHECK(strstr(msg, bad_files[i].needle) != NULL, "%s: message does not say '%s': %s",
              path, bad_files[i].needle, msg);
        CHECK(strstr(msg, "HDF5-DIAG") == NULL, "%s: HDF5's own error stack was printed", path);
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--bad-files")) {
        scratch_open(NULL, argv[2]);
        write_bad_files();
        mesh src;
        icon_mesh(&src);
        write_icon(tmpname("grid.nc"), &src, 0); /* and a good one */
        mesh_free(&src);
        for (int i = 0; i < NBAD; i++)
            printf("%s\t%s\t%s\n", bad_files[i].kind, bad_files[i].name, bad_files[i].needle);
        return 0;
    }
    if (scratch_open("graph", NULL) != 0)
        return 1;
    test_generators();
    test_equals_laplap();
    test_closed_forms();
    test_refined();
    test_generated_nodes();
    test_icon_import();
    test_bad_files();
    scratch_remove();
    return check_done("test_graph");
}
