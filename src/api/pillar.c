/* pillar.c — the C API of include/pillar.h over the engine: a lean problem (src/exec/problem.h) on
 * the caller's mesh, fields mapped through the user order of src/exec/field_io.h, and a session
 * (src/engine/session.h) that keeps them where they run — on the GPU resident across calls —
 * and holds the one decision tree of every application and time step.
 *
 * Every engine call made for the caller runs with the thread's messages captured into the
 * handle's error buffer (perr_capture), so nothing is printed. */
#include "include/pillar.h"

#include "src/engine/session.h"
#include "src/exec/field_io.h"
#include "src/exec/iterate.h"
#include "src/exec/run_options.h"
#include "src/exec/runner.h"
#include "src/dist/dist_decomp.h"
#include "src/dist/dist_mpi.h"
#include "src/io/files.h"
#include "src/io/mesh_import.h"
#include "src/io/mesh_io.h"
#include "src/jit/jit.h"
#include "src/tune/plan_defaults.h"
#include "src/tune/plan_use.h"
#include "src/tune/tune.h"
#include "base/sha256.h"
#ifdef PILLAR_HAVE_CUDA
#include "src/exec/gpu.h"
#endif

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERR_LEN 1024

struct pillar_ctx {
    char err[ERR_LEN];
    char note[ERR_LEN]; /* a plan ignored at setup (stale, bad): pillar_last_error after it */
    /* options */
    problem_spec spec;
    mesh_order_t order;
    access_t access;
    int storage_auto, access_auto; /* "auto": the plan's, else the built-in plan's at setup */
    int bx, by, bz, zslice; /* the strategy's block shape and slice (0: its defaults) */
    int order_auto;  /* "auto" (the default): the plan's order, else file */
    char plan[1024]; /* option "plan": "" or "auto" the plan cache, "off", or a plan file */
    int tune;        /* option "tune" on: the search at setup (GPU) */
    char stencil_id[80]; /* a stencil file's or text's content id, "" for a built-in stencil */
    backend_t backend_asked;
    /* the grid before setup (taken over by the problem at setup) */
    int have_grid;
    mesh mesh;
    char *mesh_name; /* for messages: the file's path or what the caller gave */
    char *grid_path; /* pillar_grid_file's path (an input no write may replace), or NULL */
    /* after setup */
    int ready;
    int backend; /* BACKEND_CPU or BACKEND_GPU */
    problem pb;
    user_order u;
    session ses;     /* where the fields live; every run (src/engine/session.h) */
    int input_set[PILLAR_MAXF];
    struct {
        void *p;       /* the caller's device array bound to field k (pillar_bind_field_device) */
        int is_float;
        size_t count;
        int in_place;  /* used in place by the session (session_bind) */
    } bound[PILLAR_MAXF];
    int outputs_valid;
    long steps_done; /* pillar_step's steps since the inputs were last set */
    int comm_set;    /* pillar_set_comm: pillar_step runs over the ranks of comm */
    int comm;        /* its Fortran handle */
    int fuse;        /* option "fuse": steps between exchanges (0: 1) */
    int halo;        /* option "halo": how a GPU run's halos travel over MPI ranks, DIST_HALO_* */
    int decomp_set;  /* pillar_set_decomposition: the grid is this rank's part of a model's */
    dist_decomp decomp; /* its exchange (lists in pillar's cells after pillar_setup) */
    pillar_halo_fn halo_fn; /* pillar_set_halo_exchange: the model's exchange, or NULL */
    int share_made;  /* share: the decomposition as a rank's share of passes (pillar's
                      * exchange); -1: it could not be made (the local grid's passes run) */
    dist_rank share;
    char share_note[ERR_LEN]; /* why the share could not be made */
    dist_part *part; /* the share's passes, its fields kept where they are computed (host or
                      * device) across pillar_step calls; opened at the first share step */
    int part_stale;  /* an input was set since the part took its fields: load them again */
    int *part_of;    /* pillar's cell -> the part's local cell, or -1 (not in the part) */
    int part_ring;   /* every rank's model halo cells all lie in its part (ring or never
                      * computed): the part's own exchange refreshes them */
    char part_halo[160]; /* the path its halos take */
    void *halo_user;
    persist_mode persistent; /* option "persistent": GPU in-core steps in one launch */
    mesh_load_opts grid_opts; /* options "levels", "format", "merge_nodes": pillar_grid_file */
    int faulted;     /* a call was interrupted by a fault (PROTECTED) */
    xarena arena;    /* the blocks its calls allocated (freed by pillar_destroy after a fault) */
};

/* ---- errors ---- */

static pillar_status fail(pillar_ctx *ctx, pillar_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->err, sizeof ctx->err, fmt, ap);
    va_end(ap);
    return st;
}

/* Starts a call: checks the handle (not faulted: PROTECTED, below) and clears the last error. */
#define BEGIN(ctx)                                                                                \
    do {                                                                                          \
        if (!(ctx))                                                                               \
            return PILLAR_ERR_NULL;                                                               \
        if ((ctx)->faulted)                                                                       \
            return fail(ctx, PILLAR_ERR_STATE, "%s: an earlier call on this handle ran out of "  \
                        "memory or hit a device error; destroy it", __func__);                    \
        (ctx)->err[0] = 0;                                                                        \
    } while (0)

/* BEGIN, then returns the status of `guard` (a check of the call) unless it is PILLAR_OK. */
#define ENTER(ctx, guard)                                                                         \
    BEGIN(ctx);                                                                                   \
    do {                                                                                          \
        pillar_status g_ = (guard);                                                               \
        if (g_ != PILLAR_OK)                                                                      \
            return g_;                                                                            \
    } while (0)

#define NEED(ctx, p)                                                                              \
    do {                                                                                          \
        if (!(p))                                                                                 \
            return fail(ctx, PILLAR_ERR_NULL, "%s: argument '%s' is NULL", __func__, #p);        \
    } while (0)

/* The body of a public call that reaches the engine: `call` runs under a guard (base/common.h),
 * so host memory exhausted or a failed CUDA call returns PILLAR_ERR_NOMEM or PILLAR_ERR_BACKEND
 * with the fault's message instead of ending the caller's process. The handle is then marked
 * faulted: what the interrupted call built is in an unknown state, so every later call but
 * pillar_destroy is refused, and destroy frees only the handle itself. */
#define PROTECTED(ctx, call)                                                                      \
    if (!(ctx))                                                                                   \
        return PILLAR_ERR_NULL;                                                                   \
    guard g_;                                                                                     \
    xarena *outer_ = xarena_use(&(ctx)->arena); /* what the call allocates is the handle's */      \
    guard_enter(&g_);                                                                             \
    if (setjmp(g_.at) != 0) {                                                                     \
        xarena_use(outer_);                                                                       \
        return faulted(ctx, &g_);                                                                 \
    }                                                                                             \
    pillar_status s_ = (call);                                                                    \
    guard_leave(&g_);                                                                             \
    xarena_use(outer_);                                                                           \
    return s_

static pillar_status faulted(pillar_ctx *ctx, const guard *g)
{
    perr_capture(NULL, 0); /* the fault may have struck inside a captured engine call */
    ctx->faulted = 1;
    return fail(ctx, g->fault == FAULT_MEMORY ? PILLAR_ERR_NOMEM : PILLAR_ERR_BACKEND, "%s",
                g->msg);
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = xalloc(n);
    memcpy(d, s, n);
    return d;
}

const char *pillar_status_name(pillar_status s)
{
    static const char *const names[] = {
        "PILLAR_OK",        "PILLAR_ERR_NULL",        "PILLAR_ERR_ARG",   "PILLAR_ERR_UNKNOWN",
        "PILLAR_ERR_GRID",  "PILLAR_ERR_UNSUPPORTED", "PILLAR_ERR_STATE", "PILLAR_ERR_BACKEND",
        "PILLAR_ERR_NOMEM"};
    if ((int)s < 0 || (size_t)s >= sizeof names / sizeof names[0])
        return "PILLAR_ERR_(unknown status)";
    return names[s];
}

const char *pillar_last_error(const pillar_ctx *ctx) { return ctx ? ctx->err : "no handle"; }

/* ---- life ---- */

pillar_status pillar_create(pillar_ctx **out)
{
    if (!out)
        return PILLAR_ERR_NULL;
    *out = NULL;
    pillar_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return PILLAR_ERR_NOMEM;
    options o;
    options_defaults(&o); /* the command line's defaults */
    ctx->spec = o.spec;
    ctx->spec.layout = LAYOUT_ROWMAJOR; /* unused on a mesh: the cell order is `order` */
    ctx->access = o.access;
    ctx->storage_auto = ctx->access_auto = ctx->order_auto = 1;
    ctx->backend_asked = BACKEND_AUTO;
    ctx->order = MESH_ORDER_FILE;
    *out = ctx;
    return PILLAR_OK;
}

static void grid_drop(pillar_ctx *ctx)
{
    mesh_free(&ctx->mesh);
    memset(&ctx->mesh, 0, sizeof ctx->mesh);
    xfree(ctx->mesh_name);
    ctx->mesh_name = NULL;
    xfree(ctx->grid_path);
    ctx->grid_path = NULL;
    ctx->have_grid = 0;
}

void pillar_destroy(pillar_ctx *ctx)
{
    if (!ctx)
        return;
    if (ctx->faulted) { /* half-built state: every block its calls allocated, from its arena */
        xarena_free(&ctx->arena);
        free(ctx);
        return;
    }
    if (ctx->decomp_set)
        dist_decomp_free(&ctx->decomp);
    dist_part_close(ctx->part);
    xfree(ctx->part_of);
    if (ctx->share_made == 1)
        dist_rank_free(&ctx->share);
    if (ctx->ready) {
        session_close(&ctx->ses);
        user_order_free(&ctx->u);
        problem_free(&ctx->pb);
    }
    grid_drop(ctx);
    xarena_forget(&ctx->arena);
    free(ctx);
}

/* ---- options ---- */

static pillar_status before_setup(pillar_ctx *ctx, const char *what)
{
    if (ctx->ready)
        return fail(ctx, PILLAR_ERR_STATE, "%s: the handle is set up already (pillar_setup): "
                    "options and grid are fixed; create another handle", what);
    return PILLAR_OK;
}

static pillar_status after_setup(pillar_ctx *ctx, const char *what)
{
    if (!ctx->ready)
        return fail(ctx, PILLAR_ERR_STATE, "%s: call pillar_setup first", what);
    return PILLAR_OK;
}

static int pick(const char *v, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v, names[i]) == 0)
            return i;
    return -1;
}

static pillar_status bad_value(pillar_ctx *ctx, const char *key, const char *v,
                               const char *const *names, int n)
{
    char list[512] = "";
    if (strcmp(key, "access") == 0) /* access_name lists the strategies; auto is the library's */
        snprintf(list, sizeof list, "auto, ");
    for (int i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
    return fail(ctx, PILLAR_ERR_UNKNOWN, "pillar_set_option: %s '%s' is unknown; one of %s", key,
                v, list);
}

/* Loads a stencil file (path) or text (source) and makes it the handle's stencil. */
static pillar_status load_stencil(pillar_ctx *ctx, const char *path, const char *name,
                                  const char *source)
{
    stencil_t s;
    jit_options o = {0, 1};
    perr_capture(ctx->err, sizeof ctx->err);
    int rc = path ? jit_load_file(path, &o, &s) : jit_load_source(name, source, &o, &s);
    perr_capture(NULL, 0);
    if (rc != 0)
        return strstr(ctx->err, "no C compiler") ? PILLAR_ERR_UNSUPPORTED : PILLAR_ERR_ARG;
    ctx->spec.stencil = s;
    ctx->stencil_id[0] = 0; /* what plans key the stencil on */
    if (path) {
        perr_capture(ctx->err, sizeof ctx->err);
        if (plan_content_id(path, "stencil file", ctx->stencil_id, sizeof ctx->stencil_id) != 0)
            ctx->stencil_id[0] = 0; /* read a moment ago; no plan if it cannot be read again */
        perr_capture(NULL, 0);
        ctx->err[0] = 0;
    } else {
        sha256_ctx c;
        unsigned char d[32];
        char hex[65];
        sha256_init(&c);
        sha256_update(&c, source, strlen(source));
        sha256_final(&c, d);
        sha256_hex(d, hex);
        snprintf(ctx->stencil_id, sizeof ctx->stencil_id, "sha256:%s", hex);
    }
    return PILLAR_OK;
}

/* A stencil of one's own replaces the stencil, which a decomposition fixes. */
static pillar_status stencil_free(pillar_ctx *ctx, const char *fn)
{
    pillar_status st = before_setup(ctx, fn);
    if (st == PILLAR_OK && ctx->decomp_set)
        st = fail(ctx, PILLAR_ERR_STATE, "%s: the stencil is fixed by pillar_set_decomposition; "
                  "set it before", fn);
    return st;
}

static pillar_status set_stencil_file_body(pillar_ctx *ctx, const char *path)
{
    ENTER(ctx, stencil_free(ctx, "pillar_set_stencil_file"));
    NEED(ctx, path);
    return load_stencil(ctx, path, NULL, NULL);
}

pillar_status pillar_set_stencil_file(pillar_ctx *ctx, const char *path)
{
    PROTECTED(ctx, set_stencil_file_body(ctx, path));
}

static pillar_status set_stencil_source_body(pillar_ctx *ctx, const char *name, const char *source)
{
    ENTER(ctx, stencil_free(ctx, "pillar_set_stencil_source"));
    NEED(ctx, name);
    NEED(ctx, source);
    return load_stencil(ctx, NULL, name, source);
}

pillar_status pillar_set_stencil_source(pillar_ctx *ctx, const char *name, const char *source)
{
    PROTECTED(ctx, set_stencil_source_body(ctx, name, source));
}

pillar_status pillar_set_option(pillar_ctx *ctx, const char *key, const char *value)
{
    ENTER(ctx, before_setup(ctx, "pillar_set_option"));
    NEED(ctx, key);
    NEED(ctx, value);
    if (ctx->decomp_set && (strcmp(key, "stencil") == 0 || strcmp(key, "fuse") == 0))
        return fail(ctx, PILLAR_ERR_STATE, "pillar_set_option: %s is fixed by "
                    "pillar_set_decomposition (its halo was checked against the stencil's radius "
                    "x fuse); set it before", key);
    if (strcmp(key, "stencil") == 0) {
        stencil_t s;
        if (stencil_parse(value, &s) != 0) {
            const char *names[ST_COUNT];
            for (int i = 0; i < ST_COUNT; i++)
                names[i] = stencil_table[i].name;
            return bad_value(ctx, key, value, names, ST_COUNT);
        }
        ctx->spec.stencil = s;
    } else if (strcmp(key, "precision") == 0) {
        static const char *const names[] = {"double", "float"};
        int k = pick(value, names, 2);
        if (k < 0)
            return bad_value(ctx, key, value, names, 2);
        ctx->spec.prec = k ? PREC_FLOAT : PREC_DOUBLE;
    } else if (strcmp(key, "order") == 0) {
        ctx->order_auto = strcmp(value, "auto") == 0;
        if (!ctx->order_auto && mesh_order_parse(value, &ctx->order) != 0) {
            const char *names[MESH_ORDER_COUNT + 1];
            for (int i = 0; i < MESH_ORDER_COUNT; i++)
                names[i] = mesh_order_name[i];
            names[MESH_ORDER_COUNT] = "auto";
            return bad_value(ctx, key, value, names, MESH_ORDER_COUNT + 1);
        }
        if (ctx->order_auto)
            ctx->order = MESH_ORDER_FILE;
    } else if (strcmp(key, "plan") == 0) {
        if (!*value || strlen(value) >= sizeof ctx->plan)
            return fail(ctx, PILLAR_ERR_ARG, "pillar_set_option: plan '%.64s': expected auto, off "
                        "or the path of a plan file (at most %zu bytes)", value,
                        sizeof ctx->plan - 1);
        snprintf(ctx->plan, sizeof ctx->plan, "%s", value);
    } else if (strcmp(key, "tune") == 0) {
        static const char *const names[] = {"off", "on"};
        int k = pick(value, names, 2);
        if (k < 0)
            return bad_value(ctx, key, value, names, 2);
        ctx->tune = k;
    } else if (strcmp(key, "part_cells") == 0) {
        char *end;
        long w = strtol(value, &end, 10);
        if (*value == 0 || *end != 0 || w < 1 || w > 1 << 24)
            return fail(ctx, PILLAR_ERR_ARG, "pillar_set_option: part_cells '%s': expected an "
                        "integer from 1 to %d", value, 1 << 24);
        ctx->spec.w = (int)w;
    } else if (strcmp(key, "storage") == 0) {
        static const char *const names[] = {"chasing", "nonchasing", "chasing-compressed",
                                            "nonchasing-compressed", "auto"};
        int k = pick(value, names, 5);
        if (k < 0)
            return bad_value(ctx, key, value, names, 5);
        ctx->storage_auto = k == 4;
        ctx->spec.chasing = k % 2 == 0;
        ctx->spec.compressed = k >= 2;
    } else if (strcmp(key, "access") == 0) {
        ctx->access_auto = strcmp(value, "auto") == 0;
        if (!ctx->access_auto && access_parse(value, &ctx->access) != 0)
            return bad_value(ctx, key, value, access_name, ACC_COUNT);
    } else if (strcmp(key, "fuse") == 0) {
        char *end;
        long f = strtol(value, &end, 10);
        if (*value == 0 || *end != 0 || f < 1 || f > 64)
            return fail(ctx, PILLAR_ERR_ARG, "pillar_set_option: fuse '%s': expected an integer "
                        "from 1 to 64 (steps between halo exchanges)", value);
        ctx->fuse = (int)f;
    } else if (strcmp(key, "halo") == 0) {
        static const char *const names[] = {"auto", "nccl", "staged", "ipc"}; /* DIST_HALO_* */
        int k = pick(value, names, 4);
        if (k < 0)
            return bad_value(ctx, key, value, names, 4);
        ctx->halo = k;
    } else if (strcmp(key, "persistent") == 0) {
        static const char *const names[] = {"auto", "on", "off"};
        int k = pick(value, names, 3);
        if (k < 0)
            return bad_value(ctx, key, value, names, 3);
        ctx->persistent = (persist_mode)k; /* the order of persist_mode */
    } else if (strcmp(key, "levels") == 0) {
        char *end;
        long l = strtol(value, &end, 10);
        if (*value == 0 || *end != 0 || l < 0 || l > 100000)
            return fail(ctx, PILLAR_ERR_ARG, "pillar_set_option: levels '%s': expected an integer "
                        "from 1 to 100000 (0: the file's own, 64 for another tool's grid file)",
                        value);
        ctx->grid_opts.nlevels = (int)l;
    } else if (strcmp(key, "format") == 0) {
        int k = strcmp(value, "auto") == 0 ? -1 : mesh_importer_find(value);
        if (k < 0 && strcmp(value, "auto") != 0) {
            const char *names[MESH_IMPORTER_COUNT + 1];
            for (int i = 0; i < MESH_IMPORTER_COUNT; i++)
                names[i] = mesh_importers[i].name;
            names[MESH_IMPORTER_COUNT] = "auto";
            return bad_value(ctx, key, value, names, MESH_IMPORTER_COUNT + 1);
        }
        ctx->grid_opts.format = k < 0 ? NULL : mesh_importers[k].name;
    } else if (strcmp(key, "merge_nodes") == 0) {
        char *end;
        double tol = strcmp(value, "off") == 0 ? -1 : strtod(value, &end);
        if (strcmp(value, "off") != 0 && (*value == 0 || *end != 0 || !(tol >= 0 && tol < 1e300)))
            return fail(ctx, PILLAR_ERR_ARG, "pillar_set_option: merge_nodes '%s': expected a "
                        "distance (0 or more: nodes at most that far apart are one) or off",
                        value);
        ctx->grid_opts.merge_tol = tol;
    } else if (strcmp(key, "backend") == 0) {
        static const char *const names[] = {"auto", "cpu", "gpu"};
        int k = pick(value, names, 3);
        if (k < 0)
            return bad_value(ctx, key, value, names, 3);
        ctx->backend_asked = k == 0 ? BACKEND_AUTO : k == 1 ? BACKEND_CPU : BACKEND_GPU;
    } else {
        return fail(ctx, PILLAR_ERR_UNKNOWN, "pillar_set_option: unknown option '%s' (stencil, "
                    "precision, order, part_cells, storage, access, backend, fuse, halo, persistent, "
                    "levels, format, merge_nodes, plan, tune)", key);
    }
    return PILLAR_OK;
}

/* ---- the grid ---- */

static pillar_status grid_sizes(pillar_ctx *ctx, const char *fn, int ncells, int nlevels)
{
    pillar_status st = before_setup(ctx, fn);
    if (st != PILLAR_OK)
        return st;
    if (ctx->have_grid)
        return fail(ctx, PILLAR_ERR_STATE, "%s: the handle has a grid already", fn);
    if (ncells < 1)
        return fail(ctx, PILLAR_ERR_ARG, "%s: ncells = %d: need at least 1 cell", fn, ncells);
    if (nlevels < 1)
        return fail(ctx, PILLAR_ERR_ARG, "%s: nlevels = %d: need at least 1 level", fn, nlevels);
    if ((double)ncells * nlevels > 4e10)
        return fail(ctx, PILLAR_ERR_ARG, "%s: %d cells x %d levels: too large", fn, ncells,
                    nlevels);
    return PILLAR_OK;
}

/* Checks the mesh built in ctx->mesh; on failure it is dropped. */
static pillar_status grid_check(pillar_ctx *ctx, const char *fn)
{
    char why[512];
    if (mesh_check(&ctx->mesh, why, sizeof why) != 0) {
        grid_drop(ctx);
        return fail(ctx, PILLAR_ERR_GRID, "%s: %s", fn, why);
    }
    ctx->have_grid = 1;
    return PILLAR_OK;
}

/* A quad (general = 0) or general table of `width` columns, copied. */
static pillar_status grid_table(pillar_ctx *ctx, const char *fn, int ncells, int nlevels,
                                int general, int width, const int *table)
{
    size_t n = (size_t)ncells * (size_t)width;
    int *copy = xalloc(sizeof(int) * n);
    memcpy(copy, table, sizeof(int) * n);
    mesh *m = &ctx->mesh;
    m->ncells = ncells;
    m->nlevels = nlevels;
    if (!general) {
        m->nbr = copy;
        snprintf(m->kind, sizeof m->kind, "quad neighbour table (libpillar)");
    } else {
        m->adj = copy;
        m->maxdeg = width;
        snprintf(m->kind, sizeof m->kind, "general neighbour table (libpillar)");
    }
    ctx->mesh_name = dup_str("the caller's neighbour table");
    return grid_check(ctx, fn);
}

static pillar_status grid_quad_call(pillar_ctx *ctx, int ncells, int nlevels, const int *nbr)
{
    ENTER(ctx, grid_sizes(ctx, "pillar_grid_quad", ncells, nlevels));
    NEED(ctx, nbr);
    return grid_table(ctx, "pillar_grid_quad", ncells, nlevels, 0, 4, nbr);
}

static pillar_status grid_general_call(pillar_ctx *ctx, int ncells, int nlevels, int maxdeg,
                                  const int *adj)
{
    ENTER(ctx, grid_sizes(ctx, "pillar_grid_general", ncells, nlevels));
    NEED(ctx, adj);
    if (maxdeg < 1 || maxdeg > MESH_MAXDEG)
        return fail(ctx, PILLAR_ERR_ARG, "pillar_grid_general: maxdeg = %d: expected 1 to %d",
                    maxdeg, MESH_MAXDEG);
    return grid_table(ctx, "pillar_grid_general", ncells, nlevels, 1, maxdeg, adj);
}

static pillar_status grid_file_call(pillar_ctx *ctx, const char *path)
{
    ENTER(ctx, grid_sizes(ctx, "pillar_grid_file", 1, 1));
    NEED(ctx, path);
    perr_capture(ctx->err, sizeof ctx->err);
    int rc = mesh_load(path, &ctx->grid_opts, &ctx->mesh);
    perr_capture(NULL, 0);
    if (rc != 0) {
        memset(&ctx->mesh, 0, sizeof ctx->mesh);
        return PILLAR_ERR_GRID; /* mesh_read's message names the file and what is wrong */
    }
    ctx->mesh_name = dup_str(path);
    ctx->grid_path = dup_str(path);
    ctx->have_grid = 1;
    return PILLAR_OK;
}

static pillar_status set_coordinates_call(pillar_ctx *ctx, int ncells, int ncoord, const double *xyz)
{
    ENTER(ctx, before_setup(ctx, "pillar_set_coordinates"));
    NEED(ctx, xyz);
    if (!ctx->have_grid)
        return fail(ctx, PILLAR_ERR_STATE, "pillar_set_coordinates: give the grid first");
    if (ncells != ctx->mesh.ncells)
        return fail(ctx, PILLAR_ERR_ARG, "pillar_set_coordinates: ncells = %d, but the grid has "
                    "%d cells", ncells, ctx->mesh.ncells);
    if (ncoord != 2 && ncoord != 3)
        return fail(ctx, PILLAR_ERR_ARG, "pillar_set_coordinates: ncoord = %d: expected 2 or 3",
                    ncoord);
    size_t n = (size_t)ncells * (size_t)ncoord;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(xyz[i]))
            return fail(ctx, PILLAR_ERR_ARG, "pillar_set_coordinates: coordinate %d of cell %d is "
                        "not finite", (int)(i % (size_t)ncoord), (int)(i / (size_t)ncoord));
    xfree(ctx->mesh.coord);
    ctx->mesh.coord = xalloc(sizeof(double) * n);
    memcpy(ctx->mesh.coord, xyz, sizeof(double) * n);
    ctx->mesh.ncoord = ncoord;
    return PILLAR_OK;
}

static pillar_status write_mesh_call(pillar_ctx *ctx, const char *path)
{
    BEGIN(ctx);
    NEED(ctx, path);
    const mesh *m = ctx->ready ? &ctx->pb.mesh : &ctx->mesh;
    if (!ctx->ready && !ctx->have_grid)
        return fail(ctx, PILLAR_ERR_STATE, "pillar_write_mesh: the handle has no grid yet");
    perr_capture(ctx->err, sizeof ctx->err);
    file_named in = {ctx->grid_path, "grid file"};
    int rc = file_output_distinct(path, "pillar_write_mesh", &in, 1) == 0 ? mesh_write(path, m)
                                                                          : -1;
    perr_capture(NULL, 0);
    if (rc != 0 && !ctx->err[0])
        fail(ctx, PILLAR_ERR_ARG, "pillar_write_mesh: %s could not be written", path);
    return rc == 0 ? PILLAR_OK : PILLAR_ERR_ARG;
}

/* ---- setup ---- */

static pillar_status pick_backend(pillar_ctx *ctx)
{
    char why[256];
    ctx->backend = BACKEND_CPU;
    if (ctx->backend_asked == BACKEND_CPU)
        return PILLAR_OK;
    if (gpu_available(why, sizeof why)) {
        ctx->backend = BACKEND_GPU;
        return PILLAR_OK;
    }
    if (ctx->backend_asked == BACKEND_GPU)
        return fail(ctx, PILLAR_ERR_BACKEND, "pillar_setup: backend gpu: no usable CUDA device: "
                    "%s", why);
    return PILLAR_OK;
}

/* Configuration c applied to the options left auto: order and storage, and on the GPU the
 * strategy with its block shape and slice (what the session launches). */
static void take_config(pillar_ctx *ctx, const plan_config *c, int gpu)
{
    if (ctx->order_auto)
        ctx->order = (mesh_order_t)c->order;
    if (ctx->storage_auto) {
        ctx->spec.chasing = c->chasing;
        ctx->spec.compressed = c->compressed;
    }
    if (ctx->access_auto && gpu) {
        ctx->access = c->access;
        ctx->bx = c->bx;
        ctx->by = c->by;
        ctx->bz = c->bz;
        ctx->zslice = c->zslice;
    }
}

/* The plan of the handle's problem (src/tune/plan_use.h), keyed on the grid file's bytes (or
 * the tables the caller gave), the stencil, precision, levels and the backend's device; without
 * one, on the GPU, the built-in plan (src/tune/plan_defaults.h). Applied to the options left
 * auto (take_config). A stale or bad plan's note goes to stderr, in the command line's words.
 * pr gets the problem. */
static void take_plan(pillar_ctx *ctx, plan_problem *pr)
{
    char id[80] = "";
    int gpu = ctx->backend == BACKEND_GPU;
    perr_capture(ctx->err, sizeof ctx->err);
    if (ctx->grid_path && plan_content_id(ctx->grid_path, "grid file", id, sizeof id) != 0)
        id[0] = 0; /* read a moment ago; no plan if it cannot be read again */
    perr_capture(NULL, 0);
    ctx->err[0] = 0;
    if (!ctx->grid_path)
        plan_tables_id(&ctx->mesh, id, sizeof id);
    plan_problem_set(pr, id[0] ? id : "sha256:-", ctx->spec.stencil,
                     ctx->stencil_id[0] ? ctx->stencil_id : NULL, ctx->spec.prec,
                     ctx->mesh.nlevels, gpu);
    if (!(ctx->order_auto || ctx->storage_auto || ctx->access_auto))
        return;
    plan_choice ch;
    if (id[0] && !ctx->tune &&
        plan_choose(ctx->plan[0] ? ctx->plan : NULL, pr, ctx->spec.stencil,
                    ctx->mesh.coord != NULL, &ch) == PLAN_FOUND) {
        take_config(ctx, &ch.p.c, gpu);
        return;
    }
    if (id[0] && !ctx->tune && ch.note[0]) /* kept for pillar_last_error: the library never prints */
        snprintf(ctx->note, sizeof ctx->note, "%.*s", (int)sizeof ctx->note - 1, ch.note);
    plan_config c;
    if (gpu) { /* the CPU keeps the library's defaults: file order, chasing uncompressed */
        plan_config_builtin(pr, ctx->spec.stencil, ctx->mesh.coord != NULL, ctx->mesh.ncells, &c);
        take_config(ctx, &c, gpu);
    } else if (ctx->order_auto) {
        ctx->order = MESH_ORDER_FILE;
    }
}

#ifdef PILLAR_HAVE_CUDA
/* Option tune on: the search of `pillar tune` on the handle's problem (made in the caller's
 * options), its winner verified, stored as the plan and laid out for the session (the options
 * the caller set explicitly stay). 0, or -1 with the message in ctx->err. */
static int tune_at_setup(pillar_ctx *ctx, const plan_problem *pr)
{
    problem *pb = &ctx->pb;
    tune_problem tp = {*pr, ctx->spec.stencil, pb->mesh.coord != NULL, 0, pb->ug.nxy};
    tune_opts to = {PILLAR_TUNE_BUDGET_S, 0, NULL, NULL};
    tune_result r;
    perr_capture(ctx->err, sizeof ctx->err);
    tune_gpu *g = tune_gpu_open(pb, 10);
    int rc = tune_search(&tp, &to, tune_gpu_measure, g, &r);
    plan p;
    char msg[512] = "";
    if (rc == 0) {
        tune_make_plan(&tp, &r, &p);
        tune_result_free(&r);
        rc = tune_gpu_verify(g, &p.c, msg, sizeof msg);
        if (rc != 0)
            perr("pillar_setup: tune on: the fastest configuration failed verification (%s)", msg);
    }
    tune_gpu_close(g);
    if (rc == 0)
        rc = plan_cache_store(&p, NULL, 0);
    if (rc == 0) {
        take_config(ctx, &p.c, 1);
        pb->mesh_order = ctx->order; /* the search left pb in its last candidate's layout */
        rc = problem_relayout(pb, pb->s.layout, pb->s.w, ctx->spec.chasing, ctx->spec.compressed);
    }
    perr_capture(NULL, 0);
    return rc;
}
#endif

/* pillar_setup's checks before the grid is built (pr: the run's plan problem, take_plan). */
static pillar_status setup_checks(pillar_ctx *ctx, plan_problem *pr)
{
    pillar_status st = before_setup(ctx, "pillar_setup");
    if (st != PILLAR_OK)
        return st;
    if (!ctx->have_grid)
        return fail(ctx, PILLAR_ERR_STATE, "pillar_setup: give the grid first (pillar_grid_quad, "
                    "pillar_grid_general or pillar_grid_file)");
    const stencil_info *si = &stencil_table[ctx->spec.stencil];
    if (ctx->mesh.adj && !si->graph)
        return fail(ctx, PILLAR_ERR_UNSUPPORTED, "pillar_setup: %s reads W/E/S/N relations, but "
                    "the grid is a general table; use stencil graphlap, or give a quad table",
                    si->name);
    if (ctx->order == MESH_ORDER_ZCURVE && !ctx->mesh.coord)
        return fail(ctx, PILLAR_ERR_STATE, "pillar_setup: order zcurve needs the cells' "
                    "coordinates (pillar_set_coordinates)");
    st = pick_backend(ctx);
    if (st != PILLAR_OK)
        return st;
    if (ctx->tune && ctx->backend != BACKEND_GPU)
        return fail(ctx, PILLAR_ERR_UNSUPPORTED, "pillar_setup: tune on measures on the GPU, and "
                    "this handle runs on the CPU backend (%s); set tune off (a plan made by "
                    "'pillar tune' on a GPU machine is taken by option plan)",
                    ctx->backend_asked == BACKEND_CPU ? "backend cpu" : "no usable CUDA device");
    if (ctx->tune && ctx->decomp_set && si->coeffs.n > 0)
        return fail(ctx, PILLAR_ERR_UNSUPPORTED, "pillar_setup: tune on rebuilds %s's "
                    "coefficients for every candidate, which over a decomposition every rank "
                    "would have to do alike; set tune off (option plan takes a plan made by "
                    "'pillar tune')", si->name);
    take_plan(ctx, pr);
    return PILLAR_OK;
}

static pillar_status agreed(pillar_ctx *ctx, pillar_status st);

static pillar_status setup_call(pillar_ctx *ctx)
{
    BEGIN(ctx);
    plan_problem pr;
    pillar_status st = setup_checks(ctx, &pr);
    if (ctx->decomp_set) /* the build is collective (the coefficients' minima): all or none */
        st = agreed(ctx, st);
    if (st != PILLAR_OK)
        return st;
    /* the problem takes the mesh over (also on failure) */
    perr_capture(ctx->err, sizeof ctx->err);
    int rc = ctx->decomp_set
                 ? problem_make_piece(&ctx->pb, &ctx->spec, &ctx->mesh, ctx->mesh_name,
                                      ctx->order, 1, dist_min_all, &ctx->decomp.comm)
                 : problem_make_lean_mesh(&ctx->pb, &ctx->spec, &ctx->mesh, ctx->mesh_name,
                                          ctx->order, 1);
    perr_capture(NULL, 0);
    ctx->have_grid = 0;
    st = rc != 0 ? PILLAR_ERR_UNSUPPORTED : PILLAR_OK;
    if (ctx->decomp_set)
        st = agreed(ctx, st);
    if (st != PILLAR_OK) {
        if (rc == 0)
            problem_free(&ctx->pb);
        grid_drop(ctx);
        return st; /* the engine's message: too few levels, no inner cell, ... */
    }
#ifdef PILLAR_HAVE_CUDA
    if (ctx->tune && tune_at_setup(ctx, &pr) != 0) {
        problem_free(&ctx->pb);
        grid_drop(ctx);
        return PILLAR_ERR_BACKEND;
    }
#endif
    user_order_make(&ctx->pb, &ctx->u);
    if (ctx->decomp_set) /* the exchange addresses pillar's cells from now on */
        dist_decomp_renumber(&ctx->decomp, ctx->u.cell);
    session_init(&ctx->ses, &ctx->pb, &ctx->u, ctx->backend == BACKEND_GPU, ctx->access,
                 ctx->persistent);
    session_shape(&ctx->ses, ctx->bx, ctx->by, ctx->bz, ctx->zslice);
    ctx->ready = 1;
    snprintf(ctx->err, sizeof ctx->err, "%s", ctx->note); /* "" unless a plan was ignored */
    return PILLAR_OK;
}

/* ---- queries ---- */

pillar_status pillar_get_sizes(pillar_ctx *ctx, int *ncells, int *nlevels, int *nhalo)
{
    ENTER(ctx, after_setup(ctx, "pillar_get_sizes"));
    if (ncells)
        *ncells = ctx->pb.ug.nxy;
    if (nlevels)
        *nlevels = ctx->pb.ug.nz;
    if (nhalo)
        *nhalo = ctx->pb.ug.nhalo;
    return PILLAR_OK;
}

/* Checks a per-cell array argument. */
static pillar_status cells_arg(pillar_ctx *ctx, const char *fn, const void *a, int ncells)
{
    pillar_status st = after_setup(ctx, fn);
    if (st != PILLAR_OK)
        return st;
    if (!a)
        return fail(ctx, PILLAR_ERR_NULL, "%s: the array is NULL", fn);
    if (ncells != ctx->pb.ug.nxy)
        return fail(ctx, PILLAR_ERR_ARG, "%s: ncells = %d, but the grid has %d cells", fn, ncells,
                    ctx->pb.ug.nxy);
    return PILLAR_OK;
}

pillar_status pillar_get_permutation(pillar_ctx *ctx, int *perm, int ncells)
{
    ENTER(ctx, cells_arg(ctx, "pillar_get_permutation", perm, ncells));
    memcpy(perm, ctx->u.cell, sizeof(int) * (size_t)ncells);
    return PILLAR_OK;
}

pillar_status pillar_get_halo(pillar_ctx *ctx, int *halo, int ncells)
{
    ENTER(ctx, cells_arg(ctx, "pillar_get_halo", halo, ncells));
    for (int i = 0; i < ncells; i++)
        halo[i] = ctx->u.cell[i] < ctx->pb.ug.nhalo;
    return PILLAR_OK;
}

pillar_status pillar_field_count(pillar_ctx *ctx, int *nin, int *nout)
{
    BEGIN(ctx);
    const stencil_info *si = &stencil_table[ctx->spec.stencil];
    if (nin)
        *nin = si->nin;
    if (nout)
        *nout = si->nout;
    return PILLAR_OK;
}

pillar_status pillar_field_name(pillar_ctx *ctx, int k, const char **name)
{
    BEGIN(ctx);
    NEED(ctx, name);
    const stencil_info *si = &stencil_table[ctx->spec.stencil];
    if (k < 0 || k >= si->nin + si->nout)
        return fail(ctx, PILLAR_ERR_ARG, "pillar_field_name: k = %d: %s has fields 0 to %d", k,
                    si->name, si->nin + si->nout - 1);
    *name = si->field[k];
    return PILLAR_OK;
}

/* ---- fields ---- */

/* The field index of name, after checking the call's arguments; -1 after the message in *st. */
static int field_arg(pillar_ctx *ctx, const char *fn, const char *name, const void *values,
                     size_t count, pillar_status *st)
{
    if ((*st = after_setup(ctx, fn)) != PILLAR_OK)
        return -1;
    if (!name || !values) {
        *st = fail(ctx, PILLAR_ERR_NULL, "%s: argument '%s' is NULL", fn, name ? "values" : "name");
        return -1;
    }
    const stencil_info *si = &stencil_table[ctx->pb.s.stencil];
    int k = 0;
    while (k < ctx->pb.nf && strcmp(si->field[k], name) != 0)
        k++;
    if (k == ctx->pb.nf) {
        char list[512] = "";
        for (int j = 0; j < ctx->pb.nf; j++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", j ? ", " : "",
                     si->field[j]);
        *st = fail(ctx, PILLAR_ERR_UNKNOWN, "%s: %s has no field '%s' (its fields: %s)", fn,
                   si->name, name, list);
        return -1;
    }
    size_t want = (size_t)ctx->pb.ug.nxy * (size_t)ctx->pb.ug.nz;
    if (count != want) {
        *st = fail(ctx, PILLAR_ERR_ARG, "%s: field '%s': count = %zu, expected nlevels * ncells "
                   "= %d * %d = %zu", fn, name, count, ctx->pb.ug.nz, ctx->pb.ug.nxy, want);
        return -1;
    }
    return k;
}

/* values[z*ncells + i] of double (is_float 0) or float arrays */
static double value_at(const void *values, int is_float, size_t j)
{
    return is_float ? (double)((const float *)values)[j] : ((const double *)values)[j];
}

static pillar_status field_was_set(pillar_ctx *ctx, int k);
static void store_field(pillar_ctx *ctx, int k, const void *values, int is_float);

/* The refusal of a set whose value v at index j of the caller's array is not finite (or does
 * not fit float): the field is unchanged. */
static pillar_status bad_field_value(pillar_ctx *ctx, const char *fn, int k, double v, long j)
{
    return fail(ctx, PILLAR_ERR_ARG, "%s: field '%s': the value at level %d, cell %d is %g; "
                "values must be finite%s", fn, stencil_table[ctx->pb.s.stencil].field[k],
                (int)(j / ctx->pb.ug.nxy), (int)(j % ctx->pb.ug.nxy), v,
                ctx->pb.s.prec == PREC_FLOAT ? " and fit in float" : "");
}

static pillar_status set_field(pillar_ctx *ctx, const char *fn, int k, const void *values,
                               int is_float, size_t count)
{
    precision_t p = ctx->pb.s.prec;
    for (size_t j = 0; j < count; j++) { /* checked before any value is replaced */
        double v = value_at(values, is_float, j);
        if (!isfinite(v) || (p == PREC_FLOAT && fabs(v) > FLT_MAX))
            return bad_field_value(ctx, fn, k, v, (long)j);
    }
    store_field(ctx, k, values, is_float);
    return field_was_set(ctx, k);
}

/* Field k's host copy from the caller's values (checked), in its order. */
static void store_field(pillar_ctx *ctx, int k, const void *values, int is_float)
{
    const problem *pb = &ctx->pb;
    int n = pb->ug.nxy;
    for (int z = 0; z < pb->ug.nz; z++)
        for (int i = 0; i < n; i++)
            field_set(pb->s.prec, pb->uf.p[k], user_order_element(pb, &ctx->u, 1, i, z),
                      value_at(values, is_float, (size_t)z * (size_t)n + (size_t)i));
    session_host_wrote(&ctx->ses, k);
}

/* After input k was replaced (from the host or a device array). */
static pillar_status field_was_set(pillar_ctx *ctx, int k)
{
    ctx->part_stale = 1;
    ctx->input_set[k] = 1;
    ctx->outputs_valid = 0;
    ctx->steps_done = 0;
    return PILLAR_OK;
}

/* Field k (checked by field_use) from the host copy into the caller's array, in its order. */
static pillar_status get_field(pillar_ctx *ctx, int k, void *values, int is_float)
{
    const problem *pb = &ctx->pb;
    int output = k >= stencil_table[pb->s.stencil].nin;
    int n = pb->ug.nxy;
    session_host_read(&ctx->ses, k);
    for (int z = 0; z < pb->ug.nz; z++)
        for (int i = 0; i < n; i++) {
            double v = output && !user_order_computed(pb, &ctx->u, i, z)
                           ? NAN
                           : field_get(pb->s.prec, pb->uf.p[k],
                                       user_order_element(pb, &ctx->u, 1, i, z));
            size_t j = (size_t)z * (size_t)n + (size_t)i;
            if (is_float)
                ((float *)values)[j] = (float)v;
            else
                ((double *)values)[j] = v;
        }
    return PILLAR_OK;
}

/* What the session needs of the handle's options that may change after setup. */
static void session_sync(pillar_ctx *ctx)
{
    ctx->ses.comm_set = ctx->comm_set;
    ctx->ses.comm = ctx->comm;
    ctx->ses.fuse = ctx->fuse;
    ctx->ses.halo = ctx->halo;
}


/* Whether field k may be set (an input) or read (an input, or an output after pillar_apply). */
static pillar_status field_use(pillar_ctx *ctx, const char *fn, int k, int set)
{
    const stencil_info *si = &stencil_table[ctx->pb.s.stencil];
    if (set && k >= si->nin)
        return fail(ctx, PILLAR_ERR_ARG, "%s: '%s' is an output field of %s; only inputs are set",
                    fn, si->field[k], si->name);
    if (!set && k >= si->nin && !ctx->outputs_valid)
        return fail(ctx, PILLAR_ERR_STATE, "%s: output '%s' holds nothing: call pillar_apply "
                    "first (pillar_step and pillar_set_field leave the outputs undefined)", fn,
                    si->field[k]);
    return PILLAR_OK;
}

/* Field k set from / read into the caller's values (on_device: device memory) by the session,
 * renumbered on the device where it keeps the grid resident. *host_path = 1 when the session
 * leaves it to the host copy (renumbered on the host by the caller). */
static pillar_status session_field(pillar_ctx *ctx, const char *fn, int k, void *values,
                                   int is_float, int set, int on_device, int *host_path)
{
    long bad = -1;
    session_sync(ctx);
    perr_capture(ctx->err, sizeof ctx->err);
    int rc = set ? session_set(&ctx->ses, k, values, is_float, on_device, &bad)
                 : session_get(&ctx->ses, k, values, is_float, on_device);
    perr_capture(NULL, 0);
    *host_path = rc == 1;
    if (rc < 0)
        return PILLAR_ERR_BACKEND;
    if (bad >= 0) { /* the offending value, for the message */
        size_t es = is_float ? sizeof(float) : sizeof(double);
        unsigned char raw[sizeof(double)];
        const char *at = (const char *)values + (size_t)bad * es;
#ifdef PILLAR_HAVE_CUDA
        if (on_device)
            gpu_copy(raw, at, es, 0);
        else
#endif
            memcpy(raw, at, es);
        return bad_field_value(ctx, fn, k, value_at(raw, is_float, 0), bad);
    }
    return rc == 0 && set ? field_was_set(ctx, k) : PILLAR_OK;
}

/* pillar_set_field (set) and pillar_get_field, of either type: across the link once, renumbered
 * on the device, where the session keeps the grid resident; else renumbered on the host. */
static pillar_status field_call(pillar_ctx *ctx, const char *fn, const char *name, void *values,
                                int is_float, size_t count, int set)
{
    BEGIN(ctx);
    pillar_status st;
    int k = field_arg(ctx, fn, name, values, count, &st);
    if (k < 0 || (st = field_use(ctx, fn, k, set)) != PILLAR_OK)
        return st;
    if (ctx->backend == BACKEND_GPU) {
        int host_path;
        st = session_field(ctx, fn, k, values, is_float, set, 0, &host_path);
        if (!host_path)
            return st;
    }
    return set ? set_field(ctx, fn, k, values, is_float, count)
               : get_field(ctx, k, values, is_float);
}

pillar_status pillar_set_field(pillar_ctx *ctx, const char *name, const double *values,
                               size_t count)
{
    PROTECTED(ctx, field_call(ctx, "pillar_set_field", name, (void *)values, 0, count, 1));
}

pillar_status pillar_set_field_float(pillar_ctx *ctx, const char *name, const float *values,
                                     size_t count)
{
    PROTECTED(ctx, field_call(ctx, "pillar_set_field_float", name, (void *)values, 1, count, 1));
}

pillar_status pillar_get_field(pillar_ctx *ctx, const char *name, double *values, size_t count)
{
    PROTECTED(ctx, field_call(ctx, "pillar_get_field", name, values, 0, count, 0));
}

pillar_status pillar_get_field_float(pillar_ctx *ctx, const char *name, float *values,
                                     size_t count)
{
    PROTECTED(ctx, field_call(ctx, "pillar_get_field_float", name, values, 1, count, 0));
}

#ifdef PILLAR_HAVE_CUDA
/* A device-array call's refusals: a handle on the CPU backend, values not in device memory
 * (hint ends the message). */
static pillar_status device_array_ok(pillar_ctx *ctx, const char *fn, const char *name,
                                     const void *values, const char *hint)
{
    if (ctx->backend != BACKEND_GPU)
        return fail(ctx, PILLAR_ERR_UNSUPPORTED, "%s: this handle runs on the CPU backend; device "
                    "arrays need backend gpu (pillar_set_option(ctx, \"backend\", \"gpu\"))", fn);
    if (!gpu_is_device_memory(values))
        return fail(ctx, PILLAR_ERR_ARG, "%s: field '%s': values is not device memory (cudaMalloc "
                    "or cudaMallocManaged)%s", fn, name, hint);
    return PILLAR_OK;
}

static pillar_status device_field_move(pillar_ctx *ctx, const char *fn, int k, void *values,
                                       int is_float, size_t count, int set);
#endif

/* pillar_set_field_device (set) and pillar_get_field_device, of either type: renumbered on the
 * device where the session keeps the grid resident; otherwise the values cross through a host
 * copy, which the host path then handles. */
static pillar_status device_field_call(pillar_ctx *ctx, const char *fn, const char *name,
                                       void *values, int is_float, size_t count, int set)
{
    BEGIN(ctx);
    pillar_status st;
    int k = field_arg(ctx, fn, name, values, count, &st);
    if (k < 0)
        return st;
#ifdef PILLAR_HAVE_CUDA
    if ((st = device_array_ok(ctx, fn, name, values,
                              set ? "; give host arrays to pillar_set_field"
                                  : "; give host arrays to pillar_get_field")) != PILLAR_OK)
        return st;
    if ((st = field_use(ctx, fn, k, set)) != PILLAR_OK)
        return st;
    return device_field_move(ctx, fn, k, values, is_float, count, set);
#else
    (void)is_float;
    (void)set;
    (void)k;
    return fail(ctx, PILLAR_ERR_UNSUPPORTED, "%s: this build of libpillar has no GPU backend", fn);
#endif
}

#ifdef PILLAR_HAVE_CUDA
/* Field k (checked) set from or read into the caller's device array: renumbered on the device
 * where the session keeps the grid resident; else through a host copy. */
static pillar_status device_field_move(pillar_ctx *ctx, const char *fn, int k, void *values,
                                       int is_float, size_t count, int set)
{
    int host_path;
    pillar_status st = session_field(ctx, fn, k, values, is_float, set, 1, &host_path);
    if (st != PILLAR_OK || !host_path)
        return st;
    /* not resident (a grid larger than the device, a strategy without iterated kernels) */
    size_t bytes = count * (is_float ? sizeof(float) : sizeof(double));
    void *host = xalloc(bytes);
    if (set) {
        gpu_copy(host, values, bytes, 0);
        st = set_field(ctx, fn, k, host, is_float, count);
    } else {
        st = get_field(ctx, k, host, is_float);
        if (st == PILLAR_OK)
            gpu_copy(values, host, bytes, 1);
    }
    xfree(host);
    return st;
}
#endif

pillar_status pillar_set_field_device(pillar_ctx *ctx, const char *name, const double *values,
                                      size_t count)
{
    PROTECTED(ctx, device_field_call(ctx, "pillar_set_field_device", name, (void *)values, 0,
                                     count, 1));
}

pillar_status pillar_set_field_device_float(pillar_ctx *ctx, const char *name,
                                            const float *values, size_t count)
{
    PROTECTED(ctx, device_field_call(ctx, "pillar_set_field_device_float", name, (void *)values,
                                     1, count, 1));
}

pillar_status pillar_get_field_device(pillar_ctx *ctx, const char *name, double *values,
                                      size_t count)
{
    PROTECTED(ctx, device_field_call(ctx, "pillar_get_field_device", name, values, 0, count, 0));
}

pillar_status pillar_get_field_device_float(pillar_ctx *ctx, const char *name, float *values,
                                            size_t count)
{
    PROTECTED(ctx, device_field_call(ctx, "pillar_get_field_device_float", name, values, 1,
                                     count, 0));
}

/* pillar_bind_field_device of either type (values NULL: unbind). */
static pillar_status bind_call(pillar_ctx *ctx, const char *fn, const char *name, void *values,
                               int is_float, size_t count)
{
    BEGIN(ctx);
    pillar_status st;
    if (!values) { /* unbind: the field keeps its values, in the handle's own memory */
        int k = field_arg(ctx, fn, name, "", (size_t)ctx->pb.ug.nxy * (size_t)ctx->pb.ug.nz, &st);
        if (k < 0)
            return st;
        session_unbind(&ctx->ses, k);
        memset(&ctx->bound[k], 0, sizeof ctx->bound[k]);
        return PILLAR_OK;
    }
    int k = field_arg(ctx, fn, name, values, count, &st);
    if (k < 0)
        return st;
#ifdef PILLAR_HAVE_CUDA
    if ((st = device_array_ok(ctx, fn, name, values, "")) != PILLAR_OK)
        return st;
    int nin = stencil_table[ctx->pb.s.stencil].nin;
    session_unbind(&ctx->ses, k);
    memset(&ctx->bound[k], 0, sizeof ctx->bound[k]);
    if (k < nin) { /* an input takes the array's values now, checked as a set is */
        if ((st = device_field_move(ctx, fn, k, values, is_float, count, 1)) != PILLAR_OK)
            return st;
        session_sync(ctx);
        perr_capture(ctx->err, sizeof ctx->err);
        int r = session_bind(&ctx->ses, k, values, is_float);
        perr_capture(NULL, 0);
        if (r < 0)
            return PILLAR_ERR_BACKEND;
        ctx->bound[k].in_place = r == 1;
    }
    ctx->bound[k].p = values;
    ctx->bound[k].is_float = is_float;
    ctx->bound[k].count = count;
    return PILLAR_OK;
#else
    (void)is_float;
    return fail(ctx, PILLAR_ERR_UNSUPPORTED, "%s: this build of libpillar has no GPU backend", fn);
#endif
}

pillar_status pillar_bind_field_device(pillar_ctx *ctx, const char *name, double *values,
                                       size_t count)
{
    PROTECTED(ctx, bind_call(ctx, "pillar_bind_field_device", name, values, 0, count));
}

pillar_status pillar_bind_field_device_float(pillar_ctx *ctx, const char *name, float *values,
                                             size_t count)
{
    PROTECTED(ctx, bind_call(ctx, "pillar_bind_field_device_float", name, values, 1, count));
}

/* Before a run: bound inputs not used in place are set from their arrays (the caller may have
 * written into them); after it: the fields the run changed (the state after steps, the outputs
 * after an application) go back into their bound arrays. */
static pillar_status bound_move(pillar_ctx *ctx, const char *fn, int before, int steps)
{
#ifdef PILLAR_HAVE_CUDA
    const stencil_info *si = &stencil_table[ctx->pb.s.stencil];
    const iter_carry *c = iter_carried(ctx->pb.s.stencil);
    for (int k = 0; k < ctx->pb.nf; k++) {
        if (!ctx->bound[k].p || ctx->bound[k].in_place)
            continue;
        int changed = k >= si->nin ? !steps : 0;
        for (int j = 0; steps && j < c->n; j++)
            changed |= c->in[j] == k;
        if (before ? k >= si->nin : !changed)
            continue;
        pillar_status st = device_field_move(ctx, fn, k, ctx->bound[k].p, ctx->bound[k].is_float,
                                             ctx->bound[k].count, before);
        if (st != PILLAR_OK)
            return st;
    }
#else
    (void)ctx, (void)fn, (void)before, (void)steps;
#endif
    return PILLAR_OK;
}

/* ---- running ---- */

static pillar_status inputs_ready(pillar_ctx *ctx, const char *fn)
{
    pillar_status st = after_setup(ctx, fn);
    if (st != PILLAR_OK)
        return st;
    const stencil_info *si = &stencil_table[ctx->pb.s.stencil];
    for (int k = 0; k < si->nin; k++)
        if (!ctx->input_set[k])
            return fail(ctx, PILLAR_ERR_STATE, "%s: input field '%s' of %s was never set "
                        "(pillar_set_field)", fn, si->field[k], si->name);
    return PILLAR_OK;
}

/* A model's decomposition: every rank's status st agreed (the lowest failing rank's status and
 * message on every rank, in ctx->err), so that no rank waits for another at its next exchange. */
static pillar_status agreed(pillar_ctx *ctx, pillar_status st)
{
    return (pillar_status)dist_agree(ctx->decomp.comm, (int)st, ctx->err, sizeof ctx->err);
}

/* The session's fields ks[0], ks[1], .. as an exchange reads and writes them (session_cells). */
typedef struct {
    session *ses;
    const int *ks;
} halo_fields;

static void halo_cells(void *user, int f, const int *cell, int n, void *buf, int pack)
{
    const halo_fields *h = user;
    session_cells(h->ses, h->ks[f], cell, n, buf, pack);
}

/* A model's decomposition: the halo cells of the inputs (all_inputs) or of the state (the
 * carried fields) get their owners' values, by pillar's exchange or the model's (halo_fn).
 * Collective; the status agreed by every rank. */
static pillar_status halo_refresh(pillar_ctx *ctx, const char *fn, int all_inputs)
{
    problem *pb = &ctx->pb;
    const stencil_info *si = &stencil_table[pb->s.stencil];
    const iter_carry *ca = iter_carried(pb->s.stencil);
    int ks[PILLAR_MAXF], nk = 0;
    for (int k = 0; k < (all_inputs ? si->nin : ca->n); k++)
        ks[nk++] = all_inputs ? k : ca->in[k];
    if (!ctx->halo_fn) { /* the listed cells only, where the fields are (the device's) */
        halo_fields h = {&ctx->ses, ks};
        perr_capture(ctx->err, sizeof ctx->err);
        int rc = dist_decomp_exchange_cells(&ctx->decomp, pb->s.prec, nk, pb->ug.nz, halo_cells,
                                            &h);
        perr_capture(NULL, 0);
        return rc == 0 ? PILLAR_OK : PILLAR_ERR_BACKEND; /* dist_decomp_exchange agrees */
    }
    int is_float = pb->s.prec == PREC_FLOAT, rank = ctx->decomp.rank;
    size_t count = (size_t)pb->ug.nxy * (size_t)pb->ug.nz;
    void *buf = xalloc(count * prec_size(pb->s.prec));
    pillar_status st = PILLAR_OK;
    for (int i = 0; i < nk && st == PILLAR_OK; i++) {
        get_field(ctx, ks[i], buf, is_float);
        int r = ctx->halo_fn(ctx->halo_user, si->field[ks[i]], buf, pb->ug.nz, pb->ug.nxy, 0);
        if (r != 0)
            st = fail(ctx, PILLAR_ERR_BACKEND, "%s: the model's halo exchange returned %d on rank "
                      "%d for field '%s'", fn, r, rank, si->field[ks[i]]);
        else
            store_field(ctx, ks[i], buf, is_float);
    }
    xfree(buf);
    return agreed(ctx, st);
}

/* Whether every rank runs pillar_step on its share (dist_decomp_share, made at the first such
 * step): with pillar's exchange; otherwise (the model's exchange, a share that could not be
 * made) each pass computes the whole local grid. Collective. */
static int on_share(pillar_ctx *ctx)
{
    problem *pb = &ctx->pb;
    char msg[64] = "";
    int mine = !ctx->halo_fn && ctx->share_made >= 0;
    if (dist_agree(ctx->decomp.comm, !mine, msg, sizeof msg) != 0)
        return 0;
    if (ctx->share_made == 0) {
        perr_capture(ctx->share_note, sizeof ctx->share_note); /* why not: pillar_step's note */
        int rc = dist_decomp_share(&ctx->share, &ctx->decomp, &pb->ug, &pb->coef, ctx->u.cell,
                                   pb->s.stencil, pb->s.prec, pb->s.chasing, pb->s.compressed,
                                   ctx->fuse ? ctx->fuse : 1);
        perr_capture(NULL, 0);
        ctx->share_made = rc == 0 ? 1 : -1; /* alike on every rank (agreed) */
    }
    return ctx->share_made == 1;
}

/* The part's fields as an exchange reads and writes them (halo_refresh_part): the cells in
 * the part there, the others (never computed, or a halo beyond the part's ring) in the host
 * copy, which is current for them. */
static void part_cells(void *user, int f, const int *cell, int n, void *buf, int pack)
{
    pillar_ctx *ctx = user;
    const problem *pb = &ctx->pb;
    const iter_carry *ca = iter_carried(pb->s.stencil);
    int k = ca->in[f], nz = pb->ug.nz, m = 0;
    size_t es = prec_size(pb->s.prec);
    field_cells(pb->uf.p[k], nz, pb->ug.zstride, es, cell, n, buf, pack);
    int *at = xalloc(sizeof(int) * (size_t)(n + 1)), *local = xalloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        if (ctx->part_of[cell[i]] >= 0) {
            at[m] = i;
            local[m++] = ctx->part_of[cell[i]];
        }
    char *tmp = xalloc(es * (size_t)m * (size_t)nz + 1), *b = buf;
    if (pack)
        dist_part_cells(ctx->part, k, local, m, tmp, 1);
    for (int z = 0; z < nz; z++)
        for (int j = 0; j < m; j++) {
            char *v = b + ((size_t)z * (size_t)n + (size_t)at[j]) * es;
            char *t = tmp + ((size_t)z * (size_t)m + (size_t)j) * es;
            memcpy(pack ? v : t, pack ? t : v, es);
        }
    if (!pack)
        dist_part_cells(ctx->part, k, local, m, tmp, 0);
    xfree(tmp);
    xfree(at);
    xfree(local);
}

/* The model's halo cells of the state in the part (and, for those outside it, the host copy)
 * get their owners' values. Collective; the status agreed. */
static pillar_status halo_refresh_part(pillar_ctx *ctx)
{
    const problem *pb = &ctx->pb;
    perr_capture(ctx->err, sizeof ctx->err);
    int rc = dist_decomp_exchange_cells(&ctx->decomp, pb->s.prec, iter_carried(pb->s.stencil)->n,
                                        pb->ug.nz, part_cells, ctx);
    perr_capture(NULL, 0);
    return rc == 0 ? PILLAR_OK : PILLAR_ERR_BACKEND;
}

/* session_away's fetch: carried field k's values at every cell of the part into the host copy. */
static void part_fetch(void *user, int k)
{
    pillar_ctx *ctx = user;
    const problem *pb = &ctx->pb;
    const ooc_part *pt = &ctx->share.pt;
    size_t es = prec_size(pb->s.prec);
    int n = pt->ncells, *ident = xalloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        ident[i] = i;
    char *tmp = xalloc(es * (size_t)n * (size_t)pb->ug.nz + 1);
    dist_part_cells(ctx->part, k, ident, n, tmp, 1);
    field_cells(pb->uf.p[k], pb->ug.nz, pb->ug.zstride, es, pt->gcell, n, tmp, 0);
    xfree(tmp);
    xfree(ident);
}

/* The share's part, opened at the first share step (collective), or its inputs loaded again
 * after one was set on some rank: every input's host copy current first. 0, or -1 on every
 * rank after a message (the part could not be opened: the caller runs the local grid's
 * passes). */
static int part_ready(pillar_ctx *ctx)
{
    problem *pb = &ctx->pb;
    for (int k = 0; k < stencil_table[pb->s.stencil].nin; k++)
        session_host_read(&ctx->ses, k);
    if (ctx->part) {
        dist_part_load(ctx->part, &pb->ug, pb->uf);
        ctx->part_stale = 0;
        return 0;
    }
    dist_exec e;
    memset(&e, 0, sizeof e);
    e.gpu = ctx->backend == BACKEND_GPU;
    e.access = ctx->ses.access;
    e.bx = ctx->ses.bx;
    e.by = ctx->ses.by;
    e.bz = ctx->ses.bz;
    e.zslice = ctx->ses.zslice ? ctx->ses.zslice : 8;
    e.halo = ctx->ses.halo;
    e.keep_device = ctx->ses.res != NULL; /* the handle's fields are on the current device */
    perr_capture(ctx->share_note, sizeof ctx->share_note);
    ctx->part = dist_part_open(ctx->decomp.comm, &ctx->share, &pb->ug, pb->uf, &e, ctx->part_halo,
                               sizeof ctx->part_halo);
    perr_capture(NULL, 0);
    if (!ctx->part) { /* every rank says what the one that refused said (NULL on every rank) */
        dist_agree(ctx->decomp.comm, 1, ctx->share_note, sizeof ctx->share_note);
        return -1;
    }
    ctx->part_of = xalloc(sizeof(int) * (size_t)pb->ug.nxy);
    for (int c = 0; c < pb->ug.nxy; c++)
        ctx->part_of[c] = -1;
    for (int l = 0; l < ctx->share.pt.ncells; l++)
        ctx->part_of[ctx->share.pt.gcell[l]] = l;
    const dist_decomp *d = &ctx->decomp;
    int out = 0; /* a model halo cell outside the part (a halo deeper than the stencil needs) */
    for (int i = 0; d->nrecv && i < d->rstart[d->nrecv] && !out; i++)
        out = ctx->part_of[d->rcell[i]] < 0;
    char msg[8] = "";
    ctx->part_ring = dist_agree(d->comm, out, msg, sizeof msg) == 0;
    ctx->part_stale = 0;
    return 0;
}

/* pillar_step over a model's decomposition. On the share: its part (opened, or loaded again
 * after an input was set on some rank, the model's halo of every input refreshed first), its
 * passes, the model's halo of the state refreshed in the part; the state then stays in the part
 * (session_away) until the host or device copy is next needed. Otherwise: the halo refreshed,
 * passes of at most F steps on the whole local grid, each followed by a refresh (every pass's
 * status agreed). */
static pillar_status decomp_steps(pillar_ctx *ctx, int steps)
{
    int F = ctx->fuse ? ctx->fuse : 1;
    char msg[8] = "";
    pillar_status st = PILLAR_OK;
    if (on_share(ctx)) {
        problem *pb = &ctx->pb;
        const iter_carry *ca = iter_carried(pb->s.stencil);
        if (dist_agree(ctx->decomp.comm, !ctx->part || ctx->part_stale, msg, sizeof msg) != 0) {
            if ((st = halo_refresh(ctx, "pillar_step", 1)) != PILLAR_OK)
                return st;
            if (part_ready(ctx) != 0) { /* alike on every rank (dist_part_open agrees) */
                dist_rank_free(&ctx->share);
                ctx->share_made = -1;
            }
        }
        if (ctx->part) {
            dist_part_steps(ctx->part, steps);
            for (int j = 0; j < ca->n; j++)
                session_away(&ctx->ses, ca->in[j], part_fetch, ctx);
            if (ctx->part_ring) { /* the part's ring is the model's halo: its own exchange */
                dist_part_exchange(ctx->part);
                return PILLAR_OK;
            }
            return halo_refresh_part(ctx);
        }
    } else
        st = halo_refresh(ctx, "pillar_step", 1);
    for (int done = 0; st == PILLAR_OK && done < steps;) {
        int t = steps - done < F ? steps - done : F;
        perr_capture(ctx->err, sizeof ctx->err);
        int rc = session_steps(&ctx->ses, t);
        perr_capture(NULL, 0);
        if ((st = agreed(ctx, rc == 0 ? PILLAR_OK : PILLAR_ERR_BACKEND)) != PILLAR_OK)
            break;
        done += t;
        st = halo_refresh(ctx, "pillar_step", 0);
    }
    if (st == PILLAR_OK && ctx->share_made < 0) /* the steps ran; why not on the share */
        snprintf(ctx->err, sizeof ctx->err, "pillar_step: note: each pass computes the whole "
                 "local grid (%.900s)", ctx->share_note);
    return st;
}

static pillar_status apply_call(pillar_ctx *ctx)
{
    ENTER(ctx, inputs_ready(ctx, "pillar_apply"));
    pillar_status st = bound_move(ctx, "pillar_apply", 1, 0);
    if (st != PILLAR_OK)
        return st;
    if (ctx->decomp_set && (st = halo_refresh(ctx, "pillar_apply", 1)) != PILLAR_OK)
        return st;
    perr_capture(ctx->err, sizeof ctx->err);
    int rc = session_apply(&ctx->ses);
    perr_capture(NULL, 0);
    if (rc != 0)
        return PILLAR_ERR_BACKEND;
    ctx->outputs_valid = 1;
    return bound_move(ctx, "pillar_apply", 0, 0);
}

static pillar_status step_call(pillar_ctx *ctx, int steps)
{
    ENTER(ctx, inputs_ready(ctx, "pillar_step"));
    problem *pb = &ctx->pb;
    const stencil_info *si = &stencil_table[pb->s.stencil];
    if (steps < 0)
        return fail(ctx, PILLAR_ERR_ARG, "pillar_step: steps = %d: expected 0 or more", steps);
    if (iter_carried(pb->s.stencil)->n == 0)
        return fail(ctx, PILLAR_ERR_UNSUPPORTED, "pillar_step: %s has no iterated runs (use "
                    "pillar_apply)", si->name);
    ctx->outputs_valid = 0;
    if (steps == 0)
        return PILLAR_OK;
    pillar_status st = bound_move(ctx, "pillar_step", 1, steps);
    if (st != PILLAR_OK)
        return st;
    session_sync(ctx);
    if (ctx->decomp_set) {
        if ((st = decomp_steps(ctx, steps)) != PILLAR_OK)
            return st; /* the state is then undefined */
    } else {
        perr_capture(ctx->err, sizeof ctx->err);
        int rc = session_steps(&ctx->ses, steps);
        perr_capture(NULL, 0);
        if (rc != 0)
            return PILLAR_ERR_BACKEND; /* the state is then undefined */
        if (ctx->ses.probe_note[0]) { /* persistent auto's choice, said once */
            snprintf(ctx->err, sizeof ctx->err, "pillar_step: note: %s", ctx->ses.probe_note);
            ctx->ses.probe_note[0] = 0;
        }
        if (ctx->ses.persistent == PERSIST_ON && ctx->ses.onchip_refused &&
            ctx->ses.onchip_why[0]) /* what a model's loop pays */
            snprintf(ctx->err, sizeof ctx->err, "pillar_step: note: persistent on: not on chip "
                     "on the device's fields (%.600s); %s", ctx->ses.onchip_why,
                     ctx->ses.onchip_in_core
                         ? "the steps ran in core there, one launch a step"
                         : "each call copies the state to the host and back");
    }
    ctx->steps_done += steps;
    return bound_move(ctx, "pillar_step", 0, steps);
}

static pillar_status set_comm_call(pillar_ctx *ctx, int fcomm)
{
    BEGIN(ctx);
    if (!dist_mpi_built())
        return fail(ctx, PILLAR_ERR_UNSUPPORTED, "pillar_set_comm: this build has no MPI "
                    "(configure with -DPILLAR_MPI=ON where an MPI is installed)");
    if (ctx->decomp_set)
        return fail(ctx, PILLAR_ERR_STATE, "pillar_set_comm: the handle runs a model's own "
                    "decomposition (pillar_set_decomposition)");
    int rank, size;
    perr_capture(ctx->err, sizeof ctx->err);
    int rc = dist_comm_info(fcomm, &rank, &size);
    perr_capture(NULL, 0);
    if (rc != 0)
        return rc == -2 ? PILLAR_ERR_STATE : PILLAR_ERR_ARG;
    ctx->comm_set = 1;
    ctx->comm = fcomm;
    return PILLAR_OK;
}

/* What this rank alone can refuse of pillar_set_decomposition (the message, naming the rank, in
 * ctx->err); the status goes into the agreement of all ranks. */
static pillar_status decomp_args(pillar_ctx *ctx, int rank, int nowned, const int *gid)
{
    const char *fn = "pillar_set_decomposition";
    if (ctx->ready)
        return fail(ctx, PILLAR_ERR_STATE, "%s: rank %d's handle is set up already "
                    "(pillar_setup): give the decomposition before", fn, rank);
    if (ctx->decomp_set || ctx->comm_set)
        return fail(ctx, PILLAR_ERR_STATE, "%s: rank %d's handle has %s already", fn, rank,
                    ctx->decomp_set ? "a decomposition" : "a communicator (pillar_set_comm)");
    if (!ctx->have_grid || ctx->grid_path)
        return fail(ctx, PILLAR_ERR_STATE, "%s: rank %d: give the rank's local table first "
                    "(pillar_grid_quad or pillar_grid_general)%s", fn, rank,
                    ctx->grid_path ? ", not a grid file" : "");
    if (!gid)
        return fail(ctx, PILLAR_ERR_NULL, "%s: rank %d: argument 'gid' is NULL", fn, rank);
    if (nowned < 0 || nowned > ctx->mesh.ncells)
        return fail(ctx, PILLAR_ERR_ARG, "%s: rank %d: nowned = %d: expected 1 to its %d local "
                    "cells", fn, rank, nowned, ctx->mesh.ncells);
    const stencil_info *si = &stencil_table[ctx->spec.stencil];
    if (si->coeffs.n > 0 && !si->coeffs.build_part)
        return fail(ctx, PILLAR_ERR_UNSUPPORTED, "%s: %s's coefficients are made from the whole "
                    "grid only; use pillar_set_comm", fn, si->name);
    return PILLAR_OK;
}

static pillar_status set_decomposition_call(pillar_ctx *ctx, int fcomm, int nowned,
                                            const int *gid)
{
    BEGIN(ctx);
    const char *fn = "pillar_set_decomposition";
    if (!dist_mpi_built())
        return fail(ctx, PILLAR_ERR_UNSUPPORTED, "%s: this build has no MPI (configure with "
                    "-DPILLAR_MPI=ON where an MPI is installed)", fn);
    int rank, size;
    perr_capture(ctx->err, sizeof ctx->err);
    int rc = dist_comm_info(fcomm, &rank, &size);
    perr_capture(NULL, 0);
    if (rc != 0) /* no agreement without a communicator */
        return rc == -2 ? PILLAR_ERR_STATE : PILLAR_ERR_ARG;
    pillar_status mine = decomp_args(ctx, rank, nowned, gid);
    char msg[ERR_LEN];
    snprintf(msg, sizeof msg, "%s", ctx->err);
    int F = ctx->fuse ? ctx->fuse : 1, reach = stencil_table[ctx->spec.stencil].radius * F;
    dist_decomp d;
    /* the caller's refusals travel as 100 + status, dist_decomp's as its own codes */
    int code = dist_decomp_make(&d, fcomm, mine == PILLAR_OK ? &ctx->mesh : NULL, nowned, gid,
                                reach, 100 + (int)mine, msg, sizeof msg);
    if (code == DECOMP_OK) {
        ctx->decomp = d;
        ctx->decomp_set = 1;
        return PILLAR_OK;
    }
    pillar_status st = code >= 100              ? (pillar_status)(code - 100)
                       : code == DECOMP_ERR_ARG ? PILLAR_ERR_ARG
                                                : PILLAR_ERR_GRID;
    if (strncmp(msg, fn, strlen(fn)) == 0) /* a caller's refusal says its name already */
        return fail(ctx, st, "%s", msg);
    return fail(ctx, st, "%s: %s", fn, msg);
}

static pillar_status set_halo_exchange_call(pillar_ctx *ctx, pillar_halo_fn fn, void *user)
{
    BEGIN(ctx);
    if (!ctx->decomp_set)
        return fail(ctx, PILLAR_ERR_STATE, "pillar_set_halo_exchange: call "
                    "pillar_set_decomposition first");
    ctx->halo_fn = fn;
    ctx->halo_user = fn ? user : NULL;
    return PILLAR_OK;
}

static pillar_status write_fields_call(pillar_ctx *ctx, const char *path)
{
    ENTER(ctx, inputs_ready(ctx, "pillar_write_fields"));
    NEED(ctx, path);
    field_write_opts w = {1, "libpillar", 0, !ctx->outputs_valid, NULL};
    for (int k = 0; k < ctx->pb.nf; k++) /* the host copies, brought up to date */
        if (k < stencil_table[ctx->pb.s.stencil].nin || ctx->outputs_valid)
            session_host_read(&ctx->ses, k);
    if (!ctx->outputs_valid && ctx->steps_done > 0 && ctx->steps_done <= 1L << 30)
        w.steps = (int)ctx->steps_done;
    perr_capture(ctx->err, sizeof ctx->err);
    file_named in = {ctx->grid_path, "grid file"};
    int rc = file_output_distinct(path, "pillar_write_fields", &in, 1) == 0 &&
                     field_output_check(path) == 0
                 ? field_write(&ctx->pb, ctx->pb.uf, 1, &w, path)
                 : -1;
    perr_capture(NULL, 0);
    if (rc != 0 && !ctx->err[0])
        fail(ctx, PILLAR_ERR_ARG, "pillar_write_fields: %s could not be written", path);
    return rc == 0 ? PILLAR_OK : PILLAR_ERR_ARG;
}

/* ---- the public calls that reach the engine, each under a guard ---- */

pillar_status pillar_grid_quad(pillar_ctx *ctx, int ncells, int nlevels, const int *nbr)
{
    PROTECTED(ctx, grid_quad_call(ctx, ncells, nlevels, nbr));
}

pillar_status pillar_grid_general(pillar_ctx *ctx, int ncells, int nlevels, int maxdeg,
                                  const int *adj)
{
    PROTECTED(ctx, grid_general_call(ctx, ncells, nlevels, maxdeg, adj));
}

pillar_status pillar_grid_file(pillar_ctx *ctx, const char *path)
{
    PROTECTED(ctx, grid_file_call(ctx, path));
}

pillar_status pillar_set_coordinates(pillar_ctx *ctx, int ncells, int ncoord, const double *xyz)
{
    PROTECTED(ctx, set_coordinates_call(ctx, ncells, ncoord, xyz));
}

pillar_status pillar_write_mesh(pillar_ctx *ctx, const char *path)
{
    PROTECTED(ctx, write_mesh_call(ctx, path));
}

pillar_status pillar_setup(pillar_ctx *ctx)
{
    PROTECTED(ctx, setup_call(ctx));
}

pillar_status pillar_apply(pillar_ctx *ctx)
{
    PROTECTED(ctx, apply_call(ctx));
}

pillar_status pillar_step(pillar_ctx *ctx, int steps)
{
    PROTECTED(ctx, step_call(ctx, steps));
}

pillar_status pillar_set_comm(pillar_ctx *ctx, int fcomm)
{
    PROTECTED(ctx, set_comm_call(ctx, fcomm));
}

pillar_status pillar_set_decomposition(pillar_ctx *ctx, int fcomm, int nowned, const int *gid)
{
    PROTECTED(ctx, set_decomposition_call(ctx, fcomm, nowned, gid));
}

pillar_status pillar_set_halo_exchange(pillar_ctx *ctx, pillar_halo_fn fn, void *user)
{
    PROTECTED(ctx, set_halo_exchange_call(ctx, fn, user));
}

pillar_status pillar_write_fields(pillar_ctx *ctx, const char *path)
{
    PROTECTED(ctx, write_fields_call(ctx, path));
}
