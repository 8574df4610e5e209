/* graph_twopass_host.c — the host hooks (access/hooks.h) of graph-twopass (access/graph_twopass.cu):
 * its block-shape rule, its shared memory, and its per-block lists (storage/gtwopass.h), which
 * replace the neighbour lists on the device. */
#include "hooks.h"

#include "../base/common.h"
#include "graph_twopass.h"

#include <stdio.h>
#include <string.h>

/* Bx1x1 with B >= 32 unstructured; BXxBYx1 with BX even and the tile with its ring at most
 * GTP_EMAX entries per thread on the lattice twin */
int access_shape_GTILE(const access_desc *d, int uns, int bx, int by, int bz, char *why, size_t n)
{
    if (bz != 1 || (uns && (by != 1 || bx < 32))) {
        snprintf(why, n, "%s takes blocks of Bx1x1 cells with B >= 32 (unstructured) or "
                 "BXxBYx1 (regular); levels per block come from --zslice", d->name);
        return 0;
    }
    if (!uns && (bx % 2 != 0 || (bx + 4) * (by + 2) > GTP_EMAX * bx * by)) {
        snprintf(why, n, "%s: a %dx%d tile needs an even width and its ring at most %d entries "
                 "per thread", d->name, bx, by, GTP_EMAX);
        return 0;
    }
    return 1;
}

/* two halves of GTP_G levels of a Laplacian per entry; graph kernels only */
size_t access_smem_GLAPS(const access_smem_in *in)
{
    if (!in->graph)
        return 0;
    int lk = in->lattice_kind;
    return 2 * GTP_G * prec_size(in->prec) *
           (lk ? (size_t)(in->bx + (lk == LATTICE_HEXAGONS ? 2 : 4)) * (size_t)(in->by + 2)
               : (size_t)in->bx);
}

typedef struct {
    gtwopass gp;
    int end; /* the last computed cell + 1 of the grid they were built on (its nxy) */
} gtp_lists;

static int prepare_gtp(void **data, const access_prep_in *in)
{
    const stencil_info *si = &stencil_table[in->stencil];
    if (!si->graph) {
        perr("graph-twopass lists are for a graph stencil's steps (%s)", si->name);
        return -1;
    }
    gtp_lists *l = xalloc(sizeof *l);
    memset(l, 0, sizeof *l);
    l->end = in->g->nxy;
    if (gtwopass_build_cut(&l->gp, in->g, in->bx, si->radius, in->cuts, in->ncuts) != 0) {
        xfree(l);
        return -1;
    }
    *data = l;
    return 0;
}

static void release_gtp(void *data)
{
    gtp_lists *l = data;
    gtwopass_free(&l->gp);
    xfree(l);
}

static size_t words_gtp(const void *data) { return gtwopass_words(&((const gtp_lists *)data)->gp); }

/* blk (3 nblocks + 1), ent ((2 + D) rows of nent, at least one), slot (slot rows of n) */
static size_t blk_words(const gtwopass *s) { return 3 * (size_t)s->nblocks + 1; }
static size_t ent_words(const gtwopass *s)
{
    return (size_t)(2 + s->D) * (s->nent > 0 ? s->nent : 1);
}

static void pack_gtp(const void *data, int32_t *at)
{
    const gtwopass *s = &((const gtp_lists *)data)->gp;
    memcpy(at, s->blk, sizeof(int32_t) * blk_words(s));
    memcpy(at + blk_words(s), s->ent, sizeof(int32_t) * ent_words(s));
    memcpy(at + blk_words(s) + ent_words(s), s->slot,
           sizeof(int32_t) * (size_t)gtwopass_slot_rows(s->D) * (size_t)(s->n > 0 ? s->n : 1));
}

/* the blocks of [c0, c1) are [b0, b1) when both ends are cuts of the lists; slots are indexed
 * from the lists' first cell; kernel columns by degree bound 4, 8, 16 */
static int bind_gtp(const void *data, const int32_t *image, int c0, int c1, kparams *P,
                    int *column, unsigned *blocks)
{
    const gtp_lists *l = data;
    const gtwopass *gp = &l->gp;
    int b0 = gtwopass_block_of(gp, c0), b1 = gtwopass_block_of(gp, c1);
    if (c1 > c0 && (gp->nblocks == 0 || gtwopass_block_start(gp, b0) != c0 ||
                    gtwopass_block_start(gp, b1) != c1)) {
        perr("graph-twopass lists not cut at [%d, %d)", c0, c1);
        return -1;
    }
    P->gp_blk = image;
    P->gp_ent = image + blk_words(gp);
    P->gp_slot = image + blk_words(gp) + ent_words(gp);
    P->gp_nent = (long)(gp->nent ? gp->nent : 1);
    P->gp_nblk = gp->nblocks;
    P->c0 = l->end - gp->n;
    P->n = gp->n;
    P->gp_b0 = c1 > c0 ? b0 : 0;
    *column = gp->D <= 4 ? 0 : gp->D <= 8 ? 1 : 2;
    *blocks = c1 > c0 ? (unsigned)(b1 - b0) : 0;
    return 0;
}

static int hmax_gtp(const void *data)
{
    (void)data;
    return 0;
}

const access_prep access_prep_GRAPH_TWOPASS = {PREP_FOR_GRAPH, prepare_gtp, release_gtp, words_gtp, pack_gtp,
                                               bind_gtp, hmax_gtp, 0};

/* The lists of graph-twopass data (access_prepare's), for the tests and plans that look into
 * them. */
const gtwopass *graph_twopass_lists(const void *data)
{
    return data ? &((const gtp_lists *)data)->gp : NULL;
}
