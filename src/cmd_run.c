/* cmd_run.c — `pillar run`: one stencil with one layout/storage/access, timed and verified. */
#include "commands.h"
#include "cpu_exec.h"
#include "field_io.h"
#include "runner.h"
#include "verify.h"

#include <stdio.h>
#include <string.h>

static const char run_help[] =
    "usage: pillar run [flags]\n"
    "\n"
    "Runs one stencil on an unstructured grid (or its regular twin), times it and verifies the\n"
    "output: on the CPU backend bit for bit against the regular grid, on the GPU against the CPU\n"
    "reference (max error within 1e-12 double / 1e-5 float, bit-exact where the arithmetic is).\n"
    "\n"
    "  --stencil S        laplap | hdiff | fastwaves | graphlap               (laplap)\n"
    "                     graphlap (graph Laplacian twice, any number of neighbours per\n"
    "                     cell) runs on mesh files only, quad or general; the others need\n"
    "                     W/E/S/N relations (a quad mesh or the built-in grid)\n"
    "  --size NXxNYxNZ    grid cells, the halo of 2 on each side included    (64x64x16)\n"
    "  --precision P      double | float                                      (double)\n"
    "  --layout L         cell order: rowmajor | zcurve | zcurve-w | random   (zcurve)\n"
    "                     (with --mesh: file | metis | zcurve, see --mesh)\n"
    "  --zcurve-w W       run width of zcurve-w, a power of two               (32)\n"
    "  --seed N           seed of the random layout and of the input data     (42)\n"
    "  --storage S        chasing (4 relations) | nonchasing (20 relations)   (chasing)\n"
    "  --compress         compress the neighbour table into patterns\n"
    "  --grid G           unstructured | regular (the baseline twin)          (unstructured)\n"
    "  --access A         GPU strategy: naive | idxvar | shared | shared-warp | zloop |\n"
    "                     zloop-sliced                                        (idxvar)\n"
    "  --threads BXxBYxBZ GPU block shape                          (per-strategy default)\n"
    "  --zslice M         levels per thread of zloop-sliced                   (8)\n"
    "  --constant-tables  GPU: compressed tables in __constant__ memory\n"
    "  --packed-rows      GPU: compressed tables as one 16-byte-aligned row of offsets per\n"
    "                     pattern, read with vector loads\n"
    "  --aos              GPU fastwaves with --access idxvar: fields as one array of\n"
    "                     structs (for comparison with the struct-of-arrays default)\n"
    "  --runs N           timed runs; the median is reported                  (10)\n"
    "  --backend B        auto | cpu | gpu                                    (auto)\n"
    "  --mesh FILE        run on the cells of a mesh file (docs/mesh-format.md; 'pillar mesh'):\n"
    "                     halo = cells lacking a neighbour within the stencil's radius, levels\n"
    "                     from the file, --size not used; --layout file (the file's order,\n"
    "                     default), metis (METIS parts of about --zcurve-w W cells, or the\n"
    "                     partition stored by 'pillar mesh partition') or zcurve (a Morton\n"
    "                     curve of the cells' /coordinates; on a sphere face by face of the\n"
    "                     cube around it). Halo cells first in each. Verified against the\n"
    "                     regular grid when the mesh is a regular patch (/patch_xy), else\n"
    "                     against the CPU unstructured executor on the same cells (always\n"
    "                     so for graphlap, whose GPU kernel is one thread per cell and level)\n"
    "  --input FILE       initial values of the stencil's input fields from a field file\n"
    "                     (docs/field-format.md): one dataset per input field, named after it\n"
    "                     (in, coeff, u_pos, ...), shape [nz][ncells] in the user's cell order\n"
    "                     (y*nx + x over the whole grid, or the mesh file's rows); all input\n"
    "                     fields must be there, float or double, finite\n"
    "  --output FILE      after a verified run, write the output fields (out, u_out, v_out)\n"
    "                     there in the same format, NaN where nothing is computed (halo, top\n"
    "                     levels); the file appears whole or not at all\n"
    "  --output-inputs    write the input fields into the --output FILE too (it can then be\n"
    "                     given back as --input)\n"
    "\n"
    "Iterated runs (docs/out-of-core.md): the output becomes the next input (laplap:\n"
    "in -= laplap(in)/64, hdiff: in = out, fastwaves: u_pos, v_pos = u_out, v_out); verified\n"
    "bit for bit against the CPU in-core iteration (on sampled chunks for grids too large for a\n"
    "CPU reference):\n"
    "  --steps T          time steps                                          (1)\n"
    "  --out-of-core M    auto | on | off: stream chunks of Z-pillars through the device;\n"
    "                     auto streams only when the fields do not fit --device-mem  (auto)\n"
    "  --device-mem SIZE  device bytes the run may use, e.g. 4G or 512M (GPU: the free\n"
    "                     memory; the CPU backend runs the same chunking under this budget)\n"
    "  --fuse F           steps per transfer: a chunk carries a halo of radius*F and computes\n"
    "                     F steps on a shrinking region (GPU default: a model of link, device\n"
    "                     bandwidth and memory doubles F from 1 (or K) while the time per step it\n"
    "                     predicts falls by 5%, up to 32; in core: all steps)\n"
    "                     (not for graphlap yet)\n"
    "  --kernel-steps K   laplap, hdiff: K of those steps per kernel launch; each block of\n"
    "                     --threads cells stages them with their halo of radius*K in shared\n"
    "                     memory and advances them K steps there (SO2DR's on-chip reuse);\n"
    "                     at most --fuse; without --fuse, F starts from K               (1)\n"
    "  --share            out of core: a chunk takes what it holds in common with the\n"
    "                     previous one from that chunk's device buffer instead of the host\n"
    "                     (SO2DR region sharing: fewer bytes cross the link, but on the H100\n"
    "                     it measured 1.0-1.3x slower; off by default)\n"
    "\n"
    "example: pillar run --stencil hdiff --layout zcurve --storage nonchasing --compress \\\n"
    "                    --size 64x64x16\n"
    "         pillar run --mesh sphere.h5 --stencil laplap --layout metis --backend cpu\n"
    "         pillar run --mesh hex.h5 --stencil graphlap --precision float\n"
    "         pillar run --size 2048x2048x64 --steps 10 --out-of-core on --device-mem 2G\n"
    "         pillar run --size 1024x1024x64 --steps 16 --fuse 8 --kernel-steps 2\n"
    "         pillar run --stencil hdiff --input start.h5 --output result.h5\n";

/* The command line as one string ("pillar run --stencil hdiff ..."), for the field file's
 * attribute `flags`. Free with xfree. */
static char *command_line(int argc, char **argv)
{
    size_t len = sizeof "pillar run";
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *s = xalloc(len);
    strcpy(s, "pillar run");
    for (int i = 0; i < argc; i++) {
        strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

/* --output: the results (with --output-inputs the inputs too), written only after a passing run. */
static int write_output(const problem *pb, const options *o, fieldset out, int uns, int ok,
                        int argc, char **argv)
{
    const stencil_info *si = &stencil_table[pb->s.stencil];
    if (!ok) {
        perr("--output %s: not written, the run failed verification", o->output);
        return -1;
    }
    char *flags = command_line(argc, argv);
    field_write_opts w = {o->output_inputs, flags};
    int rc = field_write(pb, out, uns, &w, o->output);
    xfree(flags);
    if (rc != 0)
        return -1;
    printf("  output    %s:", o->output);
    for (int k = o->output_inputs ? 0 : si->nin; k < pb->nf; k++)
        printf(" %s", si->field[k]);
    printf(" [%d][%d] %s\n", pb->s.nz, field_ncells(pb), prec_name(pb->s.prec));
    return 0;
}

int cmd_run(int argc, char **argv)
{
    options o;
    options_defaults(&o);
    int rc = options_parse(&o, argc, argv, "run",
                           OPT_GRID | OPT_STENCIL | OPT_EXEC | OPT_MESH | OPT_ITER | OPT_FIELDS);
    if (rc == 1) {
        fputs(run_help, stdout);
        return 0;
    }
    if (rc != 0)
        return 2;
    if (o.output && field_output_check(o.output) != 0)
        return 1;
    if (o.steps || o.ooc == OOC_ON || o.device_mem || o.fuse || o.kernel_steps || o.share)
        return run_iterated(&o);
    int backend = runner_pick_backend(&o, 0);
    if (backend < 0)
        return 1;

    problem pb;
    if (problem_make_mesh(&pb, &o.spec, o.mesh, o.mesh_order) != 0)
        return o.mesh ? 1 : 2; /* a mesh file that cannot be used, or flags that do not fit */
    const problem_spec *s = &pb.s;
    int uns = !o.regular, twin = pb.regular_twin;
    int graph = stencil_table[s->stencil].graph;
    if (!uns && !twin) {
        if (graph)
            perr("run: --grid regular: %s runs on the mesh's cells only", stencil_table[s->stencil].name);
        else
            perr("run: --grid regular: the mesh %s is not a regular patch (no /patch_xy)", o.mesh);
        problem_free(&pb);
        return 2;
    }
    if (o.input && field_read_inputs(&pb, o.input) != 0) {
        problem_free(&pb);
        return 1;
    }

    /* the reference: the regular grid, or for a mesh without one the CPU unstructured executor */
    fieldset ref = runner_outputs(&pb, !twin);
    if (twin)
        cpu_run_regular(&pb, ref);
    else
        cpu_run_unstructured(&pb, ref);
    fieldset out = runner_outputs(&pb, uns);
    timing t;
    if (runner_execute(&pb, &o, backend, uns, out, &t) != 0) {
        runner_free_outputs(&pb, &out);
        runner_free_outputs(&pb, &ref);
        problem_free(&pb);
        return 1;
    }
    int exact = backend == BACKEND_CPU;
    verify_result vr =
        twin ? verify_compare(&pb, out, uns, ref, 0) : verify_compare_cells(&pb, out, ref);
    int ok = verify_ok(&pb, &vr, exact);
    char line[256];
    verify_describe(&pb, &vr, exact, line, sizeof line);

    if (o.mesh)
        printf("%s %s on mesh %s: %d cells (%d halo, %d inner) x %d levels, ",
               stencil_table[s->stencil].name, prec_name(s->prec), o.mesh, pb.ug.nxy, pb.ug.nhalo,
               pb.ug.nxy - pb.ug.nhalo, s->nz);
    else
        printf("%s %s on %dx%dx%d (%dx%d inner cells), ", stencil_table[s->stencil].name,
               prec_name(s->prec), s->nx, s->ny, s->nz, s->nx - 2 * s->halo, s->ny - 2 * s->halo);
    if (uns && o.mesh)
        printf("%s order", mesh_order_name[pb.mesh_order]);
    if (uns && pb.mesh_parts)
        printf(" (%d parts)", pb.mesh_parts);
    if (uns && !o.mesh)
        printf("unstructured %s", layout_name[s->layout]);
    if (uns && graph)
        printf(", neighbour lists (ELL, up to %d per cell)", pb.ell.maxdeg);
    else if (uns)
        printf(", %s %s", s->chasing ? "chasing" : "nonchasing",
               s->compressed ? "compressed" : "uncompressed");
    else
        printf("regular grid");
    printf("\n  backend   %s", t.backend);
    if (backend == BACKEND_GPU)
        printf(", access %s, threads %dx%dx%d", access_name[o.access], t.bx, t.by, t.bz);
    double bytes = problem_min_bytes(&pb);
    printf("\n  time      median %.3f ms of %d runs (min %.3f, max %.3f)\n", t.median_ms, t.runs,
           t.min_ms, t.max_ms);
    printf("  moved     %.1f MB at least (%d fields x %zu B per point) = %.1f GB/s\n", bytes / 1e6,
           pb.nf, prec_size(s->prec), bytes / (t.median_ms * 1e6));
    const char *against = twin ? (exact ? "regular grid" : "CPU reference (regular grid)")
                               : "CPU unstructured executor (same cells)";
    printf("  verify    %s against the %s: %s\n", ok ? "PASS" : "FAIL", against, line);
    if (o.input)
        printf("  input     %s\n", o.input);
    if (o.output && write_output(&pb, &o, out, uns, ok, argc, argv) != 0)
        ok = 0;

    runner_free_outputs(&pb, &out);
    runner_free_outputs(&pb, &ref);
    problem_free(&pb);
    return ok ? 0 : 1;
}
