/* plan_use.c — a run's plan: its key, its source, and its configuration applied to the settings. */
#include "plan_use.h"

#include "base/sha256.h"
#include "grids/grid.h"
#include "grids/mesh.h"
#include "access/hooks.h"
#ifdef PILLAR_HAVE_CUDA
#include "src/exec/gpu.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

plan_from plan_source(const char *spec, const char **file)
{
    *file = NULL;
    if (!spec || !strcmp(spec, "auto")) {
        spec = getenv("PILLAR_PLAN");
        if (!spec || !*spec || !strcmp(spec, "auto"))
            return PLAN_FROM_CACHE;
    }
    if (!strcmp(spec, "off"))
        return PLAN_FROM_OFF;
    *file = spec;
    return PLAN_FROM_FILE;
}

void plan_device(int gpu, char *out, size_t n)
{
    snprintf(out, n, "cpu");
#ifdef PILLAR_HAVE_CUDA
    if (gpu) {
        gpu_info g;
        gpu_describe(&g);
        snprintf(out, n, "%s", g.name);
    }
#else
    (void)gpu;
#endif
}

void plan_tables_id(const mesh *m, char *out, size_t n)
{
    sha256_ctx c;
    unsigned char d[32];
    char hex[65];
    int head[4] = {m->ncells, m->maxdeg, m->ncoord, m->nbr != NULL};
    size_t w = m->nbr ? 4 : (size_t)m->maxdeg, nc = (size_t)m->ncells;
    sha256_init(&c);
    sha256_update_str(&c, "pillar mesh tables 1");
    sha256_update(&c, head, sizeof head);
    sha256_update(&c, m->nbr ? m->nbr : m->adj, sizeof(int) * w * nc);
    if (m->sides)
        sha256_update(&c, m->sides, sizeof(int) * nc);
    if (m->coord)
        sha256_update(&c, m->coord, sizeof(double) * (size_t)m->ncoord * nc);
    sha256_final(&c, d);
    sha256_hex(d, hex);
    snprintf(out, n, "sha256:%s", hex);
}

void plan_problem_set(plan_problem *pr, const char *mesh, int stencil, const char *stencil_id,
                      precision_t prec, int levels, int gpu)
{
    memset(pr, 0, sizeof *pr);
    snprintf(pr->mesh, sizeof pr->mesh, "%s", mesh);
    snprintf(pr->stencil, sizeof pr->stencil, "%s",
             stencil_id ? stencil_id : stencil_table[stencil].name);
    pr->prec = prec;
    pr->levels = levels;
    plan_device(gpu, pr->device, sizeof pr->device);
    snprintf(pr->version, sizeof pr->version, "%s", PILLAR_VERSION);
}

int plan_problem_of(plan_problem *pr, const char *mesh_path, int nx, int ny, int stencil,
                    const char *stencil_id, precision_t prec, int levels, int gpu)
{
    char id[80];
    if (mesh_path) {
        if (plan_content_id(mesh_path, "mesh file", id, sizeof id) != 0)
            return -1;
    } else {
        plan_size_id(nx, ny, id, sizeof id);
    }
    plan_problem_set(pr, id, stencil, stencil_id, prec, levels, gpu);
    return 0;
}

plan_status plan_choose(const char *spec, const plan_problem *pr, int s, int has_coords,
                        plan_choice *out)
{
    memset(out, 0, sizeof *out);
    const char *file;
    plan_from from = plan_source(spec, &file);
    if (from == PLAN_FROM_OFF) {
        out->p.pr = *pr;
        plan_config_default(pr, &out->p.c);
        return out->st = PLAN_NONE;
    }
    if (from == PLAN_FROM_FILE) {
        out->st = plan_file_lookup(file, pr, s, &out->p, out->note, sizeof out->note);
        snprintf(out->path, sizeof out->path, "%s", file);
    } else {
        out->st = plan_cache_lookup(pr, s, &out->p, out->note, sizeof out->note);
        char dir[1024] = "", name[120];
        if (out->st == PLAN_FOUND && plan_cache_dir(dir, sizeof dir) == 0) {
            plan_file_name(pr, name, sizeof name);
            snprintf(out->path, sizeof out->path, "%s/%s", dir, name);
        }
    }
    if (out->st == PLAN_FOUND && !plan_emulated(pr) && out->p.c.order == MESH_ORDER_ZCURVE &&
        !has_coords) {
        snprintf(out->note, sizeof out->note, "plan %s: field \"order\": zcurve orders cells by "
                 "their coordinates, and this mesh has none; running with the defaults",
                 out->path);
        out->p.pr = *pr;
        plan_config_default(pr, &out->p.c);
        out->path[0] = 0;
        out->st = PLAN_BAD;
    }
    return out->st;
}

plan_free plan_free_fields(const options *o)
{
    plan_free f;
    f.order = o->mesh ? !o->mesh_layout_set : !o->grid_layout_set;
    f.storage = !o->storage_set;
    f.compress = !o->compress_set;
    f.access = !o->access_set;
    f.threads = !o->bx && !o->by && !o->bz;
    f.zslice = !o->zslice_set;
    return f;
}

unsigned plan_apply(options *o, const plan_problem *pr, const plan_config *c, plan_free f,
                    int gpu, int iterated)
{
    unsigned set = 0;
    if (f.order) {
        if (plan_emulated(pr)) {
            if (o->spec.layout != c->order)
                set |= PLAN_SET_LAYOUT;
            o->spec.layout = c->order;
        } else {
            if (o->mesh_order != c->order)
                set |= PLAN_SET_LAYOUT;
            o->mesh_order = c->order;
        }
    }
    if (f.storage && o->spec.chasing != c->chasing) {
        o->spec.chasing = c->chasing;
        set |= PLAN_SET_LAYOUT;
    }
    if (f.compress && o->spec.compressed != c->compressed) {
        o->spec.compressed = c->compressed;
        set |= PLAN_SET_LAYOUT;
    }
    if (!gpu || !f.access ||
        (iterated && (!access_table[c->access].iterated ||
                      (access_table[c->access].prep->prepare && o->kernel_steps > 1))))
        return set; /* the strategy's shape and slice go with the strategy */
    o->access = c->access;
    if (f.threads && !(iterated && o->persistent == PERSIST_ON)) { /* persistent: BXx1x1 */
        o->bx = c->bx;
        o->by = c->by;
        o->bz = c->bz;
        o->threads_planned = 1;
    }
    if (f.zslice && c->zslice > 0)
        o->zslice = c->zslice;
    return set | PLAN_SET_KERNEL;
}

void plan_describe(const plan_problem *pr, const plan_config *c, int gpu, char *out, size_t n)
{
    snprintf(out, n, "%s order, %s %s", plan_order_name(pr, c->order),
             c->chasing ? "chasing" : "nonchasing", c->compressed ? "compressed" : "uncompressed");
    if (!gpu)
        return;
    size_t k = strlen(out);
    snprintf(out + k, n - k, ", %s %dx%dx%d", access_name[c->access], c->bx, c->by, c->bz);
    k = strlen(out);
    if (c->zslice > 0)
        snprintf(out + k, n - k, " zslice %d", c->zslice);
}
