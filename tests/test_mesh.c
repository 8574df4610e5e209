/* Mesh files: every generator survives a write/read round trip; cubed-sphere properties; a mesh
 * of a regular patch gives the neighbour structure and the stencil results of ugrid_emulate; the
 * halo comes from the mesh; METIS orders; bad files are refused with a message naming the dataset
 * and the first bad cell, and nothing is left half-written.
 *
 * usage: test_mesh              run the tests
 *        test_mesh --bad-files DIR   write the bad files of the tests into DIR and list them as
 *                                    "name <TAB> needle"; also DIR/no-coordinates.h5, a good
 *                                    12x10 patch without /coordinates (for mesh_cli.sh) */
#include "check.h"
#include "h5_put.h"
#include "same_cells.h"
#include "scratch.h"
#include "src/exec/cpu_exec.h"
#include "src/io/mesh_io.h"
#include "src/exec/runner.h"
#include "src/exec/verify.h"

#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* ---- round trips ---- */

static void check_same_mesh(const mesh *a, const mesh *b, const char *what)
{
    CHECK(a->ncells == b->ncells && a->nlevels == b->nlevels, "%s: cells/levels", what);
    if (a->ncells != b->ncells)
        return;
    size_t n = (size_t)a->ncells;
    CHECK(!memcmp(a->nbr, b->nbr, sizeof(int) * 4 * n), "%s: /neighbours differ", what);
    CHECK(a->ncoord == b->ncoord && (!a->coord) == (!b->coord), "%s: coordinates presence", what);
    if (a->coord && b->coord)
        CHECK(!memcmp(a->coord, b->coord, sizeof(double) * a->ncoord * n), "%s: coordinates", what);
    CHECK((!a->xy) == (!b->xy) && a->nx == b->nx && a->ny == b->ny, "%s: patch", what);
    if (a->xy && b->xy)
        CHECK(!memcmp(a->xy, b->xy, sizeof(int) * 2 * n), "%s: /patch_xy", what);
    CHECK((!a->part) == (!b->part) && a->nparts == b->nparts, "%s: partition", what);
    if (a->part && b->part)
        CHECK(!memcmp(a->part, b->part, sizeof(int) * n), "%s: /partition", what);
    CHECK(!strcmp(a->kind, b->kind), "%s: kind '%s' vs '%s'", what, a->kind, b->kind);
    CHECK(a->nnodes == b->nnodes && a->nnode_coord == b->nnode_coord &&
              a->node_width == b->node_width, "%s: nodes", what);
    if (a->nnodes && a->nnodes == b->nnodes && a->node_width == b->node_width)
        CHECK(!memcmp(a->node_coord, b->node_coord,
                      sizeof(double) * (size_t)a->nnode_coord * (size_t)a->nnodes) &&
                  !memcmp(a->cell_nodes, b->cell_nodes, sizeof(int) * (size_t)a->node_width * n),
              "%s: /node_coordinates or /cell_nodes", what);
}

/* Files as earlier pillars wrote them (plain HDF5 without dimensions): a version 1 quad patch
 * and a version 2 general mesh read as the meshes they hold. */
static void test_old_versions(void)
{
    mesh_gen_spec quad = {.kind = MESH_REGULAR, .nx = 5, .ny = 4, .nlevels = 3},
                  tri = {.kind = MESH_TRIANGLES, .nx = 3, .ny = 2, .nlevels = 2};
    const mesh_gen_spec *spec[2] = {&quad, &tri};
    for (int version = 1; version <= 2; version++) {
        mesh a, b;
        CHECK(mesh_generate(&a, spec[version - 1]) == 0, "generate");
        const char *path = tmpname("old.h5");
        hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        put_attr(f, "pillar_mesh_version", version);
        put_attr(f, "nlevels", a.nlevels);
        put_data(f, mesh_nbr_name(&a), H5T_NATIVE_INT, 2, (hsize_t)a.ncells,
                 (hsize_t)mesh_width(&a), a.adj ? a.adj : a.nbr);
        put_data(f, "/coordinates", H5T_NATIVE_DOUBLE, 2, (hsize_t)a.ncells, (hsize_t)a.ncoord,
                 a.coord);
        H5Fclose(f);
        CHECK(mesh_read(path, &b) == 0, "version %d file", version);
        CHECK(b.ncells == a.ncells && b.nlevels == a.nlevels && mesh_width(&b) == mesh_width(&a) &&
                  !memcmp(mesh_row(&b, 0), mesh_row(&a, 0),
                          sizeof(int) * (size_t)a.ncells * (size_t)mesh_width(&a)) &&
                  b.ncoord == a.ncoord && b.nnodes == 0,
              "version %d file: not the mesh written", version);
        mesh_free(&a);
        mesh_free(&b);
    }
}

static void test_round_trips(void)
{
    mesh_gen_spec specs[] = {
        {MESH_REGULAR, 23, 17, 0, 5, 0, 1, 0, 0},    {MESH_CUBED_SPHERE, 0, 0, 12, 7, 0, 1, 0, 0},
        {MESH_SHUFFLED, 30, 20, 0, 4, 16, 9, 0, 0},  {MESH_ROTATED, 30, 26, 0, 3, 5, 9, 0, 0},
        {MESH_CUBED_SPHERE, 0, 0, 1, 2, 0, 1, 0, 0}, {MESH_REGULAR, 1, 1, 0, 1, 0, 1, 0, 0},
        {MESH_REGULAR, 100, 90, 0, 3, 0, 1, 0, 0}, /* >= 4096 cells: chunked, compressed datasets */
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        mesh a, b;
        char err[512];
        CHECK(mesh_generate(&a, &specs[i]) == 0, "generate %s", mesh_kind_name[specs[i].kind]);
        CHECK(mesh_check(&a, err, sizeof err) == 0, "%s: generated mesh invalid: %s",
              mesh_kind_name[specs[i].kind], err);
        if (i == 2) { /* also a stored partition */
            a.nparts = 6;
            a.part = xalloc(sizeof(int) * (size_t)a.ncells);
            CHECK(mesh_partition(&a, 6, a.part) == 0, "partition");
        }
        const char *path = tmpname("round.h5");
        CHECK(mesh_write(path, &a) == 0, "write %s", mesh_kind_name[specs[i].kind]);
        CHECK(mesh_read(path, &b) == 0, "read %s", mesh_kind_name[specs[i].kind]);
        check_same_mesh(&a, &b, mesh_kind_name[specs[i].kind]);
        mesh_free(&a);
        mesh_free(&b);
    }
    /* shuffled: the numbering differs from row-major, positions still a permutation */
    mesh s;
    mesh_gen_spec sp = {MESH_SHUFFLED, 16, 16, 0, 2, 8, 3, 0, 0};
    mesh_generate(&s, &sp);
    int moved = 0;
    for (int c = 0; c < s.ncells; c++)
        moved += s.xy[2 * c + 1] * 16 + s.xy[2 * c] != c;
    CHECK(moved > s.ncells / 2, "shuffled: only %d of %d cells renumbered", moved, s.ncells);
    mesh_free(&s);
}

/* ---- cubed sphere ---- */

static void test_cubed_sphere(void)
{
    const int ns[] = {1, 2, 3, 8, 24};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        int n = ns[i];
        mesh m;
        char err[512];
        CHECK(mesh_gen_cubed_sphere(&m, n, 4) == 0, "cubed sphere n=%d", n);
        CHECK(m.ncells == 6 * n * n, "n=%d: %d cells, want 6n^2", n, m.ncells);
        CHECK(mesh_check(&m, err, sizeof err) == 0, "n=%d: %s", n, err); /* includes symmetry */
        long hist[MESH_MAXDEG + 1];
        mesh_histogram(&m, hist);
        CHECK(hist[4] == m.ncells, "n=%d: %ld of %d cells have 4 neighbours", n, hist[4], m.ncells);
        CHECK(mesh_corners(&m) == 8, "n=%d: %d corners where 3 cells meet, want 8", n,
              mesh_corners(&m));
        /* symmetry, spelled out: W(c) = d implies c among d's 4; 4 distinct neighbours (n > 1) */
        int rotated = 0;
        for (int c = 0; c < m.ncells; c++)
            for (int r = 0; r < 4; r++) {
                int d = m.nbr[4 * c + r], back = -1;
                for (int s = 0; s < 4; s++)
                    if (m.nbr[4 * d + s] == c)
                        back = s;
                CHECK(back >= 0, "n=%d: cell %d %s=%d not symmetric", n, c, rel_name[r], d);
                rotated += back >= 0 && back != (r ^ 1); /* W<->E, S<->N are r^1 */
                for (int s = 0; s < r; s++)
                    CHECK(n == 1 || m.nbr[4 * c + s] != d, "n=%d: cell %d repeats neighbour %d", n,
                          c, d);
            }
        CHECK(rotated > 0, "n=%d: orientation never turns across a seam", n);
        /* cell centres on the unit sphere, neighbours close */
        for (int c = 0; c < m.ncells; c++) {
            const double *p = &m.coord[3 * c];
            double r2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
            CHECK(r2 > 1 - 1e-12 && r2 < 1 + 1e-12, "n=%d: cell %d off the sphere", n, c);
            for (int r = 0; r < 4 && n >= 8; r++) {
                const double *q = &m.coord[3 * m.nbr[4 * c + r]];
                double d2 = (p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                            (p[2] - q[2]) * (p[2] - q[2]);
                CHECK(d2 < 4.0 / (n * n), "n=%d: cell %d %s is far away", n, c, rel_name[r]);
            }
        }
        /* no halo on a closed surface: every cell computes */
        ugrid g;
        ugrid_from_mesh(&g, &m, 2, 4, NULL);
        CHECK(g.nhalo == 0 && g.cx == NULL && g.cell_at == NULL, "n=%d: halo %d", n, g.nhalo);
        ugrid_free(&g);
        mesh_free(&m);
    }
}

/* ---- halo from the mesh ---- */

static void test_halo(void)
{
    mesh_gen_spec sp = {MESH_ROTATED, 30, 24, 0, 2, 4, 5, 0, 0};
    mesh m;
    mesh_generate(&m, &sp);
    for (int radius = 1; radius <= 2; radius++) {
        ugrid g;
        ugrid_from_mesh(&g, &m, radius, 2, NULL);
        int nrel = radius == 2 ? NREL2 : NREL1;
        for (int c = 0; c < g.nxy; c++) {
            int missing = 0;
            for (int r = 0; r < nrel; r++)
                missing |= ugrid_follow(&g, c, r) < 0;
            CHECK(missing == (c < g.nhalo), "radius %d: cell %d (halo %d) missing=%d", radius, c,
                  g.nhalo, missing);
        }
        /* the grid's relations are the mesh's, renumbered */
        for (int c = 0; c < g.nxy; c++)
            for (int r = 0; r < 4; r++) {
                int d = g.nbr[r * g.nxy + c], md = m.nbr[4 * g.mesh_cell[c] + r];
                CHECK((d < 0 && md < 0) || (d >= 0 && g.mesh_cell[d] == md), "cell %d relation %d",
                      c, r);
            }
        ugrid_free(&g);
    }
    mesh_free(&m);
}

/* ---- a regular patch from a file == ugrid_emulate ---- */

static void test_patch_equals_emulate(void)
{
    const int nx = 21, ny = 17, nz = 6;
    mesh_gen_spec sp = {MESH_REGULAR, nx, ny, 0, nz, 0, 1, 0, 0};
    mesh m;
    mesh_generate(&m, &sp);
    const char *path = tmpname("patch.h5");
    CHECK(mesh_write(path, &m) == 0, "write patch");
    mesh_free(&m);
    CHECK(mesh_read(path, &m) == 0, "read patch");

    for (int radius = 1; radius <= 2; radius++) {
        ugrid a, b;
        ugrid_from_mesh(&a, &m, radius, nz, NULL);
        ugrid_emulate(&b, nx, ny, nz, radius, LAYOUT_ROWMAJOR, 32, 0);
        CHECK(a.nxy == b.nxy && a.nhalo == b.nhalo && a.zstride == b.zstride, "radius %d: sizes",
              radius);
        CHECK(!memcmp(a.nbr, b.nbr, sizeof(int) * 4 * (size_t)a.nxy), "radius %d: nbr differ",
              radius);
        CHECK(!memcmp(a.cx, b.cx, sizeof(int) * (size_t)a.nxy) &&
                  !memcmp(a.cy, b.cy, sizeof(int) * (size_t)a.nxy),
              "radius %d: positions", radius);
        for (int chasing = 0; chasing <= 1; chasing++)
            for (int comp = 0; comp <= 1; comp++) {
                nbtable ta, tb;
                nbtable_build(&ta, &a, chasing, comp);
                nbtable_build(&tb, &b, chasing, comp);
                CHECK(ta.ntab == tb.ntab && ta.npat == tb.npat &&
                          !memcmp(ta.tab, tb.tab, sizeof(int32_t) * nbtable_entries(&ta)),
                      "radius %d chasing %d compressed %d: tables differ", radius, chasing, comp);
                nbtable_free(&ta);
                nbtable_free(&tb);
            }
        ugrid_free(&a);
        ugrid_free(&b);
    }
    mesh_free(&m);

    /* stencil results: file (rowmajor) vs emulated rowmajor bit for bit, and vs the regular grid
     * in every order the file can be run in (file, metis, zcurve) */
    for (int st = 0; st < ST_QUAD_COUNT; st++)
        for (int storage = 0; storage < 4; storage++) {
            int radius = stencil_table[st].radius;
            problem_spec s = {(stencil_t)st,   PREC_DOUBLE, nx, ny,           nz,         radius,
                              LAYOUT_ROWMAJOR, 8,           7,  storage >> 1, storage & 1};
            problem pe, pm[MESH_ORDER_COUNT];
            fieldset om[MESH_ORDER_COUNT];
            CHECK(problem_make(&pe, &s) == 0, "emulated problem");
            fieldset oe = runner_outputs(&pe, 1);
            cpu_run_unstructured(&pe, oe);
            for (int o = 0; o < MESH_ORDER_COUNT; o++) {
                CHECK(problem_make_mesh(&pm[o], &s, path, (mesh_order_t)o) == 0,
                      "mesh problem, %s order", mesh_order_name[o]);
                om[o] = runner_outputs(&pm[o], 1);
                cpu_run_unstructured(&pm[o], om[o]);
            }
            CHECK(problem_has_regular(&pm[0]) && pm[0].ug.nhalo == pe.ug.nhalo, "twin/halo");
            fieldset reg = runner_outputs(&pm[0], 0);
            cpu_run_regular(&pm[0], reg);
            for (int f = stencil_table[st].nin; f < pe.nf; f++)
                CHECK(!memcmp(oe.p[f], om[0].p[f], pe.ug.len * 8),
                      "%s storage %d: file != emulated", stencil_table[st].name, storage);
            long checked = -1;
            for (int o = 0; o < MESH_ORDER_COUNT; o++) {
                verify_result r = verify_compare(&pm[o], om[o], 1, reg, 0);
                CHECK(r.checked > 0 && (checked < 0 || r.checked == checked) &&
                          r.unwritten == 0 && r.differ == 0,
                      "%s: %s order vs regular: %ld/%ld", stencil_table[st].name,
                      mesh_order_name[o], r.unwritten, r.differ);
                checked = r.checked;
            }
            CHECK(pm[MESH_ORDER_METIS].mesh_parts > 1, "metis parts %d",
                  pm[MESH_ORDER_METIS].mesh_parts);
            CHECK(memcmp(pm[MESH_ORDER_ZCURVE].ug.mesh_cell, pm[0].ug.mesh_cell,
                         sizeof(int) * (size_t)pm[0].ug.nxy),
                  "zcurve order is the file's order");
            runner_free_outputs(&pe, &oe);
            runner_free_outputs(&pm[0], &reg);
            problem_free(&pe);
            for (int o = 0; o < MESH_ORDER_COUNT; o++) {
                runner_free_outputs(&pm[o], &om[o]);
                problem_free(&pm[o]);
            }
        }
}

/* ---- meshes without a twin: every inner cell written, result independent of the order ---- */

static void test_mesh_runs(void)
{
    mesh m;
    CHECK(mesh_gen_cubed_sphere(&m, 10, 5) == 0, "sphere");
    char path[512];
    snprintf(path, sizeof path, "%s", tmpname("sphere.h5"));
    CHECK(mesh_write(path, &m) == 0, "write sphere");
    for (int st = 0; st < ST_QUAD_COUNT; st++) {
        problem_spec s = {(stencil_t)st, PREC_DOUBLE, 0, 0, 0, 0, LAYOUT_ROWMAJOR, 16, 3, 1, 1};
        problem pf, pq;
        fieldset of;
        if (stencil_table[st].framed) { /* (u, v) in a frame that turns at the seams: refused */
            char msg[512];
            int saved = stderr_to(tmpname("stderr.txt"));
            int rc = problem_make_mesh(&pf, &s, path, MESH_ORDER_FILE);
            stderr_restore(saved, tmpname("stderr.txt"), msg, sizeof msg);
            CHECK(rc != 0 && strstr(msg, "the frame turns at 120 cells, first at cell 0"),
                  "fastwaves on the sphere: %s", msg);
            continue;
        }
        CHECK(problem_make_mesh(&pf, &s, path, MESH_ORDER_FILE) == 0, "sphere problem");
        CHECK(!problem_has_regular(&pf) && pf.ug.nhalo == 0 && pf.ug.nxy == 600, "sphere grid");
        of = runner_outputs(&pf, 1);
        cpu_run_unstructured(&pf, of);
        verify_result r = verify_compare_cells(&pf, of, of);
        CHECK(r.checked == 600L * stencil_zend(s.stencil, 5) * stencil_table[st].nout &&
                  r.unwritten == 0,
              "%s: %ld unwritten", stencil_table[st].name, r.unwritten);
        /* the same cell (by file index) gets the same bits in every order */
        for (int o = MESH_ORDER_METIS; o < MESH_ORDER_COUNT; o++) {
            CHECK(problem_make_mesh(&pq, &s, path, (mesh_order_t)o) == 0, "sphere problem, %s",
                  mesh_order_name[o]);
            fieldset oq = runner_outputs(&pq, 1);
            cpu_run_unstructured(&pq, oq);
            long differ = differ_by_file_cell(&pf, of, &pq, oq);
            CHECK(differ == 0, "%s: file and %s order differ at %ld points",
                  stencil_table[st].name, mesh_order_name[o], differ);
            runner_free_outputs(&pq, &oq);
            problem_free(&pq);
        }
        runner_free_outputs(&pf, &of);
        problem_free(&pf);
    }
    mesh_free(&m);
}

/* ---- METIS ---- */

static void test_metis(void)
{
    mesh m;
    mesh_gen_cubed_sphere(&m, 8, 1);
    int n = m.ncells, k = 12;
    int *part = xalloc(sizeof(int) * (size_t)n), *order = xalloc(sizeof(int) * (size_t)n);
    int *seen = xalloc(sizeof(int) * (size_t)n), *size = xalloc(sizeof(int) * (size_t)k);
    CHECK(mesh_partition(&m, k, part) == 0, "partition");
    for (int c = 0; c < n; c++) {
        CHECK(part[c] >= 0 && part[c] < k, "part of %d", c);
        size[part[c]]++;
    }
    for (int p = 0; p < k; p++)
        CHECK(size[p] > n / k / 2 && size[p] < 2 * n / k, "part %d has %d cells", p, size[p]);
    mesh_order_from_parts(&m, part, k, order);
    int runs = 1, adjacent = 0;
    for (int i = 0; i < n; i++) {
        CHECK(order[i] >= 0 && order[i] < n && !seen[order[i]], "order is not a permutation at %d",
              i);
        if (order[i] >= 0 && order[i] < n)
            seen[order[i]] = 1;
        if (i && part[order[i]] != part[order[i - 1]]) {
            runs++;
            int a = part[order[i - 1]], b = part[order[i]], touch = 0;
            for (int c = 0; c < n; c++)
                for (int r = 0; r < 4; r++)
                    touch |= part[c] == a && part[m.nbr[4 * c + r]] == b;
            adjacent += touch;
        }
    }
    CHECK(runs == k, "parts are not contiguous in the order: %d runs", runs);
    CHECK(adjacent >= (k - 1) / 2, "only %d of %d consecutive parts are neighbours", adjacent,
          k - 1);
    CHECK(mesh_partition(&m, 0, part) != 0 && mesh_partition(&m, n + 1, part) != 0, "bad --parts");
    xfree(part);
    xfree(order);
    xfree(seen);
    xfree(size);
    mesh_free(&m);

    /* more parts than one METIS call makes (grids/metis_order.c, KWAY_MAX_PARTS = 4096): two
     * levels. On this mesh, in one call, METIS 5.1 printed "Cannot bisect a graph with 0
     * vertices" on stdout: every part used, sizes balanced, and nothing printed */
    mesh_gen_spec gs = {MESH_TRIANGLES, 724, 724, 0, 1, 0, 0, 0, 0};
    CHECK(mesh_generate(&m, &gs) == 0, "triangles");
    n = m.ncells;
    k = n / 32; /* 32761 parts */
    part = xalloc(sizeof(int) * (size_t)n);
    size = xalloc(sizeof(int) * (size_t)k);
    memset(size, 0, sizeof(int) * (size_t)k);
    FILE *out = tmpfile();
    fflush(stdout);
    int saved = dup(1);
    CHECK(out && saved >= 0 && dup2(fileno(out), 1) >= 0, "stdout to a file");
    CHECK(mesh_partition(&m, k, part) == 0, "two-level partition");
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    struct stat st;
    CHECK(out && fstat(fileno(out), &st) == 0 && st.st_size == 0,
          "METIS printed %lld bytes while partitioning", out ? (long long)st.st_size : -1LL);
    if (out)
        fclose(out);
    for (int c = 0; c < n; c++)
        if (part[c] >= 0 && part[c] < k)
            size[part[c]]++;
        else
            CHECK(0, "cell %d in part %d of %d", c, part[c], k);
    int lo = n, hi = 0;
    for (int p = 0; p < k; p++) {
        lo = size[p] < lo ? size[p] : lo;
        hi = size[p] > hi ? size[p] : hi;
    }
    CHECK(lo >= 16 && hi <= 48, "two-level parts of 32 cells hold %d to %d", lo, hi);
    xfree(part);
    xfree(size);
    mesh_free(&m);
}

/* ---- z-curve order of mesh files ---- */

/* Mean distance in `order` between the two cells of each neighbour pair. */
static double mean_gap(const mesh *m, const int *order)
{
    int *pos = xalloc(sizeof(int) * (size_t)m->ncells);
    for (int i = 0; i < m->ncells; i++)
        pos[order[i]] = i;
    double sum = 0;
    long pairs = 0;
    for (int c = 0; c < m->ncells; c++)
        for (int r = 0; r < mesh_width(m); r++) {
            int d = mesh_row(m, c)[r];
            if (d >= 0) {
                sum += abs(pos[c] - pos[d]);
                pairs++;
            }
        }
    xfree(pos);
    return sum / (double)pairs;
}

/* The z-curve order of m: a permutation, the same every time, with neighbours far closer in it
 * than in a random order (and than in `worse`, the file's order, when that is set). */
static int *check_zcurve(const mesh *m, const char *what, int worse)
{
    int n = m->ncells, *order = xalloc(sizeof(int) * (size_t)n),
        *again = xalloc(sizeof(int) * (size_t)n), *seen = xalloc(sizeof(int) * (size_t)n);
    CHECK(mesh_zcurve_order(m, what, order) == 0 && mesh_zcurve_order(m, what, again) == 0,
          "%s: zcurve order", what);
    CHECK(!memcmp(order, again, sizeof(int) * (size_t)n), "%s: zcurve order not reproducible",
          what);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        bad += order[i] < 0 || order[i] >= n || seen[order[i]];
        if (order[i] >= 0 && order[i] < n)
            seen[order[i]] = 1;
    }
    CHECK(bad == 0, "%s: zcurve order is not a permutation (%d bad entries)", what, bad);
    uint64_t s = 17;
    for (int i = 0; i < n; i++)
        again[i] = i;
    for (int i = n - 1; i > 0; i--) { /* a seeded random order */
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int j = (int)((s >> 33) % (uint64_t)(i + 1)), t = again[i];
        again[i] = again[j];
        again[j] = t;
    }
    double z = mean_gap(m, order), rnd = mean_gap(m, again);
    CHECK(z * 10 < rnd, "%s: neighbours %.1f apart in zcurve order, %.1f in a random one", what,
          z, rnd);
    for (int i = 0; i < n; i++)
        again[i] = i;
    double file = mean_gap(m, again);
    CHECK(!worse || z * 4 < file, "%s: neighbours %.1f apart in zcurve order, %.1f in the file's",
          what, z, file);
    xfree(again);
    xfree(seen);
    return order;
}

static void test_zcurve(void)
{
    /* 2 coordinates: a patch, hexagons, a patch whose file order is scrambled */
    mesh_gen_spec specs[] = {{MESH_REGULAR, 64, 48, 0, 1, 0, 1, 0, 0},
                             {MESH_HEXAGONS, 40, 40, 0, 1, 0, 1, 0, 0},
                             {MESH_SHUFFLED, 64, 64, 0, 1, 4096, 5, 0, 0}};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        mesh m;
        CHECK(mesh_generate(&m, &specs[i]) == 0, "generate");
        xfree(check_zcurve(&m, mesh_kind_name[specs[i].kind], specs[i].kind == MESH_SHUFFLED));
        if (specs[i].kind == MESH_REGULAR) { /* 3 coordinates off a sphere: a paraboloid */
            double *xyz = xalloc(sizeof(double) * 3 * (size_t)m.ncells);
            for (int c = 0; c < m.ncells; c++) {
                double x = m.coord[2 * c], y = m.coord[2 * c + 1];
                xyz[3 * c] = x;
                xyz[3 * c + 1] = y;
                xyz[3 * c + 2] = (x * x + y * y) / 64;
            }
            xfree(m.coord);
            m.coord = xyz;
            m.ncoord = 3;
            CHECK(!mesh_on_sphere(&m), "a paraboloid taken for a sphere");
            xfree(check_zcurve(&m, "paraboloid", 0));
            /* all cells at one point: ties keep the file's order */
            memset(m.coord, 0, sizeof(double) * 3 * (size_t)m.ncells);
            int *order = xalloc(sizeof(int) * (size_t)m.ncells), ties = 0;
            CHECK(mesh_zcurve_order(&m, "one point", order) == 0, "one point");
            for (int c = 0; c < m.ncells; c++)
                ties += order[c] != c;
            CHECK(ties == 0, "equal keys not in file order (%d cells moved)", ties);
            xfree(order);
        }
        mesh_free(&m);
    }

    /* the cubed sphere: panel by panel, and a z-curve inside each panel: for n = 32 every aligned
     * run of 16 cells is an aligned 4x4 square of one panel */
    const int n = 32;
    mesh m;
    mesh_gen_cubed_sphere(&m, n, 1);
    CHECK(mesh_on_sphere(&m), "the cubed sphere is not on a sphere");
    int *order = check_zcurve(&m, "cubed-sphere", 0), split = 0;
    for (int i = 0; i < m.ncells; i += 16)
        for (int k = 1; k < 16; k++) {
            int a = order[i], b = order[i + k];
            split += a / (n * n) != b / (n * n) || (a % n) / 4 != (b % n) / 4 ||
                     (a / n % n) / 4 != (b / n % n) / 4;
        }
    CHECK(split == 0, "cubed sphere: %d cells outside their run's 4x4 panel square", split);
    for (int i = 1; i < m.ncells; i++)
        split += order[i] / (n * n) != order[i - 1] / (n * n);
    CHECK(split == 5, "cubed sphere: the panels are cut into %d runs, want 6", split + 1);
    xfree(order);

    /* refused: a mesh without coordinates, a coordinate that is not finite */
    char msg[512];
    order = xalloc(sizeof(int) * (size_t)m.ncells);
    m.coord[3 * 7 + 1] = NAN;
    int saved = stderr_to(tmpname("stderr.txt"));
    int rc = mesh_zcurve_order(&m, "nan.h5", order);
    stderr_restore(saved, tmpname("stderr.txt"), msg, sizeof msg);
    CHECK(rc != 0 &&
              strstr(msg, "nan.h5: /coordinates: cell 7 has a coordinate that is not finite"),
          "NaN coordinate: %s", msg);
    xfree(m.coord);
    m.coord = NULL;
    m.ncoord = 0;
    saved = stderr_to(tmpname("stderr.txt"));
    rc = mesh_zcurve_order(&m, "bare.h5", order);
    stderr_restore(saved, tmpname("stderr.txt"), msg, sizeof msg);
    CHECK(rc != 0 && strstr(msg, "bare.h5: --layout zcurve orders the cells by their coordinates, "
                                 "but the file has no /coordinates"),
          "no coordinates: %s", msg);
    xfree(order);
    mesh_free(&m);
}

/* ---- bad files ---- */

typedef struct {
    const char *name, *needle; /* the file, and what the message must name */
} bad_file;

/* A 3x1 strip W/E with one defect chosen by `which`. */
static void write_bad(const char *path, int which)
{
    int nbr[3][4] = {{-1, 1, -1, -1}, {0, 2, -1, -1}, {1, -1, -1, -1}};
    double fl[12] = {0};
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (which != 1)
        put_attr(f, "pillar_mesh_version", which == 2 ? 7 : 1);
    if (which != 3)
        put_attr(f, "nlevels", 4);
    if (which == 4)
        nbr[2][1] = 99; /* out of range */
    if (which == 5)
        nbr[2][0] = -1; /* 1 lists 2 as E, 2 does not list 1 */
    if (which == 6)
        put_data(f, "/neighbours", H5T_NATIVE_INT, 1, 12, 0, nbr); /* rank 1 */
    else if (which == 7)
        put_data(f, "/neighbours", H5T_NATIVE_DOUBLE, 2, 3, 4, fl); /* floats */
    else if (which == 8)
        put_data(f, "/neighbours", H5T_NATIVE_INT, 2, 0, 4, nbr); /* empty */
    else if (which == 9)
        put_data(f, "/neighbours", H5T_NATIVE_INT, 2, 4, 3, nbr); /* 3 columns */
    else if (which != 0)
        put_data(f, "/neighbours", H5T_NATIVE_INT, 2, 3, 4, nbr);
    if (which == 10)
        put_data(f, "/coordinates", H5T_NATIVE_DOUBLE, 2, 2, 2, fl); /* 2 rows for 3 cells */
    if (which == 11) {
        int xy[6] = {0, 0, 1, 0, 1, 0}; /* two cells at (1,0) */
        put_data(f, "/patch_xy", H5T_NATIVE_INT, 2, 3, 2, xy);
        hid_t d = H5Dopen2(f, "/patch_xy", H5P_DEFAULT);
        put_attr(d, "nx", 3);
        put_attr(d, "ny", 1);
        H5Dclose(d);
    }
    if (which == 12 || which == 13) {
        int p[3] = {0, which == 12 ? 5 : 1, 0};
        put_data(f, "/partition", H5T_NATIVE_INT, 1, 3, 0, p);
        hid_t d = H5Dopen2(f, "/partition", H5P_DEFAULT);
        put_attr(d, "nparts", which == 12 ? 2 : 2000000000); /* more parts than cells */
        H5Dclose(d);
    }
    if (which >= 14) { /* node data: the strip's 2 x 4 corner points */
        double xy[8][2] = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1}, {1, 1}, {2, 1}, {3, 1}};
        int corners[3][4] = {{0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}};
        if (which == 15)
            corners[2][1] = 9; /* no such node */
        if (which == 16)
            corners[1][1] = -1; /* a corner after the end */
        if (which != 14)
            put_data(f, "/node_coordinates", H5T_NATIVE_DOUBLE, 2, 8, 2, xy);
        put_data(f, "/cell_nodes", H5T_NATIVE_INT, 2, 3, 4, corners);
    }
    H5Fclose(f);
}

static const bad_file bad_files[] = {
    {"no-neighbours.h5", "/neighbours is missing"},
    {"no-version.h5", "pillar_mesh_version is missing"},
    {"version7.h5", "pillar_mesh_version = 7"},
    {"no-nlevels.h5", "nlevels is missing"},
    {"out-of-range.h5", "cell 2: E = 99 is out of range"},
    {"asymmetric.h5", "asymmetric at cell 1: E = 2"},
    {"rank1.h5", "/neighbours has rank 1"},
    {"float.h5", "/neighbours has the wrong type"},
    {"empty.h5", "/neighbours is empty"},
    {"three-columns.h5", "/neighbours has 3 columns"},
    {"coordinates-rows.h5", "/coordinates has 2 rows"},
    {"patch-twice.h5", "/patch_xy: cells 1 and 2 both lie at (1,0)"},
    {"partition.h5", "/partition: cell 1 is in part 5"},
    {"nparts.h5", "/partition: attribute nparts = 2000000000; expected 1 to the 3 cells"},
    {"nodes-missing.h5", "/node_coordinates is missing"},
    {"node-range.h5", "/cell_nodes: cell 2: column 1 = 9 is out of range (nodes 0..7)"},
    {"node-past-end.h5", "/cell_nodes: cell 1: column 2 = 6 lies past the cell's last corner"},
};
enum { NBAD = sizeof bad_files / sizeof bad_files[0] };

static void write_bad_files(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    for (int i = 0; i < NBAD; i++)
        write_bad(tmpname(bad_files[i].name), i);
    mesh m;
    mesh_gen_spec sp = {MESH_REGULAR, 12, 10, 0, 4, 0, 1, 0, 0};
    mesh_generate(&m, &sp);
    xfree(m.coord);
    m.coord = NULL;
    m.ncoord = 0;
    mesh_write(tmpname("no-coordinates.h5"), &m);
    mesh_free(&m);
    FILE *f = fopen(tmpname("not-hdf5.h5"), "w");
    fputs("just text\n", f);
    fclose(f);
}

/* mesh_read must fail, leave m empty and print the needle on stderr. */
static void expect_bad(const char *file, const char *needle)
{
    char path[512], log[512], msg[1024];
    snprintf(path, sizeof path, "%s", file); /* tmpname's buffer is reused below */
    snprintf(log, sizeof log, "%s", tmpname("stderr.txt"));
    int saved = stderr_to(log);
    mesh m;
    int rc = mesh_read(path, &m);
    stderr_restore(saved, log, msg, sizeof msg);
    CHECK(rc != 0 && m.ncells == 0 && m.nbr == NULL, "%s was accepted", path);
    CHECK(strstr(msg, needle) != NULL, "%s: message does not say '%s': %s", path, needle, msg);
    CHECK(strstr(msg, "HDF5-DIAG") == NULL, "%s: HDF5's own error stack was printed", path);
}

static void test_bad_files(void)
{
    write_bad_files();
    for (int i = 0; i < NBAD; i++)
        expect_bad(tmpname(bad_files[i].name), bad_files[i].needle);
    expect_bad(tmpname("not-hdf5.h5"), "not an HDF5 file");
    expect_bad(tmpname("does-not-exist.h5"), "cannot read");

    /* writing into a missing directory fails cleanly, leaving nothing */
    mesh m;
    mesh_gen_cubed_sphere(&m, 2, 1);
    fflush(stderr);
    int saved = dup(2);
    FILE *log = freopen("/dev/null", "w", stderr);
    (void)log;
    int rc = mesh_write(tmpname("missing-dir/x.h5"), &m);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    CHECK(rc != 0, "write into a missing directory succeeded");
    /* a successful write leaves no temporary file */
    CHECK(mesh_write(tmpname("ok.h5"), &m) == 0, "write ok.h5");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls %s | grep -q tmp-", dir);
    CHECK(system(cmd) != 0, "a temporary file was left in %s", dir);
    mesh_free(&m);
}

/* ---- a rank's share: the header and blocks of rows (mesh_read_header, mesh_read_block) ---- */

/* Blocks of rows of a written mesh (with the centres), read in uneven pieces, equal the rows of
 * the whole read; the header equals the mesh's shape; rows past the end and a part out of range
 * are refused. */
static void test_blocks(void)
{
    mesh_gen_spec specs[] = {
        {MESH_CUBED_SPHERE, 0, 0, 12, 7, 0, 1, 0, 0},
        {MESH_HEXAGONS, 14, 12, 0, 3, 0, 1, 1, 0},
        {MESH_REFINED, 15, 15, 0, 4, 0, 1, 0, 5}, /* a general mesh with /cell_sides */
        {MESH_REGULAR, 100, 90, 0, 3, 0, 1, 0, 0}, /* chunked, compressed datasets */
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        const char *kind = mesh_kind_name[specs[i].kind];
        mesh a;
        CHECK(mesh_generate(&a, &specs[i]) == 0, "generate %s", kind);
        a.nparts = 5;
        a.part = xalloc(sizeof(int) * (size_t)a.ncells);
        CHECK(mesh_partition(&a, 5, a.part) == 0, "partition %s", kind);
        char path[512];
        snprintf(path, sizeof path, "%s", tmpname("blocks.h5"));
        CHECK(mesh_write(path, &a) == 0, "write %s", kind);
        mesh_header h;
        CHECK(mesh_read_header(path, &h) == 0, "%s: header", kind);
        int w = mesh_width(&a);
        CHECK(h.ncells == a.ncells && h.nlevels == a.nlevels && h.quad == (a.nbr != NULL) &&
                  h.width == w && h.has_sides == (a.sides != NULL) && h.nparts == 5 &&
                  h.patch == (a.xy != NULL),
              "%s: header %d cells, %d levels, quad %d, width %d, sides %d, %d parts, patch %d",
              kind, h.ncells, h.nlevels, h.quad, h.width, h.has_sides, h.nparts, h.patch);
        long bad = 0;
        for (int r0 = 0, len = 1; r0 < a.ncells; r0 += len, len = len * 3 + 1) {
            int n = a.ncells - r0 < len ? a.ncells - r0 : len, *nbr, *sides, *part, nc;
            double *xy;
            if (mesh_read_block(path, &h, r0, n, &nbr, &sides, &part, &xy, &nc) != 0) {
                CHECK(0, "%s: rows %d to %d", kind, r0, r0 + n - 1);
                break;
            }
            for (int c = 0; c < n; c++) {
                const int *row = mesh_row(&a, r0 + c);
                for (int j = 0; j < w; j++)
                    bad += nbr[(size_t)c * (size_t)w + (size_t)j] != row[j];
                bad += part[c] != a.part[r0 + c];
                bad += a.sides ? !sides || sides[c] != a.sides[r0 + c] : sides != NULL;
                for (int k = 0; k < a.ncoord && nc == a.ncoord; k++)
                    bad += xy[(size_t)c * (size_t)nc + (size_t)k] !=
                           a.coord[(size_t)(r0 + c) * (size_t)nc + (size_t)k];
            }
            bad += nc != a.ncoord || (nc > 0) != (xy != NULL);
            xfree(xy);
            xfree(nbr);
            xfree(sides);
            xfree(part);
        }
        CHECK(bad == 0, "%s: %ld values of the blocks differ from the whole read", kind, bad);
        int *nbr, *sides, *part;
        char msg[256] = "";
        perr_capture(msg, sizeof msg);
        int rc = mesh_read_block(path, &h, a.ncells - 2, 3, &nbr, &sides, &part, NULL, NULL);
        perr_capture(NULL, 0);
        CHECK(rc == -1 && !nbr && strstr(msg, "rows"), "%s: rows past the end: rc %d '%s'", kind,
              rc, msg);
        mesh_free(&a);
    }
    /* a part out of range (the bad file of test_bad_files), refused by its row */
    mesh_header h;
    const char *bad = tmpname("partition.h5");
    CHECK(mesh_read_header(bad, &h) == 0 && h.nparts == 2, "partition.h5: header");
    int *nbr, *sides, *part;
    char msg[256] = "";
    perr_capture(msg, sizeof msg);
    int rc = mesh_read_block(bad, &h, 0, 3, &nbr, &sides, &part, NULL, NULL);
    perr_capture(NULL, 0);
    CHECK(rc == -1 && strstr(msg, "/partition: cell 1 is in part 5"), "partition.h5: rc %d '%s'",
          rc, msg);
    CHECK(mesh_read_header(tmpname("not-hdf5.h5"), &h) == 1, "not-hdf5.h5: not a mesh file");
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--bad-files")) {
        scratch_open(NULL, argv[2]);
        write_bad_files();
        for (int i = 0; i < NBAD; i++)
            printf("%s\t%s\n", bad_files[i].name, bad_files[i].needle);
        return 0;
    }
    if (scratch_open("mesh", NULL) != 0)
        return 1;
    test_round_trips();
    test_old_versions();
    test_cubed_sphere();
    test_halo();
    test_patch_equals_emulate();
    test_mesh_runs();
    test_metis();
    test_zcurve();
    test_bad_files();
    test_blocks();
    scratch_remove();
    return check_done("test_mesh");
}
