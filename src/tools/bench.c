/* bench.c — `pillar bench` (pillar_tool_bench): the thesis's experiment matrix as one command. For each stencil,
 * precision and size it times the regular twins and every layout x storage x access x block
 * shape on the unstructured grid (CUDA events, warm-up, median), picks the fastest per row,
 * verifies it against the CPU reference and prints thesis-style tables; every run goes to CSV and
 * JSON with the metadata needed to trust it. */
#include "tools.h"
#include "bench_out.h"
#include "base/progress.h"
#include "src/exec/cpu_exec.h"
#include "src/exec/runner.h"
#include "src/exec/verify.h"
#include "src/io/files.h"
#include "src/io/mesh_io.h"
#ifdef PILLAR_HAVE_CUDA
#include "access/launch.h"
#include "src/exec/gpu.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Where a compressed table is read from (tables_t): in JSON/CSV, and as a suffix of the access. */
#ifdef PILLAR_HAVE_CUDA
static const char *const table_name[3] = {"global", "constant", "rows"};
static const char *const table_suffix[3] = {"", "+const", "+rows"};
#endif

typedef struct {
    access_t a;
    int bx, by, bz, zslice;
    int tables;   /* where a compressed table is read from (tables_t) */
    int aos;      /* fields as an array of structs (fastwaves) */
} config;

typedef struct {
    int stencil, prec, nx, ny, nz, uns, layout, chasing, compressed;
    int morder; /* a mesh file's cell order (mesh_order_t), -1 on the built-in grid */
    config c;
    double med, min, max, gbs;
} brun;

typedef struct {
    brun r;
    double slowdown, share;
    char verified[160];
    int ok;
} brow;

typedef struct {
    int layout, nx, ny, chasing, compressed, patterns;
    size_t entries;
    double ratio, top;
} bstat;

typedef struct {
    brun *runs;
    size_t nruns, cap;
    brow rows[4096];
    size_t nrows;
    bstat stats[256];
    size_t nstats;
} bench_log;

/* Completes what the settings leave open: the sizes (the given ones, the domain sweep or
 * 512x512x64), the layouts and the runs. Returns 0, or -1 after a message. */
static int complete_bench(bench_opts *b)
{
    if (b->iterated)
        return 0; /* bench_iterated completes the rest */
    if (b->sweep && b->nsizes) {
        perr("bench: --sweep domain and --size exclude each other");
        return -1;
    }
    if (b->mesh && (b->sweep || b->nsizes || b->nlayouts)) {
        perr("bench: --mesh fixes the cells and levels and runs its own orders (file, metis, "
             "zcurve): no --size, --sweep or --layout");
        return -1;
    }
    if (b->stencil >= 0 && !b->mesh && stencil_table[b->stencil].graph) {
        perr("bench: --stencil %s runs on the cells of a mesh file: add --mesh FILE (e.g. from "
             "'pillar mesh generate hex.h5 --kind hexagons --size 1024x1024 --levels 64')",
             stencil_table[b->stencil].name);
        return -1;
    }
    if (b->sweep) {
        const int xy[3] = {64, 128, 512};
        for (int d = 0; d < 3; d++)
            for (int z = 1; z <= 64; z *= 2) {
                b->sizes[b->nsizes][0] = b->sizes[b->nsizes][1] = xy[d];
                b->sizes[b->nsizes][2] = z;
                b->nsizes++;
            }
    } else if (!b->nsizes) {
        b->sizes[0][0] = b->sizes[0][1] = 512;
        b->sizes[0][2] = 64;
        b->nsizes = 1;
    }
    if (!b->nlayouts) {
        b->layouts[b->nlayouts++] = LAYOUT_ROWMAJOR;
        if (!b->quick)
            b->layouts[b->nlayouts++] = LAYOUT_ZCURVE;
        b->layouts[b->nlayouts++] = LAYOUT_ZCURVE_W;
    }
    if (b->runs < 0)
        b->runs = b->quick ? 10 : 20;
    return 0;
}

#ifdef PILLAR_HAVE_CUDA
/* The configurations timed for one grid (uns: 0 regular, 1 unstructured, 2 unstructured with a
 * compressed table): access strategies x block shapes (x zslice, x where the table is read from). */
static int make_configs(const bench_opts *b, int uns, int stencil, config *out)
{
    int n = 0;
    for (int a = 0; a < ACC_COUNT; a++) {
        if (b->access >= 0 && a != b->access)
            continue;
        /* strategies whose regular twin is another's kernel (access_table's twin): time it once */
        if (!uns && access_table[a].twin != (access_t)a && b->access < 0)
            continue;
        if (!gpu_supports((access_t)a, (stencil_t)stencil))
            continue;
        int pillar = access_table[a].levels == LEVELS_SLICE; /* zloop-sliced, staged, twopass, graph-twopass */
        int xmin = (a == ACC_SHARED_WARP && uns) ? 8 : 32;
        for (int t = 32; t <= 512; t *= 2)
            for (int bx = xmin; bx <= t; bx *= 2)
                for (int by = 1; by <= t / bx; by *= 2) {
                    int bz = t / bx / by;
                    if (uns && by > 1)
                        continue; /* unstructured cells are linear: bx*by is what counts */
                    if (a == ACC_ZLOOP && bz > 1)
                        continue; /* one slice per pillar */
                    if (b->quick) {
                        int keep = uns ? (bx >= 32 ? (bx * bz == 128 || bx * bz == 256) && bz <= 4
                                                   : bx * bz == 128)
                                       : (bx == 32 || bx == 64) && bz <= 2 && t >= 128 && t <= 256;
                        if (!keep)
                            continue;
                    }
                    if (a == ACC_SHARED_WARP && uns && bx >= 32)
                        continue; /* needs several levels per warp */
                    char why[160];
                    if (!gpu_shape_ok((access_t)a, uns, bx, uns ? 1 : by, bz, why, sizeof why))
                        continue;
                    int zs[4] = {8, 2, 4, 16}, nzs = pillar ? (b->quick ? 1 : 4) : 1;
                    if (a == ACC_STAGED)
                        zs[1] = 64;
                    if (a == ACC_GRAPH_TWOPASS) { /* its lists are read once per slice */
                        zs[0] = 32;
                        zs[1] = 64;
                    }
                    /* uns == 2: compressed, also read from constant memory and packed rows where
                     * the strategy's kernels have those variants */
                    int nconst = uns == 2 && access_table[a].upload && !stencil_table[stencil].graph
                                     ? 3 : 1;
                    for (int k = 0; k < nzs; k++)
                        for (int cst = 0; cst < nconst; cst++) {
                            config c = {(access_t)a, bx, uns ? 1 : by, bz, pillar ? zs[k] : 0, cst, 0};
                            out[n++] = c;
                        }
                }
    }
    return n;
}

static void log_run(bench_log *L, const brun *r)
{
    if (L->nruns == L->cap) {
        L->cap = L->cap ? 2 * L->cap : 1024;
        brun *nr = xalloc(sizeof(brun) * L->cap);
        if (L->runs)
            memcpy(nr, L->runs, sizeof(brun) * L->nruns);
        xfree(L->runs);
        L->runs = nr;
    }
    L->runs[L->nruns++] = *r;
}

static const char *storage_label(const brun *r, char *buf, size_t n)
{
    if (!r->uns)
        snprintf(buf, n, "%s%s", r->morder >= 0 ? "lattice (regular twin)" : "regular grid",
                 r->c.aos ? ", AoS" : "");
    else if (r->morder >= 0)
        snprintf(buf, n, "%-8s %-10s %s", mesh_order_name[r->morder],
                 r->chasing ? "chasing" : "nonchasing", r->compressed ? "compressed" : "uncompressed");
    else
        snprintf(buf, n, "%-8s %-10s %s%s", layout_name[r->layout], r->chasing ? "chasing" : "nonchasing",
                 r->compressed ? "compressed" : "uncompressed", r->c.aos ? ", AoS" : "");
    return buf;
}

static double elapsed_s(double t0) { return (now_ms() - t0) / 1e3; }

typedef struct {
    long done, total;
    double t0;
    char what[160]; /* the configuration measured last: the progress hook's phase */
} progress;

/* To the progress hook (base/progress.h): what was measured last, and how many of all. */
static void progress_show(progress *p, const char *what)
{
    snprintf(p->what, sizeof p->what, "bench %s", what);
    progress_phase(p->what);
    progress_update("configurations", (double)p->done, (double)p->total);
}

/* Times every configuration on one grid; returns the index (in L->runs) of the fastest. */
static long measure(bench_log *L, const bench_opts *b, problem *pb, int uns, int aos, progress *pr)
{
    config cfg[1024];
    int n = make_configs(b, uns ? 1 + pb->s.compressed : 0, pb->s.stencil, cfg);
    if (aos) { /* the array-of-structs variant exists for idxvar with a table in global memory */
        int m = 0;
        for (int k = 0; k < n; k++)
            if (cfg[k].a == ACC_IDXVAR && cfg[k].tables == TABLES_GLOBAL) {
                cfg[m] = cfg[k];
                cfg[m++].aos = 1;
            }
        n = m;
    }
    gpu_ctx *c = gpu_open(pb, uns, aos);
    long best = -1;
    char what[128], lab[64];
    for (int k = 0; k < n; k++) {
        timing t;
        brun r = {pb->s.stencil, pb->s.prec, pb->s.nx, pb->s.ny, pb->s.nz, uns, pb->s.layout,
                  pb->s.chasing, pb->s.compressed, pb->mesh_path ? (int)pb->mesh_order : -1,
                  cfg[k], 0, 0, 0, 0};
        if (gpu_time(c, cfg[k].a, cfg[k].bx, cfg[k].by, cfg[k].bz, cfg[k].zslice, cfg[k].tables,
                     b->runs, &t) != 0)
            continue;
        r.med = t.median_ms * 1e3;
        r.min = t.min_ms * 1e3;
        r.max = t.max_ms * 1e3;
        r.gbs = problem_min_bytes(pb) / (t.median_ms * 1e6);
        log_run(L, &r);
        if (best < 0 || r.med < L->runs[best].med)
            best = (long)L->nruns - 1;
        pr->done++;
        snprintf(what, sizeof what, "%s %s %dx%dx%d %s", stencil_table[pb->s.stencil].name,
                 prec_name(pb->s.prec), pb->s.nx, pb->s.ny, pb->s.nz, storage_label(&r, lab, sizeof lab));
        progress_show(pr, what);
    }
    gpu_close(c);
    return best;
}

/* Re-runs a row's fastest configuration once and compares it with the CPU reference. */
static void verify_best(const problem *pb, fieldset ref, brow *row)
{
    const brun *r = &row->r;
    gpu_ctx *c = gpu_open(pb, r->uns, r->c.aos);
    fieldset out = runner_outputs(pb, r->uns);
    timing t;
    gpu_time(c, r->c.a, r->c.bx, r->c.by, r->c.bz, r->c.zslice, r->c.tables, 1, &t);
    gpu_fetch(c, out);
    /* a graph stencil's reference is the CPU's run on the mesh's cells: bit for bit */
    int graph = stencil_table[pb->s.stencil].graph;
    /* on a mesh file's cells (bench_mesh) the reference is the CPU's run in the same order */
    verify_result v = pb->mesh_path && !problem_has_lattice(pb) ? verify_compare_cells(pb, out, ref)
                      : !graph          ? verify_compare(pb, out, r->uns, ref, 0)
                      : problem_has_lattice(pb) ? verify_compare(pb, out, r->uns, ref, 1)
                                         : verify_compare_cells(pb, out, ref);
    row->ok = verify_ok(pb, &v, graph);
    if (row->ok && v.differ == 0)
        snprintf(row->verified, sizeof row->verified, "bit-exact");
    else if (row->ok)
        snprintf(row->verified, sizeof row->verified, "max error %.2g", v.max_err);
    else
        verify_describe(pb, &v, 0, row->verified, sizeof row->verified);
    runner_free_outputs(pb, &out);
    gpu_close(c);
}

static long count_configs(const bench_opts *b)
{
    config cfg[1024];
    long per = 0;
    if (b->mesh) { /* about: the twin, 3 orders x 4 storages (bench_mesh) */
        for (int st = 0; st < ST_COUNT; st++)
            if (b->stencil < 0 ? stencil_table[st].graph : b->stencil == st)
                per += make_configs(b, 0, st, cfg) +
                       6 * (make_configs(b, 1, st, cfg) + make_configs(b, 2, st, cfg));
        return per * b->nprecs;
    }
    for (int st = 0; st < stencil_count(); st++)
        if (b->stencil < 0 ? st < ST_QUAD_COUNT : b->stencil == st) {
            per += make_configs(b, 0, st, cfg);
            for (int s = 0; s < 4; s++)
                if ((b->storage < 0 || b->storage == (s >> 1)) && (b->compress < 0 || b->compress == (s & 1)))
                    per += (long)b->nlayouts * make_configs(b, 1 + (s & 1), st, cfg);
        }
    return per * b->nprecs * b->nsizes;
}

static void print_table(const bench_log *L, size_t first, double ceiling)
{
    const brow *w = &L->rows[first];
    report_printf("\n%s %s %dx%dx%d  (Table 6.2; slowdown against the fastest regular run; copy ceiling "
           "%.0f GB/s)\n", stencil_table[w->r.stencil].name, prec_name((precision_t)w->r.prec),
           w->r.nx, w->r.ny, w->r.nz, ceiling / 1e9);
    report_printf("  %-40s %-18s %-10s %6s %10s %9s %8s %8s  %s\n", "storage", "access", "threads", "zslice",
           "time us", "slowdown", "GB/s", "ceiling", "verified");
    for (size_t k = first; k < L->nrows; k++) {
        const brow *row = &L->rows[k];
        if (row->r.stencil != w->r.stencil || row->r.prec != w->r.prec || row->r.nz != w->r.nz ||
            row->r.nx != w->r.nx)
            break;
        char lab[64], th[32], zs[16] = "-";
        snprintf(th, sizeof th, "%dx%dx%d", row->r.c.bx, row->r.c.by, row->r.c.bz);
        if (row->r.c.zslice)
            snprintf(zs, sizeof zs, "%d", row->r.c.zslice);
        char acc[32];
        snprintf(acc, sizeof acc, "%s%s", access_name[row->r.c.a], table_suffix[row->r.c.tables]);
        report_printf("  %-40s %-18s %-10s %6s %10.1f %8.2fx %8.0f %7.1f%%  %s\n", storage_label(&row->r, lab, sizeof lab),
               acc, th, zs, row->r.med, row->slowdown, row->r.gbs, 100 * row->share, row->verified);
    }
}

static void json_run(FILE *f, const brun *r)
{
    fprintf(f, "{\"stencil\": \"%s\", \"precision\": \"%s\", \"nx\": %d, \"ny\": %d, \"nz\": %d, ",
            stencil_table[r->stencil].name, prec_name((precision_t)r->prec), r->nx, r->ny, r->nz);
    if (r->uns)
        fprintf(f, "\"grid\": \"unstructured\", \"layout\": \"%s\", \"storage\": \"%s\", \"compressed\": %s, ",
                r->morder >= 0 ? mesh_order_name[r->morder] : layout_name[r->layout], r->chasing ? "chasing" : "nonchasing", r->compressed ? "true" : "false");
    else
        fprintf(f, "\"grid\": \"regular\", \"layout\": null, \"storage\": null, \"compressed\": null, ");
    fprintf(f, "\"access\": \"%s\", \"aos\": %s, \"tables\": \"%s\", \"threads\": [%d, %d, %d], \"zslice\": %d, "
               "\"median_us\": %.3f, \"min_us\": %.3f, \"max_us\": %.3f, \"gbs\": %.2f",
            access_name[r->c.a], r->c.aos ? "true" : "false", table_name[r->c.tables], r->c.bx, r->c.by, r->c.bz,
            r->c.zslice, r->med, r->min, r->max, r->gbs);
}

static int write_outputs(const bench_opts *b, const bench_log *L, double ceiling, const void *gi_)
{
    char stamp[32], iso[32];
    file_out tmp;
    if (bench_stamp(b->out, stamp, iso) != 0)
        return -1;
    FILE *f = bench_open_in(b->out, "bench", stamp, "csv", &tmp);
    if (!f)
        return -1;
    fprintf(f, "stencil,precision,nx,ny,nz,grid,layout,storage,compressed,access,aos,tables,bx,by,"
               "bz,zslice,median_us,min_us,max_us,gbs\n");
    for (size_t k = 0; k < L->nruns; k++) {
        const brun *r = &L->runs[k];
        fprintf(f, "%s,%s,%d,%d,%d,%s,%s,%s,%s,%s,%s,%s,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.2f\n",
                stencil_table[r->stencil].name, prec_name((precision_t)r->prec), r->nx, r->ny, r->nz,
                r->uns ? "unstructured" : "regular",
                r->uns ? (r->morder >= 0 ? mesh_order_name[r->morder] : layout_name[r->layout]) : "",
                r->uns ? (r->chasing ? "chasing" : "nonchasing") : "",
                r->uns ? (r->compressed ? "yes" : "no") : "", access_name[r->c.a],
                r->c.aos ? "yes" : "no", table_name[r->c.tables], r->c.bx, r->c.by,
                r->c.bz, r->c.zslice, r->med, r->min, r->max, r->gbs);
    }
    if (bench_close(f, &tmp) != 0)
        return -1;

    if (!(f = bench_open_in(b->out, "bench", stamp, "json", &tmp)))
        return -1;
    fprintf(f, "{\n  ");
    bench_json_build(f, iso, b->command);
    fprintf(f, ",\n  ");
    bench_json_device(f, (const gpu_info *)gi_);
    fprintf(f, ",\n  \"copy_ceiling_gbs\": %.1f,\n  \"runs_per_config\": %d,\n  \"runs\": [\n", ceiling / 1e9, b->runs);
    for (size_t k = 0; k < L->nruns; k++) {
        fprintf(f, "    ");
        json_run(f, &L->runs[k]);
        fprintf(f, "}%s\n", k + 1 < L->nruns ? "," : "");
    }
    fprintf(f, "  ],\n  \"best\": [\n");
    for (size_t k = 0; k < L->nrows; k++) {
        fprintf(f, "    ");
        json_run(f, &L->rows[k].r);
        fprintf(f, ", \"slowdown\": %.4f, \"ceiling_share\": %.4f, ", L->rows[k].slowdown, L->rows[k].share);
        bench_json_str(f, "verified", L->rows[k].verified, 0);
        fprintf(f, "}%s\n", k + 1 < L->nrows ? "," : "");
    }
    fprintf(f, "  ],\n  \"compression\": [\n");
    for (size_t k = 0; k < L->nstats; k++) {
        const bstat *s = &L->stats[k];
        fprintf(f, "    {\"layout\": \"%s\", \"nx\": %d, \"ny\": %d, \"storage\": \"%s\", \"compressed\": %s, "
                   "\"entries\": %zu, \"ratio\": %.6f, \"patterns\": %d, \"top_share\": %.4f}%s\n",
                layout_name[s->layout], s->nx, s->ny, s->chasing ? "chasing" : "nonchasing",
                s->compressed ? "true" : "false", s->entries, s->ratio, s->patterns, s->top,
                k + 1 < L->nstats ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return bench_close(f, &tmp);
}

static void compression_stats(bench_log *L, const bench_opts *b, int nx, int ny)
{
    for (size_t k = 0; k < L->nstats; k++)
        if (L->stats[k].nx == nx && L->stats[k].ny == ny)
            return;
    for (int l = 0; l < b->nlayouts; l++) {
        ugrid g;
        if (ugrid_emulate(&g, nx, ny, 1, 2, b->layouts[l], 32, 42) != 0)
            continue;
        for (int s = 0; s < 4 && L->nstats < 256; s++) {
            nbtable t;
            nbtable_build(&t, &g, !(s >> 1), s & 1);
            bstat st = {b->layouts[l], nx, ny, t.chasing, t.compressed, t.npat, nbtable_entries(&t),
                        nbtable_ratio(&t), nbtable_top_share(&t)};
            L->stats[L->nstats++] = st;
            nbtable_free(&t);
        }
        ugrid_free(&g);
    }
}

static void print_stats(const bench_log *L)
{
    report_printf("\nTable 6.7: neighbour tables before and after compression\n");
    report_printf("  %-9s %-9s %-11s %-12s %10s %9s %9s %7s\n", "size", "layout", "storage", "compressed",
           "entries", "ratio", "patterns", "top");
    for (size_t k = 0; k < L->nstats; k++) {
        const bstat *s = &L->stats[k];
        char sz[32];
        snprintf(sz, sizeof sz, "%dx%d", s->nx, s->ny);
        report_printf("  %-9s %-9s %-11s %-12s %10zu %9.5f %9d %6.1f%%\n", sz, layout_name[s->layout],
               s->chasing ? "chasing" : "nonchasing", s->compressed ? "yes" : "no", s->entries, s->ratio,
               s->patterns, 100 * s->top);
    }
}

/* Rows first.. of one table: their share of the copy ceiling; returns how many failed
 * verification (and ends the progress line). */
static int finish_rows(bench_log *L, size_t first, double ceiling, const progress *pr)
{
    int failures = 0;
    for (size_t k = first; k < L->nrows; k++) {
        L->rows[k].share = L->rows[k].r.gbs * 1e9 / ceiling;
        failures += !L->rows[k].ok;
    }
    (void)pr;
    return failures;
}

/* The graph stencils (or --stencil S, a W/E/S/N one on a quad mesh too) on the cells of --mesh
 * FILE: per precision, the lattice twin (graph stencils on a bounded generated hexagon or
 * triangle mesh) and, per cell order (file, metis, zcurve where the mesh has coordinates) and
 * table storage, every strategy x block shape; the fastest of each row verified bit for bit
 * against the CPU's run in that order (computed once per order: the storage does not change
 * it). Returns the rows that failed verification, or -1 when the mesh cannot be used. */
static int bench_mesh(const bench_opts *b, bench_log *L, double ceiling, progress *pr)
{
    int failures = 0;
    for (int st = 0; st < stencil_count(); st++) { /* built-in, or the file's */
        if (b->stencil >= 0 ? st != b->stencil : st >= ST_COUNT || !stencil_table[st].graph)
            continue;
        for (int pi = 0; pi < b->nprecs; pi++) {
            problem_spec s = {(stencil_t)st, (precision_t)b->precs[pi], 0, 0, 0, 2, LAYOUT_ROWMAJOR,
                              32, 42, 1, 0};
            problem pb;
            if (problem_make_mesh(&pb, &s, b->mesh, MESH_ORDER_FILE) != 0)
                return -1;
            size_t first = L->nrows;
            double reg_best = 0, floor_us = problem_min_bytes(&pb) / ceiling * 1e6;
            fieldset ref = runner_outputs(&pb, 1);
            int ref_order = -1; /* the cell order ref was computed in */
            if (problem_has_lattice(&pb)) {
                cpu_run_unstructured(&pb, ref);
                ref_order = MESH_ORDER_FILE;
                long bi = measure(L, b, &pb, 0, 0, pr);
                if (bi >= 0) {
                    reg_best = L->runs[bi].med;
                    brow row = {L->runs[bi], 1, 0, "", 0};
                    verify_best(&pb, ref, &row);
                    L->rows[L->nrows++] = row;
                }
            }
            for (int o = 0; o < MESH_ORDER_COUNT; o++) {
                if (o == MESH_ORDER_ZCURVE && !pb.mesh.coord)
                    continue; /* a Morton curve needs coordinates */
                for (int stor = 0; stor < 4; stor++) {
                    int chasing = !(stor >> 1), comp = stor & 1;
                    if ((b->storage >= 0 && b->storage != chasing) || (b->compress >= 0 && b->compress != comp))
                        continue;
                    /* another order: ref's inputs are pb's, which relayout frees; another
                     * storage only: the grid and its fields stay (problem_relayout) */
                    int reorder = ref_order != o;
                    pb.mesh_order = (mesh_order_t)o;
                    if (reorder)
                        runner_free_outputs(&pb, &ref);
                    if (problem_relayout(&pb, pb.s.layout, 32, chasing, comp) != 0) {
                        problem_free(&pb);
                        return -1;
                    }
                    if (reorder) {
                        ref = runner_outputs(&pb, 1);
                        cpu_run_unstructured(&pb, ref); /* the reference in this order */
                        ref_order = o;
                    }
                    long ui = measure(L, b, &pb, 1, 0, pr);
                    if (ui < 0 || L->nrows >= 4096)
                        continue;
                    brow row = {L->runs[ui], reg_best > 0 ? L->runs[ui].med / reg_best : 0, 0, "", 0};
                    verify_best(&pb, ref, &row);
                    L->rows[L->nrows++] = row;
                }
            }
            failures += finish_rows(L, first, ceiling, pr);
            report_printf("\n%s on %s: %d cells (%d inner) x %d levels, %s", stencil_table[st].name, b->mesh,
                   pb.ug.nxy, pb.ug.nxy - pb.ug.nhalo, pb.s.nz, pb.mesh.kind);
            report_printf("\n  memory floor %.1f us (each input value read once, each output written once, "
                   "at the copy ceiling); slowdown against the %s\n", floor_us,
                   problem_has_lattice(&pb) ? "lattice addressed by arithmetic" : "(no regular twin: 0)");
            if (first < L->nrows)
                print_table(L, first, ceiling);
            runner_free_outputs(&pb, &ref);
            problem_free(&pb);
        }
    }
    return failures;
}

#endif /* PILLAR_HAVE_CUDA */

/* Whether W/E/S/N stencil st cannot run on the mesh at path (problem_mesh_refuses), told before
 * the GPU is asked for: 0, 2 after the refusal, 1 when the file cannot be read. A pillar mesh
 * file of quads needs only its header (the whole mesh is read once, by the benchmark); a general
 * mesh, another tool's file or a stencil with a frame (whose turns only the cells show) is read
 * whole. */
static int mesh_refused(const char *path, stencil_t st)
{
    mesh_header h;
    int rc = mesh_read_header(path, &h);
    if (rc < 0)
        return 1;
    if (rc == 0 && h.quad && !stencil_table[st].framed)
        return 0;
    mesh m;
    if (mesh_read(path, &m) != 0)
        return 1;
    rc = problem_mesh_refuses(&m, path, st) != 0 ? 2 : 0;
    mesh_free(&m);
    return rc;
}

/* pillar_tool_bench under the guard. */
static int bench_guarded(void *arg)
{
    bench_opts b = *(bench_opts *)arg;
    if (complete_bench(&b) != 0)
        return 2;
    if (b.iterated)
        return bench_iterated(&b);
    if (b.mesh && b.stencil >= 0 && !stencil_table[b.stencil].graph) {
        int rc = mesh_refused(b.mesh, (stencil_t)b.stencil);
        if (rc != 0)
            return rc;
    }
    char why[256];
    if (!gpu_available(why, sizeof why)) {
        perr("bench: needs a CUDA device, and there is none: %s", why);
        return 1;
    }
#ifndef PILLAR_HAVE_CUDA
    return 1;
#else
    int rc;
    gpu_info gi;
    gpu_describe(&gi);
    double ceiling = gpu_copy_bandwidth((size_t)1 << 30, 20);
    report_printf("pillar bench on %s (%d SMs, %.0f MB L2), driver %d, commit %s\n", gi.name, gi.sms,
           gi.l2_bytes / 1e6, gi.driver, PILLAR_COMMIT);
    report_printf("device copy ceiling: %.0f GB/s (cudaMemcpy device to device, 1 GiB, read + write)\n", ceiling / 1e9);

    bench_log *L = xalloc(sizeof *L);
    progress pr = {0, count_configs(&b), now_ms(), ""};
    int failures = 0;
    if (b.mesh) {
        failures = bench_mesh(&b, L, ceiling, &pr);
        if (failures < 0) {
            xfree(L->runs);
            xfree(L);
            return 1;
        }
        b.nsizes = 0; /* the W/E/S/N matrix is not run */
    }
    for (int sz = 0; sz < b.nsizes; sz++)
        for (int st = 0; st < stencil_count(); st++) {
            if (b.stencil >= 0 ? st != b.stencil : st >= ST_QUAD_COUNT)
                continue;
            if (b.sizes[sz][2] < stencil_table[st].ztop + 1)
                continue;
            for (int pi = 0; pi < b.nprecs; pi++) {
                problem_spec s = {(stencil_t)st, (precision_t)b.precs[pi], b.sizes[sz][0], b.sizes[sz][1],
                                  b.sizes[sz][2], 2, b.layouts[0], 32, 42, 1, 0};
                problem pb;
                if (problem_make(&pb, &s) != 0)
                    return 2;
                compression_stats(L, &b, s.nx, s.ny);
                fieldset ref = runner_outputs(&pb, 0);
                cpu_run_regular(&pb, ref);
                size_t first = L->nrows;
                /* fastwaves also as an array of structs (thesis Table 4.2), when idxvar is timed */
                int naos = st == ST_FASTWAVES && (b.access < 0 || b.access == ACC_IDXVAR) ? 2 : 1;
                double reg_best = 0;
                for (int aos = 0; aos < naos; aos++) {
                    long bi = measure(L, &b, &pb, 0, aos, &pr);
                    if (bi < 0)
                        continue;
                    if (!aos)
                        reg_best = L->runs[bi].med;
                    brow row = {L->runs[bi], reg_best > 0 ? L->runs[bi].med / reg_best : 0, 0, "", 0};
                    verify_best(&pb, ref, &row);
                    L->rows[L->nrows++] = row;
                }
                for (int l = 0; l < b.nlayouts; l++)
                    for (int stor = 0; stor < 4; stor++) {
                        int chasing = !(stor >> 1), comp = stor & 1;
                        if ((b.storage >= 0 && b.storage != chasing) || (b.compress >= 0 && b.compress != comp))
                            continue;
                        problem_relayout(&pb, b.layouts[l], 32, chasing, comp);
                        for (int aos = 0; aos < naos; aos++) {
                            long ui = measure(L, &b, &pb, 1, aos, &pr);
                            if (ui < 0 || L->nrows >= 4096)
                                continue;
                            brow row = {L->runs[ui], reg_best > 0 ? L->runs[ui].med / reg_best : 0, 0, "", 0};
                            verify_best(&pb, ref, &row);
                            L->rows[L->nrows++] = row;
                        }
                    }
                failures += finish_rows(L, first, ceiling, &pr);
                print_table(L, first, ceiling);
                runner_free_outputs(&pb, &ref);
                problem_free(&pb);
            }
        }
    if (!b.mesh)
        print_stats(L);
    report_printf("\n%ld configurations in %.0f s\n", pr.done, elapsed_s(pr.t0));
    rc = write_outputs(&b, L, ceiling, &gi);
    xfree(L->runs);
    xfree(L);
    if (failures)
        perr("bench: %d fastest configuration(s) failed verification", failures);
    return rc != 0 || failures ? 1 : 0;
#endif
}

int pillar_tool_bench(pillar_bench_settings *b, const char *stencil_file)
{
    if (stencil_file) {
        if (b->stencil >= 0) {
            perr("--stencil-file: give either --stencil or --stencil-file");
            return 2;
        }
        stencil_t st;
        if (tools_stencil_file(stencil_file, 0, &st) != 0)
            return 1;
        b->stencil = (int)st;
    }
    return tools_guarded(bench_guarded, b);
}
