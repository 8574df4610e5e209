/* GPU graph stencils (docs/access.md, "Graph stencils"): every access strategy (graph-twopass
 * included, with its smallest blocks and odd block sizes: many partial runs) x offset-table
 * storage (chasing / non-chasing x uncompressed / compressed) x precision, with the default and
 * two other block shapes, on bounded hexagons and triangles, periodic triangles and the refined
 * patch, in file and METIS order, equals the CPU's run on the neighbour lists bit for bit; on the
 * bounded lattices every strategy's regular twin (addressed by arithmetic) does too. Outputs are
 * poisoned on the device before each run. `--access NAME` runs that strategy alone (the
 * sanitizer runs of tools/gpu-check.sh). Exits 77 (skipped) without a CUDA device. */
#include "check.h"
#include "scratch.h"
#include "access/launch.h"
#include "src/exec/cpu_exec.h"
#include "src/exec/gpu.h"
#include "src/exec/verify.h"
#include "src/io/mesh_io.h"

#include <string.h>
#include <unistd.h>

static long runs, exact;
static int only = -1; /* --access NAME: that strategy alone (tools/gpu-check.sh's sanitizer runs) */

static void run_strategies(problem *pb, fieldset ref, int uns, const char *name)
{
    gpu_ctx *c = gpu_open(pb, uns, 0);
    fieldset out = runner_outputs(pb, uns);
    for (int a = 0; a < ACC_COUNT; a++) {
        if (only >= 0 && a != only)
            continue;
        if (!access_table[a].graph) { /* a W/E/S/N-only strategy (twopass) refuses graph stencils */
            CHECK(!gpu_supports((access_t)a, pb->s.stencil), "%s claims graph kernels it has not",
                  access_name[a]);
            continue;
        }
        CHECK(gpu_supports((access_t)a, pb->s.stencil), "%s has no graph kernels", access_name[a]);
        int shapes[3][3], ns = 1;
        gpu_default_shape((access_t)a, uns, &shapes[0][0], &shapes[0][1], &shapes[0][2]);
        int alt[2][3] = {{64, 2, 1}, {8, 2, 16}};
        if (a == ACC_STAGED) { /* partial blocks, halo lists of other lengths, lattice tiles */
            int st[2][3] = {{uns ? 96 : 16, uns ? 1 : 16, 1}, {uns ? 32 : 64, uns ? 1 : 2, 1}};
            memcpy(alt, st, sizeof alt);
        }
        if (a == ACC_GRAPH_TWOPASS) { /* blocks of the fewest threads, odd sizes, lattice tiles */
            int tp[2][3] = {{uns ? 32 : 16, uns ? 1 : 8, 1}, {uns ? 97 : 64, uns ? 1 : 2, 1}};
            memcpy(alt, tp, sizeof alt);
        }
        for (int k = 0; k < 2; k++) {
            char why[160];
            if (gpu_shape_ok((access_t)a, uns, alt[k][0], alt[k][1], alt[k][2], why, sizeof why))
                memcpy(shapes[ns++], alt[k], sizeof alt[k]);
        }
        for (int k = 0; k < ns; k++) {
            timing t;
            int rc = gpu_time(c, (access_t)a, shapes[k][0], shapes[k][1], shapes[k][2], 3,
                              TABLES_GLOBAL, 1, &t);
            CHECK(rc == 0, "launch failed");
            gpu_fetch(c, out);
            verify_result v = uns ? verify_compare_cells(pb, out, ref) : verify_compare(pb, out, 0, ref, 1);
            char line[256];
            verify_describe(pb, &v, 1, line, sizeof line);
            runs++;
            exact += verify_ok(pb, &v, 1);
            CHECK(verify_ok(pb, &v, 1), "%s %s on %s, %s order, %s, access %s threads %dx%dx%d: %s",
                  stencil_table[pb->s.stencil].name, prec_name(pb->s.prec), name,
                  mesh_order_name[pb->mesh_order],
                  !uns ? "lattice twin"
                       : pb->s.chasing ? (pb->s.compressed ? "chasing compressed" : "chasing")
                                       : (pb->s.compressed ? "nonchasing compressed" : "nonchasing"),
                  access_name[a], shapes[k][0], shapes[k][1], shapes[k][2], line);
        }
        /* the table variants of the W/E/S/N stencils are refused, never run silently */
        timing t;
        CHECK(!uns || gpu_time(c, (access_t)a, shapes[0][0], shapes[0][1], shapes[0][2], 3,
                               TABLES_ROWS, 1, &t) != 0, "--packed-rows accepted for a graph stencil");
    }
    runner_free_outputs(pb, &out);
    gpu_close(c);
}

int main(int argc, char **argv)
{
    char why[256];
    if (argc == 3 && strcmp(argv[1], "--access") == 0) {
        access_t a;
        if (access_parse(argv[2], &a) != 0) {
            fprintf(stderr, "test_gpu_graph: no access strategy %s\n", argv[2]);
            return 2;
        }
        only = (int)a;
    } else if (argc != 1) {
        fprintf(stderr, "usage: test_gpu_graph [--access NAME]\n");
        return 2;
    }
    if (!gpu_probe(why, sizeof why)) {
        printf("test_gpu_graph: skipped: %s\n", why);
        return 77;
    }
    if (scratch_open("gpu-graph", NULL) != 0)
        return 1;
    const mesh_gen_spec specs[] = {{MESH_HEXAGONS, 37, 21, 0, 5, 0, 1, 0, 0},
                                   {MESH_TRIANGLES, 23, 17, 0, 5, 0, 1, 0, 0},
                                   {MESH_TRIANGLES, 16, 12, 0, 4, 0, 1, 1, 0},
                                   {MESH_REFINED, 27, 25, 0, 4, 0, 1, 0, 9}};
    for (size_t m = 0; m < sizeof specs / sizeof specs[0]; m++) {
        const char *path = tmpname("mesh.h5");
        mesh mh;
        CHECK(mesh_generate(&mh, &specs[m]) == 0 && mesh_write(path, &mh) == 0, "mesh %zu", m);
        mesh_free(&mh);
        char name[64];
        snprintf(name, sizeof name, "%s%s", mesh_kind_name[specs[m].kind],
                 specs[m].periodic ? " (periodic)" : "");
        for (int st = ST_QUAD_COUNT; st < ST_COUNT; st++)
            for (int o = 0; o < 2; o++)
                for (int v = 0; v < 8; v++) {
                    problem_spec s = {(stencil_t)st, (precision_t)(v & 1), 0, 0, 0, 2, LAYOUT_ROWMAJOR,
                                      40, 42, (v >> 1) & 1, (v >> 2) & 1};
                    problem pb;
                    if (problem_make_mesh(&pb, &s, path, o ? MESH_ORDER_METIS : MESH_ORDER_FILE) != 0) {
                        CHECK(0, "problem on %s", name);
                        continue;
                    }
                    fieldset ref = runner_outputs(&pb, 1);
                    cpu_run_unstructured(&pb, ref);
                    run_strategies(&pb, ref, 1, name);
                    if (problem_has_lattice(&pb) && o == 0 && v < 2)
                        run_strategies(&pb, ref, 0, name);
                    runner_free_outputs(&pb, &ref);
                    problem_free(&pb);
                }
        unlink(path);
    }
    printf("test_gpu_graph: %ld GPU runs, %ld bit-exact\n", runs, exact);
    rmdir(dir);
    return check_done("test_gpu_graph");
}
