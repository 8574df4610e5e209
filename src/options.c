/* options.c — flag parsing. Every error names the flag and the value it did not accept. */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void options_defaults(options *o)
{
    memset(o, 0, sizeof *o);
    o->spec.stencil = ST_LAPLAP;
    o->spec.prec = PREC_DOUBLE;
    o->spec.nx = 64;
    o->spec.ny = 64;
    o->spec.nz = 16;
    o->spec.halo = 2;
    o->spec.layout = LAYOUT_ZCURVE;
    o->spec.w = 32;
    o->spec.seed = 42;
    o->spec.chasing = 1;
    o->spec.compressed = 0;
    o->access = ACC_IDXVAR;
    o->runs = 10;
    o->zslice = 8;
    o->backend = BACKEND_AUTO;
}

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

typedef struct {
    const char *name;
    int takes_value;
    unsigned group;
} flag;

static const flag flags[] = {
    {"--size", 1, OPT_GRID},         {"--layout", 1, OPT_GRID},    {"--zcurve-w", 1, OPT_GRID},
    {"--storage", 1, OPT_GRID},      {"--compress", 0, OPT_GRID},  {"--seed", 1, OPT_GRID},
    {"--stencil", 1, OPT_STENCIL},   {"--precision", 1, OPT_STENCIL},
    {"--access", 1, OPT_EXEC},       {"--grid", 1, OPT_EXEC},      {"--threads", 1, OPT_EXEC},
    {"--runs", 1, OPT_EXEC},         {"--zslice", 1, OPT_EXEC},    {"--constant-tables", 0, OPT_EXEC},
    {"--packed-rows", 0, OPT_EXEC},
    {"--aos", 0, OPT_EXEC},          {"--backend", 1, OPT_EXEC},
    {"--mesh", 1, OPT_MESH},
    {"--steps", 1, OPT_ITER},        {"--fuse", 1, OPT_ITER},      {"--device-mem", 1, OPT_ITER},
    {"--out-of-core", 1, OPT_ITER},  {"--kernel-steps", 1, OPT_ITER},  {"--share", 0, OPT_ITER},
    {"--input", 1, OPT_FIELDS},      {"--output", 1, OPT_FIELDS},  {"--output-inputs", 0, OPT_FIELDS},
};

static void list_names(char *buf, size_t n, const char *const *names, int count)
{
    buf[0] = 0;
    for (int i = 0; i < count; i++) {
        strncat(buf, names[i], n - strlen(buf) - 1);
        if (i + 1 < count)
            strncat(buf, ", ", n - strlen(buf) - 1);
    }
}

static int apply(options *o, const char *cmd, const char *name, const char *v)
{
    char names[256];
    long n;
    mesh_order_t order;
    if (!strcmp(name, "--size")) {
        if (parse_triple(v, &o->spec.nx, &o->spec.ny, &o->spec.nz) != 0) {
            perr("%s: --size '%s': expected NXxNYxNZ with three positive integers, e.g. 512x512x64",
                 cmd, v);
            return -1;
        }
        o->size_set = 1;
    } else if (!strcmp(name, "--mesh")) {
        o->mesh = v;
    } else if (!strcmp(name, "--input")) {
        o->input = v;
    } else if (!strcmp(name, "--output")) {
        o->output = v;
    } else if (!strcmp(name, "--output-inputs")) {
        o->output_inputs = 1;
    } else if (!strcmp(name, "--layout") && mesh_order_parse(v, &order) == 0 &&
               order != MESH_ORDER_ZCURVE) { /* zcurve: see mesh_layout_resolve */
        o->mesh_order = order;
        o->mesh_layout_set = 1;
        o->grid_layout_set = 0;
    } else if (!strcmp(name, "--layout")) {
        o->grid_layout_set = 1;
        o->mesh_layout_set = 0;
        if (layout_parse(v, &o->spec.layout) != 0) {
            list_names(names, sizeof names, layout_name, LAYOUT_COUNT);
            perr("%s: --layout '%s' is not a layout; choose one of: %s (with --mesh: file, metis "
                 "or zcurve)", cmd, v, names);
            return -1;
        }
    } else if (!strcmp(name, "--zcurve-w")) {
        if (parse_long(v, 1, 4096, &n) != 0 || (n & (n - 1))) {
            perr("%s: --zcurve-w '%s': expected a power of two from 1 to 4096", cmd, v);
            return -1;
        }
        o->spec.w = (int)n;
    } else if (!strcmp(name, "--storage")) {
        if (!strcmp(v, "chasing"))
            o->spec.chasing = 1;
        else if (!strcmp(v, "nonchasing"))
            o->spec.chasing = 0;
        else {
            perr("%s: --storage '%s': choose chasing or nonchasing", cmd, v);
            return -1;
        }
    } else if (!strcmp(name, "--compress")) {
        o->spec.compressed = 1;
    } else if (!strcmp(name, "--seed")) {
        if (parse_u64(v, &o->spec.seed) != 0) {
            perr("%s: --seed '%s': expected an integer from 0 to 2^64 - 1, digits only", cmd, v);
            return -1;
        }
    } else if (!strcmp(name, "--stencil")) {
        if (stencil_parse(v, &o->spec.stencil) != 0) {
            const char *list[ST_COUNT];
            for (int k = 0; k < ST_COUNT; k++)
                list[k] = stencil_table[k].name;
            list_names(names, sizeof names, list, ST_COUNT);
            perr("%s: --stencil '%s' is not a stencil; choose one of: %s", cmd, v, names);
            return -1;
        }
        o->stencil_set = 1;
    } else if (!strcmp(name, "--precision")) {
        if (!strcmp(v, "double"))
            o->spec.prec = PREC_DOUBLE;
        else if (!strcmp(v, "float"))
            o->spec.prec = PREC_FLOAT;
        else {
            perr("%s: --precision '%s': choose float or double", cmd, v);
            return -1;
        }
    } else if (!strcmp(name, "--access")) {
        if (access_parse(v, &o->access) != 0) {
            list_names(names, sizeof names, access_name, ACC_COUNT);
            perr("%s: --access '%s' is not an access strategy; choose one of: %s", cmd, v, names);
            return -1;
        }
        o->access_set = 1;
    } else if (!strcmp(name, "--grid")) {
        if (!strcmp(v, "regular"))
            o->regular = 1;
        else if (!strcmp(v, "unstructured"))
            o->regular = 0;
        else {
            perr("%s: --grid '%s': choose regular or unstructured", cmd, v);
            return -1;
        }
    } else if (!strcmp(name, "--threads")) {
        if (parse_triple(v, &o->bx, &o->by, &o->bz) != 0 || o->bx > 512 || o->by > 512 ||
            o->bz > 512 || o->bx * o->by * o->bz > 512) { /* each <= 512 first: no overflow */
            perr("%s: --threads '%s': expected BXxBYxBZ, positive, at most 512 threads in all", cmd,
                 v);
            return -1;
        }
    } else if (!strcmp(name, "--runs")) {
        if (parse_long(v, 1, 100000, &n) != 0) {
            perr("%s: --runs '%s': expected an integer from 1 to 100000", cmd, v);
            return -1;
        }
        o->runs = (int)n;
    } else if (!strcmp(name, "--zslice")) {
        if (parse_long(v, 1, 4096, &n) != 0) {
            perr("%s: --zslice '%s': expected an integer from 1 to 4096", cmd, v);
            return -1;
        }
        o->zslice = (int)n;
    } else if (!strcmp(name, "--constant-tables")) {
        o->constant_tables = 1;
    } else if (!strcmp(name, "--packed-rows")) {
        o->packed_rows = 1;
    } else if (!strcmp(name, "--aos")) {
        o->aos = 1;
    } else if (!strcmp(name, "--steps")) {
        if (parse_long(v, 1, 1000000, &n) != 0) {
            perr("%s: --steps '%s': expected an integer from 1 to 1000000", cmd, v);
            return -1;
        }
        o->steps = (int)n;
    } else if (!strcmp(name, "--fuse")) {
        if (parse_long(v, 1, 64, &n) != 0) {
            perr("%s: --fuse '%s': expected an integer from 1 to 64 (steps per transfer)", cmd, v);
            return -1;
        }
        o->fuse = (int)n;
    } else if (!strcmp(name, "--kernel-steps")) {
        if (parse_long(v, 1, 16, &n) != 0) {
            perr("%s: --kernel-steps '%s': expected an integer from 1 to 16 (steps per kernel "
                 "launch)", cmd, v);
            return -1;
        }
        o->kernel_steps = (int)n;
    } else if (!strcmp(name, "--device-mem")) {
        if (parse_bytes(v, &o->device_mem) != 0 || o->device_mem == 0) {
            perr("%s: --device-mem '%s': expected a positive size in bytes, e.g. 4G, 512M, 1.5G",
                 cmd, v);
            return -1;
        }
    } else if (!strcmp(name, "--out-of-core")) {
        if (!strcmp(v, "auto"))
            o->ooc = OOC_AUTO;
        else if (!strcmp(v, "on"))
            o->ooc = OOC_ON;
        else if (!strcmp(v, "off"))
            o->ooc = OOC_OFF;
        else {
            perr("%s: --out-of-core '%s': choose auto, on or off", cmd, v);
            return -1;
        }
    } else if (!strcmp(name, "--share")) {
        o->share = 1;
    } else if (!strcmp(name, "--backend")) {
        if (!strcmp(v, "auto"))
            o->backend = BACKEND_AUTO;
        else if (!strcmp(v, "cpu"))
            o->backend = BACKEND_CPU;
        else if (!strcmp(v, "gpu"))
            o->backend = BACKEND_GPU;
        else {
            perr("%s: --backend '%s': choose auto, cpu or gpu", cmd, v);
            return -1;
        }
    }
    return 0;
}

/* --layout zcurve orders a regular grid, or with --mesh the mesh's cells by their coordinates. */
static void mesh_layout_resolve(options *o)
{
    if (o->mesh && o->grid_layout_set && o->spec.layout == LAYOUT_ZCURVE) {
        o->mesh_order = MESH_ORDER_ZCURVE;
        o->mesh_layout_set = 1;
        o->grid_layout_set = 0;
    }
}

/* --mesh and the flags that do or do not go with it. */
static int mesh_flags_check(const options *o, const char *cmd)
{
    if (o->mesh_layout_set && !o->mesh) {
        perr("%s: --layout %s orders the cells of a mesh file and needs --mesh FILE%s", cmd,
             mesh_order_name[o->mesh_order], strcmp(cmd, "run") ? " (pillar run)" : "");
        return -1;
    }
    if (o->mesh && o->grid_layout_set) {
        perr("%s: --layout %s needs a regular grid to order; with --mesh choose file, metis or "
             "zcurve", cmd, layout_name[o->spec.layout]);
        return -1;
    }
    if (o->mesh && o->size_set) {
        perr("%s: --size does not go with --mesh: the mesh file fixes the cells and levels", cmd);
        return -1;
    }
    if (stencil_table[o->spec.stencil].graph && !o->mesh) {
        perr("%s: --stencil %s runs on the cells of a mesh file: %s", cmd,
             stencil_table[o->spec.stencil].name,
             strcmp(cmd, "run") ? "use 'pillar run --mesh FILE'"
                                : "add --mesh FILE (e.g. from 'pillar mesh generate F --kind "
                                  "hexagons')");
        return -1;
    }
    return 0;
}

int options_parse(options *o, int argc, char **argv, const char *cmd, unsigned groups)
{
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h"))
            return 1;
        char name[64];
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (len >= sizeof name)
            len = sizeof name - 1;
        memcpy(name, arg, len);
        name[len] = 0;
        const flag *f = NULL;
        for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
            if (!strcmp(flags[k].name, name) && (flags[k].group & groups))
                f = &flags[k];
        if (!f) {
            if (arg[0] == '-')
                perr("%s: unknown flag '%s' (see 'pillar %s --help')", cmd, arg, cmd);
            else
                perr("%s: unexpected argument '%s' (see 'pillar %s --help')", cmd, arg, cmd);
            return -1;
        }
        const char *v = NULL;
        if (f->takes_value) {
            if (eq)
                v = eq + 1;
            else if (i + 1 < argc)
                v = argv[++i];
            else {
                perr("%s: %s needs a value (see 'pillar %s --help')", cmd, name, cmd);
                return -1;
            }
        } else if (eq) {
            perr("%s: %s takes no value", cmd, name);
            return -1;
        }
        if (apply(o, cmd, name, v) != 0)
            return -1;
    }
    if (o->output_inputs && !o->output) {
        perr("%s: --output-inputs adds the input fields to the --output FILE and needs it", cmd);
        return -1;
    }
    mesh_layout_resolve(o);
    return mesh_flags_check(o, cmd);
}
