/* options.c — flag parsing. Every error names the flag and the value it did not accept. */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether s is a plain decimal integer: digits, with one leading '-' only where negative values
 * are allowed (strtol alone would accept leading blanks and '+', and strtoull wraps "-1"). */
static int plain_integer(const char *s, int negative_ok)
{
    if (negative_ok && *s == '-')
        s++;
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    if (!plain_integer(s, lo < 0))
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (!plain_integer(s, 0))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > UINT64_MAX)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

int parse_triple(const char *s, int *a, int *b, int *c)
{
    char buf[64];
    long v[3];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    char *p = buf;
    for (int i = 0; i < 3; i++) {
        char *x = i < 2 ? strchr(p, 'x') : NULL;
        if (i < 2 && !x)
            return -1;
        if (x)
            *x = 0;
        if (parse_long(p, 1, INT_MAX / 4, &v[i]) != 0)
            return -1;
        p = x ? x + 1 : p;
    }
    *a = (int)v[0];
    *b = (int)v[1];
    *c = (int)v[2];
    return 0;
}

int parse_bytes(const char *s, size_t *out)
{
    /* digits with at most one point, then an optional unit: no sign, blank, exponent, hex, inf
     * or nan (all of which strtod would take) */
    size_t k = strspn(s, "0123456789."), dots = 0;
    for (size_t i = 0; i < k; i++)
        dots += s[i] == '.';
    char num[64];
    if (k == dots || dots > 1 || k >= sizeof num)
        return -1;
    memcpy(num, s, k);
    num[k] = 0;
    double v = strtod(num, NULL);
    const char *end = s + k;
    double unit = 1;
    if (*end) {
        const char *units = "KMGT";
        const char *u = strchr(units, *end == 'k' ? 'K' : *end);
        if (!u || !*u)
            return -1;
        unit = (double)(1ull << (10 * (u - units + 1)));
        end++;
        if (*end == 'B' || *end == 'b')
            end++;
        if (*end)
            return -1;
    }
    if (!(v * unit < 1e18))
        return -1;
    *out = (size_t)(v * unit);
    return 0;
}

/* ---- the command line: one table of flags for every command ---- */

typedef struct flag flag;
struct flag {
    const char *name; /* "--size" */
    const char *arg;  /* its value as help shows it ("NXxNYxNZ"); NULL: the flag takes none */
    unsigned cmds;    /* the commands that accept it (CMD_*) */
    unsigned section; /* where a help text lists it (HELP_*) */
    const char *help; /* one line; a '\n' continues it on an indented line */
    int (*apply)(cli_args *a, const flag *f, const char *v); /* 0, or -1 after a message */
    size_t at;        /* set_switch, set_text, set_range, set_choice: where in cli_args the
                       * value goes */
    long lo, hi;      /* set_range: the integers accepted; set_choice: hi names */
    const char *const *names; /* set_choice: the values accepted, in the enum's order */
};

#define AT(field) offsetof(cli_args, field)

/* A message prefixed with the command: "pillar: run: ..." ("pillar: ..." for the default job). */
static void cmd_err(const cli_args *a, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    pillar_perr("%s%s%s", a->name, a->name[0] ? ": " : "", buf);
}

/* An integer in [lo, hi], or "CMD: --flag 'V': expected an integer from LO to HI[why]". */
static int want_long(const cli_args *a, const flag *f, const char *v, long lo, long hi,
                     const char *why, long *out)
{
    if (parse_long(v, lo, hi, out) == 0)
        return 0;
    cmd_err(a, "%s '%s': expected an integer from %ld to %ld%s", f->name, v, lo, hi,
            why ? why : "");
    return -1;
}

/* "a, b or c" */
static void list_names(char *buf, size_t n, const char *const *names, int count)
{
    buf[0] = 0;
    for (int i = 0; i < count; i++)
        snprintf(buf + strlen(buf), n - strlen(buf), "%s%s",
                 i == 0 ? "" : i + 1 < count ? ", " : " or ", names[i]);
}

/* The index of v among names[0..n), or -1 after "CMD: --flag 'V': choose a, b or c[extra]". */
static int choose(const cli_args *a, const flag *f, const char *v, const char *const *names,
                  int n, const char *extra)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(v, names[i]))
            return i;
    char list[512];
    list_names(list, sizeof list, names, n);
    cmd_err(a, "%s '%s': choose %s%s", f->name, v, list, extra ? extra : "");
    return -1;
}

/* The index of v among the names of a kind (include/pillar_tools.h), or -1 after a message. */
static int choose_kind(const cli_args *a, const flag *f, const char *v, pillar_names_kind kind,
                       const char *extra)
{
    int n;
    const char *const *names = pillar_names(kind, &n);
    return choose(a, f, v, names, n, extra);
}

static const char *const on_off_auto[] = {"auto", "on", "off"};
static const char *const backends[] = {"auto", "cpu", "gpu"};
static const char *const halos[] = {"auto", "nccl", "staged", "ipc"};
static const char *const precisions[] = {"double", "float", "both"};
static const char *const storages[] = {"chasing", "nonchasing"};
static const char *const grids[] = {"unstructured", "regular"};
static const char *const yes_no[] = {"yes", "no"};
static const char *const on_off[] = {"on", "off"};
static const char *const sweeps[] = {"domain"};

/* ---- flags that set one field ---- */

/* a switch: the int at f->at becomes 1 */
static int set_switch(cli_args *a, const flag *f, const char *v)
{
    (void)v;
    *(int *)((char *)a + f->at) = 1;
    return 0;
}

/* a path or name: the const char * at f->at points to the value */
static int set_text(cli_args *a, const flag *f, const char *v)
{
    *(const char **)((char *)a + f->at) = v;
    return 0;
}

/* an integer from f->lo to f->hi, into the int at f->at */
static int set_range(cli_args *a, const flag *f, const char *v)
{
    long n;
    if (want_long(a, f, v, f->lo, f->hi, NULL, &n) != 0)
        return -1;
    *(int *)((char *)a + f->at) = (int)n;
    return 0;
}

/* one of f->names, its index into the int (or enum) at f->at */
static int set_choice(cli_args *a, const flag *f, const char *v)
{
    int k = choose(a, f, v, f->names, (int)f->hi, NULL);
    if (k < 0)
        return -1;
    *(int *)((char *)a + f->at) = k;
    return 0;
}

/* a name of kind f->lo (include/pillar_tools.h), its index into the int at f->at */
static int set_named(cli_args *a, const flag *f, const char *v)
{
    int k = choose_kind(a, f, v, (pillar_names_kind)f->lo, NULL);
    if (k < 0)
        return -1;
    *(int *)((char *)a + f->at) = k;
    return 0;
}

/* --json of run and mesh info */
static int set_json(cli_args *a, const flag *f, const char *v)
{
    (void)f;
    (void)v;
    a->json = a->m.json = 1;
    return 0;
}

/* ---- run, info and the default job ---- */

static int set_stencil(cli_args *a, const flag *f, const char *v)
{
    int k = choose_kind(a, f, v, PILLAR_NAMES_STENCIL, NULL);
    if (k < 0)
        return -1;
    a->o.spec.stencil = k;
    a->o.stencil_set = 1;
    return 0;
}

static int set_size(cli_args *a, const flag *f, const char *v)
{
    pillar_grid_spec *s = &a->o.spec;
    if (parse_triple(v, &s->nx, &s->ny, &s->nz) != 0) {
        cmd_err(a, "%s '%s': expected NXxNYxNZ with three positive integers, e.g. 512x512x64",
                f->name, v);
        return -1;
    }
    a->o.size_set = 1;
    return 0;
}

/* --layout: a regular grid's order, or file | metis | zcurve with --mesh (zcurve is both: which
 * one is decided once the whole line is read, mesh_layout_resolve). */
static int set_layout(cli_args *a, const flag *f, const char *v)
{
    options *o = &a->o;
    int order = pillar_name_index(PILLAR_NAMES_ORDER, v);
    if (order >= 0 && order != pillar_name_index(PILLAR_NAMES_ORDER, "zcurve")) {
        o->mesh_order = order;
        o->mesh_layout_set = 1;
        o->grid_layout_set = 0;
        return 0;
    }
    o->grid_layout_set = 1;
    o->mesh_layout_set = 0;
    int k = choose_kind(a, f, v, PILLAR_NAMES_LAYOUT, " (with --mesh: file, metis or zcurve)");
    o->spec.layout = k < 0 ? o->spec.layout : k;
    return k < 0 ? -1 : 0;
}

static int set_zcurve_w(cli_args *a, const flag *f, const char *v)
{
    long n;
    if (parse_long(v, 1, 4096, &n) != 0 || (n & (n - 1))) {
        cmd_err(a, "%s '%s': expected a power of two from 1 to 4096", f->name, v);
        return -1;
    }
    a->o.spec.w = (int)n;
    return 0;
}

/* --seed of run, info, the default job and mesh generate */
static int set_seed(cli_args *a, const flag *f, const char *v)
{
    uint64_t *seed = a->cmd == CMD_MESH_GENERATE ? &a->m.gen.seed : &a->o.spec.seed;
    if (parse_u64(v, seed) != 0) {
        cmd_err(a, "%s '%s': expected an integer from 0 to 2^64 - 1, digits only", f->name, v);
        return -1;
    }
    return 0;
}

static int set_storage(cli_args *a, const flag *f, const char *v)
{
    int k = choose(a, f, v, storages, 2, NULL);
    if (a->cmd == CMD_BENCH)
        a->b.storage = k == 0; /* only chasing (1) or only nonchasing (0) */
    else
        a->o.spec.chasing = k == 0;
    a->o.storage_set = 1;
    return k < 0 ? -1 : 0;
}

/* --compress of run, info, the default job (bench's takes yes | no) */
static int set_compress(cli_args *a, const flag *f, const char *v)
{
    (void)f;
    (void)v;
    a->o.spec.compressed = 1;
    a->o.compress_set = 1;
    return 0;
}

static int set_zslice(cli_args *a, const flag *f, const char *v)
{
    a->o.zslice_set = 1;
    return set_range(a, f, v);
}

/* --budget SECONDS of tune: a positive number of seconds, at most a day */
static int set_budget(cli_args *a, const flag *f, const char *v)
{
    char *end = NULL;
    double s = 0;
    if (!*v || strspn(v, "0123456789.") != strlen(v) || (s = strtod(v, &end), *end) ||
        !(s > 0 && s <= 86400)) {
        cmd_err(a, "%s '%s': expected seconds, more than 0 and at most 86400 (e.g. 60, 2.5)",
                f->name, v);
        return -1;
    }
    a->budget = s;
    return 0;
}

static int set_access(cli_args *a, const flag *f, const char *v)
{
    int k = choose_kind(a, f, v, PILLAR_NAMES_STRATEGY, NULL);
    if (k < 0)
        return -1;
    if (a->cmd == CMD_BENCH) {
        a->b.access = k;
    } else {
        a->o.access = k;
        a->o.access_set = 1;
    }
    return 0;
}

static int set_threads(cli_args *a, const flag *f, const char *v)
{
    options *o = &a->o;
    if (parse_triple(v, &o->bx, &o->by, &o->bz) != 0 || o->bx > 512 || o->by > 512 ||
        o->bz > 512 || o->bx * o->by * o->bz > 512) { /* each <= 512 first: no overflow */
        cmd_err(a, "%s '%s': expected BXxBYxBZ, positive, at most 512 threads in all", f->name, v);
        return -1;
    }
    return 0;
}

static int set_device_mem(cli_args *a, const flag *f, const char *v)
{
    if (parse_bytes(v, &a->o.device_mem) != 0 || a->o.device_mem == 0) {
        cmd_err(a, "%s '%s': expected a positive size in bytes, e.g. 4G, 512M, 1.5G", f->name, v);
        return -1;
    }
    return 0;
}

/* ---- bench ---- */

static int set_bench_stencil(cli_args *a, const flag *f, const char *v)
{
    /* graph stencils need --mesh, W/E/S/N ones go without it: cmd_bench.c checks the pair */
    int k = choose_kind(a, f, v, PILLAR_NAMES_STENCIL, NULL);
    a->b.stencil = k;
    return k < 0 ? -1 : 0;
}

static int set_bench_precision(cli_args *a, const flag *f, const char *v)
{
    int k = choose(a, f, v, precisions, 3, NULL);
    int dbl = pillar_name_index(PILLAR_NAMES_PRECISION, "double"),
        flt = pillar_name_index(PILLAR_NAMES_PRECISION, "float");
    a->b.precs[0] = k == 1 ? flt : dbl;
    a->b.precs[1] = flt;
    a->b.nprecs = k == 2 ? 2 : 1;
    return k < 0 ? -1 : 0;
}

static int set_bench_layout(cli_args *a, const flag *f, const char *v)
{
    int k = choose_kind(a, f, v, PILLAR_NAMES_LAYOUT, NULL);
    if (k < 0)
        return -1;
    a->b.layouts[0] = k;
    a->b.nlayouts = 1;
    return 0;
}

static int set_bench_compress(cli_args *a, const flag *f, const char *v)
{
    int k = choose(a, f, v, yes_no, 2, NULL);
    a->b.compress = k == 0;
    return k < 0 ? -1 : 0;
}

static int set_bench_size(cli_args *a, const flag *f, const char *v)
{
    int *s = a->b.sizes[0];
    if (parse_triple(v, &s[0], &s[1], &s[2]) != 0) {
        cmd_err(a, "%s '%s': expected NXxNYxNZ with three positive integers, e.g. 512x512x64",
                f->name, v);
        return -1;
    }
    a->b.nsizes = 1;
    return 0;
}

static int set_sweep(cli_args *a, const flag *f, const char *v)
{
    a->b.sweep = 1;
    return choose(a, f, v, sweeps, 1, NULL) < 0 ? -1 : 0;
}

/* --levels L,L,... of bench --iterated: up to 8 level counts from 1 to 100000 */
static int set_bench_levels(cli_args *a, const flag *f, const char *v)
{
    char buf[128];
    bench_opts *b = &a->b;
    if (strlen(v) >= sizeof buf)
        goto bad;
    strcpy(buf, v);
    b->nlevels = 0;
    for (char *p = buf, *comma; p; p = comma ? comma + 1 : NULL) {
        long n;
        comma = strchr(p, ',');
        if (comma)
            *comma = 0;
        if (b->nlevels == 8 || parse_long(p, 1, 100000, &n) != 0)
            goto bad;
        b->levels[b->nlevels++] = (int)n;
    }
    return 0;
bad:
    cmd_err(a, "%s '%s': expected up to 8 level counts from 1 to 100000, separated by commas "
               "(e.g. 16,64,128)", f->name, v);
    b->nlevels = 0;
    return -1;
}

/* ---- mesh ---- */

static int set_mesh_size(cli_args *a, const flag *f, const char *v)
{
    int nz;
    char buf[64];
    snprintf(buf, sizeof buf, "%sx1", v);
    if (strlen(v) > 40 || parse_triple(buf, &a->m.gen.nx, &a->m.gen.ny, &nz) != 0) {
        cmd_err(a, "%s '%s': expected NXxNY, two positive integers", f->name, v);
        return -1;
    }
    return 0;
}

/* --format of mesh import: an importer of the registry (src/io/mesh_import.h) */
static int set_format(cli_args *a, const flag *f, const char *v)
{
    a->m.format = choose_kind(a, f, v, PILLAR_NAMES_FORMAT, NULL);
    return a->m.format < 0 ? -1 : 0;
}

/* --merge-nodes [TOL] of mesh import: nodes at most TOL apart are one; without TOL, SCRIP's
 * 1e-9 (about 6 mm on the Earth's unit sphere); "off": none merged */
static int set_merge_nodes(cli_args *a, const flag *f, const char *v)
{
    char *end = NULL;
    double tol = 1e-9;
    if (v && !strcmp(v, "off"))
        tol = -1;
    else if (v && (!*v || strspn(v, "0123456789.eE-+") != strlen(v) ||
                   (tol = strtod(v, &end), *end) || !(tol >= 0 && tol < 1e300))) {
        cmd_err(a, "%s '%s': expected a distance (0 or more, e.g. 1e-6) or off", f->name, v);
        return -1;
    }
    a->m.merge_tol = tol;
    return 0;
}

/* Whether an argument can be the value of a flag whose value is optional ("[TOL]"): a number or
 * a word without a dot, never a file name such as IN or OUT. */
static int optional_value(const char *v)
{
    return v[0] != '-' && (strspn(v, "0123456789.eE-+") == strlen(v) || !strcmp(v, "off"));
}

/* ---- every command ---- */

#define RUN (CMD_RUN)
#define RD (CMD_RUN | CMD_DEFAULT)
#define RID (CMD_RUN | CMD_INFO | CMD_DEFAULT)
#define TUNE (CMD_TUNE)
#define BENCH (CMD_BENCH)
#define GEN (CMD_MESH_GENERATE)
#define MINFO (CMD_MESH_INFO)
#define ALL (~0u)

/* The flags of every command, in the order help lists them. A name appears again only for
 * commands where it means something else (bench's --compress yes|no, mesh generate's NXxNY):
 * no command sees a name twice. */
static const flag flags[] = {
    /* run, info, the default job */
    {"--stencil", "S", RD, HELP_MAIN,
     "@   (laplap)\n"
     "graph stencils (graphlap: the graph Laplacian twice, any number\n"
     "of neighbours per cell) run on mesh files only, quad or general;\n"
     "the others need W/E/S/N relations (a quad mesh or the built-in\n"
     "grid); docs/stencils.md defines each", set_stencil, 0, 0, 0, NULL},
    {"--stencil", "S", TUNE, HELP_MAIN,
     "@   (laplap)", set_stencil, 0, 0, 0, NULL},
    {"--stencil-file", "FILE", RUN | TUNE, HELP_MAIN,
     "your own stencil: a body file compiled at run time for the CPU\n"
     "(and the GPU with NVRTC), cached; docs/own-stencil.md",
     set_text, AT(stencil_file), 0, 0, NULL},
    {"--check-reads", NULL, RUN, HELP_MAIN,
     "with --stencil-file: the checked mode (CPU): every level offset,\n"
     "and a graph stencil's every neighbour, checked against the\n"
     "declared extent; a read outside it fails the run",
     set_switch, AT(check_reads), 0, 0, NULL},
    {"--size", "NXxNYxNZ", RID | TUNE, HELP_MAIN,
     "grid cells, the halo of 2 on each side included    (64x64x16)", set_size, 0, 0, 0, NULL},
    {"--precision", "P", RID | TUNE, HELP_MAIN,
     "double | float (info: of the field footprint)      (double)",
     set_choice, AT(o.spec.prec), 0, 2, precisions},
    {"--layout", "L", RID, HELP_MAIN,
     "cell order: rowmajor | zcurve | zcurve-w | random   (zcurve)\n"
     "(run with --mesh: file | metis | zcurve, see --mesh)", set_layout, 0, 0, 0, NULL},
    {"--zcurve-w", "W", RID, HELP_MAIN,
     "run width of zcurve-w, a power of two               (32)", set_zcurve_w, 0, 0, 0, NULL},
    {"--seed", "N", RID, HELP_MAIN,
     "seed of the random layout and of the input data     (42)", set_seed, 0, 0, 0, NULL},
    {"--storage", "S", RID, HELP_MAIN,
     "chasing (4 relations) | nonchasing (20 relations)   (chasing)", set_storage, 0, 0, 0, NULL},
    {"--compress", NULL, RID, HELP_MAIN,
     "compress the neighbour table into patterns (info: mark the\n"
     "compressed table)", set_compress, 0, 0, 0, NULL},
    {"--grid", "G", RD, HELP_MAIN,
     "unstructured | regular (the baseline twin)          (unstructured)",
     set_choice, AT(o.regular), 0, 2, grids},
    {"--access", "A", RD, HELP_MAIN,
     "GPU strategy: naive | idxvar | shared | shared-warp | zloop |\n"
     "zloop-sliced | staged | twopass                     (idxvar)", set_access, 0, 0, 0, NULL},
    {"--threads", "BXxBYxBZ", RD, HELP_MAIN,
     "GPU block shape                          (per-strategy default)", set_threads, 0, 0, 0, NULL},
    {"--zslice", "M", RD, HELP_MAIN,
     "levels per thread of zloop-sliced (per block: staged;\n"
     "level groups per block: twopass)                    (8)",
     set_zslice, AT(o.zslice), 1, 4096, NULL},
    {"--constant-tables", NULL, RD, HELP_MAIN,
     "GPU: compressed tables in __constant__ memory",
     set_switch, AT(o.constant_tables), 0, 0, NULL},
    {"--packed-rows", NULL, RD, HELP_MAIN,
     "GPU: compressed tables as one 16-byte-aligned row of offsets per\n"
     "pattern, read with vector loads", set_switch, AT(o.packed_rows), 0, 0, NULL},
    {"--aos", NULL, RD, HELP_MAIN,
     "GPU fastwaves with --access idxvar: fields as one array of\n"
     "structs (for comparison with the struct-of-arrays default)",
     set_switch, AT(o.aos), 0, 0, NULL},
    {"--runs", "N", RD, HELP_MAIN,
     "timed runs; the median is reported                  (10)",
     set_range, AT(o.runs), 1, 100000, NULL},
    {"--runs", "N", TUNE, HELP_MAIN,
     "timed runs of each candidate; its median counts     (10)",
     set_range, AT(o.runs), 1, 100000, NULL},
    {"--plan", "P", RUN, HELP_MAIN,
     "the tuned plan (docs/tune.md): auto (the plan cache's plan for this\n"
     "mesh, stencil, precision, levels and device, if 'pillar tune' made\n"
     "one), off (the untuned defaults), or a plan FILE. The plan chooses\n"
     "what the flags leave free: --layout, --storage, --compress and, on\n"
     "the GPU, --access, --threads, --zslice. $PILLAR_PLAN=off|FILE sets\n"
     "the default                                          (auto)",
     set_text, AT(o.plan), 0, 0, NULL},
    {"--budget", "SECONDS", TUNE, HELP_MAIN,
     "no candidate starts once the search would pass this (45: with reading\n"
     "the grid and verifying the winner, a minute on a million cells)",
     set_budget, 0, 0, 0, NULL},
    {"--show", NULL, TUNE, HELP_MAIN,
     "list the plans of the plan cache (no GPU needed), nothing measured",
     set_switch, AT(show), 0, 0, NULL},
    {"--out", "PATH", TUNE, HELP_MAIN,
     "also write the plan to PATH (a plan file 'pillar run --plan PATH'\n"
     "takes, e.g. to copy to another machine)", set_text, AT(plan_out), 0, 0, NULL},
    {"--top", "N", TUNE, HELP_MAIN,
     "rows of the table of what was measured, fastest first  (10)",
     set_range, AT(top), 1, 100000, NULL},
    {"--backend", "B", RD, HELP_MAIN,
     "auto | cpu | gpu                                    (auto)",
     set_choice, AT(o.backend), 0, 3, backends},
    {"--mesh", "FILE", RUN | TUNE, HELP_MAIN,
     "run on the cells of a mesh file (docs/mesh-format.md; 'pillar mesh'),\n"
     "or of any grid file 'pillar mesh import' reads, imported in memory\n"
     "(--levels, --format):\n"
     "halo = cells lacking a neighbour within the stencil's radius, levels\n"
     "from the file, --size not used; --layout file (the file's order,\n"
     "default), metis (METIS parts of about --zcurve-w W cells, or the\n"
     "partition stored by 'pillar mesh partition') or zcurve (a Morton\n"
     "curve of the cells' /coordinates; on a sphere face by face of the\n"
     "cube around it). Halo cells first in each. Verified against the\n"
     "regular grid when the mesh is a regular patch (/patch_xy), else\n"
     "against the CPU unstructured executor on the same cells (graph\n"
     "stencils: against their lists; --grid regular: the lattice twin)",
     set_text, AT(o.mesh), 0, 0, NULL},
    {"--input", "FILE", RUN, HELP_MAIN,
     "initial values of the stencil's input fields from a field file\n"
     "(docs/field-format.md): one dataset per input field, named after it\n"
     "(in, coeff, u_pos, ...), shape [nz][ncells] in the user's cell order\n"
     "(y*nx + x over the whole grid, or the mesh file's rows); all input\n"
     "fields must be there, float or double, finite; with --steps the\n"
     "initial state of the iteration", set_text, AT(o.input), 0, 0, NULL},
    {"--output", "FILE", RUN, HELP_MAIN,
     "after a verified run, write the output fields (out, u_out, v_out)\n"
     "there in the same format, NaN where nothing is computed (halo, top\n"
     "levels); the file appears whole or not at all. With --steps: the\n"
     "state after the last step, as the input fields (in, coeff, ...), so\n"
     "the file is the --input of a run that goes on", set_text, AT(o.output), 0, 0, NULL},
    {"--verify", "M", RUN, HELP_MAIN,
     "on | off: off skips the CPU reference and the comparison (for runs\n"
     "too large or too long to recompute on the CPU; a distributed run\n"
     "still prints its state's checksum to compare with other runs);\n"
     "--output is refused then (it is written after a verified run)  (on)",
     set_choice, AT(o.no_verify), 0, 2, on_off},
    {"--progress", NULL, RUN, HELP_MAIN,
     "show how far a run and its verification are, with the time left, on\n"
     "stderr once they take more than 2 s (also when stderr is no terminal;\n"
     "on a terminal it is shown anyway)", set_switch, AT(progress), 0, 0, NULL},
    {"--json", NULL, RUN | MINFO, HELP_MAIN,
     "print one JSON object on stdout instead of the table: the same\n"
     "facts, a member per line of it, and \"values\" with the numbers",
     set_json, 0, 0, 0, NULL},
    {"--output-every", "N", RUN, HELP_ITER,
     "with --steps T and --output: the state after every N steps (and\n"
     "after T) along the output file's time axis; the run goes in passes\n"
     "of N steps, each verified",
     set_range, AT(o.output_every), 1, 1000000, NULL},
    {"--output-inputs", NULL, RUN, HELP_MAIN,
     "write the input fields into the --output FILE too (it can then be\n"
     "given back as --input; with --steps they are always written)",
     set_switch, AT(o.output_inputs), 0, 0, NULL},
    {"--steps", "T", RUN, HELP_ITER,
     "time steps                                          (1)",
     set_range, AT(o.steps), 1, 1000000, NULL},
    {"--out-of-core", "M", RUN, HELP_ITER,
     "auto | on | off: stream chunks of Z-pillars through the device;\n"
     "auto streams only when the fields do not fit --device-mem  (auto)",
     set_choice, AT(o.ooc), 0, 3, on_off_auto},
    {"--device-mem", "SIZE", RUN, HELP_ITER,
     "device bytes the run may use, e.g. 4G or 512M (GPU: the free\n"
     "memory; the CPU backend runs the same chunking under this budget)",
     set_device_mem, 0, 0, 0, NULL},
    {"--fuse", "F", RUN, HELP_ITER,
     "steps per transfer: a chunk carries a halo of radius*F and computes\n"
     "F steps on a shrinking region (GPU default: a model of link, device\n"
     "bandwidth and memory doubles F from 1 (or K) while the time per step it\n"
     "predicts falls by 5%, up to 32; in core: all steps)", set_range, AT(o.fuse), 1, 64, NULL},
    {"--kernel-steps", "K", RUN, HELP_ITER,
     "laplap, hdiff, graphlap: K of those steps per kernel launch; each\n"
     "block of --threads cells stages them with their halo of radius*K in\n"
     "shared memory (graphlap: grown through the neighbour lists) and\n"
     "advances them K steps there (SO2DR's on-chip reuse);\n"
     "at most --fuse; without --fuse, F starts from K               (1)",
     set_range, AT(o.kernel_steps), 1, 16, NULL},
    {"--persistent", "M", RUN, HELP_ITER,
     "auto | on | off: GPU, laplap, hdiff, lap, graphlap: one cooperative\n"
     "launch runs all the steps (out of core: each chunk's; not graphlap),\n"
     "a grid barrier between two; each block owns fixed cells (--threads\n"
     "BX per block; --access does not apply). In core, laplap, hdiff and\n"
     "lap run on chip: each block owns a METIS part (a run of the cell\n"
     "order where that has less ring) and keeps its cells' lowest levels\n"
     "in shared memory and reads only its neighbours' ring after the\n"
     "barrier (H100, 512x512 z-curve: lap 1.5x / 0.97x the host loop at\n"
     "16 / 64 levels); laplap on a grid whose inner cells form one flat\n"
     "chart (a lattice in any cell order) walks it as a regular grid, the\n"
     "state copied into the chart's order and back (H200, 512x512 z-curve:\n"
     "2.4x / 1.2x); graphlap keeps its neighbour lists there. auto runs\n"
     "laplap, hdiff and lap on chip where the models predict it 1.10x\n"
     "faster than the host loop and 8 steps of each, timed on this GPU\n"
     "first, give 1.03x; it prints both; other stencils stay off\n"
     "(docs/persistent.md)                                       (auto)",
     set_choice, AT(o.persistent), 0, 3, on_off_auto},
    {"--persistent-levels", "N", RUN, HELP_ITER,
     "persistent runs: keep exactly N levels of the state on chip (0:\n"
     "none, every level streamed; default: the model's choice)",
     set_range, AT(o.persist_levels), 0, 100000, NULL},
    {"--share", NULL, RUN, HELP_ITER,
     "out of core: a chunk takes what it holds in common with the\n"
     "previous one from that chunk's device buffer instead of the host\n"
     "(SO2DR region sharing: fewer bytes cross the link, but on the H100\n"
     "it measured 1.0-1.3x slower; off by default)", set_switch, AT(o.share), 0, 0, NULL},
    {"--ranks", "P", RUN, HELP_ITER,
     "distributed run: expect P MPI ranks ('mpirun -np P pillar run ...'\n"
     "distributes any run started by mpirun over its ranks: each owns a\n"
     "METIS part, halos of radius*F exchanged every --fuse F steps;\n"
     "docs/distributed.md); refused when pillar is built without MPI",
     set_range, AT(o.ranks), 1, 1 << 20, NULL},
    {"--halo", "H", RUN, HELP_ITER,
     "distributed GPU run: how halos travel between ranks: nccl (GPU to\n"
     "GPU through NCCL: one GPU per rank, pillar built with it), ipc (GPU\n"
     "to GPU by the copy engines into the peers' buffers, mapped through\n"
     "CUDA IPC: ranks of one host; no SM moves them), staged (copied\n"
     "through the host to MPI), auto (nccl where it can)  (auto)",
     set_choice, AT(o.halo), 0, 4, halos},
    {"--plan-only", NULL, RUN, HELP_ITER,
     "print the distributed model: time per step on P = 1 .. 1024 GPUs of\n"
     "an R2B10-sized mesh (20,971,520 cells x 90 levels), strong and weak,\n"
     "its ring constant measured on this run's grid; nothing is run.\n"
     "With --backend gpu: first measures the pieces (pack, unpack, host\n"
     "copies, interior) of 2 parts of this run's grid on this GPU and\n"
     "feeds them into the model",
     set_switch, AT(o.plan_only), 0, 0, NULL},

    /* bench */
    {"--quick", NULL, BENCH, HELP_MAIN,
     "a few block shapes, 10 runs, rowmajor and zcurve-w (about 2 minutes)",
     set_switch, AT(b.quick), 0, 0, NULL},
    {"--stencil", "S", BENCH, HELP_MAIN,
     "only this stencil: @   (all W/E/S/N ones;\n"
     "graph ones with --mesh; a W/E/S/N one with --mesh on a quad mesh)",
     set_bench_stencil, 0, 0, 0, NULL},
    {"--stencil-file", "FILE", BENCH, HELP_MAIN,
     "only your own stencil, compiled from FILE (docs/own-stencil.md);\n"
     "a graph stencil file with --mesh",
     set_text, AT(stencil_file), 0, 0, NULL},
    {"--precision", "P", BENCH, HELP_MAIN,
     "double | float | both                                  (double)",
     set_bench_precision, 0, 0, 0, NULL},
    {"--layout", "L", BENCH, HELP_MAIN,
     "only this layout: rowmajor | zcurve | zcurve-w | random\n"
     "(default rowmajor, zcurve, zcurve-w; --quick: rowmajor, zcurve-w)",
     set_bench_layout, 0, 0, 0, NULL},
    {"--storage", "S", BENCH, HELP_MAIN,
     "only chasing or nonchasing tables                      (both)", set_storage, 0, 0, 0, NULL},
    {"--compress", "yes|no", BENCH, HELP_MAIN,
     "only compressed or uncompressed tables                 (both)",
     set_bench_compress, 0, 0, 0, NULL},
    {"--access", "A", BENCH, HELP_MAIN,
     "only this access strategy                              (all)", set_access, 0, 0, 0, NULL},
    {"--size", "NXxNYxNZ", BENCH, HELP_MAIN,
     "grid size, halo included                               (512x512x64)",
     set_bench_size, 0, 0, 0, NULL},
    {"--sweep", "domain", BENCH, HELP_MAIN,
     "sizes 64x64, 128x128, 512x512 x Z = 1..64 (thesis §6.6) instead of\n"
     "--size", set_sweep, 0, 0, 0, NULL},
    {"--runs", "N", BENCH, HELP_MAIN,
     "timed runs per configuration                           (20)",
     set_range, AT(b.runs), 1, 100000, NULL},
    {"--mesh", "FILE", BENCH, HELP_MAIN,
     "the graph stencils (or --stencil S, also a W/E/S/N one on a quad\n"
     "mesh, or --stencil-file) on the cells of this mesh file: orders file,\n"
     "metis, zcurve (with coordinates) x every table storage x strategy x\n"
     "block shape, and for graph stencils the lattice twin of a bounded\n"
     "generated hexagon or triangle mesh",
     set_text, AT(b.mesh), 0, 0, NULL},
    {"--iterated", NULL, BENCH, HELP_MAIN,
     "in-core iterated runs instead of the matrix: per stencil with\n"
     "iterated runs and level count, the host loop (one launch a step),\n"
     "K = 2 and 3 steps per launch, the persistent launch and what\n"
     "--persistent auto picks; kernels only, verified bit for bit\n"
     "(default 512x512 x 16, 64, 128 levels, 200 steps, 5 runs)",
     set_switch, AT(b.iterated), 0, 0, NULL},
    {"--steps", "T", BENCH, HELP_MAIN,
     "--iterated: time steps of each timed run               (200)",
     set_range, AT(b.steps), 1, 1000000, NULL},
    {"--levels", "L,L,...", BENCH, HELP_MAIN,
     "--iterated: level counts of the grids (NX, NY from --size)\n"
     "                                                       (16,64,128)",
     set_bench_levels, 0, 0, 0, NULL},
    {"--variants", "V,V,...", BENCH, HELP_MAIN,
     "--iterated: only these rows: host-loop, ksteps-2, ksteps-3,\n"
     "persistent, onchip, regular-host-loop, regular-onchip, auto (all)",
     set_text, AT(b.variants), 0, 0, NULL},
    {"--backend", "B", BENCH, HELP_MAIN,
     "--iterated: auto | cpu | gpu (the CPU backend times the chunked\n"
     "CPU iteration and its K-step twin)                     (auto)",
     set_choice, AT(b.backend), 0, 3, backends},
    {"--out", "DIR", BENCH, HELP_MAIN,
     "where the CSV and JSON go                              (bench-out)",
     set_text, AT(b.out), 0, 0, NULL},

    /* mesh generate, info, import, partition */
    {"--kind", "K", GEN, HELP_MAIN,
     "the mesh                                            (regular)\n"
     "regular       an NXxNY patch, row-major; stores\n"
     "              /patch_xy, so runs on it are verified\n"
     "              against the regular grid\n"
     "cubed-sphere  6 panels of NxN cells on the unit sphere;\n"
     "              orientation turns across panel seams; every\n"
     "              cell has 4 neighbours, 3 cells meet at each of\n"
     "              the 8 cube corners; no halo\n"
     "shuffled      the regular patch with cell numbers permuted\n"
     "              at random within windows of W consecutive\n"
     "              cells (same connectivity and geometry, a\n"
     "              locally scrambled order; keeps /patch_xy)\n"
     "rotated       the regular patch with the W/E/S/N labels of\n"
     "              the cells of each WxW block turned by a seeded\n"
     "              0-3 quarter turns (same connectivity, locally\n"
     "              rotated orientation; no regular twin)\n"
     "triangles     a general mesh: NXxNY squares, each cut along\n"
     "              its diagonal into 2 triangles (3 neighbours\n"
     "              inside, fewer on the border)\n"
     "hexagons      a general mesh: NXxNY hexagons in rows, odd\n"
     "              rows shifted by half a cell (6 neighbours inside)\n"
     "refined       a general mesh: an NXxNY quad patch whose\n"
     "              centred MxM square (--refine) is split 2x2;\n"
     "              hanging nodes on its border: the coarse cells\n"
     "              along it have 5 neighbours", set_named, AT(m.gen.kind), PILLAR_NAMES_MESH_KIND,
     0, NULL},
    {"--size", "NXxNY", GEN, HELP_MAIN,
     "patch extent (all but cubed-sphere)                (64x64)", set_mesh_size, 0, 0, 0, NULL},
    {"--refine", "M", GEN, HELP_MAIN,
     "refined: edge of the refined square, 1 to the patch's shorter side\n"
     "(a third of it, at least 1)", set_range, AT(m.gen.refine), 1, INT_MAX, NULL},
    {"--periodic", NULL, GEN, HELP_MAIN,
     "triangles, hexagons: wrap around in x and y (a torus: no border, no\n"
     "halo; needs at least 2x2 squares or 3x4 hexagons, an even number of rows)",
     set_switch, AT(m.gen.periodic), 0, 0, NULL},
    {"--n", "N", GEN, HELP_MAIN, "panel edge of the cubed sphere                     (24)",
     set_range, AT(m.gen.n), 1, 8192, NULL},
    {"--levels", "L", GEN | CMD_MESH_IMPORT | RUN | MINFO | TUNE, HELP_MAIN,
     "vertical levels stored in the file       (generate: 16, import: 64);\n"
     "run --mesh, mesh info: the levels of a grid file read directly (64)\n"
     "or instead of a mesh file's own",
     set_range, AT(m.gen.nlevels), 1, 100000, NULL},
    {"--merge-nodes", "[TOL]", CMD_MESH_IMPORT | RUN | MINFO, HELP_MAIN,
     "\nUGRID: nodes at most TOL apart are one node (TOL: 1e-9 when\n"
     "omitted; lengths on the unit sphere for longitude/latitude, the\n"
     "file's units for planar nodes; off: none merged). Without it,\n"
     "nodes at identical positions are one. mesh import prints the count;\n"
     "run --mesh and mesh info apply it to a grid file read directly",
     set_merge_nodes, 0, 0, 0, NULL},
    {"--format", "NAME", CMD_MESH_IMPORT | RUN | MINFO | TUNE, HELP_MAIN,
     "read the grid file as this format ('pillar mesh import --help' lists\n"
     "them) instead of the one its content shows", set_format, 0, 0, 0, NULL},
    {"--window", "W", GEN, HELP_MAIN,
     "shuffled: window of cells; rotated: block edge     (8)",
     set_range, AT(m.gen.window), 1, INT_MAX, NULL},
    {"--seed", "S", GEN, HELP_MAIN,
     "seed of shuffled and rotated                       (42)", set_seed, 0, 0, 0, NULL},
    {"--radius", "R", MINFO, HELP_MAIN,
     "halo radius the table statistics use: 1 or 2       (2)", set_range, AT(m.radius), 1, 2, NULL},
    {"--layout", "L", MINFO, HELP_MAIN,
     "cell order: file | metis | zcurve                  (file)\n"
     "(zcurve: a Morton curve of the cells' coordinates)",
     set_named, AT(m.order), PILLAR_NAMES_ORDER, 0, NULL},
    {"--part-size", "W", MINFO, HELP_MAIN,
     "metis without a stored partition: cells per part   (32)",
     set_range, AT(m.part_size), 1, INT_MAX, NULL},
    {"--parts", "K", CMD_MESH_PARTITION, HELP_MAIN,
     "number of parts, 1 to the number of cells (required)",
     set_range, AT(m.parts), 1, INT_MAX, NULL},

    /* every command */
    {"--help", NULL, ALL, HELP_ALWAYS, "this text (also -h)", set_switch, AT(help), 0, 0, NULL},
    {"--version", NULL, ALL, HELP_ALWAYS, "pillar's version and commit",
     set_switch, AT(version), 0, 0, NULL},
};

#define NFLAGS (sizeof flags / sizeof flags[0])

/* The commands: the name messages and help use, and their positional arguments. */
static const struct {
    unsigned cmd;
    const char *name;
    int npos;          /* FILE arguments */
    const char *files; /* what they are called */
} commands[] = {
    {CMD_DEFAULT, "", 0, NULL},
    {CMD_RUN, "run", 0, NULL},
    {CMD_INFO, "info", 0, NULL},
    {CMD_BENCH, "bench", 0, NULL},
    {CMD_MESH_GENERATE, "mesh generate", 1, "FILE"},
    {CMD_MESH_INFO, "mesh info", 1, "FILE"},
    {CMD_MESH_IMPORT, "mesh import", 2, "IN and OUT"},
    {CMD_MESH_PARTITION, "mesh partition", 1, "FILE"},
    {CMD_TUNE, "tune", 0, NULL},
};

void cli_defaults(cli_args *a, unsigned cmd)
{
    memset(a, 0, sizeof *a);
    a->cmd = cmd;
    a->name = "";
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        if (commands[k].cmd == cmd)
            a->name = commands[k].name;
    pillar_run_defaults(&a->o);
    if (cmd == CMD_DEFAULT) { /* the built-in 512x512x64 grid, non-chasing compressed */
        a->o.spec.nx = a->o.spec.ny = 512;
        a->o.spec.nz = 64;
        a->o.spec.chasing = 0;
        a->o.spec.compressed = 1;
        a->o.runs = 0; /* cmd_default: 3 on the CPU, 20 on the GPU, unless --runs */
    }
    bench_opts *b = &a->b;
    b->runs = -1;
    b->stencil = b->access = b->storage = b->compress = -1;
    b->precs[0] = pillar_name_index(PILLAR_NAMES_PRECISION, "double");
    b->nprecs = 1;
    b->out = "bench-out";
    mesh_args *m = &a->m;
    m->gen.kind = pillar_name_index(PILLAR_NAMES_MESH_KIND, "regular");
    m->gen.nx = m->gen.ny = 64;
    m->gen.n = 24;
    m->gen.nlevels = cmd == CMD_MESH_IMPORT ? 64 : cmd == CMD_MESH_GENERATE ? 16 : 0;
    m->gen.window = 8;
    m->gen.seed = 42;
    m->radius = 2;
    m->part_size = 32;
    m->format = -1;
    a->budget = PILLAR_TUNE_BUDGET_S;
    a->top = 10;
}

void print_version(void) { pillar_tool_version(stdout); }

/* One flag's help: "  --name ARG        text", continuation lines indented to the text. */
static void print_flag(const flag *f)
{
    char left[64];
    snprintf(left, sizeof left, "%s%s%s", f->name, f->arg ? " " : "", f->arg ? f->arg : "");
    printf("  %-18s ", left);
    for (const char *p = f->help; *p; p++) {
        if (*p == '@') { /* the stencils of the registry (stencils/registry.h), W/E/S/N ones
                          * only where '@' is followed by '4' */
            int quad = p[1] == '4', n;
            const char *const *names = pillar_names(PILLAR_NAMES_STENCIL, &n);
            for (int k = 0; k < n; k++) /* the built-in ones */
                if (k < (quad ? pillar_stencil_quad_count() : n))
                    printf("%s%s", k ? " | " : "", names[k]);
            p += quad;
            continue;
        }
        putchar(*p);
        if (*p == '\n')
            printf("%21s", "");
    }
    putchar('\n');
}

void cli_print_help(unsigned cmd, const help_part *help)
{
    for (const help_part *h = help; h->text || h->sections; h++) {
        if (h->text) {
            fputs(h->text, stdout);
            continue;
        }
        for (size_t k = 0; k < NFLAGS; k++)
            if ((flags[k].cmds & cmd) && (flags[k].section & h->sections))
                print_flag(&flags[k]);
    }
}

/* --layout zcurve orders a regular grid, or with --mesh the mesh's cells by their coordinates. */
static void mesh_layout_resolve(options *o)
{
    if (o->mesh && o->grid_layout_set &&
        o->spec.layout == pillar_name_index(PILLAR_NAMES_LAYOUT, "zcurve")) {
        o->mesh_order = pillar_name_index(PILLAR_NAMES_ORDER, "zcurve");
        o->mesh_layout_set = 1;
        o->grid_layout_set = 0;
    }
}

/* run, info, the default job: --mesh and the flags that do or do not go with it. */
static int mesh_flags_check(const cli_args *a)
{
    const options *o = &a->o;
    int run = a->cmd == CMD_RUN || a->cmd == CMD_TUNE, n;
    if (o->output_inputs && !o->output) {
        cmd_err(a, "--output-inputs adds the input fields to the --output FILE and needs it");
        return -1;
    }
    if (o->mesh_layout_set && !o->mesh) {
        cmd_err(a, "--layout %s orders the cells of a mesh file and needs --mesh FILE%s",
                pillar_names(PILLAR_NAMES_ORDER, &n)[o->mesh_order], run ? "" : " (pillar run)");
        return -1;
    }
    if (o->mesh && o->grid_layout_set) {
        cmd_err(a, "--layout %s needs a regular grid to order; with --mesh choose file, metis or "
                   "zcurve", pillar_names(PILLAR_NAMES_LAYOUT, &n)[o->spec.layout]);
        return -1;
    }
    if (!o->mesh && (a->m.format >= 0 || a->m.gen.nlevels)) {
        cmd_err(a, "--%s says how the grid file of --mesh FILE is read and needs it",
                a->m.format >= 0 ? "format" : "levels");
        return -1;
    }
    if (o->mesh && o->size_set) {
        cmd_err(a, "--size does not go with --mesh: the mesh file fixes the cells and levels");
        return -1;
    }
    if (pillar_stencil_is_graph(o->spec.stencil) && !o->mesh) {
        cmd_err(a, "--stencil %s runs on the cells of a mesh file: %s",
                pillar_names(PILLAR_NAMES_STENCIL, &n)[o->spec.stencil],
                run ? "add --mesh FILE (e.g. from 'pillar mesh generate F --kind hexagons')"
                    : "use 'pillar run --mesh FILE'");
        return -1;
    }
    return 0;
}

/* Whether the files the command writes are named (not "") and differ from every file it reads
 * (file_output_distinct): run --output against --mesh, --input and --stencil-file; mesh import
 * OUT against IN. (mesh partition rewrites its FILE on purpose; mesh generate and bench read no
 * file they could write.) 0, or -1 after a message. */
static int outputs_check(const cli_args *a)
{
    const char *out = a->cmd == CMD_MESH_IMPORT     ? a->m.out
                      : a->cmd == CMD_MESH_GENERATE ? a->m.file
                                                    : a->o.output;
    const char *what = a->cmd == CMD_MESH_IMPORT ? "OUT" : a->cmd == CMD_MESH_GENERATE ? "FILE"
                                                                                     : "--output";
    if (out && !*out) {
        cmd_err(a, "%s '': the path is empty; name the file to write", what);
        return -1;
    }
    if (a->cmd == CMD_MESH_IMPORT) {
        const char *in[] = {a->m.file}, *label[] = {"mesh to import"};
        return pillar_tool_outputs_distinct(out, what, in, label, 1);
    }
    const char *in[] = {a->o.mesh, a->o.input, a->stencil_file},
               *label[] = {"mesh file", "--input field file", "stencil file"};
    return pillar_tool_outputs_distinct(a->o.output, what, in, label, 3);
}

/* The flag of the table called `name` that command `cmd` accepts, or NULL. */
static const flag *find_flag(const char *name, unsigned cmd)
{
    if (!strcmp(name, "-h"))
        name = "--help";
    for (size_t k = 0; k < NFLAGS; k++)
        if ((flags[k].cmds & cmd) && !strcmp(flags[k].name, name))
            return &flags[k];
    return NULL;
}

int cli_parse(cli_args *a, unsigned cmd, const help_part *help, int argc, char **argv)
{
    cli_defaults(a, cmd);
    int npos = 0, maxpos = 0;
    const char *files = NULL;
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        if (commands[k].cmd == cmd) {
            maxpos = commands[k].npos;
            files = commands[k].files;
        }
    const char *see = a->name[0] ? " " : "";
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || !arg[1]) { /* a FILE argument ("-" alone is one too) */
            if (npos == maxpos) {
                if (maxpos)
                    cmd_err(a, "unexpected argument '%s' (%s only)", arg,
                            maxpos == 1 ? "one FILE" : files);
                else
                    cmd_err(a, "unexpected argument '%s' (see 'pillar%s%s --help')", arg, see,
                            a->name);
                return -1;
            }
            *(npos++ ? &a->m.out : &a->m.file) = arg;
            continue;
        }
        char name[64];
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (len >= sizeof name)
            len = sizeof name - 1;
        memcpy(name, arg, len);
        name[len] = 0;
        const flag *f = find_flag(name, cmd);
        if (!f) {
            cmd_err(a, "unknown flag '%s' (see 'pillar%s%s --help')", name, see, a->name);
            return -1;
        }
        const char *v = NULL;
        if (f->arg) {
            if (eq)
                v = eq + 1;
            else if (f->arg[0] == '[') /* an optional value */
                v = i + 1 < argc && optional_value(argv[i + 1]) ? argv[++i] : NULL;
            else if (i + 1 < argc)
                v = argv[++i];
            else {
                cmd_err(a, "%s needs a value (see 'pillar%s%s --help')", f->name, see, a->name);
                return -1;
            }
        } else if (eq) {
            cmd_err(a, "%s takes no value", f->name);
            return -1;
        }
        if (f->apply(a, f, v) != 0)
            return -1;
        if (a->help) {
            cli_print_help(cmd, help);
            return 1;
        }
        if (a->version) {
            print_version();
            return 1;
        }
    }
    if (npos < maxpos) {
        cmd_err(a, "which %s? (see 'pillar %s --help')", maxpos == 1 ? "FILE" : "IN and OUT files",
                a->name);
        return -1;
    }
    if (outputs_check(a) != 0)
        return -1;
    if (cmd & (CMD_DEFAULT | CMD_RUN | CMD_INFO | CMD_TUNE)) {
        mesh_layout_resolve(&a->o);
        return mesh_flags_check(a);
    }
    return 0;
}
