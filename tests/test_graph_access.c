/* The graph stencils' CPU paths (docs/access.md, "Graph stencils"): on bounded and periodic
 * hexagons and triangles, the refined patch and a quad patch, in file, METIS and z-curve order,
 * graphlap through every offset-table storage (chasing / non-chasing x uncompressed /
 * compressed, cpu_run_gtable, what the GPU strategies read) and through the neighbour lists
 * (cpu_run_unstructured) equals a reference written here from the mesh file's rows, bit for bit,
 * double and float; on the bounded generated lattices the twin addressed by arithmetic
 * (cpu_run_regular, grids/lattice.h) equals it too. lattice_detect finds exactly the bounded
 * generated lattices (not periodic ones, not the refined patch, not a lattice with one row
 * changed); lattice_inner agrees with mesh_graph_halo for radius 1 and 2; the staged strategy's
 * per-block lists (storage/gstaging.h) name each cell's neighbours and their neighbours. */
#include "check.h"
#include "graph_checks.h"
#include "scratch.h"
#include "src/exec/cpu_exec.h"
#include "src/exec/runner.h"
#include "src/exec/verify.h"
#include "src/io/mesh_io.h"
#include "storage/gstaging.h"

#include <string.h>
#include <unistd.h>

/* graphlap from the mesh's rows (file cells, row order, missing entries skipped), in TY, at grid
 * cell c of pb, level z: the definition of stencils/graphlap.h written out again. */
/* The sum, in row order, of VAL(q) over the present entries q of mesh row f, in d neighbours. */
#define ROW_SUM(TY, f, VAL, d, s)                                                                 \
    do {                                                                                          \
        const int *row_ = mesh_row(&pb->mesh, f);                                                 \
        for (int e_ = 0; e_ < mesh_width(&pb->mesh); e_++)                                        \
            if (row_[e_] >= 0) {                                                                  \
                TY v_ = VAL(row_[e_]);                                                            \
                s = d ? s + v_ : v_;                                                              \
                d++;                                                                              \
            }                                                                                     \
    } while (0)
#define REF_FN(TY)                                                                                \
    static TY ref_lap_##TY(const problem *pb, const int *to, const TY *in, int f, size_t lev)      \
    {                                                                                             \
        int d = 0;                                                                                \
        TY s = 0;                                                                                 \
        ROW_SUM(TY, f, REF_IN, d, s);                                                             \
        return (TY)d * in[to[f] + lev] - s;                                                       \
    }                                                                                             \
    static TY ref_out_##TY(const problem *pb, const int *to, const TY *in, int f, size_t lev)      \
    {                                                                                             \
        int d = 0;                                                                                \
        TY s = 0;                                                                                 \
        ROW_SUM(TY, f, REF_LAP_##TY, d, s);                                                       \
        return (TY)d * ref_lap_##TY(pb, to, in, f, lev) - s;                                      \
    }
#define REF_IN(q) in[to[q] + lev]
#define REF_LAP_double(q) ref_lap_double(pb, to, in, q, lev)
#define REF_LAP_float(q) ref_lap_float(pb, to, in, q, lev)
REF_FN(double)
REF_FN(float)

/* The reference on pb's unstructured grid (outputs of the inner cells; the rest poisoned). */
static fieldset reference(const problem *pb)
{
    fieldset r = runner_outputs(pb, 1);
    const ugrid *g = &pb->ug;
    int *to = xalloc(sizeof(int) * (size_t)g->nxy);
    for (int c = 0; c < g->nxy; c++)
        to[g->mesh_cell[c]] = c;
    for (int z = 0; z < pb->s.nz; z++)
        for (int c = g->nhalo; c < g->nxy; c++) {
            size_t lev = (size_t)z * g->zstride;
            if (pb->s.prec == PREC_DOUBLE)
                ((double *)r.p[1])[c + lev] = ref_out_double(pb, to, pb->uf.p[0], g->mesh_cell[c], lev);
            else
                ((float *)r.p[1])[c + lev] = ref_out_float(pb, to, pb->uf.p[0], g->mesh_cell[c], lev);
        }
    xfree(to);
    return r;
}


/* Every slot of the lists names the cell the grid's lists name. */
static void check_staging(const problem *pb, int B)
{
    staging st;
    const ugrid *g = &pb->ug;
    gstaging_build(&st, g, B, 2);
    const int D = g->adjw, n = st.n;
    long bad = 0;
    for (int j = 0; j < n; j++) {
        int b = j / B, c = g->nhalo + j;
#define SLOT_CELL(s) ((s) < B ? g->nhalo + b * B + (s) : st.cells[st.start[b] + (s) - B])
#define LOC(e) st.loc[(size_t)(e) * n + j]
        int d = 0;
        while (d < D && g->adj[(size_t)d * g->nxy + c] >= 0)
            d++;
        bad += LOC(0) != d || SLOT_CELL(0 * B + (j % B)) != c;
        for (int k = 0; k < d; k++) {
            int q = g->adj[(size_t)k * g->nxy + c], dq = 0;
            bad += SLOT_CELL(LOC(1 + k)) != q;
            while (dq < D && g->adj[(size_t)dq * g->nxy + q] >= 0)
                dq++;
            bad += LOC((1 + k) * (1 + D)) != dq;
            for (int i = 0; i < dq; i++)
                bad += SLOT_CELL(LOC((1 + k) * (1 + D) + 1 + i)) != g->adj[(size_t)i * g->nxy + q];
        }
#undef SLOT_CELL
#undef LOC
    }
    for (int b = 0; b < st.nblocks; b++)
        bad += st.start[b + 1] - st.start[b] > st.hmax;
    CHECK(bad == 0, "staged lists, B = %d, %s order: %ld wrong entries", B,
          mesh_order_name[pb->mesh_order], bad);
    staging_free(&st);
}

static void check_meshes(void)
{
    const mesh_gen_spec specs[] = {{MESH_HEXAGONS, 13, 11, 0, 3, 0, 1, 0, 0},
                                   {MESH_TRIANGLES, 9, 7, 0, 3, 0, 1, 0, 0},
                                   {MESH_TRIANGLES, 8, 6, 0, 2, 0, 1, 1, 0},
                                   {MESH_HEXAGONS, 8, 8, 0, 2, 0, 1, 1, 0},
                                   {MESH_REFINED, 15, 15, 0, 2, 0, 1, 0, 5},
                                   {MESH_REGULAR, 9, 9, 0, 2, 0, 1, 0, 0}};
    for (size_t m = 0; m < sizeof specs / sizeof specs[0]; m++) {
        const char *path = tmpname("mesh.h5");
        mesh mh;
        CHECK(mesh_generate(&mh, &specs[m]) == 0 && mesh_write(path, &mh) == 0, "mesh %zu", m);
        char name[64];
        snprintf(name, sizeof name, "%s%s", mesh_kind_name[specs[m].kind],
                 specs[m].periodic ? " (periodic)" : "");
        lattice lat;
        lattice_detect(&mh, &lat);
        int want = (specs[m].kind == MESH_HEXAGONS || specs[m].kind == MESH_TRIANGLES) &&
                   !specs[m].periodic;
        CHECK(!lat.kind == !want && (!want || (lat.nx == specs[m].nx && lat.ny == specs[m].ny)),
              "lattice_detect on %s: kind %d", name, lat.kind);
        mesh_free(&mh);
        for (int o = 0; o < MESH_ORDER_COUNT; o++)
            for (int v = 0; v < 8; v++) {
                problem_spec s = {ST_GRAPHLAP, (precision_t)(v & 1), 0, 0, 0, 2, LAYOUT_ROWMAJOR, 6, 42,
                                  (v >> 1) & 1, (v >> 2) & 1};
                problem pb;
                if (problem_make_mesh(&pb, &s, path, (mesh_order_t)o) != 0) {
                    CHECK(0, "graphlap problem on %s, order %d", name, o);
                    continue;
                }
                CHECK(problem_has_lattice(&pb) == want, "lattice twin on %s", name);
                fieldset ref = reference(&pb);
                expect_paths(&pb, ref, name);
                if (v == 0 && o != MESH_ORDER_ZCURVE) {
                    check_staging(&pb, 32);
                    check_staging(&pb, 96);
                }
                runner_free_outputs(&pb, &ref);
                problem_free(&pb);
            }
        unlink(path);
    }
}

/* lattice_inner == not a halo cell of mesh_graph_halo, radius 1 and 2, and one changed row
 * makes a mesh no lattice. */
static void check_lattice_rules(void)
{
    for (int kind = MESH_TRIANGLES; kind <= MESH_HEXAGONS; kind++)
        for (int nx = 5; nx <= 9; nx++)
            for (int ny = 5; ny <= 8; ny++) {
                mesh_gen_spec sp = {(mesh_kind)kind, nx, ny, 0, 1, 0, 1, 0, 0};
                mesh m;
                if (mesh_generate(&m, &sp) != 0) {
                    CHECK(0, "mesh");
                    continue;
                }
                lattice l;
                lattice_detect(&m, &l);
                CHECK(l.kind, "%s %dx%d not detected", mesh_kind_name[kind], nx, ny);
                unsigned char *halo = xalloc((size_t)m.ncells);
                for (int r = 1; r <= 2 && l.kind; r++) {
                    mesh_graph_halo(&m, r, halo);
                    int W = lattice_w(l.kind, nx), bad = 0;
                    for (int f = 0; f < m.ncells; f++)
                        bad += (!halo[f]) != lattice_inner(l.kind, nx, ny, r, f % W, f / W);
                    CHECK(bad == 0, "%s %dx%d radius %d: %d cells disagree", mesh_kind_name[kind],
                          nx, ny, r, bad);
                }
                xfree(halo);
                /* swap two neighbours of a middle cell: no longer the arithmetic's order */
                int c = (ny / 2) * lattice_w(l.kind, nx) + 2, *row = m.adj + (size_t)m.maxdeg * c, t = row[0];
                row[0] = row[1];
                row[1] = t;
                lattice_detect(&m, &l);
                CHECK(!l.kind, "%s %dx%d with a row changed still detected", mesh_kind_name[kind], nx, ny);
                mesh_free(&m);
            }
}

int main(void)
{
    if (scratch_open("graph-access", NULL) != 0)
        return 1;
    check_lattice_rules();
    check_meshes();
    rmdir(dir);
    return check_done("test_graph_access");
}
