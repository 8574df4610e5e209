/* staging_host.c — the host hooks (access/hooks.h) of the two strategies that read per-block
 * halo lists (storage/staging.h, storage/gstaging.h): staged (access/staged.cu: the lists of
 * the stencil's relations, or of a graph stencil's cells within its radius, replace the table)
 * and twopass (access/twopass.cu: the lists of the W/E/S/N ring, next to the table). */
#include "hooks.h"

#include "../base/common.h"
#include "../storage/gstaging.h"

#include <stdio.h>
#include <string.h>

/* ---- block shapes ---- */

/* a tile and its halo (staged: ring 2, one level) or ring (twopass: ring 1, L levels a group) */
static int tile_rule(const access_desc *d, int staged, int uns, int bx, int by, int bz,
                     char *why, size_t n)
{
    const int ring = staged ? 2 : 1;
    if ((staged && bz != 1) || (uns && by != 1)) {
        snprintf(why, n, "%s takes blocks of %s cells (unstructured) or %s (regular); %s",
                 d->name, staged ? "Bx1x1" : "Bx1xL", staged ? "BXxBYx1" : "BXxBYxL",
                 staged ? "levels per block come from --zslice"
                        : "L levels a group, --zslice groups per block");
        return 0;
    }
    if (!uns && (bx + 2 * ring) * (by + 2 * ring) > 4 * bx * by) {
        snprintf(why, n, "%s: a %dx%d tile with its %s needs more than 4 %s per thread", d->name,
                 bx, by, staged ? "halo" : "ring", staged ? "loads" : "entries");
        return 0;
    }
    return 1;
}

int access_shape_STAGED(const access_desc *d, int uns, int bx, int by, int bz, char *why,
                        size_t n)
{
    return tile_rule(d, 1, uns, bx, by, bz, why, n);
}

int access_shape_TILE(const access_desc *d, int uns, int bx, int by, int bz, char *why, size_t n)
{
    return tile_rule(d, 0, uns, bx, by, bz, why, n);
}

/* ---- shared memory ---- */

/* the block's cells and halo, one level of values (access/staged.cu); a graph stencil: a lattice
 * tile, or the block's rows of slots then its values */
size_t access_smem_STAGED(const access_smem_in *in)
{
    size_t es = prec_size(in->prec);
    if (in->graph) {
        int lk = in->lattice_kind, hx = lk == LATTICE_HEXAGONS ? 2 : 3, hy = lk == LATTICE_HEXAGONS ? 2 : 1;
        return lk ? es * (size_t)(in->bx + 2 * hx) * (size_t)(in->by + 2 * hy)
                  : es * (size_t)(in->bx + in->hmax) + gstaged_rows_bytes(in->bx, in->D);
    }
    return in->uns ? es * (size_t)(in->bx + in->hmax)
                   : es * (size_t)(in->bx + 4) * (size_t)(in->by + 4);
}

/* two buffers of bz levels of the tile and its ring (access/twopass.cu); no graph kernels */
size_t access_smem_LAPS(const access_smem_in *in)
{
    if (in->graph)
        return 0;
    return 2 * (size_t)in->bz * prec_size(in->prec) *
           (in->uns ? (size_t)(in->bx + in->hmax) : (size_t)(in->bx + 2) * (size_t)(in->by + 2));
}

/* ---- the lists ---- */

typedef struct {
    staging st;
    size_t width; /* entries of loc per inner cell */
} halo_lists;

/* staged (ring 0: the stencil's relations, a graph stencil's radius) or twopass (ring 1: the
 * W/E/S/N relations) */
static int prepare_halo(void **data, const access_prep_in *in, int ring)
{
    const stencil_info *si = &stencil_table[in->stencil];
    halo_lists *h = xalloc(sizeof *h);
    memset(h, 0, sizeof *h);
    if (si->graph) {
        gstaging_build(&h->st, in->g, in->bx, si->radius);
        h->width = (size_t)(1 + in->g->adjw) * (size_t)(1 + in->g->adjw);
    } else {
        staging_build(&h->st, in->g, in->bx, ring ? 0xfu : si->rels);
        h->width = NREL2;
    }
    /* a graph stencil's staged kernel keeps the slots in 16 bits */
    if (si->graph && !ring && in->bx + h->st.hmax > 65535) {
        perr("--access staged: blocks of %d cells reach %d halo cells; their slots must stay "
             "below 65536: use smaller blocks", in->bx, h->st.hmax);
        staging_free(&h->st);
        xfree(h);
        return -1;
    }
    *data = h;
    return 0;
}

static int prepare_staged(void **data, const access_prep_in *in) { return prepare_halo(data, in, 0); }
static int prepare_twopass(void **data, const access_prep_in *in) { return prepare_halo(data, in, 1); }

static void release_halo(void *data)
{
    halo_lists *h = data;
    staging_free(&h->st);
    xfree(h);
}

/* the image: start (nblocks + 1), cells (ncells, then a spare word), loc (width rows of n) */
static size_t start_words(const halo_lists *h) { return (size_t)h->st.nblocks + 1; }
static size_t cells_words(const halo_lists *h) { return h->st.ncells + 1; }
static size_t loc_words(const halo_lists *h)
{
    return h->width * (size_t)(h->st.n > 0 ? h->st.n : 1);
}

static size_t words_halo(const void *data)
{
    const halo_lists *h = data;
    return start_words(h) + cells_words(h) + loc_words(h);
}

static void pack_halo(const void *data, int32_t *at)
{
    const halo_lists *h = data;
    memcpy(at, h->st.start, sizeof(int32_t) * start_words(h));
    at += start_words(h);
    memcpy(at, h->st.cells, sizeof(int32_t) * h->st.ncells);
    at[h->st.ncells] = 0;
    at += cells_words(h);
    memcpy(at, h->st.loc, sizeof(int32_t) * loc_words(h));
}

static int bind_halo(const void *data, const int32_t *image, int c0, int c1, kparams *P,
                     int *column, unsigned *blocks)
{
    const halo_lists *h = data;
    (void)column;
    if (c1 - c0 != h->st.n) {
        perr("halo lists of %d cells bound to a launch of %d", h->st.n, c1 - c0);
        return -1;
    }
    P->st_start = image;
    P->st_cells = image + start_words(h);
    P->st_loc = P->st_cells + cells_words(h);
    *blocks = 0;
    return 0;
}

static int hmax_halo(const void *data) { return ((const halo_lists *)data)->st.hmax; }

const access_prep access_prep_STAGED = {PREP_FOR_STAGED, prepare_staged, release_halo, words_halo, pack_halo,
                                        bind_halo, hmax_halo, 0};
const access_prep access_prep_TWOPASS = {PREP_FOR_STAGED, prepare_twopass, release_halo, words_halo, pack_halo,
                                         bind_halo, hmax_halo, 1};
