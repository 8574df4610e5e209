/* dist_cpu.c — a rank's local fields, messages and steps on the CPU (src/dist/dist_cpu.h). */
#include "dist_cpu.h"

#include "src/exec/iterate.h"

#include <string.h>

static size_t local_len(const dist_rank *d) { return (size_t)d->pt.zstride * (size_t)d->nz; }

fieldset dist_fields_alloc(const dist_rank *d)
{
    const stencil_info *si = &stencil_table[d->stencil];
    fieldset loc = {{0}};
    for (int f = 0; f < si->nin + si->nout; f++) {
        loc.p[f] = field_alloc(d->prec, local_len(d));
        field_poison(d->prec, loc.p[f], local_len(d));
    }
    return loc;
}

void dist_fields_free(const dist_rank *d, fieldset *loc)
{
    const stencil_info *si = &stencil_table[d->stencil];
    for (int f = 0; f < si->nin + si->nout; f++)
        xfree(loc->p[f]);
    memset(loc, 0, sizeof *loc);
}

/* Values of es bytes: to[l] = from[map[l]] (gather) or to[map[l]] = from[l] (scatter), n of
 * them, level by level over nlev levels with strides tz and fz. */
static void move_levels(size_t es, char *to, long tz, const char *from, long fz, const int *map,
                        int n, int nlev, int scatter)
{
    for (int z = 0; z < nlev; z++) {
        char *t = to + (size_t)z * (size_t)tz * es;
        const char *f = from + (size_t)z * (size_t)fz * es;
        for (int l = 0; l < n; l++) {
            if (scatter)
                memcpy(t + (size_t)map[l] * es, f + (size_t)l * es, es);
            else
                memcpy(t + (size_t)l * es, f + (size_t)map[l] * es, es);
        }
    }
}

void dist_fields_load(const dist_rank *d, const ugrid *g, fieldset global, fieldset loc)
{
    size_t es = prec_size(d->prec);
    for (int f = 0; f < stencil_table[d->stencil].nin; f++)
        move_levels(es, loc.p[f], d->pt.zstride, global.p[f], g->zstride, d->pt.gcell,
                    d->pt.ncells, d->nz, 0);
}

void dist_fields_store(const dist_rank *d, const ugrid *g, fieldset loc, fieldset global)
{
    const iter_carry *c = iter_carried(d->stencil);
    size_t es = prec_size(d->prec), own = (size_t)d->pt.first[0];
    for (int j = 0; j < c->n; j++)
        move_levels(es, global.p[c->in[j]], g->zstride, (char *)loc.p[c->in[j]] + own * es,
                    d->pt.zstride, d->pt.gcell + own, d->nown, d->nz, 1);
}

/* Message values <-> the carried fields at the listed local cells: field by field, level by
 * level [0, zend), cell by cell. */
static void message(const dist_rank *d, fieldset loc, const int *cells, int n, char *buf, int into)
{
    const iter_carry *c = iter_carried(d->stencil);
    size_t es = prec_size(d->prec), per_field = (size_t)d->zend * (size_t)n;
    for (int j = 0; j < c->n; j++) {
        char *b = buf + (size_t)j * per_field * es;
        if (into)
            move_levels(es, loc.p[c->in[j]], d->pt.zstride, b, n, cells, n, d->zend, 1);
        else
            move_levels(es, b, n, loc.p[c->in[j]], d->pt.zstride, cells, n, d->zend, 0);
    }
}

void dist_pack(const dist_rank *d, int j, fieldset loc, void *buf)
{
    message(d, loc, d->scell + d->sstart[j], d->sstart[j + 1] - d->sstart[j], buf, 0);
}

void dist_unpack(const dist_rank *d, int j, fieldset loc, const void *buf)
{
    message(d, loc, d->rcell + d->rstart[j], d->rstart[j + 1] - d->rstart[j], (char *)buf, 1);
}

void dist_poison_ring(const dist_rank *d, fieldset loc)
{
    const iter_carry *c = iter_carried(d->stencil);
    const ooc_part *pt = &d->pt;
    size_t es = prec_size(d->prec);
    for (int j = 0; j < c->n; j++)
        for (int z = 0; z < d->nz; z++)
            field_poison(d->prec, (char *)loc.p[c->in[j]] +
                                      ((size_t)z * (size_t)pt->zstride + (size_t)pt->nfixed) * es,
                         (size_t)(pt->first[0] - pt->nfixed));
}

/* The points of step j of a pass of t: cells [first[t - j], ncells), levels [0, zend); a
 * stencil that reads coefficients finds the part's (local cell numbers, pt.coef). */
static cpu_block step_block(const dist_rank *d, int t, int j)
{
    cpu_block b = {d->pt.first[t - j], d->pt.ncells, 0, d->zend, 0, d->pt.zstride,
                   stencil_table[d->stencil].coeffs.n ? &d->pt.coef : NULL};
    return b;
}

void dist_first_interior(const dist_rank *d, fieldset loc, int t)
{
    cpu_block b = step_block(d, t, 1);
    b.c0 = d->inner0;
    if (b.c0 < b.c1)
        cpu_run_block(d->stencil, d->prec, &d->pt.nt, &d->pt.ell, b, loc);
}

void dist_finish_steps(const dist_rank *d, fieldset loc, int t)
{
    cpu_block b = step_block(d, t, 1);
    cpu_block rest = b;
    rest.c1 = d->inner0;
    if (rest.c0 < rest.c1)
        cpu_run_block(d->stencil, d->prec, &d->pt.nt, &d->pt.ell, rest, loc);
    iter_fold(d->stencil, d->prec, b, loc);
    for (int j = 2; j <= t; j++)
        iter_step(d->stencil, d->prec, &d->pt.nt, &d->pt.ell, step_block(d, t, j), loc);
}
