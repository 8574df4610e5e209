/* plan_file.c — plan files: JSON text out, strict reading and checking in. */
#include "plan_file.h"

#include "base/json.h"
#include "grids/grid.h"
#include "grids/mesh.h"
#include "src/io/cache_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int plan_emulated(const plan_problem *pr) { return strncmp(pr->mesh, "size:", 5) == 0; }

const char *plan_order_name(const plan_problem *pr, int order)
{
    if (plan_emulated(pr))
        return order >= 0 && order < LAYOUT_COUNT ? layout_name[order] : "?";
    return order >= 0 && order < MESH_ORDER_COUNT ? mesh_order_name[order] : "?";
}

int plan_stencil(const plan_problem *pr)
{
    for (int s = 0; s < ST_COUNT; s++)
        if (strcmp(pr->stencil, stencil_table[s].name) == 0)
            return s;
    return -1;
}

void plan_config_default(const plan_problem *pr, plan_config *c)
{
    memset(c, 0, sizeof *c);
    c->order = plan_emulated(pr) ? LAYOUT_ZCURVE : MESH_ORDER_FILE;
    c->chasing = 1;
    c->compressed = 0;
    c->access = ACC_IDXVAR;
    access_default_shape(ACC_IDXVAR, 1, &c->bx, &c->by, &c->bz);
    c->zslice = 0;
    c->kernel_steps = 1;
}

int plan_config_ok(const plan_problem *pr, int s, const plan_config *c, char *why, size_t n)
{
    const int norders = plan_emulated(pr) ? LAYOUT_COUNT : MESH_ORDER_COUNT;
    if (c->order < 0 || c->order >= norders) {
        snprintf(why, n, "field \"order\": %d names no cell order", c->order);
        return 0;
    }
    if ((int)c->access < 0 || c->access >= ACC_COUNT) {
        snprintf(why, n, "field \"access\": %d names no strategy", (int)c->access);
        return 0;
    }
    const access_desc *d = &access_table[c->access];
    if (s >= 0 && !access_supports(c->access, (stencil_t)s)) {
        snprintf(why, n, "field \"access\": %s has no kernels for %s", d->name, stencil_table[s].name);
        return 0;
    }
    if (s >= 0 && stencil_table[s].graph && plan_emulated(pr)) {
        snprintf(why, n, "field \"stencil\": %s runs on mesh files only, not on an emulated grid",
                 stencil_table[s].name);
        return 0;
    }
    char shape[200];
    if (!access_shape_ok(c->access, 1, c->bx, c->by, c->bz, shape, sizeof shape)) {
        snprintf(why, n, "field \"block\": %s", shape);
        return 0;
    }
    if (d->levels == LEVELS_SLICE ? c->zslice < 1 || c->zslice > pr->levels : c->zslice != 0) {
        if (d->levels == LEVELS_SLICE)
            snprintf(why, n, "field \"zslice\": %s walks slices of 1 to %d levels (the plan's levels); %d is "
                     "not", d->name, pr->levels, c->zslice);
        else
            snprintf(why, n, "field \"zslice\": %s walks no slices (0); %d is not", d->name, c->zslice);
        return 0;
    }
    if (c->kernel_steps < 1 || c->kernel_steps > PLAN_MAX_KSTEPS ||
        (c->kernel_steps > 1 && s >= 0 && !stencil_table[s].ksteps)) {
        snprintf(why, n, "field \"kernel_steps\": %d is not 1%s", c->kernel_steps,
                 s >= 0 && !stencil_table[s].ksteps ? " (the stencil has no K-step kernels)"
                                                    : " to 16");
        return 0;
    }
    return 1;
}

/* ---- writing ---- */

int plan_format(const plan *p, char *buf, size_t n)
{
    char dev[300], ver[120];
    json_quote(p->pr.device, dev, sizeof dev);
    json_quote(p->pr.version, ver, sizeof ver);
    int w = snprintf(buf, n,
                     "{\n"
                     "  \"format\": %d,\n"
                     "  \"key\": \"%s\",\n"
                     "  \"mesh\": \"%s\",\n"
                     "  \"stencil\": \"%s\",\n"
                     "  \"precision\": \"%s\",\n"
                     "  \"levels\": %d,\n"
                     "  \"device\": %s,\n"
                     "  \"pillar\": %s,\n"
                     "  \"order\": \"%s\",\n"
                     "  \"chasing\": %s,\n"
                     "  \"compressed\": %s,\n"
                     "  \"access\": \"%s\",\n"
                     "  \"block\": [%d, %d, %d],\n"
                     "  \"zslice\": %d,\n"
                     "  \"kernel_steps\": %d,\n"
                     "  \"ms\": %.17g,\n"
                     "  \"default_ms\": %.17g,\n"
                     "  \"measured\": \"%s\"\n"
                     "}\n",
                     PLAN_FORMAT, p->key, p->pr.mesh, p->pr.stencil, prec_name(p->pr.prec),
                     p->pr.levels, dev, ver, plan_order_name(&p->pr, p->c.order),
                     p->c.chasing ? "true" : "false", p->c.compressed ? "true" : "false",
                     access_name[p->c.access], p->c.bx, p->c.by, p->c.bz, p->c.zslice,
                     p->c.kernel_steps, p->ms, p->default_ms, p->measured);
    return w < 0 || (size_t)w >= n ? -1 : w;
}

int plan_write(const char *path, const plan *p)
{
    char text[4096];
    if (plan_format(p, text, sizeof text) < 0) {
        perr("plan %s: too long to write", path);
        return -1;
    }
    return cache_write(path, text);
}

void plan_now(char out[24])
{
    time_t t = time(NULL);
    struct tm u;
    gmtime_r(&t, &u);
    strftime(out, 24, "%Y-%m-%dT%H:%M:%SZ", &u);
}

/* ---- reading ---- */

/* The fields of a plan file, each read once; anything else is refused. */
static const char *const fields[] = {"format", "key", "mesh", "stencil", "precision", "levels",
                                     "device", "pillar", "order", "chasing", "compressed",
                                     "access", "block", "zslice", "kernel_steps", "ms",
                                     "default_ms", "measured"};
enum { NFIELDS = sizeof fields / sizeof fields[0] };

typedef struct {
    const json_value *root;
    const char *name;
} reader;

static int bad(const reader *r, const char *field, const char *fmt, const char *arg)
{
    char what[300];
    snprintf(what, sizeof what, fmt, arg);
    perr("plan %s: field \"%s\": %s", r->name, field, what);
    return -1;
}

static const json_value *get(const reader *r, const char *field, json_type t)
{
    const json_value *v = json_member(r->root, field);
    if (!v) {
        bad(r, field, "missing%s", "");
        return NULL;
    }
    if (v->type != t) {
        perr("plan %s: field \"%s\": a %s, not a %s", r->name, field, json_type_name[v->type],
             json_type_name[t]);
        return NULL;
    }
    return v;
}

/* An integer in [lo, hi] from v (a number without a fraction). */
static int int_in(const reader *r, const char *field, const json_value *v, long lo, long hi, int *out)
{
    char what[160];
    if (v->type != JSON_NUMBER || v->number != floor(v->number) || v->number < (double)lo ||
        v->number > (double)hi) {
        if (v->type == JSON_NUMBER)
            snprintf(what, sizeof what, "%.17g is not a whole number from %ld to %ld", v->number, lo, hi);
        else
            snprintf(what, sizeof what, "a %s, not a whole number from %ld to %ld",
                     json_type_name[v->type], lo, hi);
        return bad(r, field, "%s", what);
    }
    *out = (int)v->number;
    return 0;
}

static int get_int(const reader *r, const char *field, long lo, long hi, int *out)
{
    const json_value *v = json_member(r->root, field);
    if (!v)
        return bad(r, field, "missing%s", "");
    return int_in(r, field, v, lo, hi, out);
}

static int get_ms(const reader *r, const char *field, double lo_exclusive_or_zero, double *out)
{
    const json_value *v = get(r, field, JSON_NUMBER);
    if (!v)
        return -1;
    int zero_ok = lo_exclusive_or_zero == 0;
    if (!(v->number > 0 || (zero_ok && v->number == 0)) || v->number > PLAN_MAX_MS) {
        char what[120];
        snprintf(what, sizeof what, "%.17g ms is not a time a run takes (%s to %g)", v->number,
                 zero_ok ? "0" : "more than 0", PLAN_MAX_MS);
        return bad(r, field, "%s", what);
    }
    *out = v->number;
    return 0;
}

static int is_hex64(const char *s)
{
    if (strlen(s) != 64)
        return 0;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
            return 0;
    return 1;
}

/* A string of printable ASCII, 1 to max - 1 characters, into out (max bytes); spaces only
 * where `spaces`. */
static int get_text(const reader *r, const char *field, char *out, size_t max, int spaces)
{
    const json_value *v = get(r, field, JSON_STRING);
    if (!v)
        return -1;
    size_t l = strlen(v->string);
    if (l == 0 || l >= max) {
        char what[80];
        snprintf(what, sizeof what, "%zu characters, not 1 to %zu", l, max - 1);
        return bad(r, field, "%s", what);
    }
    for (const char *c = v->string; *c; c++)
        if (*c < (spaces ? 0x20 : 0x21) || *c > 0x7e)
            return bad(r, field, "%s", spaces ? "holds a character that is not printable ASCII"
                                              : "holds a space or a character that is not printable ASCII");
    memcpy(out, v->string, l + 1);
    return 0;
}

/* "size:NXxNY" with each side 1 .. 2^20 and at most 2^31 cells. */
static int size_spec_ok(const char *s)
{
    char tail;
    long nx, ny;
    if (sscanf(s, "size:%ldx%ld%c", &nx, &ny, &tail) != 2 || s[5] < '1' || s[5] > '9')
        return 0;
    char canon[80];
    snprintf(canon, sizeof canon, "size:%ldx%ld", nx, ny);
    return strcmp(canon, s) == 0 && nx >= 1 && ny >= 1 && nx <= (1L << 20) && ny <= (1L << 20) &&
           nx * ny <= (1L << 31);
}

static int read_problem(const reader *r, plan *p)
{
    const json_value *v;
    int fmt;
    if (get_int(r, "format", PLAN_FORMAT, PLAN_FORMAT, &fmt) != 0)
        return -1;
    if (get_text(r, "key", p->key, sizeof p->key, 0) != 0)
        return -1;
    if (!is_hex64(p->key))
        return bad(r, "key", "%s", "not 64 lowercase hexadecimal digits (a SHA-256)");
    if (get_text(r, "mesh", p->pr.mesh, sizeof p->pr.mesh, 0) != 0)
        return -1;
    if (!(strncmp(p->pr.mesh, "sha256:", 7) == 0 && is_hex64(p->pr.mesh + 7)) && !size_spec_ok(p->pr.mesh))
        return bad(r, "mesh", "\"%s\" is neither sha256:<64 hex digits> (a mesh file) nor "
                   "size:NXxNY (an emulated grid)", p->pr.mesh);
    if (get_text(r, "stencil", p->pr.stencil, sizeof p->pr.stencil, 0) != 0)
        return -1;
    if (plan_stencil(&p->pr) < 0 && !(strncmp(p->pr.stencil, "sha256:", 7) == 0 && is_hex64(p->pr.stencil + 7)))
        return bad(r, "stencil", "\"%s\" is neither a built-in stencil nor sha256:<64 hex "
                   "digits> (a stencil file)", p->pr.stencil);
    if (!(v = get(r, "precision", JSON_STRING)))
        return -1;
    if (strcmp(v->string, "double") == 0)
        p->pr.prec = PREC_DOUBLE;
    else if (strcmp(v->string, "float") == 0)
        p->pr.prec = PREC_FLOAT;
    else
        return bad(r, "precision", "\"%.60s\" is neither double nor float", v->string);
    if (get_int(r, "levels", 1, PLAN_MAX_LEVELS, &p->pr.levels) != 0)
        return -1;
    if (get_text(r, "device", p->pr.device, sizeof p->pr.device, 1) != 0 ||
        get_text(r, "pillar", p->pr.version, sizeof p->pr.version, 0) != 0)
        return -1;
    return 0;
}

static int read_config(const reader *r, plan *p)
{
    const json_value *v;
    plan_config *c = &p->c;
    if (!(v = get(r, "order", JSON_STRING)))
        return -1;
    int emulated = plan_emulated(&p->pr);
    layout_t lay;
    mesh_order_t mo;
    if (emulated ? layout_parse(v->string, &lay) != 0 : mesh_order_parse(v->string, &mo) != 0)
        return bad(r, "order", emulated ? "\"%.60s\" is no cell order of an emulated grid "
                                          "(rowmajor, zcurve, zcurve-w, random)"
                                        : "\"%.60s\" is no cell order of a mesh file (file, "
                                          "metis, zcurve)", v->string);
    c->order = emulated ? (int)lay : (int)mo;
    if (!(v = get(r, "chasing", JSON_BOOL)))
        return -1;
    c->chasing = v->boolean;
    if (!(v = get(r, "compressed", JSON_BOOL)))
        return -1;
    c->compressed = v->boolean;
    if (!(v = get(r, "access", JSON_STRING)))
        return -1;
    if (access_parse(v->string, &c->access) != 0) {
        char known[400] = "";
        for (int a = 0; a < ACC_COUNT; a++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", a ? ", " : "",
                     access_name[a]);
        perr("plan %s: field \"access\": unknown strategy \"%.60s\" (known: %s)", r->name,
             v->string, known);
        return -1;
    }
    if (!(v = get(r, "block", JSON_ARRAY)))
        return -1;
    if (v->n != 3)
        return bad(r, "block", "%s", "not 3 numbers [x, y, z]");
    int *b[3] = {&c->bx, &c->by, &c->bz};
    for (int i = 0; i < 3; i++)
        if (int_in(r, "block", &v->items[i], 1, 1L << 20, b[i]) != 0)
            return -1;
    if (get_int(r, "zslice", 0, PLAN_MAX_LEVELS, &c->zslice) != 0 ||
        get_int(r, "kernel_steps", 1, PLAN_MAX_KSTEPS, &c->kernel_steps) != 0)
        return -1;
    char why[300];
    if (!plan_config_ok(&p->pr, plan_stencil(&p->pr), c, why, sizeof why)) {
        perr("plan %s: %s", r->name, why);
        return -1;
    }
    return 0;
}

int plan_parse(const char *text, size_t len, const char *name, plan *out)
{
    memset(out, 0, sizeof *out);
    if (len > PLAN_MAX_BYTES) {
        perr("plan %s: %zu bytes, more than a plan file has (%d at most)", name, len, PLAN_MAX_BYTES);
        return -1;
    }
    json_value root;
    char err[200];
    if (json_parse(text, len, 4, &root, err, sizeof err) != 0) {
        perr("plan %s: not a plan file: bad JSON at %s", name, err);
        return -1;
    }
    reader r = {&root, name};
    int rc = 0;
    if (root.type != JSON_OBJECT) {
        perr("plan %s: not a plan file: a JSON %s, not an object", name, json_type_name[root.type]);
        rc = -1;
    }
    for (int i = 0; rc == 0 && i < root.n; i++) {
        int known = 0;
        for (int f = 0; f < NFIELDS; f++)
            known |= strcmp(root.keys[i], fields[f]) == 0;
        if (!known) {
            perr("plan %s: field \"%.60s\": unknown (a plan of format %d has: format, key, mesh, "
                 "stencil, precision, levels, device, pillar, order, chasing, compressed, access, "
                 "block, zslice, kernel_steps, ms, default_ms, measured)", name, root.keys[i], PLAN_FORMAT);
            rc = -1;
        }
    }
    if (rc == 0)
        rc = read_problem(&r, out);
    if (rc == 0)
        rc = read_config(&r, out);
    if (rc == 0)
        rc = get_ms(&r, "ms", 1, &out->ms);
    if (rc == 0)
        rc = get_ms(&r, "default_ms", 0, &out->default_ms);
    if (rc == 0)
        rc = get_text(&r, "measured", out->measured, sizeof out->measured, 0);
    if (rc == 0) {
        int Y, M, D, h, m, s;
        char z, canon[64];
        if (sscanf(out->measured, "%4d-%2d-%2dT%2d:%2d:%2d%c", &Y, &M, &D, &h, &m, &s, &z) != 7 ||
            z != 'Z' || M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || s > 60 ||
            Y < 1970 || (snprintf(canon, sizeof canon, "%04d-%02d-%02dT%02d:%02d:%02dZ", Y, M, D, h,
                                  m, s), strcmp(canon, out->measured) != 0))
            rc = bad(&r, "measured", "\"%s\" is not a time YYYY-MM-DDTHH:MM:SSZ", out->measured);
    }
    json_free(&root);
    if (rc != 0)
        memset(out, 0, sizeof *out);
    return rc;
}

int plan_read(const char *path, int trusted, plan *out)
{
    memset(out, 0, sizeof *out);
    int fd;
    if (trusted) {
        fd = cache_open_trusted(path, "plan cache");
        if (fd < 0)
            return fd;
    } else {
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0) {
            if (errno == ENOENT)
                return -2;
            perr("plan %s: %s", path, strerror(errno));
            return -1;
        }
    }
    struct stat st;
    const char *what = fstat(fd, &st) != 0 ? strerror(errno)
                       : S_ISDIR(st.st_mode)  ? "is a folder, not a plan file"
                       : S_ISFIFO(st.st_mode) ? "is a FIFO, not a plan file"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "is a device, not a plan file"
                       : !S_ISREG(st.st_mode) ? "is not a regular file"
                       : st.st_size > PLAN_MAX_BYTES ? "is larger than a plan file can be"
                       : st.st_size == 0 ? "is empty"
                                         : NULL;
    if (what) {
        if (st.st_size > PLAN_MAX_BYTES && S_ISREG(st.st_mode))
            perr("plan %s: %lld bytes, larger than a plan file can be (%d at most)", path,
                 (long long)st.st_size, PLAN_MAX_BYTES);
        else
            perr("plan %s: %s", path, what);
        close(fd);
        return -1;
    }
    char *text = xalloc(PLAN_MAX_BYTES + 1);
    size_t len = 0;
    for (;;) { /* a regular file: read returns what it holds, up to one byte more than allowed */
        ssize_t k = read(fd, text + len, PLAN_MAX_BYTES + 1 - len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            perr("plan %s: %s", path, strerror(errno));
            close(fd);
            xfree(text);
            return -1;
        }
        if (k == 0 || (len += (size_t)k) > PLAN_MAX_BYTES)
            break;
    }
    close(fd);
    int rc = plan_parse(text, len, path, out);
    xfree(text);
    return rc;
}
