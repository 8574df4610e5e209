/* persist_onchip.c — the on-chip persistent runs of laplap, hdiff and lap
 * (src/plan/persist_onchip.h). */
#include "persist_onchip.h"

#include "onchip_model.h"
#include "onchip_walk.h"
#include "persist_parts.h"
#include "regular_runs.h"

#include "access/persist_onchip.h"
#include "src/exec/gpu_launch.h"
#include "src/exec/runner.h"
#include "grids/mesh.h"

#include <string.h>

/* The kernel variant (access/persist_onchip.h) for blocks of `threads` threads and `slots` slots,
 * computing `rows` rows of pass 1 a thread at once (1, or 2 where a variant does): a prefetching
 * one whose threads' registers hold every slot (the one with more registers a thread first),
 * else (or without prefetch) the one that loads each level before it computes. */
static int onchip_variant(int prefetch, int threads, int slots, int rows)
{
    for (int v = 1; prefetch && v < ONCHIP_VARIANTS; v++) /* 8 values a thread up to 512 threads,
                                                            * then 4 up to 1024 */
        if (onchip_variant_rows[v] == (rows == 2 ? 2 : 1) && threads <= onchip_variant_threads[v] &&
            (long)slots <= (long)onchip_variant_prefetch[v] * threads)
            return v;
    return 0;
}

/* The parts of nblocks blocks (persist_parts.h): runs of the storage order, METIS's parts, or
 * (ONCHIP_PARTS_AUTO) METIS's where their rings hold under 3/4 of the runs' cells or the runs do
 * not fit 16-bit slots. Returns 0, or -1 with a message. */
static int build_parts(persist_parts *P, const ugrid *g, int nblocks, int depth, int parts,
                       int lists)
{
    int runs = -1;
    char msg[300] = "";
    if (parts != ONCHIP_PARTS_METIS) {
        perr_saved saved = perr_capture_save();
        if (parts == ONCHIP_PARTS_AUTO)
            perr_capture(msg, sizeof msg);
        runs = persist_parts_build_from(P, g, nblocks, depth, NULL, lists);
        perr_capture_restore(saved);
        if (parts == ONCHIP_PARTS_RUNS || (runs == 0 && nblocks == 1))
            return runs;
    }
    int *part = xalloc(sizeof(int) * (size_t)g->nxy);
    persist_parts M;
    perr_saved saved = perr_capture_save();
    if (parts == ONCHIP_PARTS_AUTO && runs == 0)
        perr_capture(msg, sizeof msg); /* the runs stand where METIS fails */
    int rc = ugrid_partition(g, lists, nblocks, part) == 0
                 ? persist_parts_build_from(&M, g, nblocks, depth, part, lists)
                 : -1;
    perr_capture_restore(saved);
    xfree(part);
    if (rc != 0) {
        if (runs != 0 && msg[0]) /* neither fits: the runs' reason */
            perr("%s", msg);
        return runs == 0 ? 0 : -1;
    }
    if (runs == 0 && M.ring_all * 4 >= P->ring_all * 3) {
        persist_parts_free(&M);
        return 0;
    }
    if (runs == 0)
        persist_parts_free(P);
    *P = M;
    return 0;
}

/* What a launch of an on-chip run would be on the current device, nothing on it yet: the
 * stencil's kernel, the blocks' parts, the shared memory's layout and the cached levels. */
typedef struct {
    int which, nblocks, threads, variant, nz;
    const void *fn;
    size_t smem, es;
    persist_parts P;
    onchip_params A; /* the layout and levels; the tables, fields and steps unset */
} onchip_shape;

/* The shape of pb's run with request r (onchip_open's refusals, as messages). 0, or -1. */
static int shape_make(const problem *pb, const onchip_request *r, onchip_shape *sh)
{
    const ugrid *g = &pb->ug;
    stencil_t st = pb->s.stencil;
    memset(sh, 0, sizeof *sh);
    if (st != ST_LAPLAP && st != ST_HDIFF && st != ST_LAP && st != ST_GRAPHLAP) {
        perr("on-chip persistent run: laplap, hdiff, lap and graphlap only (%s)",
             stencil_table[st].name);
        return -1;
    }
    int which = st == ST_LAP         ? ONCHIP_LAP
                : st == ST_HDIFF    ? ONCHIP_HDIFF
                : st == ST_GRAPHLAP ? ONCHIP_GRAPHLAP
                                    : ONCHIP_LAPLAP;
    int lists = which == ONCHIP_GRAPHLAP;
    int sms = 0, smem_max = 0;
    if (!gpu_coop_limits(&sms, &smem_max)) {
        perr("on-chip persistent run: this device has no cooperative launches");
        return -1;
    }
    size_t es = prec_size(pb->s.prec);
    int threads = r->threads > 0 ? r->threads : ONCHIP_MAX_THREADS;
    if (threads > ONCHIP_MAX_THREADS) {
        perr("on-chip persistent run: %d threads a block, at most %d", threads,
             ONCHIP_MAX_THREADS);
        return -1;
    }
    long inner = (long)g->nxy - g->nhalo; /* the default: a block a SM, or a cell a block */
    int nblocks = r->blocks > 0 ? r->blocks : inner < sms ? (int)(inner > 0 ? inner : 1) : sms;
    persist_parts P;
    if (build_parts(&P, g, nblocks, which == ONCHIP_LAP ? 1 : 2, r->parts, lists) != 0)
        return -1;
    /* lap reads the four neighbours of every own cell, laplap's two passes those of every own
     * and ring-1 entry (graphlap: their lists, up to each row's degree) */
    const int W = P.width;
    for (long i = 0; i < (long)W * P.tstart[nblocks]; i++)
        if (P.tab[i] == PERSIST_NO_SLOT && (!lists || i % W < P.deg[i / W])) {
            int b = 0;
            while ((long)W * P.tstart[b + 1] <= i)
                b++;
            perr("on-chip persistent run: cell %d (block %d) misses its %s neighbour: the grid's "
                 "boundary is within two cells of an inner cell",
                 persist_parts_cell(&P, g, b, (int)(i / W - P.tstart[b])), b,
                 lists ? "listed" : rel_name[i % W]);
            persist_parts_free(&P);
            return -1;
        }
    int variant = onchip_variant(r->prefetch, threads, P.slots_max, r->rows);
    const void *fn = onchip_kernels[which][pb->s.prec][variant];
    CK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_max));
    onchip_params A;
    memset(&A, 0, sizeof A);
    int nz = stencil_zend(st, g->nz);
    int fit = onchip_layout(&P, which, es, (size_t)smem_max, nz, &A);
    A.levels = r->levels >= 0 ? r->levels : fit;
    if (A.levels > nz)
        A.levels = nz;
    size_t smem = onchip_smem(&A, es);
    int per_sm = smem <= (size_t)smem_max ? gpu_blocks_per_sm(fn, threads, smem) : 0;
    if (smem > (size_t)smem_max || (long)per_sm * sms < nblocks) {
        perr("on-chip persistent run: %d blocks of %d threads with %zu bytes of shared memory "
             "(%d cached levels) cannot all be resident (%d a SM, %d SMs, %d bytes a block at "
             "most)", nblocks, threads, smem, A.levels, per_sm, sms, smem_max);
        persist_parts_free(&P);
        return -1;
    }
    *sh = (onchip_shape){which, nblocks, threads, variant, nz, fn, smem, es, P, A};
    return 0;
}

/* Whether r takes the walk over pb's flat chart (onchip_request.walk): 0 with *w the open walk,
 * or NULL for the parts (r->walk off; auto where the walk does not apply); -1 after a message
 * (r->walk on, refused). */
static int walk_pick(const problem *pb, const onchip_request *r, onchip_walk **w)
{
    *w = NULL;
    if (r->walk == ONCHIP_WALK_OFF || (r->walk == ONCHIP_WALK_AUTO && pb->s.stencil != ST_LAPLAP))
        return 0;
    char msg[300];
    perr_saved saved = perr_capture_save();
    if (r->walk == ONCHIP_WALK_AUTO)
        perr_capture(msg, sizeof msg);
    *w = onchip_walk_open(pb, r->levels, r->blocks);
    perr_capture_restore(saved);
    return *w || r->walk == ONCHIP_WALK_AUTO ? 0 : -1;
}

/* The walk model's step of w on pb's grid (onchip_model.h) with the device's figures d. */
static double walk_predict(const problem *pb, const onchip_walk *w, const onchip_device *d)
{
    int blocks, threads, levels, sms = 0, smem_max = 0;
    onchip_walk_shape(w, &blocks, &threads, &levels);
    gpu_coop_limits(&sms, &smem_max);
    return onchip_walk_step((long)pb->ug.nxy - pb->ug.nhalo, pb->ug.nz, levels,
                            prec_size(pb->s.prec), sms, d);
}

int onchip_predict_run(const problem *pb, const onchip_request *r, onchip_forecast *f)
{
    memset(f, 0, sizeof *f);
    onchip_walk *w;
    if (walk_pick(pb, r, &w) != 0)
        return -1;
    if (w) {
        int sms = 0, smem_max = 0;
        gpu_coop_limits(&sms, &smem_max);
        onchip_device d = onchip_device_h100();
        f->onchip_s = walk_predict(pb, w, &d);
        f->host_s = onchip_host_step(ONCHIP_LAPLAP, (long)pb->ug.nxy - pb->ug.nhalo,
                                     pb->ug.nz, prec_size(pb->s.prec), sms, &d);
        onchip_walk_shape(w, &f->blocks, &f->threads, &f->levels);
        f->walk = 1;
        onchip_walk_close(w);
        return 0;
    }
    onchip_shape sh;
    if (shape_make(pb, r, &sh) != 0)
        return -1;
    int sms = 0, smem_max = 0;
    gpu_coop_limits(&sms, &smem_max);
    onchip_device d = onchip_device_h100();
    f->onchip_s = onchip_predict(&sh.P, sh.which, sh.nz, sh.A.levels, sh.es, &d).step_s;
    f->host_s = onchip_host_step(sh.which, (long)pb->ug.nxy - pb->ug.nhalo, sh.nz, sh.es, sms, &d);
    f->blocks = sh.nblocks;
    f->threads = sh.threads;
    f->levels = sh.A.levels;
    f->metis = !sh.P.contiguous;
    persist_parts_free(&sh.P);
    return 0;
}

/* An open on-chip run (persist_onchip.h): the launch's shape and tables on the device. */
struct onchip_run {
    const problem *pb;
    onchip_shape sh;  /* its A: every table; state, other, coeff and steps set by each
                       * onchip_steps */
    double predicted_s; /* the model's step (made once: it reads every table row) */
    void *dev[12];    /* the device tables and export buffers, freed by onchip_close */
    onchip_walk *walk; /* the walk over a flat chart instead (sh then unset) */
};

onchip_run *onchip_open(const problem *pb, const onchip_request *r)
{
    const ugrid *g = &pb->ug;
    onchip_walk *w;
    if (walk_pick(pb, r, &w) != 0)
        return NULL;
    if (w) {
        onchip_run *h = xalloc(sizeof *h);
        memset(h, 0, sizeof *h);
        h->pb = pb;
        h->walk = w;
        onchip_device dev = onchip_device_h100();
        h->predicted_s = walk_predict(pb, w, &dev);
        return h;
    }
    onchip_shape sh;
    if (shape_make(pb, r, &sh) != 0)
        return NULL;
    const persist_parts *P = &sh.P;
    onchip_params *A = &sh.A;
    const int nblocks = sh.nblocks, W = P->width, lists = sh.which == ONCHIP_GRAPHLAP;
    onchip_run *h = xalloc(sizeof *h);
    memset(h, 0, sizeof *h);
    unsigned char *exported = xalloc((size_t)g->nxy);
    memset(exported, 0, (size_t)g->nxy);
    for (long i = 0; i < P->export_all; i++)
        exported[P->exports[i]] = 1;
    size_t nb1 = sizeof(int32_t) * (size_t)(nblocks + 1);
    A->own0 = h->dev[0] = gpu_upload(P->own0, nb1);
    A->r1start = h->dev[1] = gpu_upload(P->r1start, nb1);
    A->own = h->dev[2] = P->contiguous ? NULL : gpu_upload(P->own, sizeof(int32_t) * (size_t)P->n);
    A->r2start = h->dev[3] = gpu_upload(P->r2start, nb1);
    A->tstart = h->dev[4] = gpu_upload(P->tstart, nb1);
    A->ring1 = h->dev[5] = gpu_upload(P->ring1, sizeof(int32_t) * (size_t)P->r1start[nblocks]);
    A->ring2 = h->dev[6] = gpu_upload(P->ring2, sizeof(int32_t) * (size_t)P->r2start[nblocks]);
    A->tab = h->dev[7] =
        gpu_upload(P->tab, sizeof(uint16_t) * (size_t)W * (size_t)P->tstart[nblocks]);
    A->deg = h->dev[8] = lists ? gpu_upload(P->deg, (size_t)P->tstart[nblocks]) : NULL;
    A->exported = h->dev[9] = gpu_upload(exported, (size_t)g->nxy);
    xfree(exported);
    size_t xbytes = sh.es * (size_t)g->nxy * (size_t)(A->levels > 0 ? A->levels : 1);
    for (int q = 0; q < 2; q++)
        CK(cudaMalloc(&h->dev[10 + q], xbytes));
    A->xb0 = h->dev[10];
    A->xb1 = h->dev[11];
    A->zs = g->zstride;
    A->nz = sh.nz;
    A->nxy = g->nxy;
    A->c0 = g->nhalo;
    h->pb = pb;
    h->sh = sh;
    onchip_device dev = onchip_device_h100();
    h->predicted_s = onchip_predict(&sh.P, sh.which, sh.nz, A->levels, sh.es, &dev).step_s;
    return h;
}

int onchip_steps(onchip_run *h, void *state, void *other, const void *coeff, int steps,
                 onchip_timing *t)
{
    const ugrid *g = &h->pb->ug;
    onchip_params A = h->sh.A;
    memset(t, 0, sizeof *t);
    if (steps < 1) {
        perr("on-chip persistent run: at least one step (%d)", steps);
        return -1;
    }
    if (h->walk) {
        regular_timing rt;
        if (onchip_walk_steps(h->walk, state, other, steps, &rt) != 0)
            return -1;
        *t = (onchip_timing){.blocks = rt.blocks, .threads = rt.threads, .levels = rt.levels,
                             .prefetch = rt.prefetch, .rows = 1, .walk = 1,
                             .predicted_s = h->predicted_s, .smem = rt.smem,
                             .kernel_s = rt.kernel_s};
        return 0;
    }
    for (int q = 0; q < 2; q++) /* every cell's value at the cached levels (the halo's for good) */
        if (A.levels > 0)
            CK(cudaMemcpy2D(h->dev[10 + q], h->sh.es * (size_t)g->nxy, state,
                            h->sh.es * (size_t)g->zstride, h->sh.es * (size_t)g->nxy,
                            (size_t)A.levels, cudaMemcpyDeviceToDevice));
    A.state = state;
    A.other = other;
    A.coeff = h->sh.which == ONCHIP_HDIFF ? coeff : NULL;
    A.steps = steps;
    void *args[] = {&A};
    double secs = gpu_coop_launch_timed("on-chip persistent run", h->sh.fn, h->sh.nblocks,
                                        h->sh.threads, args, h->sh.smem);
    int rc = secs < 0 ? -1 : 0;
    if (rc != 0)
        return -1;
    t->blocks = h->sh.nblocks;
    t->threads = h->sh.threads;
    t->levels = A.levels;
    t->metis = !h->sh.P.contiguous;
    t->prefetch = onchip_variant_prefetch[h->sh.variant];
    t->rows = onchip_variant_rows[h->sh.variant];
    t->predicted_s = h->predicted_s;
    t->smem = h->sh.smem;
    t->kernel_s = secs;
    return 0;
}

void onchip_close(onchip_run *h)
{
    if (!h)
        return;
    onchip_walk_close(h->walk);
    for (size_t i = 0; i < sizeof h->dev / sizeof h->dev[0]; i++)
        CK(cudaFree(h->dev[i]));
    persist_parts_free(&h->sh.P);
    xfree(h);
}

/* The device arrays of an on-chip launch of f's state: the state and its twin, hdiff's
 * coefficients (its fields: in, coeff, out), uploaded. */
typedef struct {
    void *state, *other, *coeff;
    size_t bytes;
} onchip_arrays;

static onchip_arrays arrays_up(const problem *pb, fieldset f)
{
    onchip_arrays a;
    a.bytes = prec_size(pb->s.prec) * pb->ug.len;
    a.state = gpu_upload(f.p[0], a.bytes);
    a.other = gpu_upload(f.p[0], a.bytes);
    a.coeff = pb->s.stencil == ST_HDIFF ? gpu_upload(f.p[1], a.bytes) : NULL;
    return a;
}

static void arrays_free(onchip_arrays *a)
{
    CK(cudaFree(a->state));
    CK(cudaFree(a->other));
    CK(cudaFree(a->coeff));
}

/* The launch's tables opened for pb (r's shape) and f's state uploaded into *d, for `steps` >= 1
 * steps (what: the message's words). NULL after a message. */
static onchip_run *open_up(const problem *pb, const onchip_request *r, fieldset f, int steps,
                           const char *what, onchip_arrays *d)
{
    if (steps < 1) {
        perr("on-chip persistent run: at least one step %s(%d)", what, steps);
        return NULL;
    }
    onchip_run *h = onchip_open(pb, r);
    if (h)
        *d = arrays_up(pb, f);
    return h;
}

int persist_onchip_run(const problem *pb, fieldset f, int steps, const onchip_request *r,
                       onchip_timing *t)
{
    memset(t, 0, sizeof *t);
    double t0 = now_ms();
    onchip_arrays d;
    onchip_run *h = open_up(pb, r, f, steps, "", &d);
    if (!h)
        return -1;
    int rc = onchip_steps(h, d.state, d.other, d.coeff, steps, t);
    if (rc == 0) /* after an odd number of steps the state is in `other` */
        CK(cudaMemcpy(f.p[0], steps % 2 ? d.other : d.state, d.bytes, cudaMemcpyDeviceToHost));
    arrays_free(&d);
    onchip_close(h);
    t->total_s = (now_ms() - t0) * 1e-3;
    return rc;
}

int onchip_time_step(const problem *pb, const onchip_request *r, int k, double *step_s)
{
    *step_s = 0;
    onchip_arrays d;
    onchip_run *h = open_up(pb, r, pb->uf, k, "to time ", &d);
    if (!h)
        return -1;
    onchip_timing a, b;
    /* even counts first (the state back in d.state, d.other its twin, for the next): the first
     * launch warms up (the kernel's loading), the second and third are timed */
    int rc = onchip_steps(h, d.state, d.other, d.coeff, 2, &a);
    if (rc == 0)
        rc = onchip_steps(h, d.state, d.other, d.coeff, 2, &a);
    if (rc == 0)
        rc = onchip_steps(h, d.state, d.other, d.coeff, 2 + k, &b);
    if (rc == 0)
        *step_s = (b.kernel_s - a.kernel_s) / k;
    arrays_free(&d);
    onchip_close(h);
    return rc;
}
