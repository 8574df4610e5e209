/* Stencil files of your own (src/jit/, docs/own-stencil.md), on the CPU:
 *  - the examples against independent formulas: lap5 on a quadratic field is -8 exactly; upwind
 *    against the step written out here on the regular grid; divergence against a sum over the
 *    mesh's own neighbour rows; each also unstructured == regular bit for bit;
 *  - the built-in bodies loaded as files (tests/own/) give the compiled-in executors' bits in
 *    every layout, storage and precision, one application and iterated;
 *  - refusals: a read beyond the radius (seen in the file, or only after macro expansion),
 *    stores into inputs, missing clauses, compile errors with the user's line, no compiler;
 *  - graph files over every offset-table storage and on the lattice twin (hexagons, triangles):
 *    == the compiled-in executors, == their own lists, twin == unstructured;
 *  - the checked mode catches reads outside the extent that no static check sees;
 *  - the cache: the same file again is the same stencil, found on disk;
 *  - the library API: pillar_set_stencil_source equals the built-in lap. */
#include "check.h"
#include "own_load.h"
#include "include/pillar.h"
#include "src/exec/cpu_exec.h"
#include "src/exec/iterate.h"
#include "src/exec/runner.h"
#include "src/exec/verify.h"
#include "src/jit/jit.h"
#include "src/io/mesh_io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define msg own_msg


/* Loads source text; returns the status and leaves the message in msg. */
static int load_src(const char *name, const char *src, int checked, stencil_t *s)
{
    jit_options o = {checked, 1};
    perr_capture(msg, sizeof msg);
    int rc = jit_load_source(name, src, &o, s);
    perr_capture(NULL, 0);
    return rc;
}

static long differ(const problem *a, fieldset fa, const problem *b, fieldset fb, int uns)
{
    long bad = 0;
    size_t len = uns ? a->ug.len : a->twin->rg.len;
    for (int f = stencil_table[a->s.stencil].nin; f < a->nf; f++)
        for (size_t i = 0; i < len; i++)
            bad += !field_same_bits(a->s.prec, fa.p[f], i, fb.p[f], i);
    (void)b;
    return bad;
}

/* A built-in stencil and its body loaded from a file: same bits everywhere. */
static void same_as_builtin(stencil_t builtin, const char *rel)
{
    stencil_t u = own_load(rel);
    if ((int)u < 0)
        return;
    CHECK(stencil_table[u].radius == stencil_table[builtin].radius &&
              stencil_table[u].nin == stencil_table[builtin].nin,
          "%s: declared extent differs from %s", rel, stencil_table[builtin].name);
    long pts = 0;
    for (int prec = 0; prec < 2; prec++)
        for (int lay = 0; lay < LAYOUT_COUNT; lay += 3)
            for (int st = 0; st < 4; st++) {
                problem_spec s = {builtin, (precision_t)prec, 21, 17, 13, 2, (layout_t)lay, 8, 5,
                                  st >> 1, st & 1};
                problem a, b;
                if (problem_make(&a, &s) != 0) {
                    CHECK(0, "problem_make %s", stencil_table[builtin].name);
                    continue;
                }
                s.stencil = u;
                if (problem_make(&b, &s) != 0) {
                    CHECK(0, "problem_make %s", rel);
                    problem_free(&a);
                    continue;
                }
                for (int uns = 0; uns < 2; uns++) {
                    fieldset oa = runner_outputs(&a, uns), ob = runner_outputs(&b, uns);
                    if (uns) {
                        cpu_run_unstructured(&a, oa);
                        cpu_run_unstructured(&b, ob);
                    } else {
                        cpu_run_regular(&a, oa);
                        cpu_run_regular(&b, ob);
                    }
                    long bad = differ(&a, oa, &b, ob, uns);
                    CHECK(bad == 0, "%s %s %s storage %d grid %s: %ld points differ", rel,
                          prec_name(s.prec), layout_name[lay], st, uns ? "uns" : "reg", bad);
                    pts += (long)(uns ? a.ug.len : a.twin->rg.len);
                    runner_free_outputs(&a, &oa);
                    runner_free_outputs(&b, &ob);
                }
                /* iterated: the file's carry and fold against the registry's */
                fieldset ia = iter_fields_copy(&a), ib = iter_fields_copy(&b);
                iter_run_incore(&a, ia, 3);
                iter_run_incore(&b, ib, 3);
                long bad = iter_state_differ(&a, ia, ib, NULL);
                CHECK(bad == 0, "%s %s iterated: %ld points differ", rel, prec_name(s.prec), bad);
                iter_fields_free(&a, &ia);
                iter_fields_free(&b, &ib);
                problem_free(&a);
                problem_free(&b);
            }
    printf("%s == %s bit for bit (%ld points)\n", rel, stencil_table[builtin].name, pts);
}

static double quad(int x, int y, int z) { return (double)x * x + 3.0 * y * y + 5.0 * z; }

static void lap5_exact(void)
{
    stencil_t u = own_load("docs/examples/lap5.c");
    if ((int)u < 0)
        return;
    for (int prec = 0; prec < 2; prec++)
        for (int lay = 0; lay < LAYOUT_COUNT; lay++)
            for (int st = 0; st < 4; st++) {
                problem_spec s = {u, (precision_t)prec, 23, 19, 4, 1, (layout_t)lay, 8, 3, st >> 1, st & 1};
                problem pb;
                if (problem_make(&pb, &s) != 0) {
                    CHECK(0, "problem_make lap5");
                    continue;
                }
                for (int z = 0; z < s.nz; z++) {
                    for (int y = 0; y < s.ny; y++)
                        for (int x = 0; x < s.nx; x++)
                            field_set(s.prec, pb.twin->rf.p[0], (size_t)rgrid_index(&pb.twin->rg, x, y, z), quad(x, y, z));
                    for (int c = 0; c < pb.ug.nxy; c++)
                        field_set(s.prec, pb.uf.p[0], (size_t)c + (size_t)z * pb.ug.zstride,
                                  quad(pb.ug.cx[c], pb.ug.cy[c], z));
                }
                fieldset r = runner_outputs(&pb, 0), o = runner_outputs(&pb, 1);
                cpu_run_regular(&pb, r);
                cpu_run_unstructured(&pb, o);
                long bad = 0;
                for (int z = 0; z < s.nz; z++) {
                    for (int y = 1; y < s.ny - 1; y++)
                        for (int x = 1; x < s.nx - 1; x++)
                            bad += field_get(s.prec, r.p[1], (size_t)rgrid_index(&pb.twin->rg, x, y, z)) != -8.0;
                    for (int c = pb.ug.nhalo; c < pb.ug.nxy; c++)
                        bad += field_get(s.prec, o.p[1], (size_t)c + (size_t)z * pb.ug.zstride) != -8.0;
                }
                CHECK(bad == 0, "lap5 %s %s storage %d: %ld points are not -8", prec_name(s.prec),
                      layout_name[lay], st, bad);
                runner_free_outputs(&pb, &r);
                runner_free_outputs(&pb, &o);
                problem_free(&pb);
            }
}

/* upwind written out here, on the regular grid (the lattice: every frame the same) */
static void upwind_reference(void)
{
    stencil_t u = own_load("docs/examples/upwind.c");
    if ((int)u < 0)
        return;
    for (int prec = 0; prec < 2; prec++) {
        problem_spec s = {u, (precision_t)prec, 30, 26, 5, 1, LAYOUT_ZCURVE, 8, 9, 0, 1};
        problem pb;
        if (problem_make(&pb, &s) != 0) {
            CHECK(0, "problem_make upwind");
            continue;
        }
        fieldset r = runner_outputs(&pb, 0), o = runner_outputs(&pb, 1);
        cpu_run_regular(&pb, r);
        cpu_run_unstructured(&pb, o);
        long bad = 0, range = 0;
        const rgrid *g = &pb.twin->rg;
        for (int z = 0; z < s.nz; z++)
            for (int y = 1; y < s.ny - 1; y++)
                for (int x = 1; x < s.nx - 1; x++) {
                    size_t i = (size_t)rgrid_index(g, x, y, z);
#define Q(dx, dy) field_get(s.prec, pb.twin->rf.p[0], i + (dx) + (long)(dy) * g->ystride)
                    double uc = field_get(s.prec, pb.twin->rf.p[1], i), vc = field_get(s.prec, pb.twin->rf.p[2], i);
                    range += uc < 0 || uc > 0.4 || vc < -0.3 || vc > 0.1;
                    double qc = Q(0, 0), want;
                    if (prec == 0) {
                        double d = (uc > 0 ? uc : 0) * (qc - Q(-1, 0)) + (uc < 0 ? uc : 0) * (Q(1, 0) - qc);
                        d = d + ((vc > 0 ? vc : 0) * (qc - Q(0, -1)) + (vc < 0 ? vc : 0) * (Q(0, 1) - qc));
                        want = qc - d;
                    } else {
                        float fu = (float)uc, fv = (float)vc, fq = (float)qc;
                        float d = (fu > 0 ? fu : 0) * (fq - (float)Q(-1, 0)) + (fu < 0 ? fu : 0) * ((float)Q(1, 0) - fq);
                        d = d + ((fv > 0 ? fv : 0) * (fq - (float)Q(0, -1)) + (fv < 0 ? fv : 0) * ((float)Q(0, 1) - fq));
                        want = (double)(fq - d);
                    }
#undef Q
                    bad += field_get(s.prec, r.p[3], i) != want;
                }
        CHECK(range == 0, "upwind: %ld velocities outside the declared ranges", range);
        CHECK(bad == 0, "upwind %s: %ld points differ from the formula", prec_name(s.prec), bad);
        verify_result vr = verify_compare(&pb, o, 1, r, 0);
        CHECK(verify_ok(&pb, &vr, 1), "upwind %s: unstructured != regular", prec_name(s.prec));
        runner_free_outputs(&pb, &r);
        runner_free_outputs(&pb, &o);
        problem_free(&pb);
    }
}

/* divergence and the built-in graphlap as a file, on a hexagon mesh */
static void graph_files(void)
{
    stencil_t d = own_load("docs/examples/divergence.c"), gl = own_load("tests/own/graphlap.c");
    stencil_t fx = own_load("tests/own/fluxdiff.c");
    if ((int)d < 0 || (int)gl < 0 || (int)fx < 0)
        return;
    CHECK(stencil_table[fx].coeffs.n == 2 && stencil_table[fx].coeffs.build == fluxdiff_coeffs &&
              stencil_table[gl].coeffs.n == 0,
          "coefficient descriptors of the loaded graph stencils (geometry: fluxdiff's)");
    char mpath[] = "/tmp/pillar-own-XXXXXX";
    int fd = mkstemp(mpath);
    if (fd >= 0)
        close(fd);
    mesh_gen_spec gs = {0};
    gs.kind = MESH_HEXAGONS;
    gs.nx = gs.ny = 14;
    gs.nlevels = 3;
    gs.seed = 1;
    mesh m;
    CHECK(mesh_generate(&m, &gs) == 0 && mesh_write(mpath, &m) == 0, "hexagon mesh");
    mesh_free(&m);
    for (int prec = 0; prec < 2; prec++) {
        problem_spec s = {d, (precision_t)prec, 1, 1, 1, 1, LAYOUT_ZCURVE, 8, 4, 1, 0};
        problem pb;
        if (problem_make_mesh(&pb, &s, mpath, MESH_ORDER_METIS) != 0) {
            CHECK(0, "problem_make_mesh divergence");
            continue;
        }
        fieldset o = runner_outputs(&pb, 1);
        cpu_run_unstructured(&pb, o);
        long bad = 0;
        const ell_table *e = &pb.ell;
        for (int z = 0; z < pb.ug.nz; z++)
            for (int c = pb.ug.nhalo; c < pb.ug.nxy; c++) {
                size_t i = (size_t)c + (size_t)z * pb.ug.zstride;
                double pc = field_get(s.prec, pb.uf.p[0], i), sum = 0;
                float fsum = 0;
                for (int j = 0; j < e->deg[c]; j++) {
                    size_t n = (size_t)e->nb[(size_t)j * e->nxy + c] + (size_t)z * pb.ug.zstride;
                    sum += field_get(s.prec, pb.uf.p[0], n) - pc;
                    fsum += (float)field_get(s.prec, pb.uf.p[0], n) - (float)pc;
                }
                double k = field_get(s.prec, pb.uf.p[1], i);
                double want = prec ? (double)(fsum * (float)k) : sum * k;
                bad += field_get(s.prec, o.p[2], i) != want;
            }
        CHECK(bad == 0, "divergence %s: %ld points differ from the sum over the rows",
              prec_name(s.prec), bad);
        runner_free_outputs(&pb, &o);
        problem_free(&pb);
        /* graphlap from its file == the built-in, once and iterated */
        problem a, b;
        s.stencil = ST_GRAPHLAP;
        int ok = problem_make_mesh(&a, &s, mpath, MESH_ORDER_METIS) == 0;
        s.stencil = gl;
        ok = ok && problem_make_mesh(&b, &s, mpath, MESH_ORDER_METIS) == 0;
        CHECK(ok, "graphlap problems");
        if (!ok)
            continue;
        fieldset oa = runner_outputs(&a, 1), ob = runner_outputs(&b, 1);
        cpu_run_unstructured(&a, oa);
        cpu_run_unstructured(&b, ob);
        CHECK(differ(&a, oa, &b, ob, 1) == 0, "graphlap file != built-in (%s)", prec_name(s.prec));
        fieldset ia = iter_fields_copy(&a), ib = iter_fields_copy(&b);
        iter_run_incore(&a, ia, 3);
        iter_run_incore(&b, ib, 3);
        CHECK(iter_state_differ(&a, ia, ib, NULL) == 0, "graphlap file iterated != built-in");
        iter_fields_free(&a, &ia);
        iter_fields_free(&b, &ib);
        /* both have the lattice twin of this generated mesh (graph_storages_twins runs it) */
        CHECK(problem_has_lattice(&a) && problem_has_lattice(&b), "lattice twins: built-in %d, file %d",
              problem_has_lattice(&a), problem_has_lattice(&b));
        runner_free_outputs(&a, &oa);
        runner_free_outputs(&b, &ob);
        problem_free(&a);
        problem_free(&b);
        /* fluxdiff from its file (geometry: GAREA, GKAPPA) == the built-in, bit for bit */
        s.stencil = ST_FLUXDIFF;
        ok = problem_make_mesh(&a, &s, mpath, MESH_ORDER_METIS) == 0;
        s.stencil = fx;
        ok = ok && problem_make_mesh(&b, &s, mpath, MESH_ORDER_METIS) == 0;
        CHECK(ok, "fluxdiff problems");
        if (!ok)
            continue;
        oa = runner_outputs(&a, 1);
        ob = runner_outputs(&b, 1);
        cpu_run_unstructured(&a, oa);
        cpu_run_unstructured(&b, ob);
        CHECK(differ(&a, oa, &b, ob, 1) == 0, "fluxdiff file != built-in (%s)", prec_name(s.prec));
        /* and not by accident: the output moved away from the input */
        long moved = 0;
        for (int c = a.ug.nhalo; c < a.ug.nxy; c++)
            moved += field_get(s.prec, oa.p[1], (size_t)c) != field_get(s.prec, a.uf.p[0], (size_t)c);
        CHECK(moved > 0, "fluxdiff changed no cell");
        runner_free_outputs(&a, &oa);
        runner_free_outputs(&b, &ob);
        problem_free(&a);
        problem_free(&b);
    }
    /* fluxdiff's file in checked mode: within radius 1, no violation, the same bits */
    {
        char *src = NULL;
        char path[1024];
        snprintf(path, sizeof path, "%s/tests/own/fluxdiff.c", PILLAR_SOURCE_DIR);
        FILE *fp = fopen(path, "rb");
        if (fp) {
            src = xalloc(1 << 16);
            size_t n = fread(src, 1, (1 << 16) - 1, fp);
            src[n] = 0;
            fclose(fp);
        }
        stencil_t fc;
        CHECK(src && load_src("fluxdiff-checked", src, 1, &fc) == 0, "fluxdiff checked: %s", msg);
        xfree(src);
        problem_spec s = {ST_FLUXDIFF, PREC_DOUBLE, 1, 1, 1, 1, LAYOUT_ZCURVE, 8, 4, 1, 0};
        problem a, b;
        int ok = problem_make_mesh(&a, &s, mpath, MESH_ORDER_FILE) == 0;
        s.stencil = fc;
        ok = ok && problem_make_mesh(&b, &s, mpath, MESH_ORDER_FILE) == 0;
        CHECK(ok, "fluxdiff checked problems");
        if (ok) {
            fieldset oa = runner_outputs(&a, 1), ob = runner_outputs(&b, 1);
            cpu_run_unstructured(&a, oa);
            cpu_run_unstructured(&b, ob);
            long n = jit_violations(fc, msg, sizeof msg);
            CHECK(n == 0 && differ(&a, oa, &b, ob, 1) == 0,
                  "fluxdiff checked: %ld violations (%s) or bits differ", n, msg);
            runner_free_outputs(&a, &oa);
            runner_free_outputs(&b, &ob);
            problem_free(&a);
            problem_free(&b);
        }
    }
    /* checked mode: a radius-1 graph body reading its neighbours' neighbours */
    const char *far = "#pragma pillar stencil(far) kind(graph) in(in) out(out) radius(%d)\n"
                      "#pragma pillar body\n"
                      "T s = (T)0;\n"
                      "for (int j = 0; j < GDEG(c); j++) { int n = GNB(c, j);\n"
                      "  for (int k2 = 0; k2 < GDEG(n); k2++) s += GLD(in, GNB(n, k2)); }\n"
                      "GST(out, c, s);\n";
    for (int r = 1; r <= 2; r++) {
        char src[1024];
        snprintf(src, sizeof src, far, r);
        stencil_t f;
        CHECK(load_src("far", src, 1, &f) == 0, "far: %s", msg);
        problem_spec s = {f, PREC_DOUBLE, 1, 1, 1, r, LAYOUT_ZCURVE, 8, 4, 1, 0};
        problem pb;
        if (problem_make_mesh(&pb, &s, mpath, MESH_ORDER_FILE) != 0) {
            CHECK(0, "problem far");
            continue;
        }
        fieldset o = runner_outputs(&pb, 1);
        cpu_run_unstructured(&pb, o);
        long n = jit_violations(f, msg, sizeof msg);
        CHECK(r == 1 ? n > 0 && strstr(msg, "farther than radius(1)") : n == 0,
              "checked mode radius(%d): %ld violations (%s)", r, n, msg);
        runner_free_outputs(&pb, &o);
        problem_free(&pb);
    }
    unlink(mpath);
}

/* ring2 (tests/own/ring2.c: nested GNB, radius 2) written out on the lists of pb in double:
 * the independent reference of its output at index i of plane cell c. */
static double ring2_at(const problem *pb, int c, int z)
{
    const ell_table *e = &pb->ell;
    size_t lev = (size_t)z * pb->ug.zstride;
#define IN(q) field_get(PREC_DOUBLE, pb->uf.p[0], (size_t)(q) + lev)
#define NBR(q, j) e->nb[(size_t)(j) * e->nxy + (size_t)(q)]
    double s = 0;
    for (int k = 0; k < e->deg[c]; k++) {
        int n = NBR(c, k);
        for (int j = 0; j < e->deg[n]; j++)
            s += IN(NBR(n, j)) * (double)(j + 1) - IN(NBR(n, j));
        s = s * 0.5 + IN(n);
    }
#undef IN
#undef NBR
    return s;
}

/* Graph stencil files over every storage and on the lattice twin, hexagons and triangles:
 * graphlap's and fluxdiff's files equal the compiled-in executors (lists, each offset-table
 * storage, the twin) bit for bit; divergence and ring2 (nested GNB, which the lattice must
 * address from each cell's own parity) give the same bits on every storage as on their lists,
 * and their twin equals the unstructured run; ring2's lists equal its formula written out. */
static void graph_storages_twins(void)
{
    static const char *const rel[] = {"tests/own/graphlap.c", "tests/own/fluxdiff.c",
                                      "docs/examples/divergence.c", "tests/own/ring2.c",
                                      "tests/own/fluxdiff_coeffs.c"};
    const stencil_t builtin[] = {ST_GRAPHLAP, ST_FLUXDIFF, (stencil_t)-1, (stencil_t)-1,
                                 ST_FLUXDIFF};
    stencil_t u[5];
    for (int i = 0; i < 5; i++)
        if ((int)(u[i] = own_load(rel[i])) < 0)
            return;
    for (int kind = 0; kind < 2; kind++) {
        char mpath[] = "/tmp/pillar-own-twin-XXXXXX";
        int fd = mkstemp(mpath);
        if (fd >= 0)
            close(fd);
        mesh_gen_spec gs = {0};
        gs.kind = kind ? MESH_TRIANGLES : MESH_HEXAGONS;
        gs.nx = kind ? 9 : 13;
        gs.ny = kind ? 8 : 11;
        gs.nlevels = 3;
        gs.seed = 5;
        mesh m;
        CHECK(mesh_generate(&m, &gs) == 0 && mesh_write(mpath, &m) == 0, "mesh %d", kind);
        mesh_free(&m);
        for (int i = 0; i < 5; i++)
            for (int prec = 0; prec < 2; prec++)
                for (int st = 0; st < 4; st++) {
                    problem_spec s = {u[i], (precision_t)prec, 1, 1, 1, 1, LAYOUT_ZCURVE, 8, 4,
                                      st >> 1, st & 1};
                    problem pb, pr;
                    int ok = problem_make_mesh(&pb, &s, mpath, MESH_ORDER_METIS) == 0;
                    s.stencil = (int)builtin[i] >= 0 ? builtin[i] : u[i];
                    ok = ok && problem_make_mesh(&pr, &s, mpath, MESH_ORDER_METIS) == 0;
                    CHECK(ok && problem_has_lattice(&pb), "%s on mesh %d: problem or twin", rel[i], kind);
                    if (!ok)
                        continue;
                    const char *name = stencil_table[u[i]].name;
                    /* the reference: the built-in's lists, or the file's own */
                    fieldset ref = runner_outputs(&pr, 1), tab = runner_outputs(&pb, 1);
                    cpu_run_unstructured(&pr, ref);
                    cpu_run_gtable(&pb, tab);
                    CHECK(differ(&pr, ref, &pb, tab, 1) == 0, "%s %s storage %d%d mesh %d: "
                          "offset tables != %s", name, prec_name(s.prec), st >> 1, st & 1, kind,
                          (int)builtin[i] >= 0 ? "built-in" : "its lists");
                    if (i == 3 && prec == 0 && st == 0) {
                        long bad = 0;
                        for (int z = 0; z < pb.ug.nz; z++)
                            for (int c = pb.ug.nhalo; c < pb.ug.nxy; c++)
                                bad += field_get(PREC_DOUBLE, ref.p[1],
                                                 (size_t)c + (size_t)z * pb.ug.zstride) != ring2_at(&pb, c, z);
                        CHECK(bad == 0, "ring2 mesh %d: %ld points differ from the formula", kind, bad);
                    }
                    if (st == 0 && problem_has_lattice(&pb)) { /* the twin: once per precision */
                        fieldset tw = runner_outputs(&pb, 0), twr = runner_outputs(&pr, 0);
                        cpu_run_regular(&pb, tw);
                        verify_result vr = verify_compare(&pb, tw, 0, ref, 1);
                        CHECK(verify_ok(&pb, &vr, 1), "%s %s mesh %d: lattice twin != unstructured",
                              name, prec_name(s.prec), kind);
                        if ((int)builtin[i] >= 0) {
                            cpu_run_regular(&pr, twr);
                            CHECK(differ(&pr, twr, &pb, tw, 0) == 0, "%s %s mesh %d: twin != "
                                  "the built-in's twin", name, prec_name(s.prec), kind);
                        }
                        runner_free_outputs(&pb, &tw);
                        runner_free_outputs(&pr, &twr);
                    }
                    runner_free_outputs(&pr, &ref);
                    runner_free_outputs(&pb, &tab);
                    problem_free(&pb);
                    problem_free(&pr);
                }
        unlink(mpath);
    }
}

static void refusals(void)
{
    stencil_t s;
    /* a relation beyond the radius, seen in the file: refused before compiling, with the line */
    CHECK(load_src("wide", "#pragma pillar stencil(wide) in(in) out(out) radius(1)\n"
                           "#pragma pillar body\nT a = LD(in, C);\nST(out, a + LD(in, WW));\n",
                   0, &s) != 0 && strstr(msg, "<string wide>:4:") && strstr(msg, "radius(1)"),
          "radius check: %s", msg);
    /* the same hidden in a header's macro: the compile-time check of every NB(R) */
    CHECK(load_src("hidden", "#pragma pillar stencil(hidden) in(in) out(out) radius(1)\n"
                             "#include \"stencils/laplap.h\"\n#pragma pillar body\nLAPLAP_BODY();\n",
                   0, &s) != 0 && strstr(msg, "READS_BEYOND_THE_DECLARED_RADIUS"),
          "hidden radius check: %s", msg);
    CHECK(load_src("st", "#pragma pillar stencil(st) in(in) out(out)\n#pragma pillar body\n"
                         "ST(in, LD(in, C));\n", 0, &s) != 0 && strstr(msg, "stores into input"),
          "store into input: %s", msg);
    CHECK(load_src("ldz", "#pragma pillar stencil(ldz) in(in) out(out) zradius(1)\n#pragma pillar body\n"
                          "ST(out, LDZ(in, C, 2));\n", 0, &s) != 0 && strstr(msg, "zradius(1)"),
          "LDZ check: %s", msg);
    CHECK(load_src("noout", "#pragma pillar stencil(noout) in(in)\n#pragma pillar body\n;\n", 0, &s) != 0 &&
              strstr(msg, "out(...)"), "missing out: %s", msg);
    CHECK(load_src("lap", "#pragma pillar stencil(lap) in(in) out(out)\n#pragma pillar body\n;\n", 0, &s) != 0 &&
              strstr(msg, "built-in"), "built-in name: %s", msg);
    CHECK(load_src("typo", "#pragma pillar stencil(typo) in(in) out(out) radus(1)\n#pragma pillar body\n;\n", 0, &s) != 0 &&
              strstr(msg, "unknown clause 'radus'"), "unknown clause: %s", msg);
    /* mesh coefficients: graph stencils without iterated runs only, and only when declared */
    CHECK(load_src("geoq", "#pragma pillar stencil(geoq) in(in) out(out) geometry\n"
                           "#pragma pillar body\nST(out, LD(in, C));\n", 0, &s) != 0 &&
              strstr(msg, "kind(graph)"), "geometry on a quad stencil: %s", msg);
    CHECK(load_src("geoc", "#pragma pillar stencil(geoc) kind(graph) in(in) out(out) geometry\n"
                           "#pragma pillar carry(in <- out)\n#pragma pillar body\nGST(out, c, GLD(in, c));\n",
                   0, &s) != 0 && strstr(msg, "no iterated runs"), "geometry with carry: %s", msg);
    CHECK(load_src("geou", "#pragma pillar stencil(geou) kind(graph) in(in) out(out)\n"
                           "#pragma pillar body\nGST(out, c, GLD(in, c) * GAREA(c));\n", 0, &s) != 0 &&
              strstr(msg, "needs_pragma_pillar_geometry"), "GAREA undeclared: %s", msg);
    CHECK(load_src("coeu", "#pragma pillar stencil(coeu) kind(graph) in(in) out(out)\n"
                           "#pragma pillar body\nGST(out, c, GLD(in, c) * GCOEF(0, c));\n", 0, &s) != 0 &&
              strstr(msg, "needs_pragma_pillar_coeffs"), "GCOEF undeclared: %s", msg);
    /* coeffs(NAME): a built-in stencil that has coefficients, on a graph stencil */
    CHECK(load_src("coeg", "#pragma pillar stencil(coeg) kind(graph) in(in) out(out) coeffs(graphlap)\n"
                           "#pragma pillar body\nGST(out, c, GLD(in, c));\n", 0, &s) != 0 &&
              strstr(msg, "coeffs(graphlap)") && strstr(msg, "has coefficients"),
          "coeffs of a stencil without: %s", msg);
    CHECK(load_src("coen", "#pragma pillar stencil(coen) kind(graph) in(in) out(out) coeffs(nosuch)\n"
                           "#pragma pillar body\nGST(out, c, GLD(in, c));\n", 0, &s) != 0 &&
              strstr(msg, "coeffs(nosuch)"), "coeffs of an unknown stencil: %s", msg);
    CHECK(load_src("coeq", "#pragma pillar stencil(coeq) in(in) out(out) coeffs(fluxdiff)\n"
                           "#pragma pillar body\nST(out, LD(in, C));\n", 0, &s) != 0 &&
              strstr(msg, "coeffs") && strstr(msg, "kind(graph)"), "coeffs on a quad stencil: %s", msg);
    /* a compile error: the compiler names the user's file and line */
    CHECK(load_src("syntax", "/* line 1 */\n#pragma pillar stencil(syntax) in(in) out(out)\n"
                             "#pragma pillar body\nT a = LD(in, C);\n\nST(out, a +* );\n", 0, &s) != 0 &&
              strstr(msg, "<string syntax>:6:"), "compile error line: %s", msg);
    /* checked mode: a level offset no static check can see */
    const char *z = "#pragma pillar stencil(zfar) in(in) out(out) ztop(2) zradius(1)\n"
                    "#pragma pillar body\nint d = 1 + (K >= 0);\nST(out, LDZ(in, C, d));\n";
    CHECK(load_src("zfar", z, 1, &s) == 0, "zfar: %s", msg);
    if (stencil_is_user(s)) {
        problem_spec ps = {s, PREC_DOUBLE, 12, 12, 6, 1, LAYOUT_ROWMAJOR, 8, 1, 1, 0};
        problem pb;
        if (problem_make(&pb, &ps) == 0) {
            fieldset o = runner_outputs(&pb, 1);
            cpu_run_unstructured(&pb, o);
            long n = jit_violations(s, msg, sizeof msg);
            CHECK(n > 0 && strstr(msg, "zradius(1)"), "checked LDZ: %ld (%s)", n, msg);
            runner_free_outputs(&pb, &o);
            problem_free(&pb);
        }
    }
    /* no compiler */
    const char *cc = getenv("CC");
    char keep[256] = "";
    if (cc)
        snprintf(keep, sizeof keep, "%s", cc);
    setenv("CC", "/nonexistent/cc", 1);
    CHECK(load_src("nocc", "#pragma pillar stencil(nocc) in(in) out(out)\n#pragma pillar body\n"
                           "ST(out, LD(in, C) + (T)0.25);\n", 0, &s) != 0 &&
              strstr(msg, "no C compiler"), "no compiler: %s", msg);
    if (cc)
        setenv("CC", keep, 1);
    else
        unsetenv("CC");
}

static void cache_and_api(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/docs/examples/lap5.c", PILLAR_SOURCE_DIR);
    stencil_t a, b;
    CHECK(jit_load_file(path, NULL, &a) == 0 && jit_load_file(path, NULL, &b) == 0 && a == b,
          "the same file twice is one stencil");
    /* the library: lap5 from a string == the built-in lap on a 9x7 lattice */
    enum { NX = 9, NY = 7, NZ = 3, N = NX * NY };
    int nbr[4 * N];
    for (int y = 0; y < NY; y++)
        for (int x = 0; x < NX; x++) {
            int c = y * NX + x;
            nbr[4 * c] = x > 0 ? c - 1 : -1;
            nbr[4 * c + 1] = x < NX - 1 ? c + 1 : -1;
            nbr[4 * c + 2] = y > 0 ? c - NX : -1;
            nbr[4 * c + 3] = y < NY - 1 ? c + NX : -1;
        }
    double in[NZ * N], out[2][NZ * N];
    for (int i = 0; i < NZ * N; i++)
        in[i] = sin(0.37 * i) + 0.1 * i;
    FILE *f = fopen(path, "r");
    static char src[8192];
    size_t n = f ? fread(src, 1, sizeof src - 1, f) : 0;
    if (f)
        fclose(f);
    src[n] = 0;
    for (int k = 0; k < 2; k++) {
        pillar_ctx *ctx;
        pillar_create(&ctx);
        pillar_status st = k ? pillar_set_stencil_source(ctx, "lap5", src)
                             : pillar_set_option(ctx, "stencil", "lap");
        CHECK(st == PILLAR_OK, "api stencil %d: %s", k, pillar_last_error(ctx));
        pillar_set_option(ctx, "backend", "cpu");
        st = pillar_grid_quad(ctx, N, NZ, nbr);
        if (st == PILLAR_OK)
            st = pillar_setup(ctx);
        if (st == PILLAR_OK)
            st = pillar_set_field(ctx, "in", in, NZ * N);
        if (st == PILLAR_OK)
            st = pillar_step(ctx, 4);
        if (st == PILLAR_OK)
            st = pillar_get_field(ctx, "in", out[k], NZ * N);
        CHECK(st == PILLAR_OK, "api run %d: %s", k, pillar_last_error(ctx));
        pillar_destroy(ctx);
    }
    CHECK(memcmp(out[0], out[1], sizeof out[0]) == 0, "api: lap5 from a string != built-in lap");
    pillar_ctx *ctx;
    pillar_create(&ctx);
    CHECK(pillar_set_stencil_source(ctx, "bad", "#pragma pillar stencil(bad)\n") == PILLAR_ERR_ARG &&
              strstr(pillar_last_error(ctx), "<string bad>"), "api bad source: %s", pillar_last_error(ctx));
    CHECK(pillar_set_stencil_file(ctx, "/nonexistent/stencil.c") == PILLAR_ERR_ARG, "api missing file");
    pillar_destroy(ctx);
}

int main(void)
{
    char dir[] = "/tmp/pillar-own-cache-XXXXXX";
    if (!getenv("PILLAR_CACHE_DIR") && mkdtemp(dir))
        setenv("PILLAR_CACHE_DIR", dir, 1);
    lap5_exact();
    upwind_reference();
    same_as_builtin(ST_LAP, "tests/own/lap.c");
    same_as_builtin(ST_LAPLAP, "tests/own/laplap.c");
    same_as_builtin(ST_HDIFF, "tests/own/hdiff.c");
    same_as_builtin(ST_FASTWAVES, "tests/own/fastwaves.c");
    graph_files();
    graph_storages_twins();
    refusals();
    cache_and_api();
    return check_done("own");
}
