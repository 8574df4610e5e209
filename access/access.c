/* access.c — the access strategy table of access.h, and the hooks several strategies share
 * (access/hooks.h): the block-shape rules ANY, WARP, PAIRS, the shared memory NONE and OFFSETS,
 * the lists NONE, and the calls through a strategy's lists. */
#include "access.h"
#include "hooks.h"

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
#define PILLAR_ACC_ROW_(E, nm, k, up, lev, shape, smem, prep, graph, iterated, twin, su, sr,     \
                        summary)                                                                  \
    {nm, summary, LEVELS_##lev, SHAPE_##shape, SMEM_##smem, graph, iterated, ACC_##twin,          \
     {PILLAR_LIST su}, {PILLAR_LIST sr}, PILLAR_ACC_KERNELS(k), PILLAR_ACC_GKERNELS_##graph(k),     \
     PILLAR_ACC_UPLOAD_##up(k), access_shape_##shape, access_smem_##smem, &access_prep_##prep},
const access_desc access_table[ACC_COUNT] = {PILLAR_ACCESS(PILLAR_ACC_ROW_)};

#define PILLAR_ACC_NAME_(E, nm, ...) nm,
const char *const access_name[ACC_COUNT] = {PILLAR_ACCESS(PILLAR_ACC_NAME_)};
#define PILLAR_ACC_SUMMARY_(E, nm, k, up, lev, shape, smem, prep, graph, iterated, twin, su,  \
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
    const stencil_info *si = &stencil_table[s];
    if (si->graph) /* a strategy's graph kernels (staged's read its own graph lists too) */
        return d->graph && (!stencil_is_user(s) || d->prep->stencils == PREP_FOR_ANY);
    if (d->prep->stencils == PREP_FOR_GRAPH)
        return 0;
    if (d->prep->stencils == PREP_FOR_STAGED)
        return !stencil_is_user(s) && si->staged;
    return 1;
}

int access_iterates(access_t a, stencil_t s)
{
    return access_supports(a, s) && access_table[a].iterated &&
           (!stencil_table[s].graph || a == ACC_IDXVAR || access_table[a].prep->prepare);
}

const char *access_iterating(stencil_t s, char *out, size_t n)
{
    int count = 0, total = 0;
    for (int a = 0; a < ACC_COUNT; a++)
        total += access_iterates((access_t)a, s);
    out[0] = '\0';
    for (int a = 0; a < ACC_COUNT; a++) {
        if (!access_iterates((access_t)a, s))
            continue;
        size_t k = strlen(out);
        snprintf(out + k, n - k, "%s%s", count == 0 ? "" : count == total - 1 ? " or " : ", ",
                 access_name[a]);
        count++;
    }
    return out;
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
        snprintf(why, n, "%dx%dx%d is %ld threads; a block holds 1 to %d", bx, by, bz, t,
                 PILLAR_MAX_THREADS);
        return 0;
    }
    return d->shape_ok(d, uns, bx, by, bz, why, n);
}

/* ---- the hooks several strategies share ---- */

int access_shape_ANY(const access_desc *d, int uns, int bx, int by, int bz, char *why, size_t n)
{
    (void)d, (void)uns, (void)bx, (void)by, (void)bz, (void)why, (void)n;
    return 1;
}

/* a thread computes two cells (access_desc shape PAIRS sizes the grid of blocks): any block on
 * the regular grid; on the unstructured one bx·by a multiple of 32 (a warp's 64 cells run as
 * pairs or one by one: access/pairs.cu) */
int access_shape_PAIRS(const access_desc *d, int uns, int bx, int by, int bz, char *why, size_t n)
{
    if (uns && (bx * by) % 32 != 0) {
        snprintf(why, n, "%s needs bx*by a multiple of 32 on the unstructured grid (whole warps); "
                 "%dx%dx%d is not", d->name, bx, by, bz);
        return 0;
    }
    return access_shape_ANY(d, uns, bx, by, bz, why, n);
}

/* unstructured: bx·by divides 32 or is a multiple of 32, whole warps (access/shared_warp.cu) */
int access_shape_WARP(const access_desc *d, int uns, int bx, int by, int bz, char *why, size_t n)
{
    long t = (long)bx * by * bz;
    int m = bx * by;
    if (uns && (!((m % 32 == 0) || (32 % m == 0)) || t % 32 != 0)) {
        snprintf(why, n, "%s needs bx*by dividing 32 (or a multiple of 32) and whole warps; "
                 "%dx%dx%d is not", d->name, bx, by, bz);
        return 0;
    }
    return 1;
}

size_t access_smem_NONE(const access_smem_in *in)
{
    (void)in;
    return 0;
}

/* unstructured: NREL2 rows of offsets per plane cell of the block (access/shared.cu); a graph
 * stencil on its offset table: degree, table row and ring of each plane cell */
size_t access_smem_OFFSETS(const access_smem_in *in)
{
    size_t cells = (size_t)((in->bx * in->by) | 1);
    if (in->graph)
        return in->lattice_kind ? 0 : sizeof(int32_t) * (size_t)(2 + in->D) * cells;
    return in->uns ? sizeof(int32_t) * NREL2 * cells : 0;
}

const access_prep access_prep_NONE = {PREP_FOR_ANY, NULL, NULL, NULL, NULL, NULL, NULL, 0};

int access_prepare(access_t a, const access_prep_in *in, void **data)
{
    *data = NULL;
    const access_desc *d = access_get(a);
    if (!d)
        return -1;
    return d->prep->prepare ? d->prep->prepare(data, in) : 0;
}

void access_release(access_t a, void *data)
{
    if (data)
        access_table[a].prep->release(data);
}

size_t access_words(access_t a, const void *data)
{
    return data ? access_table[a].prep->words(data) : 0;
}

void access_pack(access_t a, const void *data, int32_t *at)
{
    if (data)
        access_table[a].prep->pack(data, at);
}
