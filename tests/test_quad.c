/* Right answers on every quad mesh (docs/relations.md). On cubed spheres (n = 1, 2, 5, 24), a
 * `rotated` patch and a patch with its cells renumbered and each cell's labels turned and
 * mirrored (tests/quad_meshes.h):
 *  - laplap equals graphlap bit for bit, in float and double, in file and METIS order, with
 *    every table storage (chasing / non-chasing, compressed or not);
 *  - hdiff equals an edge-based reference written here (flux across each edge from the two
 *    cells sharing it, each Laplacian from that cell's own neighbours) to a few roundings;
 *  - on `rotated` (the lattice's connectivity, turned labels) laplap and hdiff equal the regular
 *    patch's results on the same inputs to 1e-13 relative (the order of additions differs);
 *  - fastwaves is refused where the frame turns and runs where it does not (shuffled patch);
 *    mesh_lattice_breaks is 0 on the lattice kinds; a /neighbours row that lists a cell twice
 *    is refused with a message naming it;
 *  - the GPU kernels' flat-warp test on the neighbour table's offsets (rel_offsets_flat) holds
 *    at a cell exactly where the mesh's lattice identities hold, in every storage and order,
 *    and at every inner cell of a lattice. */
#include "check.h"
#include "h5_put.h"
#include "quad_meshes.h"
#include "same_cells.h"
#include "scratch.h"
#include "src/exec/cpu_exec.h"
#include "src/io/mesh_io.h"
#include "src/exec/runner.h"

#include <math.h>
#include <string.h>

static int make(problem *pb, stencil_t st, precision_t prec, int storage, const char *path,
                mesh_order_t order)
{
    problem_spec s = {st, prec, 0, 0, 0, 2, LAYOUT_ROWMAJOR, 16, 11, storage >> 1, storage & 1};
    return problem_make_mesh(pb, &s, path, order);
}

/* The GPU kernels' flat-warp test (rel_offsets_flat of grids/grid.h, on the offsets of pl's
 * neighbour table) holds at an inner cell exactly where the mesh's lattice identities hold
 * (mesh_lattice_breaks_at, on its neighbour lists, at the cell's file number). Returns the flat
 * cells. */
static long check_flat(const problem *pl, const mesh *m, const char *what)
{
    nbview v = nbtable_view(&pl->nt);
    long flat = 0, wrong = 0;
    int first = -1;
    for (int c = pl->ug.nhalo; c < pl->ug.nxy; c++) {
        int32_t o[NREL2];
        for (int r = 0; r < NREL2; r++)
            o[r] = nb_offset(v, pl->nt.chasing, pl->nt.compressed, r, c);
        int f = rel_offsets_flat(o);
        flat += f;
        if (f == mesh_lattice_breaks_at(m, pl->ug.mesh_cell[c], NULL, 0) && wrong++ == 0)
            first = c;
    }
    CHECK(wrong == 0, "%s, storage %d%d: the flat test and the lattice identities disagree at %ld "
          "cells (first: cell %d, file cell %d)", what, pl->nt.chasing, pl->nt.compressed, wrong,
          first, first >= 0 ? pl->ug.mesh_cell[first] : -1);
    return flat;
}

/* laplap == graphlap bit for bit, and hdiff == the edge reference, on the mesh file at path
 * (made from m); the flat test agrees with the lattice identities. */
static void check_mesh(const char *path, const mesh *m, const char *what)
{
    long flat = 0, inner = 0;
    long points = 0;
    for (int prec = 0; prec < 2; prec++)
        for (int order = MESH_ORDER_FILE; order <= MESH_ORDER_METIS; order++) {
            problem pg;
            CHECK(make(&pg, ST_GRAPHLAP, (precision_t)prec, 0, path, (mesh_order_t)order) == 0,
                  "%s: graphlap problem", what);
            fieldset og = runner_outputs(&pg, 1);
            cpu_run_unstructured(&pg, og);
            for (int storage = 0; storage < 4; storage++) {
                problem pl;
                CHECK(make(&pl, ST_LAPLAP, (precision_t)prec, storage, path,
                           (mesh_order_t)order) == 0, "%s: laplap problem", what);
                CHECK(pl.ug.nhalo == pg.ug.nhalo, "%s: laplap has %d halo cells, graphlap %d",
                      what, pl.ug.nhalo, pg.ug.nhalo);
                flat += check_flat(&pl, m, what);
                inner += pl.ug.nxy - pl.ug.nhalo;
                fieldset ol = runner_outputs(&pl, 1);
                cpu_run_unstructured(&pl, ol);
                long d = differ_by_file_cell(&pl, ol, &pg, og);
                CHECK(d == 0, "%s %s %s storage %d: laplap and graphlap differ at %ld points",
                      what, prec_name((precision_t)prec), mesh_order_name[order], storage, d);
                points += (long)(pl.ug.nxy - pl.ug.nhalo) * pl.ug.nz;
                runner_free_outputs(&pl, &ol);
                problem_free(&pl);
                if (prec == PREC_DOUBLE) {
                    problem ph;
                    CHECK(make(&ph, ST_HDIFF, PREC_DOUBLE, storage, path, (mesh_order_t)order) == 0,
                          "%s: hdiff problem", what);
                    fieldset oh = runner_outputs(&ph, 1);
                    cpu_run_unstructured(&ph, oh);
                    long bad = hdiff_edge_reference_differ(&ph, oh.p[2]);
                    CHECK(bad == 0, "%s %s storage %d: hdiff differs from the edge reference at "
                          "%ld points", what, mesh_order_name[order], storage, bad);
                    runner_free_outputs(&ph, &oh);
                    problem_free(&ph);
                }
            }
            runner_free_outputs(&pg, &og);
            problem_free(&pg);
        }
    printf("%s: laplap == graphlap bit for bit (%ld points), hdiff == edge reference; flat "
           "cells %.1f%%, as the lattice identities say\n", what, points, 100.0 * (double)flat /
           (double)(inner > 0 ? inner : 1));
}

/* Largest |a - b| / max(|b|, 1) between the outputs of pa and pb, cell by file cell. */
static double rel_differ(const problem *pa, fieldset oa, const problem *pb, fieldset ob)
{
    int n = pa->ug.nxy, *at = xalloc(sizeof(int) * (size_t)n);
    for (int k = 0; k < n; k++)
        at[pb->ug.mesh_cell[k]] = k;
    double worst = 0;
    int f = stencil_table[pa->s.stencil].nin;
    for (int z = 0; z < pa->ug.nz; z++)
        for (int c = pa->ug.nhalo; c < n; c++) {
            double a = ((const double *)oa.p[f])[c + z * pa->ug.zstride];
            double b = ((const double *)ob.p[f])[at[pa->ug.mesh_cell[c]] + z * pb->ug.zstride];
            double e = fabs(a - b) / fmax(fabs(b), 1.0);
            worst = e > worst || e != e ? e : worst;
        }
    xfree(at);
    return worst;
}

/* `rotated` against the regular patch it was made from, on the patch's inputs. */
static void check_rotated_vs_regular(void)
{
    mesh m;
    char reg[512], rot[512];
    snprintf(reg, sizeof reg, "%s", tmpname("regular.h5"));
    snprintf(rot, sizeof rot, "%s", tmpname("rotated.h5"));
    mesh_gen_spec sr = {MESH_REGULAR, 41, 33, 0, 3, 0, 1, 0, 0};
    mesh_gen_spec so = {MESH_ROTATED, 41, 33, 0, 3, 5, 9, 0, 0};
    CHECK(mesh_generate(&m, &sr) == 0 && mesh_write(reg, &m) == 0, "regular patch");
    mesh_free(&m);
    CHECK(mesh_generate(&m, &so) == 0 && mesh_write(rot, &m) == 0, "rotated patch");
    mesh_free(&m);
    for (int st = 0; st < ST_QUAD_COUNT; st++) {
        if (stencil_table[st].framed)
            continue; /* refused where the frame turns */
        problem pr, po;
        CHECK(make(&pr, (stencil_t)st, PREC_DOUBLE, 3, reg, MESH_ORDER_FILE) == 0 &&
                  make(&po, (stencil_t)st, PREC_DOUBLE, 1, rot, MESH_ORDER_METIS) == 0,
              "problems");
        CHECK(pr.ug.nhalo == po.ug.nhalo, "halo %d and %d", pr.ug.nhalo, po.ug.nhalo);
        int n = pr.ug.nxy, *at = xalloc(sizeof(int) * (size_t)n);
        for (int k = 0; k < n; k++) /* both generated row-major: file cell = position */
            at[po.ug.mesh_cell[k]] = k;
        for (int f = 0; f < stencil_table[st].nin; f++)
            for (int z = 0; z < pr.ug.nz; z++)
                for (int c = 0; c < n; c++)
                    ((double *)po.uf.p[f])[at[pr.ug.mesh_cell[c]] + z * po.ug.zstride] =
                        ((const double *)pr.uf.p[f])[c + z * pr.ug.zstride];
        xfree(at);
        fieldset a = runner_outputs(&pr, 1), b = runner_outputs(&po, 1);
        cpu_run_unstructured(&pr, a);
        cpu_run_unstructured(&po, b);
        double e = rel_differ(&po, b, &pr, a);
        CHECK(e <= 1e-13, "rotated %s: %.3g relative from the regular patch",
              stencil_table[st].name, e);
        printf("rotated %s == regular patch to %.2g relative\n", stencil_table[st].name, e);
        runner_free_outputs(&pr, &a);
        runner_free_outputs(&po, &b);
        problem_free(&pr);
        problem_free(&po);
    }
}

/* Runs `st` on path expecting a refusal whose message holds needle. */
static void refused(stencil_t st, const char *path, const char *needle)
{
    char msg[1024], log[512];
    snprintf(log, sizeof log, "%s/stderr.txt", dir);
    int saved = stderr_to(log);
    problem pb;
    int rc = make(&pb, st, PREC_DOUBLE, 0, path, MESH_ORDER_FILE);
    stderr_restore(saved, log, msg, sizeof msg);
    CHECK(rc != 0 && strstr(msg, needle), "%s on %s: '%s' not refused with '%s'",
          stencil_table[st].name, path, msg, needle);
    if (rc == 0)
        problem_free(&pb);
}

static void check_refusals(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s", tmpname("case.h5"));
    for (int k = 0; k < NQUAD_CASES; k++) {
        mesh m;
        CHECK(quad_case_make(&quad_cases[k], &m) == 0 && mesh_write(path, &m) == 0, "case %d", k);
        int first;
        CHECK(mesh_lattice_breaks(&m, &first, NULL, 0) > 0, "%s: no cell breaks the lattice",
              quad_cases[k].name);
        mesh_free(&m);
        refused(ST_FASTWAVES, path, "but the frame turns at");
    }
    mesh m;
    mesh_gen_spec sh = {MESH_SHUFFLED, 20, 17, 0, 3, 8, 5, 0, 0};
    CHECK(mesh_generate(&m, &sh) == 0 && mesh_write(path, &m) == 0, "shuffled");
    int first;
    CHECK(mesh_lattice_breaks(&m, &first, NULL, 0) == 0 && first == -1, "shuffled breaks");
    for (int storage = 0; storage < 4; storage++) { /* a lattice: every inner cell is flat */
        problem pl;
        CHECK(make(&pl, ST_LAPLAP, PREC_DOUBLE, storage, path, MESH_ORDER_FILE) == 0,
              "laplap on the shuffled patch");
        CHECK(check_flat(&pl, &m, "shuffled") == pl.ug.nxy - pl.ug.nhalo,
              "shuffled, storage %d: not every inner cell flat", storage);
        problem_free(&pl);
    }
    mesh_free(&m);
    problem pb;
    CHECK(make(&pb, ST_FASTWAVES, PREC_DOUBLE, 0, path, MESH_ORDER_FILE) == 0,
          "fastwaves on the shuffled patch");
    problem_free(&pb);

    /* 3 cells in a row, the middle one listing its E neighbour as its N one too */
    int nbr[12] = {-1, 1, -1, -1, 0, 2, -1, 2, 1, -1, -1, -1};
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    put_attr(f, "pillar_mesh_version", 2);
    put_attr(f, "nlevels", 3);
    put_data(f, "/neighbours", H5T_NATIVE_INT, 2, 3, 4, nbr);
    H5Fclose(f);
    refused(ST_LAPLAP, path, "/neighbours: cell 1 lists cell 2 twice (E and N)");
}

int main(void)
{
    if (scratch_open("quad", NULL) != 0)
        return 1;
    char path[512];
    snprintf(path, sizeof path, "%s", tmpname("mesh.h5"));
    for (int k = 0; k < NQUAD_CASES; k++) {
        mesh m;
        CHECK(quad_case_make(&quad_cases[k], &m) == 0 && mesh_write(path, &m) == 0, "%s",
              quad_cases[k].name);
        check_mesh(path, &m, quad_cases[k].name);
        mesh_free(&m);
    }
    check_rotated_vs_regular();
    check_refusals();
    scratch_remove();
    return check_done("test_quad");
}
