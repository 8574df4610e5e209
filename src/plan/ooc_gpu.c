/* ooc_gpu.c — the out-of-core pipeline on the GPU (src/plan/ooc_gpu.h). */
#include "ooc_gpu.h"
#include "base/progress.h"

#include "persist_gpu.h"
#include "share.h"

#include "src/exec/gpu.h"
#include "src/exec/gpu_launch.h"
#include "src/exec/iterate.h"
#include "src/exec/runner.h"
#include "access/tiles_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int poison_device(void *p, size_t n, size_t stride, size_t offset, int is_float); /* poison.cu */

/* One buffer of the pipeline: a chunk's device fields and table, the host staging of its fixed
 * and ring cells, and the stream its copies and kernels run on. */
typedef struct {
    cudaStream_t stream;
    cudaEvent_t staged; /* recorded after the copies in: the staging buffer is free again */
    cudaEvent_t freed;  /* recorded after the copies out: the buffer may take the next chunk */
    cudaEvent_t ready;  /* recorded after what its chunk takes from the previous one arrived */
    cudaEvent_t ran;    /* persistent chunks: recorded after its chunk's launch */
    fieldset d;
    int32_t *tab, *pat;
    int32_t *list;      /* after the table: the next chunk's share list, from then to */
    char *stage;
} ooc_buffer;

typedef struct {
    const ooc_plan *pl;
    const ugrid *g;
    int nin, nf, nbuf;
    size_t es;
    ooc_buffer buf[OOC_BUFFERS];
    ooc_piece *piece;   /* the pieces of the chunk being copied in */
    int32_t *tables;    /* pinned: every part's tab then pat, then the share list of the next
                         * part (share_from, share_to), at tab_at[p] */
    size_t *tab_at;
    ooc_launch launch;  /* the steps' kernel */
    int zslice;         /* levels per thread (also of the K-step kernels) */
    int persistent;     /* each chunk's steps in one cooperative launch (ooc_kernel) */
    persist_chunk_kernel pk; /* its kernel, */
    persist_shape *pshape;   /* each part's launch shape, */
    int32_t *dfirst;         /* and each part's first[] on the device, F + 1 entries a part */
    int whole_run;           /* one chunk, one pass: its steps are the run's (progress) */
} ooc_gpu;

static double now_s(void) { return now_ms() * 1e-3; }

/* 32-bit words of a part's neighbours in its image: its strategy's lists when it has them (and
 * its table before them where the kernels read both), else its table or ELL lists. */
static size_t image_nb_words(const ooc_part *pt, stencil_t st)
{
    return pt->lists ? ooc_part_lists_at(pt) + access_words(pt->lists_a, pt->lists)
                     : ooc_table_words(pt, st);
}

/* 32-bit words of a part's neighbours on the device: with K > 1 its balls (tiles_bytes is a
 * multiple of 4), else as in its image. */
static size_t part_nb_words(const ooc_plan *pl, const ooc_part *pt)
{
    if (pl->K > 1)
        return tiles_bytes(&pt->tl) / sizeof(int32_t);
    return image_nb_words(pt, pl->stencil);
}

/* Where a part's coefficients start in its image (stencils/coeffs.h): after its nb_words
 * neighbour words, at an even word (8 bytes, for double); ooc_coeffs_words leaves room for it. */
static size_t coef_offset(size_t nb_words) { return (nb_words + 1) / 2 * 2; }

/* 32-bit words of what a part's steps read besides the fields: its neighbours, then the
 * coefficients of a stencil that reads them (its arrays back to back, coef_set_pack). */
static size_t part_table_words(const ooc_plan *pl, const ooc_part *pt)
{
    return part_nb_words(pl, pt) + ooc_coeffs_words(pt, pl->stencil, pl->prec);
}

size_t ooc_table_words(const ooc_part *pt, stencil_t st)
{
    const nbtable *t = &pt->nt;
    if (stencil_table[st].graph)
        return ell_bytes(&pt->ell) / sizeof(int32_t);
    return (size_t)t->nrel * (size_t)t->ntab + (t->compressed ? (size_t)t->nxy : 0);
}

void ooc_table_pack(const ooc_part *pt, stencil_t st, int32_t *at)
{
    const nbtable *t = &pt->nt;
    if (stencil_table[st].graph) {
        const ell_table *e = &pt->ell;
        memcpy(at, e->deg, sizeof(int32_t) * (size_t)e->nxy);
        memcpy(at + e->nxy, e->nb, sizeof(int32_t) * (size_t)e->nxy * (size_t)e->maxdeg);
        return;
    }
    memcpy(at, t->tab, sizeof(int32_t) * (size_t)t->nrel * (size_t)t->ntab);
    if (t->compressed)
        memcpy(at + (size_t)t->nrel * (size_t)t->ntab, t->pat, sizeof(int32_t) * (size_t)t->nxy);
}

size_t ooc_part_image_words(const ooc_part *pt, stencil_t st, precision_t prec)
{
    return image_nb_words(pt, st) + ooc_coeffs_words(pt, st, prec);
}

void ooc_part_image_pack(const ooc_part *pt, stencil_t st, precision_t prec, int32_t *at)
{
    if (!pt->lists || ooc_part_lists_at(pt) > 0)
        ooc_table_pack(pt, st, at);
    if (pt->lists)
        access_pack(pt->lists_a, pt->lists, at + ooc_part_lists_at(pt));
    if (ooc_coeffs_words(pt, st, prec) > 0)
        coef_set_pack(&pt->coef, prec_size(prec), at + coef_offset(image_nb_words(pt, st)));
}

/* A part's balls in a words-long image: slots first (8-byte aligned on the device), then start,
 * layer and cell. */
static void tiles_pack(const tiles *t, int32_t *at)
{
    size_t n = t->nentries, nb = (size_t)t->nblocks, w = (size_t)t->width; /* w is even */
    memcpy(at, t->nb, sizeof(uint16_t) * w * n);
    at += w / 2 * n;
    memcpy(at, t->start, sizeof(int32_t) * (nb + 1));
    at += nb + 1;
    memcpy(at, t->layer, sizeof(int32_t) * nb * (size_t)(t->depth + 1));
    at += nb * (size_t)(t->depth + 1);
    memcpy(at, t->cell, sizeof(int32_t) * n);
}

static tiles_view tiles_unpack(const tiles *t, const int32_t *at)
{
    size_t n = t->nentries, nb = (size_t)t->nblocks;
    tiles_view v;
    v.nb = (const uint16_t *)at;
    v.start = at + (size_t)t->width / 2 * n;
    v.layer = v.start + nb + 1;
    v.cell = v.layer + nb * (size_t)(t->depth + 1);
    return v;
}

/* 32-bit words of the share list part p carries for part p + 1. */
static size_t part_list_words(const ooc_plan *pl, int p)
{
    return p + 1 < pl->nparts ? 2 * (size_t)pl->part[p + 1].nshare : 0;
}

/* Device buffers sized for the largest chunk, pinned staging, and one pinned image of all the
 * parts' tables and share lists (built once, read by every pass). */
static void ooc_gpu_open(ooc_gpu *o)
{
    const ooc_plan *pl = o->pl;
    size_t len = 0, words = 0, stage = 0, total = 0;
    o->tab_at = xalloc(sizeof(size_t) * (size_t)pl->nparts);
    o->piece = xalloc(sizeof(ooc_piece) * (size_t)ooc_max_pieces(pl));
    for (int p = 0; p < pl->nparts; p++) {
        const ooc_part *pt = &pl->part[p];
        size_t w = part_table_words(pl, pt) + part_list_words(pl, p);
        o->tab_at[p] = total;
        total += w;
        if (w > words)
            words = w;
        for (int k = 0; k < pl->nslabs; k++) {
            size_t lev = (size_t)(pl->slab[k].lz1 - pl->slab[k].lz0);
            if ((size_t)pt->zstride * lev > len)
                len = (size_t)pt->zstride * lev;
            if ((size_t)pt->first[0] * lev * (size_t)o->nin > stage)
                stage = (size_t)pt->first[0] * lev * (size_t)o->nin;
        }
    }
    CK(cudaMallocHost((void **)&o->tables, sizeof(int32_t) * (total ? total : 1)));
    for (int p = 0; p < pl->nparts; p++) {
        int32_t *at = o->tables + o->tab_at[p];
        if (pl->K > 1) {
            tiles_pack(&pl->part[p].tl, at);
            if (ooc_coeffs_words(&pl->part[p], pl->stencil, pl->prec) > 0)
                coef_set_pack(&pl->part[p].coef, o->es,
                              at + coef_offset(part_nb_words(pl, &pl->part[p])));
        } else {
            ooc_part_image_pack(&pl->part[p], pl->stencil, pl->prec, at);
        }
        if (part_list_words(pl, p) > 0) {
            const ooc_part *next = &pl->part[p + 1];
            int32_t *list = at + part_table_words(pl, &pl->part[p]);
            memcpy(list, next->share_from, sizeof(int32_t) * (size_t)next->nshare);
            memcpy(list + next->nshare, next->share_to, sizeof(int32_t) * (size_t)next->nshare);
        }
    }
    if (o->persistent) { /* every part's first[], once for the run */
        size_t n = (size_t)pl->nparts * (size_t)(pl->F + 1);
        int32_t *h = xalloc(sizeof(int32_t) * n);
        for (int p = 0; p < pl->nparts; p++)
            memcpy(h + (size_t)p * (size_t)(pl->F + 1), pl->part[p].first,
                   sizeof(int32_t) * (size_t)(pl->F + 1));
        CK(cudaMalloc((void **)&o->dfirst, sizeof(int32_t) * n));
        gpu_copy(o->dfirst, h, sizeof(int32_t) * n, 1);
        xfree(h);
    }
    int is_float = pl->prec == PREC_FLOAT;
    for (int b = 0; b < o->nbuf; b++) {
        ooc_buffer *u = &o->buf[b];
        CK(cudaStreamCreateWithFlags(&u->stream, cudaStreamNonBlocking));
        CK(cudaEventCreateWithFlags(&u->staged, cudaEventDisableTiming));
        CK(cudaEventCreateWithFlags(&u->freed, cudaEventDisableTiming));
        CK(cudaEventCreateWithFlags(&u->ready, cudaEventDisableTiming));
        CK(cudaEventCreateWithFlags(&u->ran, cudaEventDisableTiming));
        for (int i = 0; i < o->nf; i++) {
            CK(cudaMalloc(&u->d.p[i], o->es * len));
            CK((cudaError_t)poison_device(u->d.p[i], len, 1, 0, is_float));
        }
        CK(cudaMalloc((void **)&u->tab, sizeof(int32_t) * (words ? words : 1)));
        CK(cudaMallocHost((void **)&u->stage, o->es * (stage ? stage : 1)));
    }
    CK(cudaDeviceSynchronize());
}

static void ooc_gpu_close(ooc_gpu *o)
{
    for (int b = 0; b < o->nbuf; b++) {
        ooc_buffer *u = &o->buf[b];
        for (int i = 0; i < o->nf; i++)
            CK(cudaFree(u->d.p[i]));
        CK(cudaFree(u->tab));
        CK(cudaFreeHost(u->stage));
        CK(cudaEventDestroy(u->staged));
        CK(cudaEventDestroy(u->freed));
        CK(cudaEventDestroy(u->ready));
        CK(cudaEventDestroy(u->ran));
        CK(cudaStreamDestroy(u->stream));
    }
    if (o->dfirst)
        CK(cudaFree(o->dfirst));
    CK(cudaFreeHost(o->tables));
    xfree(o->tab_at);
    xfree(o->piece);
}

/* Values per input of the pieces below first[0] (fixed and ring cells): what is staged. */
static size_t staged_values(const ooc_part *pt, const ooc_piece *pc, int npc)
{
    size_t v = 0;
    for (int j = 0; j < npc; j++)
        if (pc[j].c0 < pt->first[0])
            v += (size_t)pc[j].n * (size_t)(pc[j].z1 - pc[j].z0);
    return v;
}

/* to[l] = from[gc[l]] for l < n, in the order ord (NULL: 0, 1, ...). */
#define GATHER_LEVEL(T, to, from, gc, ord, n)                                                       \
    do {                                                                                           \
        for (int k = 0; k < (n); k++) {                                                            \
            int l = (ord) ? (ord)[k] : k;                                                          \
            ((T *)(to))[l] = ((const T *)(from))[(gc)[l]];                                         \
        }                                                                                          \
    } while (0)

/* The pieces of fixed and ring cells of every input into the staging buffer: input by input,
 * piece by piece, [levels][cells]. A piece of the whole ring (every piece but the runs that
 * sharing leaves) is read in ascending global cell (ring_order), which on a level is ascending
 * address: the ring's bands, a few cells wide each, would otherwise be read one after the other
 * across the same cache lines and pages. */
static void gather_ring(const ooc_gpu *o, const ooc_part *pt, const ooc_piece *pc, int npc,
                        size_t per_input, fieldset src, char *stage)
{
    size_t es = o->es, gzs = (size_t)o->g->zstride, at = 0;
    for (int j = 0; j < npc; j++) {
        const ooc_piece *q = &pc[j];
        const int *gc = pt->gcell + q->c0;
        const int *ord = q->c0 == 0 && q->n == pt->first[0] ? pt->ring_order : NULL;
        int n = q->n, lev = q->z1 - q->z0;
        if (q->c0 >= pt->first[0])
            continue;
#pragma omp parallel for collapse(2) schedule(static) if((long)n * lev * o->nin > 65536)
        for (int f = 0; f < o->nin; f++)
            for (int z = 0; z < lev; z++) {
                const char *from = (const char *)src.p[f] + (size_t)(q->z0 + z) * gzs * es;
                char *to = stage + ((size_t)f * per_input + at + (size_t)z * (size_t)n) * es;
                if (es == 8)
                    GATHER_LEVEL(double, to, from, gc, ord, n);
                else
                    GATHER_LEVEL(float, to, from, gc, ord, n);
            }
        at += (size_t)n * (size_t)lev;
    }
}

/* Copies chunk i in: its pieces (ooc_chunk_pieces: all its inputs but what it takes from chunk
 * i - 1), fixed and ring cells through the staging, own cells straight from the host fields;
 * the part's table, and the share list of chunk i + 1 when that is another part. */
static void copy_in(ooc_gpu *o, ooc_buffer *u, int i, fieldset src, ooc_timing *t)
{
    const ooc_plan *pl = o->pl;
    const ooc_part *pt = &pl->part[i / pl->nslabs];
    const ooc_slab *s = &pl->slab[i % pl->nslabs];
    size_t es = o->es, dpitch = (size_t)pt->zstride * es, gpitch = (size_t)o->g->zstride * es;
    int npc = ooc_chunk_pieces(pl, i, o->piece);
    size_t per_input = staged_values(pt, o->piece, npc);
    CK(cudaEventSynchronize(u->staged));
    double g0 = now_s();
    gather_ring(o, pt, o->piece, npc, per_input, src, u->stage);
    t->gather_s += now_s() - g0;
    ooc_share next;
    ooc_chunk_share(pl, i + 1, &next);
    size_t words = part_table_words(pl, pt), list = next.to ? 2 * (size_t)next.n : 0;
    CK(cudaMemcpyAsync(u->tab, o->tables + o->tab_at[i / pl->nslabs],
                       sizeof(int32_t) * (words + list), cudaMemcpyHostToDevice, u->stream));
    u->pat = pt->nt.compressed ? u->tab + (size_t)pt->nt.nrel * (size_t)pt->nt.ntab : NULL;
    u->list = u->tab + words;
    double values = 0;
    for (int f = 0; f < o->nin; f++) {
        size_t at = 0; /* this input's next staged value */
        for (int j = 0; j < npc; j++) {
            const ooc_piece *q = &o->piece[j];
            size_t n = (size_t)q->n, lev = (size_t)(q->z1 - q->z0);
            char *dst = (char *)u->d.p[f] +
                        ((size_t)(q->z0 - s->lz0) * (size_t)pt->zstride + (size_t)q->c0) * es;
            if (q->c0 < pt->first[0]) {
                const char *from = u->stage + ((size_t)f * per_input + at) * es;
                CK(cudaMemcpy2DAsync(dst, dpitch, from, n * es, n * es, lev,
                                     cudaMemcpyHostToDevice, u->stream));
                at += n * lev;
            } else {
                const char *from = (const char *)src.p[f] +
                                   ((size_t)q->z0 * (size_t)o->g->zstride + (size_t)pt->gcell[q->c0]) * es;
                CK(cudaMemcpy2DAsync(dst, dpitch, from, gpitch, n * es, lev,
                                     cudaMemcpyHostToDevice, u->stream));
            }
            values += (double)n * (double)lev;
        }
    }
    CK(cudaEventRecord(u->staged, u->stream));
    t->h2d_bytes += (double)sizeof(int32_t) * (double)(words + list) + values * (double)es;
}

/* Region sharing, on chunk i's stream u between its copies in and its steps: first it waits for
 * what chunk i itself takes from chunk i - 1 (u->ready), since that may be passed on; then, if
 * chunk i + 1 takes from chunk i, it waits until chunk i + 1's buffer v is free (v->freed:
 * chunk i + 1 - nbuf copied out), copies the shared values into v (a gather kernel, or one
 * device copy when both are slabs of one part) and records v->ready, on which chunk i + 1's
 * stream waits before its own sharing and steps. The copies only read chunk i's inputs before
 * its steps change them, and write cells and levels of v that chunk i + 1's own copies in (on
 * v's stream, concurrently) leave alone. Every wait is on work issued before it: no cycle.
 * Nothing crosses a pass: its first chunk takes nothing. */
static void share_step(ooc_gpu *o, int i, ooc_buffer *u, ooc_buffer *v)
{
    const ooc_plan *pl = o->pl;
    ooc_share sh;
    ooc_chunk_share(pl, i, &sh);
    if (sh.n > 0)
        CK(cudaStreamWaitEvent(u->stream, u->ready, 0));
    ooc_chunk_share(pl, i + 1, &sh);
    if (sh.n == 0)
        return;
    const ooc_part *pf = &pl->part[i / pl->nslabs], *pt = &pl->part[(i + 1) / pl->nslabs];
    const ooc_slab *sf = &pl->slab[i % pl->nslabs], *s = &pl->slab[(i + 1) % pl->nslabs];
    size_t es = o->es;
    CK(cudaStreamWaitEvent(u->stream, v->freed, 0));
    for (int f = 0; f < o->nin; f++) {
        char *to = (char *)v->d.p[f] + (size_t)(sh.z0 - s->lz0) * (size_t)pt->zstride * es;
        const char *from = (const char *)u->d.p[f] + (size_t)(sh.z0 - sf->lz0) * (size_t)pf->zstride * es;
        if (!sh.to)
            CK(cudaMemcpyAsync(to, from, (size_t)(sh.z1 - sh.z0) * (size_t)pt->zstride * es,
                               cudaMemcpyDeviceToDevice, u->stream));
        else
            CK((cudaError_t)share_launch(to, from, u->list + sh.n, u->list, sh.n, sh.z1 - sh.z0,
                                         pt->zstride, pf->zstride, pl->prec == PREC_FLOAT,
                                         u->stream));
    }
    CK(cudaEventRecord(v->ready, u->stream));
}

/* What no step writes but later steps read, from the state fields into the output fields: the
 * grid's halo cells (all levels) and the levels at and above zend (all cells). */
static void copy_fixed(ooc_gpu *o, ooc_buffer *u, int p, int k)
{
    const ooc_plan *pl = o->pl;
    const ooc_part *pt = &pl->part[p];
    const ooc_slab *s = &pl->slab[k];
    const iter_carry *c = iter_carried(pl->stencil);
    size_t es = o->es, pitch = (size_t)pt->zstride * es;
    int top = pl->zend > s->lz0 ? pl->zend : s->lz0; /* first fixed level */
    for (int i = 0; i < c->n; i++) {
        char *to = u->d.p[c->out[i]];
        const char *from = u->d.p[c->in[i]];
        if (pt->nfixed > 0)
            CK(cudaMemcpy2DAsync(to, pitch, from, pitch, (size_t)pt->nfixed * es,
                                 (size_t)(s->lz1 - s->lz0), cudaMemcpyDeviceToDevice, u->stream));
        if (top < s->lz1)
            CK(cudaMemcpyAsync(to + (size_t)(top - s->lz0) * pitch, from + (size_t)(top - s->lz0) * pitch,
                               (size_t)(s->lz1 - top) * pitch, cudaMemcpyDeviceToDevice, u->stream));
    }
}

/* up to F steps on the chunk's balls, K per launch, the state going back and forth between the
 * state field and the output field (the grid's halo cells are copied into the latter first, as
 * the launches read them from either). Returns whether the result is in the output field. */
static int run_tiles(ooc_gpu *o, ooc_buffer *u, int p, int k, int steps)
{
    const ooc_plan *pl = o->pl;
    const ooc_part *pt = &pl->part[p];
    const ooc_slab *s = &pl->slab[k];
    const iter_carry *c = iter_carried(pl->stencil);
    tiles_view v = tiles_unpack(&pt->tl, u->tab);
    int nlev = s->lz1 - s->lz0, cur = c->in[0], alt = c->out[0];
    if (steps > pl->K)
        copy_fixed(o, u, p, k);
    for (int done = 0; done < steps;) {
        int n = steps - done < pl->K ? steps - done : pl->K;
        tiles_step_args a = {pl->stencil, pl->prec, n, pt->first[steps - done - n], nlev,
                             pt->zstride, u->d.p[cur], tiles_fixed_input(pl->stencil, u->d),
                             u->d.p[alt]};
        CK((cudaError_t)tiles_steps_gpu(&pt->tl, v, &a, o->zslice, u->stream));
        int swap = cur;
        cur = alt;
        alt = swap;
        done += n;
    }
    return cur != c->in[0];
}

/* up to F steps on the chunk's shrinking region in one cooperative launch of the persistent
 * kernel (persist_chunk_launch), after the launch of the chunk before it (gi - 1 in the
 * pipeline's order) has ended: a launch keeps every block of its grid resident, so two must not
 * share the SMs. The grid's halo cells and fixed levels are copied into the output fields first,
 * as for a launch per step. Returns whether the result is in the output fields. */
static int run_persistent(ooc_gpu *o, ooc_buffer *u, long gi, int p, int k, int steps)
{
    const ooc_plan *pl = o->pl;
    if (steps > 1)
        copy_fixed(o, u, p, k);
    if (gi > 0)
        CK(cudaStreamWaitEvent(u->stream, o->buf[(gi - 1) % o->nbuf].ran, 0));
    persist_chunk_launch(&o->pk, &o->pshape[p], pl, &pl->part[p], &pl->slab[k], u->tab,
                         o->dfirst + (size_t)p * (size_t)(pl->F + 1), u->d, steps, u->stream);
    CK(cudaEventRecord(u->ran, u->stream));
    return steps & 1;
}

/* up to F steps on the chunk's shrinking region, one strategy kernel per step that writes the
 * new state (the fold of src/exec/iterate.h fused in: kparams.fold) into the other of the state and
 * output fields (persistent: all of them in one launch). Returns whether the result is in the
 * output fields. */
static int run_steps(ooc_gpu *o, ooc_buffer *u, long gi, int p, int k, int steps)
{
    if (o->persistent)
        return run_persistent(o, u, gi, p, k, steps);
    if (o->pl->K > 1)
        return run_tiles(o, u, p, k, steps);
    const ooc_plan *pl = o->pl;
    const ooc_part *pt = &pl->part[p];
    const ooc_slab *s = &pl->slab[k];
    int zr = stencil_table[pl->stencil].zradius, in_out = 0;
    if (steps > 1)
        copy_fixed(o, u, p, k);
    /* a run of one chunk and one pass (in core): with a meter shown, it reports every 1% of its
     * steps, waiting for them (a few µs each time) */
    int report = o->whole_run && progress_wanted() ? (steps + 99) / 100 : 0;
    for (int j = 1; j <= steps; j++) {
        if (report && j > 1 && (j - 1) % report == 0) {
            CK(cudaStreamSynchronize(u->stream));
            progress_update("steps", j - 1, steps);
        }
        int m = steps - j;
        int k0 = s->z0 - zr * m > 0 ? s->z0 - zr * m : 0;
        int k1 = s->z1 + zr * m < pl->zend ? s->z1 + zr * m : pl->zend;
        if (pt->ncells <= pt->first[m] || k1 <= k0)
            continue;
        ooc_step_launch(&o->launch, pl->stencil, pl->prec, pt, u->tab, u->d, s->lz0, k0, k1,
                        pt->first[m], pt->ncells, in_out, u->stream);
        in_out = !in_out;
    }
    return in_out;
}

void ooc_step_launch(const ooc_launch *L, stencil_t st, precision_t prec, const ooc_part *pt,
                     const int32_t *tab, fieldset d, int lz0, int k0, int k1, int c0, int c1,
                     int in_out, void *stream)
{
    const iter_carry *c = iter_carried(st);
    size_t shift = (size_t)(k0 - lz0) * (size_t)pt->zstride * prec_size(prec);
    kparams P;
    memset(&P, 0, sizeof P);
    for (int i = 0; i < stencil_table[st].nin + stencil_table[st].nout; i++)
        P.f.p[i] = (char *)d.p[i] + shift;
    for (int i = 0; i < c->n && in_out; i++) { /* read the output fields, write the state */
        void *swap = P.f.p[c->in[i]];
        P.f.p[c->in[i]] = P.f.p[c->out[i]];
        P.f.p[c->out[i]] = swap;
    }
    P.fold = !L->apply;
    const int32_t *pat = pt->nt.compressed ? tab + (size_t)pt->nt.nrel * (size_t)pt->nt.ntab : NULL;
    P.nbv = (nbview){tab, pat, pt->nt.ntab, 0};
    if (stencil_table[st].graph) { /* the part's lists, as ooc_gpu_open packs them */
        P.g_deg = tab;
        P.g_nb = tab + pt->ell.nxy;
        P.g_stride = pt->ell.nxy;
    }
    if (stencil_table[st].coeffs.n) { /* its coefficients after the lists (ooc_gpu_open) */
        size_t nb = image_nb_words(pt, st);
        if (!pt->coef.count)
            fault_raise(FAULT_INTERNAL, "iterated steps: a part without its coefficients");
        kparams_coeffs(&P, tab + coef_offset(nb), &pt->coef, prec_size(prec));
    }
    P.zs = pt->zstride;
    P.zend = k1 - k0;
    P.kbase = k0;
    P.c0 = c0;
    P.n = c1 - c0;
    P.zslice = L->zslice;
    gpu_launch l;
    if (P.n <= 0 || P.zend <= 0)
        return;
    int column = L->column;
    unsigned blocks = 0;
    if (pt->lists) { /* the strategy's lists, as ooc_part_image_pack packs them */
        if (pt->lists_a != L->access)
            fault_raise(FAULT_INTERNAL, "iterated steps: a part's lists are %s's, the launch %s's",
                        access_name[pt->lists_a], access_name[L->access]);
        if (access_table[L->access].prep->bind(pt->lists, tab + ooc_part_lists_at(pt), c0, c1, &P,
                                               &column, &blocks) != 0)
            fault_raise(FAULT_INTERNAL, "iterated steps: %s lists not cut at [%d, %d)",
                        access_name[L->access], c0, c1);
    }
    if (gpu_launch_plan(&l, L->access, 0, st, prec, column, 1, L->bx, L->by, L->bz, &P) != 0)
        fault_raise(FAULT_INTERNAL, "iterated steps: a launch checked before the run failed");
    if (blocks)
        l.grid.x = blocks;
    l.smem = L->smem;
    gpu_launch_run(&l, &P, stream);
}

/* The state at chunk (p, k)'s own points back into the host fields dst, from the output fields
 * where the steps left it there. */
static void copy_out(ooc_gpu *o, ooc_buffer *u, int p, int k, int in_out, fieldset dst,
                     ooc_timing *t)
{
    const ooc_part *pt = &o->pl->part[p];
    const ooc_slab *s = &o->pl->slab[k];
    const iter_carry *c = iter_carried(o->pl->stencil);
    size_t es = o->es, nown = (size_t)(pt->own1 - pt->own0), lev = (size_t)(s->z1 - s->z0);
    for (int i = 0; i < c->n; i++) {
        char *to = (char *)dst.p[c->in[i]] +
                   ((size_t)s->z0 * (size_t)o->g->zstride + (size_t)pt->own0) * es;
        const char *from = (const char *)u->d.p[in_out ? c->out[i] : c->in[i]] +
                           ((size_t)(s->z0 - s->lz0) * (size_t)pt->zstride + (size_t)pt->first[0]) * es;
        CK(cudaMemcpy2DAsync(to, (size_t)o->g->zstride * es, from, (size_t)pt->zstride * es,
                             nown * es, lev, cudaMemcpyDeviceToHost, u->stream));
    }
    t->d2h_bytes += (double)c->n * (double)lev * (double)nown * (double)es;
}

/* Points of the carried fields that no pass writes (halo cells, levels above zend): from the
 * initial state into the spare state. */
static void copy_unwritten(const ooc_plan *pl, const ugrid *g, fieldset from, fieldset to)
{
    const iter_carry *c = iter_carried(pl->stencil);
    size_t es = prec_size(pl->prec), zs = (size_t)g->zstride;
    for (int i = 0; i < c->n; i++) {
        const char *a = from.p[c->in[i]];
        char *b = to.p[c->in[i]];
        for (int z = 0; z < g->nz; z++) {
            size_t n = z < pl->zend ? (size_t)g->nhalo : (size_t)g->nxy;
            memcpy(b + (size_t)z * zs * es, a + (size_t)z * zs * es, n * es);
        }
    }
}

/* Registers the host fields a run copies from and to; returns whether all were registered. */
static int register_fields(const ooc_gpu *o, fieldset f, fieldset spare, int on)
{
    const iter_carry *c = iter_carried(o->pl->stencil);
    size_t bytes = o->es * o->g->len;
    void *ptr[PILLAR_MAXF + 2];
    int n = 0;
    for (int i = 0; i < o->nin; i++)
        ptr[n++] = f.p[i];
    for (int i = 0; i < c->n; i++)
        ptr[n++] = spare.p[c->in[i]];
    for (int i = 0; i < n; i++) {
        if (on) {
            if (cudaHostRegister(ptr[i], bytes, cudaHostRegisterDefault) != cudaSuccess) {
                cudaGetLastError();
                for (int j = 0; j < i; j++)
                    CK(cudaHostUnregister(ptr[j]));
                return 0;
            }
        } else {
            CK(cudaHostUnregister(ptr[i]));
        }
    }
    return 1;
}

typedef struct {
    double a, b;
} span;

static int by_start(const void *x, const void *y)
{
    double a = ((const span *)x)->a, b = ((const span *)y)->a;
    return (a > b) - (a < b);
}

/* The length of the union of n intervals (sorted in place). */
static double spans_union(span *s, int n)
{
    qsort(s, (size_t)n, sizeof(span), by_start);
    double sum = 0, a = 0, b = -1;
    for (int i = 0; i < n; i++) {
        if (s[i].a > b) {
            sum += b > a ? b - a : 0;
            a = s[i].a;
            b = s[i].b;
        } else if (s[i].b > b) {
            b = s[i].b;
        }
    }
    return sum + (b > a ? b - a : 0);
}

/* A K-step run's blocks: one row of 32 to 1024 threads, a ball within a block's shared memory. */
static int tiles_check(const ooc_plan *pl)
{
    int B = pl->part[0].tl.B;
    size_t need = 0;
    if (B < 32 || B > 1024) {
        perr("--threads %d: a K-step kernel's block is one row of 32 to 1024 threads, one per "
             "cell", B);
        return -1;
    }
    for (int p = 0; p < pl->nparts; p++)
        if (tiles_smem(pl->part[p].tl.maxball, pl->part[p].tl.width, pl->prec) > need)
            need = tiles_smem(pl->part[p].tl.maxball, pl->part[p].tl.width, pl->prec);
    if (need > 227 * 1024) {
        perr("--kernel-steps %d: a block's ball needs %zu bytes of shared memory, more than the "
             "227 KB a block may have; use fewer --kernel-steps or --threads", pl->K, need);
        return -1;
    }
    return 0;
}

/* The chunks whose results chunk i reads: the owners of the points of its pieces (the grid's
 * halo cells are nobody's: no pass writes them). List of chunk i at dep + at[i], at[i + 1]
 * exclusive; chunk i itself among them. */
static int *chunk_deps(const ooc_gpu *o, int **at_out)
{
    const ooc_plan *pl = o->pl;
    int chunks = pl->nparts * pl->nslabs, n = 0, cap = 4 * chunks;
    int *at = xalloc(sizeof(int) * (size_t)(chunks + 1)), *dep = xalloc(sizeof(int) * (size_t)cap);
    int *seen = xalloc(sizeof(int) * (size_t)chunks);
    ooc_piece *pc = xalloc(sizeof(ooc_piece) * (size_t)ooc_max_pieces(pl));
    for (int i = 0; i < chunks; i++)
        seen[i] = -1;
    for (int i = 0; i < chunks; i++) {
        const ooc_part *pt = &pl->part[i / pl->nslabs];
        int npc = ooc_chunk_pieces(pl, i, pc), last = -1; /* the owner part found last */
        at[i] = n;
        for (int j = 0; j < npc; j++)
            for (int c = pc[j].c0; c < pc[j].c0 + pc[j].n; c++) {
                int gc = pt->gcell[c], q = last;
                if (gc < o->g->nhalo)
                    continue;
                if (q < 0 || gc < pl->part[q].own0 || gc >= pl->part[q].own1) {
                    int lo = 0, hi = pl->nparts - 1; /* parts own ascending runs of cells */
                    while (lo < hi) {
                        int mid = lo + (hi - lo + 1) / 2;
                        if (pl->part[mid].own0 <= gc)
                            lo = mid;
                        else
                            hi = mid - 1;
                    }
                    q = last = lo;
                }
                for (int k = 0; k < pl->nslabs; k++) {
                    int d = q * pl->nslabs + k;
                    if (seen[d] == i || pl->slab[k].z1 <= pc[j].z0 || pl->slab[k].z0 >= pc[j].z1)
                        continue;
                    seen[d] = i;
                    if (n == cap) {
                        dep = xgrow(dep, sizeof(int) * (size_t)n, sizeof(int) * (size_t)cap * 2);
                        cap *= 2;
                    }
                    dep[n++] = d;
                }
            }
    }
    at[chunks] = n;
    xfree(seen);
    xfree(pc);
    *at_out = at;
    return dep;
}

/* The run proper: the pipeline over all chunks, pass after pass, without draining between
 * passes; the buffers go round across them. Pass q reads one state array and writes the other.
 * Before chunk i of pass q gathers and issues its copies in, the host waits until the chunks
 * whose results it reads (chunk_deps, itself included) have copied pass q-1's results out.
 * That also orders the writes: chunk i's copy out in pass q overwrites the array pass q-1 read,
 * and the chunks that read chunk i's points there are those chunk i reads from (the relations
 * are symmetric), which were done with them before their copies out of pass q-1. Timing on the
 * device: a pass ends when its last chunk is out; the time per step is the median over the
 * passes after the first (which alone carries the pipeline's fill) of the time from the end of
 * the pass before, per step. */
static int ooc_gpu_pipeline(ooc_gpu *o, fieldset *f, fieldset *spare, int steps, ooc_timing *t)
{
    const ooc_plan *pl = o->pl;
    int chunks = pl->nparts * pl->nslabs;
    copy_unwritten(pl, o->g, *f, *spare);
    t->pinned = register_fields(o, *f, *spare, 1);
    ooc_gpu_open(o);
    if (o->dfirst) /* the parts' first[], once */
        t->h2d_bytes += sizeof(int32_t) * (double)pl->nparts * (double)(pl->F + 1);
    const iter_carry *c = iter_carried(pl->stencil);
    int npass = (steps + pl->F - 1) / pl->F, *dep_at, *dep = chunk_deps(o, &dep_at);
    o->whole_run = chunks == 1 && npass == 1;
    double *pass_s = xalloc(sizeof(double) * (size_t)(npass > 0 ? npass : 1));
    /* by pass parity: each chunk's steps (start, end) and its copy out done */
    cudaEvent_t start, *ev[2], *out[2];
    CK(cudaEventCreate(&start));
    for (int h = 0; h < 2; h++) {
        ev[h] = xalloc(sizeof(cudaEvent_t) * 2 * (size_t)chunks);
        out[h] = xalloc(sizeof(cudaEvent_t) * (size_t)chunks);
        for (int i = 0; i < chunks; i++) {
            CK(cudaEventCreate(&ev[h][2 * i]));
            CK(cudaEventCreate(&ev[h][2 * i + 1]));
            CK(cudaEventCreate(&out[h][i]));
        }
    }
    span *sp = xalloc(sizeof(span) * (size_t)chunks * (size_t)(npass > 0 ? npass : 1));
    int todo[2] = {0, 0};
    double prev_end = 0, t0 = now_s();
    CK(cudaEventRecord(start, o->buf[0].stream)); /* the device is idle */
    for (int pass = 0; pass <= npass; pass++) {
        int h = pass % 2;
        if (pass < npass) {
            int done = pass * pl->F;
            todo[h] = steps - done < pl->F ? steps - done : pl->F;
            for (int i = 0; i < chunks; i++) {
                long gi = (long)pass * chunks + i;
                ooc_buffer *u = &o->buf[gi % o->nbuf], *v = &o->buf[(gi + 1) % o->nbuf];
                int p = i / pl->nslabs, s = i % pl->nslabs;
                double g0 = now_s();
                if (pass > 0)
                    for (int d = dep_at[i]; d < dep_at[i + 1]; d++)
                        CK(cudaEventSynchronize(out[1 - h][dep[d]]));
                copy_in(o, u, i, *f, t);
                t->stage_s += now_s() - g0;
                share_step(o, i, u, v);
                CK(cudaEventRecord(ev[h][2 * i], u->stream));
                int in_out = run_steps(o, u, gi, p, s, todo[h]);
                CK(cudaEventRecord(ev[h][2 * i + 1], u->stream));
                copy_out(o, u, p, s, in_out, *spare, t);
                CK(cudaEventRecord(u->freed, u->stream));
                CK(cudaEventRecord(out[h][i], u->stream));
            }
            for (int i = 0; i < c->n; i++) { /* the pass's output is the next pass's input */
                void *swap = f->p[c->in[i]];
                f->p[c->in[i]] = spare->p[c->in[i]];
                spare->p[c->in[i]] = swap;
            }
        }
        if (pass == 0)
            continue;
        /* the pass before, now that this one is issued (its events are recorded again only
         * by the next) */
        int q = pass - 1, hq = q % 2;
        double end = 0;
        for (int i = 0; i < chunks; i++) {
            float a, b, e;
            CK(cudaEventSynchronize(out[hq][i]));
            CK(cudaEventElapsedTime(&a, start, ev[hq][2 * i]));
            CK(cudaEventElapsedTime(&b, start, ev[hq][2 * i + 1]));
            CK(cudaEventElapsedTime(&e, start, out[hq][i]));
            sp[(size_t)q * (size_t)chunks + (size_t)i] = (span){a * 1e-3, b * 1e-3};
            end = e * 1e-3 > end ? e * 1e-3 : end;
        }
        pass_s[q] = (end - prev_end) / todo[hq] * pl->F; /* a full pass's worth */
        prev_end = end;
        progress_update("steps", q + 1 < npass ? (double)(q + 1) * pl->F : steps, steps);
    }
    CK(cudaDeviceSynchronize());
    t->passes = npass;
    t->total_s = now_s() - t0;
    t->kernel_s = spans_union(sp, chunks * npass);
    /* the first pass alone carries the fill of the pipeline: the median of the others */
    int skip = npass > 1 ? 1 : 0;
    qsort(pass_s + skip, (size_t)(npass - skip), sizeof(double), cmp_double);
    t->pass_median_s = npass ? pass_s[skip + (npass - skip) / 2] : 0;
    t->steady_passes = npass - skip;
    xfree(pass_s);
    xfree(sp);
    CK(cudaEventDestroy(start));
    for (int h = 0; h < 2; h++) {
        for (int i = 0; i < chunks; i++) {
            CK(cudaEventDestroy(ev[h][2 * i]));
            CK(cudaEventDestroy(ev[h][2 * i + 1]));
            CK(cudaEventDestroy(out[h][i]));
        }
        xfree(ev[h]);
        xfree(out[h]);
    }
    xfree(dep);
    xfree(dep_at);
    ooc_gpu_close(o);
    if (t->pinned)
        register_fields(o, *f, *spare, 0);
    return 0;
}

int ooc_iterated_ok(access_t a, stencil_t st)
{
    return access_iterates(a, st) && gpu_supports(a, st);
}

int ooc_launch_prepare(ooc_launch *L, const ooc_kernel *k, stencil_t st, precision_t prec,
                       int chasing, int compressed)
{
    memset(L, 0, sizeof *L);
    L->access = k->access;
    L->bx = k->bx;
    L->by = k->by;
    L->bz = k->bz;
    if (!L->bx)
        gpu_default_shape(k->access, 1, &L->bx, &L->by, &L->bz);
    L->zslice = k->zslice;
    /* a graph stencil's steps run the ELL kernel (access/graph.cu), one thread per cell and
     * level, under idxvar's name, or a strategy with lists on the parts' lists (ooc_plan_lists;
     * graph-twopass: the column by the lists' degree bound is picked at each launch) */
    int graph = stencil_table[st].graph;
    L->column = graph ? GSTORAGE_ELL : chasing * 2 + compressed;
    char why[160];
    const access_desc *d = access_get(k->access);
    if (!d)
        return -1;
    if (!ooc_iterated_ok(k->access, st)) {
        char names[256];
        perr("iterated run: --access %s: not available for iterated runs of %s (use %s)", d->name,
             stencil_table[st].name, access_iterating(st, names, sizeof names));
        return -1;
    }
    if (!gpu_shape_ok(k->access, 1, L->bx, L->by, L->bz, why, sizeof why)) {
        perr("--threads: %s", why);
        return -1;
    }
    L->smem = graph ? gpu_graph_smem_bytes(k->access, 0, prec, L->bx, L->by, 0, 0)
                    : gpu_smem_bytes(k->access, 1, prec, L->bx, L->by, L->bz, 0);
    return 0;
}

int ooc_gpu_run(const ooc_plan *pl, const ugrid *g, fieldset *f, fieldset *spare, int steps,
                const ooc_kernel *k, ooc_timing *t)
{
    ooc_gpu o;
    memset(&o, 0, sizeof o);
    memset(t, 0, sizeof *t);
    if (!ooc_plan_has_coeffs(pl))
        return -1;
    o.pl = pl;
    o.g = g;
    o.nin = stencil_table[pl->stencil].nin;
    o.nf = o.nin + stencil_table[pl->stencil].nout;
    o.es = prec_size(pl->prec);
    int chunks = pl->nparts * pl->nslabs;
    o.nbuf = chunks < OOC_BUFFERS ? chunks : OOC_BUFFERS;
    o.zslice = k->zslice;
    if (k->persistent) {
        long most;
        o.persistent = 1;
        o.pshape = xalloc(sizeof(persist_shape) * (size_t)pl->nparts);
        int rc = persist_chunk_prepare(&o.pk, pl, k->bx, o.pshape, &most) != 0
                     ? -1
                     : ooc_gpu_pipeline(&o, f, spare, steps, t);
        xfree(o.pshape);
        return rc;
    }
    if (pl->K > 1)
        return tiles_check(pl) != 0 ? -1 : ooc_gpu_pipeline(&o, f, spare, steps, t);
    if (ooc_launch_prepare(&o.launch, k, pl->stencil, pl->prec, pl->part[0].nt.chasing,
                           pl->part[0].nt.compressed) != 0)
        return -1;
    int lists = access_table[k->access].prep->prepare != NULL; /* the strategy reads lists */
    if (lists != (pl->lists_bx > 0) ||
        (pl->lists_bx > 0 && (pl->lists_a != k->access || pl->lists_bx != o.launch.bx))) {
        perr("iterated run: --access %s: the plan %s %s lists%s (ooc_plan_lists)",
             access_name[k->access], pl->lists_bx > 0 ? "has" : "has no",
             access_name[pl->lists_bx > 0 ? pl->lists_a : k->access],
             pl->lists_bx > 0 && pl->lists_a == k->access ? " for other blocks" : "");
        return -1;
    }
    return ooc_gpu_pipeline(&o, f, spare, steps, t);
}
