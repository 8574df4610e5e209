/* GPU engine: every W/E/S/N stencil x access x {regular; unstructured x chasing/non-chasing x
 * uncompressed/compressed x layout} x precision matches the CPU reference within the
 * tolerances of docs/verification.md, on small odd sizes with several block shapes and on
 * 512x512x64; graphlap on generated hexagon, triangle and quad meshes likewise; laplap and hdiff
 * on quad meshes whose labels turn (cubed spheres, rotated, a scrambled patch) bit for bit the
 * CPU's. Outputs are poisoned on the device
 * before each run. Exits 77 (skipped) without a CUDA device.
 * usage: test_gpu [--small]   (--small leaves out 512x512x64) */
#include "check.h"
#include "access/launch.h"
#include "src/exec/cpu_exec.h"
#include "src/exec/gpu.h"
#include "src/io/mesh_io.h"
#include "src/exec/verify.h"
#include "quad_meshes.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    long runs, pass, exact;
    double max_err;
} tally;

static tally tallies[ST_COUNT][2];

/* One timed launch, fetched and compared with the CPU reference; tallied and checked. */
static void check_one(gpu_ctx *c, problem *pb, fieldset ref, fieldset out, int uns, access_t a,
                      const int shape[3], int cst, int aos)
{
    timing t;
    int rc = gpu_time(c, a, shape[0], shape[1], shape[2], 5, cst, 1, &t);
    CHECK(rc == 0, "launch failed");
    gpu_fetch(c, out);
    /* a mesh without a regular twin: ref is the CPU's unstructured run, and must match exactly */
    int exact = !problem_has_regular(pb);
    verify_result r = exact ? verify_compare_cells(pb, out, ref) : verify_compare(pb, out, uns, ref, 0);
    int ok = verify_ok(pb, &r, exact);
    tally *ty = &tallies[pb->s.stencil][pb->s.prec];
    ty->runs++;
    ty->pass += ok;
    ty->exact += ok && r.differ == 0;
    if (r.max_err > ty->max_err)
        ty->max_err = r.max_err;
    char line[256];
    verify_describe(pb, &r, exact, line, sizeof line);
    CHECK(ok, "%s %s %dx%dx%d %s %s%s%s%saccess %s threads %dx%dx%d: %s",
          stencil_table[pb->s.stencil].name, prec_name(pb->s.prec), pb->s.nx, pb->s.ny, pb->s.nz,
          pb->mesh_path ? pb->mesh.kind : uns ? layout_name[pb->s.layout] : "regular",
          uns ? (pb->s.chasing ? "chasing " : "nonchasing ") : "",
          uns ? (pb->s.compressed ? "compressed " : "uncompressed ") : "",
          cst == 1 ? "constant-tables " : cst == 2 ? "packed-rows " : "", aos ? "aos " : "", access_name[a], shape[0], shape[1],
          shape[2], line);
    /* the regular-twin candidates pairs and zloop-plain promise the CPU's result
     * bit for bit everywhere (the same operations in the same order; pairs loads a value as half
     * of its aligned pair) */
    int promised = a == ACC_PAIRS || a == ACC_ZLOOP_PLAIN;
    CHECK(!promised || r.differ == 0, "%s %s %s %dx%dx%d %s threads %dx%dx%d: %ld "
          "values differ from the CPU's", access_name[a], stencil_table[pb->s.stencil].name, prec_name(pb->s.prec),
          pb->s.nx, pb->s.ny, pb->s.nz, uns ? layout_name[pb->s.layout] : "regular", shape[0],
          shape[1], shape[2], (long)r.differ);
}

static void run_all(problem *pb, fieldset ref, int uns, int big)
{
    gpu_ctx *c = gpu_open(pb, uns, 0);
    fieldset out = runner_outputs(pb, uns);
    for (int a = 0; a < ACC_COUNT; a++) {
        if (!gpu_supports((access_t)a, pb->s.stencil))
            continue;
        int shapes[3][3], ns = 0;
        gpu_default_shape((access_t)a, uns, &shapes[0][0], &shapes[0][1], &shapes[0][2]);
        ns = 1;
        if (!big) { /* shapes that do not divide the grid, and other splits */
            int alt[2][3] = {{64, 2, 1}, {8, 2, 16}};
            if (a == ACC_STAGED) { /* odd block sizes: partial blocks and halo lists */
                alt[0][0] = uns ? 96 : 16; alt[0][1] = uns ? 1 : 16; alt[0][2] = 1;
                alt[1][0] = uns ? 32 : 64; alt[1][1] = uns ? 1 : 2; alt[1][2] = 1;
            }
            if (a == ACC_TWOPASS && uns) { /* partial blocks, level groups that do not divide
                                            * the levels, rings beyond the registers (32 cells) */
                alt[0][0] = 96; alt[0][1] = 1; alt[0][2] = 3;
                alt[1][0] = 32; alt[1][1] = 1; alt[1][2] = 8;
            }
            for (int k = 0; k < 2; k++) {
                char why[160];
                if (gpu_shape_ok((access_t)a, uns, alt[k][0], alt[k][1], alt[k][2], why, sizeof why))
                    memcpy(shapes[ns++], alt[k], sizeof alt[k]);
            }
        }
        int ntables = uns && pb->s.compressed && a != ACC_STAGED ? 3 : 1; /* tables_t */
        for (int s = 0; s < ns * ntables; s++)
            check_one(c, pb, ref, out, uns, (access_t)a, shapes[s % ns], s / ns, 0);
    }
    gpu_close(c);
    if (pb->s.stencil == ST_FASTWAVES) { /* the array-of-structs variant */
        gpu_ctx *ca = gpu_open(pb, uns, 1);
        int shape[3];
        gpu_default_shape(ACC_IDXVAR, uns, &shape[0], &shape[1], &shape[2]);
        check_one(ca, pb, ref, out, uns, ACC_IDXVAR, shape, 0, 1);
        if (uns && pb->s.compressed) {
            check_one(ca, pb, ref, out, uns, ACC_IDXVAR, shape, 1, 1);
            check_one(ca, pb, ref, out, uns, ACC_IDXVAR, shape, 2, 1);
        }
        gpu_close(ca);
    }
    runner_free_outputs(pb, &out);
}

/* graphlap on generated meshes (bounded hexagons, periodic triangles, a quad patch), in file and
 * METIS order, against the CPU graph executor, with several block shapes. */
static void check_graphlap(void)
{
    char dir[] = "/tmp/pillar-test-gpu-XXXXXX", path[64];
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp");
        return;
    }
    snprintf(path, sizeof path, "%s/m.h5", dir);
    const mesh_gen_spec specs[] = {
        {MESH_HEXAGONS, 37, 29, 0, 7, 0, 1, 0, 0},
        {MESH_TRIANGLES, 23, 18, 0, 5, 0, 1, 1, 0},
        {MESH_REGULAR, 41, 27, 0, 6, 0, 1, 0, 0},
    };
    const int shapes[3][3] = {{32, 4, 2}, {64, 2, 1}, {8, 2, 16}};
    for (size_t m = 0; m < sizeof specs / sizeof specs[0]; m++) {
        mesh mh;
        CHECK(mesh_generate(&mh, &specs[m]) == 0 && mesh_write(path, &mh) == 0, "mesh %zu", m);
        mesh_free(&mh);
        for (int prec = 0; prec < 2; prec++)
            for (int metis = 0; metis < 2; metis++) {
                problem_spec s = {ST_GRAPHLAP, (precision_t)prec, 0, 0, 0, 2, LAYOUT_ROWMAJOR, 16, 5,
                                  1, 0};
                problem pb;
                if (problem_make_mesh(&pb, &s, path, metis) != 0) {
                    CHECK(0, "graphlap problem on mesh %zu", m);
                    continue;
                }
                fieldset ref = runner_outputs(&pb, 1), out = runner_outputs(&pb, 1);
                cpu_run_unstructured(&pb, ref);
                gpu_ctx *c = gpu_open(&pb, 1, 0);
                for (int k = 0; k < 3; k++) {
                    timing t;
                    CHECK(gpu_time(c, ACC_IDXVAR, shapes[k][0], shapes[k][1], shapes[k][2], 0,
                                   TABLES_GLOBAL, 1, &t) == 0, "graphlap launch");
                    gpu_fetch(c, out);
                    verify_result r = verify_compare_cells(&pb, out, ref);
                    tally *ty = &tallies[ST_GRAPHLAP][prec];
                    int ok = verify_ok(&pb, &r, 0);
                    ty->runs++;
                    ty->pass += ok;
                    ty->exact += ok && r.differ == 0;
                    ty->max_err = r.max_err > ty->max_err ? r.max_err : ty->max_err;
                    char line[256];
                    verify_describe(&pb, &r, 0, line, sizeof line);
                    CHECK(ok, "graphlap %s on %s%s, threads %dx%dx%d: %s", prec_name(s.prec),
                          mesh_kind_name[specs[m].kind], metis ? " (metis)" : "", shapes[k][0],
                          shapes[k][1], shapes[k][2], line);
                }
                gpu_close(c);
                runner_free_outputs(&pb, &out);
                runner_free_outputs(&pb, &ref);
                problem_free(&pb);
            }
    }
    unlink(path);
    rmdir(dir);
}

/* laplap and hdiff on the quad meshes whose labels turn (tests/quad_meshes.h: cubed spheres,
 * rotated, a scrambled patch), in file and METIS order, every storage and precision, every
 * strategy and table variant with several block shapes: bit for bit the CPU executor's result
 * (which tests/test_quad.c checks against graphlap and an edge-based hdiff). */
static void check_quad_meshes(void)
{
    char dir[] = "/tmp/pillar-test-gpu-XXXXXX", path[64];
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp");
        return;
    }
    snprintf(path, sizeof path, "%s/q.h5", dir);
    for (int k = 0; k < NQUAD_CASES; k++) {
        mesh mh;
        CHECK(quad_case_make(&quad_cases[k], &mh) == 0 && mesh_write(path, &mh) == 0, "%s",
              quad_cases[k].name);
        mesh_free(&mh);
        for (int st = 0; st < ST_QUAD_COUNT; st++) /* framed stencils are refused there */
            for (int prec = 0; prec < 2 && !stencil_table[st].framed; prec++)
                for (int v = 0; v < 8; v++) { /* storage (v & 3) x file / METIS order (v >> 2) */
                    problem_spec s = {(stencil_t)st, (precision_t)prec, 0, 0, 0, 2,
                                      LAYOUT_ROWMAJOR, 16, 9, (v >> 1) & 1, v & 1};
                    problem pb;
                    if (problem_make_mesh(&pb, &s, path, (mesh_order_t)(v >> 2)) != 0) {
                        CHECK(0, "%s: problem", quad_cases[k].name);
                        continue;
                    }
                    fieldset ref = runner_outputs(&pb, 1);
                    cpu_run_unstructured(&pb, ref);
                    run_all(&pb, ref, 1, 0);
                    runner_free_outputs(&pb, &ref);
                    problem_free(&pb);
                }
        fprintf(stderr, "  %s done\n", quad_cases[k].name);
    }
    unlink(path);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    char why[256];
    if (!gpu_probe(why, sizeof why)) {
        printf("SKIP: no CUDA device (%s)\n", why);
        return 77;
    }
    printf("device: %s\n", why);
    int small_only = argc > 1 && !strcmp(argv[1], "--small");
    const int sizes[][3] = {{40, 36, 12}, {23, 29, 13}, {512, 512, 64}};
    int nsizes = small_only ? 2 : 3;
    for (int sz = 0; sz < nsizes; sz++)
        for (int st = 0; st < ST_QUAD_COUNT; st++)
            for (int prec = 0; prec < 2; prec++) {
                int big = sz == 2;
                problem_spec s = {(stencil_t)st, (precision_t)prec, sizes[sz][0], sizes[sz][1],
                                  sizes[sz][2], 2, LAYOUT_ROWMAJOR, 32, 3 + (uint64_t)sz, 1, 0};
                problem pb;
                if (problem_make(&pb, &s) != 0)
                    return 1;
                fieldset ref = runner_outputs(&pb, 0);
                cpu_run_regular(&pb, ref);
                run_all(&pb, ref, 0, big);
                for (int lay = 0; lay < LAYOUT_COUNT; lay++)
                    for (int storage = 0; storage < 4; storage++) {
                        problem_relayout(&pb, (layout_t)lay, big ? 32 : 8, storage >> 1, storage & 1);
                        run_all(&pb, ref, 1, big);
                    }
                runner_free_outputs(&pb, &ref);
                problem_free(&pb);
                fprintf(stderr, "  %dx%dx%d %s %s done\n", s.nx, s.ny, s.nz, stencil_table[st].name,
                        prec_name(s.prec));
            }
    check_graphlap();
    check_quad_meshes();
    printf("\n%-10s %-7s %6s %6s %10s %12s\n", "stencil", "type", "runs", "pass", "bit-exact", "max error");
    for (int st = 0; st < ST_COUNT; st++)
        for (int prec = 0; prec < 2; prec++) {
            tally *t = &tallies[st][prec];
            printf("%-10s %-7s %6ld %6ld %10ld %12.3g\n", stencil_table[st].name,
                   prec_name((precision_t)prec), t->runs, t->pass, t->exact, t->max_err);
        }
    return check_done("test_gpu");
}
