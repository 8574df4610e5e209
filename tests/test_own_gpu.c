/* Stencil files of your own on the GPU (src/jit/gpu.c).
 *   test_own_gpu --compile   NVRTC compiles every strategy's kernels of every example and of the
 *                            built-in bodies as files, for sm_90, without a device (label cpu;
 *                            77 when pillar was built without NVRTC)
 *   test_own_gpu             on a device (label gpu; 77 without one): each stencil file x every
 *                            access strategy but staged and twopass x precision x {regular; chasing /
 *                            non-chasing x uncompressed / compressed, and compressed with
 *                            --constant-tables and --packed-rows} equals the CPU bit for bit;
 *                            the built-in bodies as files equal the compiled-in kernels; the
 *                            graph files on a hexagon mesh likewise: every strategy but staged
 *                            x every offset-table storage, and the lattice twin; graph files
 *                            with carry iterated in core (the list kernel, access/graph.cu)
 *                            equal the CPU's iteration. */
#define _GNU_SOURCE /* memmem */
#include "check.h"
#include "own_load.h"
#include "access/launch.h"
#include "src/exec/cpu_exec.h"
#include "src/exec/iterate.h"
#include "src/exec/runner.h"
#include "src/plan/ooc_gpu.h"
#include "src/io/mesh_io.h"
#include "src/jit/jit.h"
#ifdef PILLAR_HAVE_CUDA
#include "src/exec/gpu.h"
#endif

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const files[] = {"docs/examples/lap5.c", "docs/examples/upwind.c",
                                    "tests/own/lap.c", "tests/own/laplap.c", "tests/own/hdiff.c",
                                    "tests/own/fastwaves.c", "docs/examples/divergence.c",
                                    "tests/own/graphlap.c", "tests/own/fluxdiff.c",
                                    "tests/own/ring2.c", "tests/own/fluxdiff_coeffs.c"};
enum { NFILES = sizeof files / sizeof files[0] };


/* The cubins in the cache that name graph kernels of a stencil file (kg_USER_*): how many name
 * all twelve (two precisions x four offset-table storages and two lattice twins); *partial
 * counts those that name some only. */
static int graph_cubins(int *partial)
{
    static const char *const col[6] = {"00", "01", "10", "11", "hex", "tri"};
    const char *dir = getenv("PILLAR_CACHE_DIR");
    DIR *d = dir ? opendir(dir) : NULL;
    int whole = 0;
    *partial = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "gpu-", 4) || len < 6 || strcmp(e->d_name + len - 6, ".cubin"))
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        static char buf[16 << 20];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        int named = 0;
        for (int p = 0; p < 2; p++)
            for (int c = 0; c < 6; c++) {
                char name[64];
                snprintf(name, sizeof name, "kg_USER_%s_%s", p ? "float" : "double", col[c]);
                named += memmem(buf, n, name, strlen(name) + 1) != NULL;
            }
        whole += named == 12;
        *partial += named > 0 && named < 12;
    }
    if (d)
        closedir(d);
    return whole;
}

static int compile_only(void)
{
    if (!jit_have_nvrtc()) {
        printf("own_gpu --compile: skipped, built without NVRTC\n");
        return 77;
    }
    for (int i = 0; i < NFILES; i++) {
        stencil_t s = own_load(files[i]);
        if ((int)s < 0)
            continue;
        char msg[8192];
        perr_capture(msg, sizeof msg);
        int rc = jit_gpu_compile_all(s, "sm_90");
        perr_capture(NULL, 0);
        CHECK(rc == 0, "%s: %s", files[i], msg);
        if (rc == 0)
            printf("%s: every strategy compiled by NVRTC for sm_90\n", files[i]);
    }
    /* each graph file: the table and lattice kernels of naive, idxvar, shared, shared-warp and
     * zloop (zloop-sliced shares zloop's module) */
    int ngraph = 0, partial;
    for (int i = 0; i < NFILES; i++)
        ngraph += strstr(files[i], "divergence") || strstr(files[i], "graphlap") ||
                  strstr(files[i], "fluxdiff") || strstr(files[i], "ring2");
    int whole = graph_cubins(&partial);
    CHECK(whole >= 5 * ngraph && partial == 0, "graph kernels in the cubins: %d modules name all "
          "twelve (want %d), %d name some only", whole, 5 * ngraph, partial);
    return check_done("own_gpu --compile");
}

#ifdef PILLAR_HAVE_CUDA
static long tally_runs;

/* One stencil on one problem: every strategy and table variant on the GPU == the CPU. */
static void every_strategy(problem *pb, stencil_t builtin)
{
    int graph = stencil_table[pb->s.stencil].graph;
    for (int uns = 0; uns < 2; uns++) {
        if (!uns && !problem_has_regular(pb) && !problem_has_lattice(pb))
            continue;
        fieldset ref = runner_outputs(pb, uns), out = runner_outputs(pb, uns);
        if (uns)
            cpu_run_unstructured(pb, ref);
        else
            cpu_run_regular(pb, ref);
        gpu_ctx *c = gpu_open(pb, uns, 0);
        for (int a = 0; a < ACC_COUNT; a++) {
            if (!gpu_supports((access_t)a, pb->s.stencil))
                continue;
            for (int tables = 0; tables < (uns && pb->s.compressed && !graph ? 3 : 1); tables++) {
                int bx, by, bz;
                gpu_default_shape((access_t)a, uns, &bx, &by, &bz);
                timing t;
                char msg[4096];
                perr_capture(msg, sizeof msg);
                int rc = gpu_time(c, (access_t)a, bx, by, bz, 3, tables, 1, &t);
                perr_capture(NULL, 0);
                CHECK(rc == 0, "%s %s: %s", stencil_table[pb->s.stencil].name, access_name[a], msg);
                if (rc != 0)
                    continue;
                gpu_fetch(c, out);
                long bad = 0;
                size_t len = uns ? pb->ug.len : pb->twin->rg.len;
                for (int f = stencil_table[pb->s.stencil].nin; f < pb->nf; f++)
                    for (size_t i = 0; i < len; i++)
                        bad += !field_same_bits(pb->s.prec, ref.p[f], i, out.p[f], i);
                CHECK(bad == 0, "%s %s %s %s tables %d storage %d%d: %ld points differ from the CPU",
                      stencil_table[pb->s.stencil].name, prec_name(pb->s.prec), access_name[a],
                      uns ? "uns" : "reg", tables, pb->s.chasing, pb->s.compressed, bad);
                tally_runs++;
            }
        }
        gpu_close(c);
        runner_free_outputs(pb, &out);
        runner_free_outputs(pb, &ref);
    }
    (void)builtin;
    /* a graph file with carry, iterated in core on the GPU (the list kernel) == the CPU */
    if (graph && stencil_table[pb->s.stencil].carry.n) {
        enum { STEPS = 3 };
        fieldset ref = iter_fields_copy(pb), st = iter_fields_copy(pb), spare = {{0}};
        iter_run_incore(pb, ref, STEPS);
        const iter_carry *c = iter_carried(pb->s.stencil);
        for (int j = 0; j < c->n; j++)
            spare.p[c->in[j]] = field_alloc(pb->s.prec, pb->ug.len);
        ooc_plan pl;
        ooc_kernel k = {ACC_IDXVAR, 0, 0, 0, 4, 0};
        ooc_timing t;
        char msg[4096];
        perr_capture(msg, sizeof msg);
        int rc = ooc_plan_incore(&pl, &pb->ug, pb->s.stencil, pb->s.prec, pb->s.chasing,
                                 pb->s.compressed, STEPS);
        if (rc == 0) {
            rc = ooc_gpu_run(&pl, &pb->ug, &st, &spare, STEPS, &k, &t);
            ooc_plan_free(&pl);
        }
        perr_capture(NULL, 0);
        CHECK(rc == 0, "%s iterated on the GPU: %s", stencil_table[pb->s.stencil].name, msg);
        if (rc == 0)
            CHECK(iter_state_differ(pb, st, ref, NULL) == 0, "%s %s iterated on the GPU != the CPU",
                  stencil_table[pb->s.stencil].name, prec_name(pb->s.prec));
        tally_runs++;
        for (int j = 0; j < c->n; j++)
            xfree(spare.p[c->in[j]]);
        iter_fields_free(pb, &st);
        iter_fields_free(pb, &ref);
    }
}

static int on_device(void)
{
    char why[256];
    if (!gpu_probe(why, sizeof why)) {
        printf("own_gpu: skipped, no CUDA device (%s)\n", why);
        return 77;
    }
    char mpath[] = "/tmp/pillar-own-gpu-XXXXXX";
    int fd = mkstemp(mpath);
    if (fd >= 0)
        close(fd);
    mesh_gen_spec gs = {0};
    gs.kind = MESH_HEXAGONS;
    gs.nx = 37;
    gs.ny = 29;
    gs.nlevels = 7;
    gs.seed = 3;
    mesh m;
    CHECK(mesh_generate(&m, &gs) == 0 && mesh_write(mpath, &m) == 0, "hexagon mesh");
    mesh_free(&m);
    for (int i = 0; i < NFILES; i++) {
        stencil_t s = own_load(files[i]);
        if ((int)s < 0)
            continue;
        for (int prec = 0; prec < 2; prec++)
            for (int st = 0; st < 4; st++) {
                problem_spec ps = {s, (precision_t)prec, 45, 39, 11, 2, LAYOUT_ZCURVE, 8, 7, st >> 1, st & 1};
                problem pb;
                int rc = stencil_table[s].graph ? problem_make_mesh(&pb, &ps, mpath, MESH_ORDER_METIS)
                                                : problem_make(&pb, &ps);
                CHECK(rc == 0, "problem %s", files[i]);
                if (rc != 0)
                    continue;
                every_strategy(&pb, s);
                problem_free(&pb);
            }
    }
    unlink(mpath);
    printf("own_gpu: %ld GPU runs of stencil files compared with the CPU\n", tally_runs);
    return check_done("own_gpu");
}
#endif

int main(int argc, char **argv)
{
    char dir[] = "/tmp/pillar-own-gpu-cache-XXXXXX";
    if (!getenv("PILLAR_CACHE_DIR") && mkdtemp(dir))
        setenv("PILLAR_CACHE_DIR", dir, 1);
    if (argc > 1 && !strcmp(argv[1], "--compile"))
        return compile_only();
#ifdef PILLAR_HAVE_CUDA
    return on_device();
#else
    printf("own_gpu: skipped, built without CUDA\n");
    return 77;
#endif
}
