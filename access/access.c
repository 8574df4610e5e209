/* access.c — the access strategy table of access.h. */
#include "access.h"

#include "../base/common.h"
#include "launch.h"

#include <stdio.h>
#include <string.h>

#ifdef PILLAR_HAVE_CUDA
#define PILLAR_ACC_KERNELS(k) &k##_kernels
#define PILLAR_ACC_UPLOAD_1(k) k##_kernels_upload
#define PILLAR_ACC_GKERNELS_1(k) &k##_gkernels
#else
#define PILLAR_ACC_KERNELS(k) NULL
#define PILLAR_ACC_UPLOAD_1(k) NULL
#define PILLAR_ACC_GKERNELS_1(k) NULL
#endif
#define PILLAR_ACC_GKERNELS_0(k) NULL
#define PILLAR_ACC_UPLOAD_0(k) NULL
#define PILLAR_ACC_ROW_(E, nm, k, up, lev, shape, smem, staging, graph, iterated, twin, su, sr,  \
                        summary)                                                                  \
    {nm, summary, LEVELS_##lev, SHAPE_##shape, SMEM_##smem, staging, graph, iterated, ACC_##twin, \
     {PILLAR_LIST su}, {PILLAR_LIST sr}, PILLAR_ACC_KERNELS(k), PILLAR_ACC_GKERNELS_##graph(k),     \
     PILLAR_ACC_UPLOAD_##up(k)},
const access_desc access_table[ACC_COUNT] = {PILLAR_ACCESS(PILLAR_ACC_ROW_)};

#define PILLAR_ACC_NAME_(E, nm, ...) nm,
const char *const access_name[ACC_COUNT] = {PILLAR_ACCESS(PILLAR_ACC_NAME_)};
#define PILLAR_ACC_SUMMARY_(E, nm, k, up, lev, shape, smem, staging, graph, iterated, twin, su,  \
                            sr, summary)                                                          \
    summary,
const char *const access_summary[ACC_COUNT] = {PILLAR_ACCESS(PILLAR_ACC_SUMMARY_)};

int access_parse(const char *s, access_t *out)
{
    for (int i = 0; i < ACC_COUNT; i++)
        if (strcmp(s, access_name[i]) == 0) {
            *out = (access_t)i;
            return 0;
        }
    return -1;
}

const access_desc *access_get(access_t a)
{
    if ((int)a < 0 || a >= ACC_COUNT) {
        perr("access strategy %d: no such strategy (there are %d)", (int)a, (int)ACC_COUNT);
        return NULL;
    }
    return &access_table[a];
}

int access_supports(access_t a, stencil_t s)
{
    if ((int)a < 0 || a >= ACC_COUNT || (int)s < 0 || (int)s >= stencil_count())
        return 0;
    const access_desc *d = &access_table[a];
    if (stencil_is_user(s))
        return !d->staging && (!stencil_table[s].graph || d->graph);
    if (stencil_table[s].graph)
        return d->graph;
    if (d->staging == 3) /* the graph two-pass lists: graph kernels only */
        return 0;
    return d->staging == 1 || d->staging == 2 ? stencil_table[s].staged : 1;
}

void access_default_shape(access_t a, int uns, int *bx, int *by, int *bz)
{
    const access_desc *d = access_get(a);
    const int *sh = !d ? access_table[ACC_IDXVAR].shape_uns : uns ? d->shape_uns : d->shape_reg;
    *bx = sh[0];
    *by = sh[1];
    *bz = sh[2];
}

int access_shape_ok(access_t a, int uns, int bx, int by, int bz, char *why, size_t n)
{
    const access_desc *d = access_get(a);
    if (!d) {
        snprintf(why, n, "no access strategy %d", (int)a);
        return 0;
    }
    long t = (long)bx * by * bz;
    if (t > PILLAR_MAX_THREADS || t < 1) {
        snprintf(why, n, "%dx%dx%d is %ld threads; a block holds 1 to %d", bx, by, bz, t, PILLAR_MAX_THREADS);
        return 0;
    }
    switch (d->shape) {
    case SHAPE_ANY:
    case SHAPE_PAIRS: return 1;
    case SHAPE_WARP:
        if (uns) {
            int m = bx * by;
            if (!((m % 32 == 0) || (32 % m == 0)) || t % 32 != 0) {
                snprintf(why, n, "%s needs bx*by dividing 32 (or a multiple of 32) and whole "
                         "warps; %dx%dx%d is not", d->name, bx, by, bz);
                return 0;
            }
        }
        return 1;
    case SHAPE_TILE:     /* a tile and its ring of one cell, L levels a group */
    case SHAPE_STAGED: { /* a tile and its halo of two cells, one level */
        const int staged = d->shape == SHAPE_STAGED, ring = staged ? 2 : 1;
        if ((staged && bz != 1) || (uns && by != 1)) {
            snprintf(why, n, "%s takes blocks of %s cells (unstructured) or %s (regular); %s",
                     d->name, staged ? "Bx1x1" : "Bx1xL", staged ? "BXxBYx1" : "BXxBYxL",
                     staged ? "levels per block come from --zslice"
                            : "L levels a group, --zslice groups per block");
            return 0;
        }
        if (!uns && (bx + 2 * ring) * (by + 2 * ring) > 4 * bx * by) {
            snprintf(why, n, "%s: a %dx%d tile with its %s needs more than 4 %s per thread",
                     d->name, bx, by, staged ? "halo" : "ring", staged ? "loads" : "entries");
            return 0;
        }
        return 1;
    }
    case SHAPE_GTILE: /* access/graph_twopass.cu */
        if (bz != 1 || (uns && (by != 1 || bx < 32))) {
            snprintf(why, n, "%s takes blocks of Bx1x1 cells with B >= 32 (unstructured) or "
                     "BXxBYx1 (regular); levels per block come from --zslice", d->name);
            return 0;
        }
        if (!uns && (bx % 2 != 0 || (bx + 4) * (by + 2) > GTP_EMAX * bx * by)) {
            snprintf(why, n, "%s: a %dx%d tile needs an even width and its ring at most %d "
                     "entries per thread", d->name, bx, by, GTP_EMAX);
            return 0;
        }
        return 1;
    }
    snprintf(why, n, "%s: unknown block-shape rule %d", d->name, (int)d->shape);
    return 0;
}
