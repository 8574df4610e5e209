/* regular_onchip.c — the on-chip persistent launch of the regular twin
 * (src/plan/regular_runs.h, access/onchip_regular.h). */
#include "regular_runs.h"

#include "onchip_model.h"

#include "src/exec/gpu_launch.h"

#include <string.h>

/* The walk variant's tiling (access/onchip_regular.h): strips of ONCHIP_WALK_W inner columns,
 * `strips` of them a tile and wl warps a strip (ONCHIP_WALK_THREADS / 32 warps a block at most,
 * wl at most that many levels at once), tiles as tall as the blocks allow. Fills p's tx, ty,
 * tiles_x, strips, wl, *nblocks and *threads; returns the levels that fit shared memory, or -1
 * with a message. */
static int walk_layout(const rgrid *rg, int nz, int blocks, size_t es, size_t avail,
                       onchip_reg_params *p, int *nblocks, int *threads)
{
    const int warps = ONCHIP_WALK_THREADS / 32;
    int nxi = rg->nx - 2 * rg->halo, nyi = rg->ny - 2 * rg->halo;
    int total = (nxi + ONCHIP_WALK_W - 1) / ONCHIP_WALK_W, wl = nz < warps ? nz : warps;
    int strips = warps / wl < total ? warps / wl : total, bx = (total + strips - 1) / strips;
    if (bx > blocks) { /* wider tiles, fewer levels at once */
        strips = (total + blocks - 1) / blocks;
        bx = (total + strips - 1) / strips;
        wl = warps / strips < wl ? warps / strips : wl;
    }
    if (wl < 1) {
        perr("regular on-chip run, walk: %d inner columns need %d strips of %d over %d blocks, "
             "more than %d warps a block", nxi, total, ONCHIP_WALK_W, blocks, warps);
        return -1;
    }
    int by = blocks / bx < nyi ? blocks / bx : nyi, ty = (nyi + by - 1) / by;
    p->tx = strips * ONCHIP_WALK_W;
    p->ty = ty;
    p->tiles_x = bx;
    p->strips = strips;
    p->wl = wl;
    *nblocks = bx * ((nyi + ty - 1) / ty);
    *threads = 32 * strips * wl;
    int L = 0;
    while (L < nz && onchip_walk_smem(p->tx, ty, L + 1, es) <= avail)
        L++;
    return L;
}

/* An open on-chip launch of the regular twin (regular_runs.h): its shape and export buffers. */
struct regular_onchip {
    onchip_reg_params A; /* every field but the state arrays and steps, set by each launch */
    const void *fn;
    int which, nblocks, threads, cols, pf;
    size_t smem, es;
};

regular_onchip *regular_onchip_open(stencil_t st, precision_t prec, const rgrid *rg,
                                    const regular_request *rq)
{
    int levels = rq->levels, blocks = rq->blocks, threads = rq->threads;
    if (st != ST_LAPLAP && st != ST_HDIFF && st != ST_LAP) {
        perr("regular on-chip run: laplap, hdiff and lap only (%s)", stencil_table[st].name);
        return NULL;
    }
    int which = st == ST_LAP ? ONCHIP_LAP : st == ST_HDIFF ? ONCHIP_HDIFF : ONCHIP_LAPLAP;
    int r = which == ONCHIP_LAP ? 1 : 2;
    if (rg->halo < r || rg->nx <= 2 * rg->halo || rg->ny <= 2 * rg->halo) {
        perr("regular on-chip run: %s reads %d cells around a cell; the grid's halo is %d of "
             "%dx%d", stencil_table[st].name, r, rg->halo, rg->nx, rg->ny);
        return NULL;
    }
    int sms = 0, smem_max = 0;
    if (!gpu_coop_limits(&sms, &smem_max)) {
        perr("regular on-chip run: this device has no cooperative launches");
        return NULL;
    }
    threads = threads > 0 ? threads : ONCHIP_REG_THREADS;
    if (threads > ONCHIP_REG_THREADS || threads % 32) {
        perr("regular on-chip run: %d threads a block; a multiple of 32 up to %d", threads,
             ONCHIP_REG_THREADS);
        return NULL;
    }
    size_t es = prec_size(prec);
    int nz = stencil_zend(st, rg->nz), nblocks = 0;
    onchip_reg_params A;
    memset(&A, 0, sizeof A);
    if (rq->walk && (which != ONCHIP_LAPLAP || rq->cols)) {
        perr("regular on-chip run, walk: laplap only, not with columns (%s%s)",
             stencil_table[st].name, rq->cols ? ", columns" : "");
        return NULL;
    }
    int fit = rq->walk ? walk_layout(rg, nz, blocks > 0 ? blocks : sms, es, (size_t)smem_max, &A,
                                     &nblocks, &threads)
                       : onchip_reg_layout(rg->nx - 2 * rg->halo, rg->ny - 2 * rg->halo, r,
                                           blocks > 0 ? blocks : sms, es, (size_t)smem_max, nz,
                                           &A, &nblocks);
    if (fit < 0 && !rq->walk)
        perr("regular on-chip run: no tiling of %dx%d inner cells over %d blocks stages a level "
             "in %d bytes of shared memory", rg->nx - 2 * rg->halo, rg->ny - 2 * rg->halo,
             blocks > 0 ? blocks : sms, smem_max);
    if (fit < 0)
        return NULL;
    A.levels = levels >= 0 ? (levels < nz ? levels : nz) : fit;
    size_t smem = rq->walk ? onchip_walk_smem(A.tx, A.ty, A.levels, es)
                           : onchip_reg_smem(A.tx, A.ty, r, A.levels, es);
    /* prefetching where a thread's registers hold the staged level's share; the column variant:
     * the fewest rows a thread whose columns fit the threads asked */
    long vw = A.tx + 2 * r, vh = A.ty + 2 * r;
    int pf = rq->prefetch && vw * vh <= (long)ONCHIP_REG_PREFETCH * threads, cols = 0;
    const void *fn = onchip_reg_kernels[which][prec][pf];
    if (rq->cols) {
        int v = 0, most = threads < ONCHIP_COLS_THREADS ? threads : ONCHIP_COLS_THREADS;
        while (v < ONCHIP_COLS_VARIANTS &&
               vw * ((vh + onchip_cols_k[v] - 1) / onchip_cols_k[v]) > most)
            v++;
        if (v == ONCHIP_COLS_VARIANTS) {
            perr("regular on-chip run, columns: tiles of %dx%d cells stage %ld columns of %ld "
                 "rows, more than %d threads hold at %d rows a thread", A.tx, A.ty, vw, vh,
                 most, onchip_cols_k[ONCHIP_COLS_VARIANTS - 1]);
            return NULL;
        }
        cols = onchip_cols_k[v];
        fn = onchip_cols_kernels[which][prec][v];
        threads = (int)((vw * ((vh + cols - 1) / cols) + 31) / 32 * 32);
        pf = 1;
    }
    if (rq->walk)
        fn = onchip_walk_kernels[prec];
    CK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_max));
    int per_sm = smem <= (size_t)smem_max ? gpu_blocks_per_sm(fn, threads, smem) : 0;
    if (smem > (size_t)smem_max || (long)per_sm * sms < nblocks) {
        perr("regular on-chip run: %d tiles of %dx%d cells, blocks of %d threads with %zu bytes "
             "of shared memory (%d cached levels), cannot all be resident (%d a SM, %d SMs, %d "
             "bytes a block at most)", nblocks, A.tx, A.ty, threads, smem, A.levels, per_sm, sms,
             smem_max);
        return NULL;
    }
    A.zs = rg->zstride;
    A.ys = rg->ystride;
    A.a = rg->a;
    A.x0 = rg->halo;
    A.nxi = rg->nx - 2 * rg->halo;
    A.nyi = rg->ny - 2 * rg->halo;
    A.nz = nz;
    regular_onchip *h = xalloc(sizeof *h);
    *h = (regular_onchip){.A = A, .fn = fn, .which = which, .nblocks = nblocks, .threads = threads,
                          .cols = cols, .pf = pf, .smem = smem, .es = es};
    return h;
}

int regular_onchip_steps(regular_onchip *h, void *state, void *other, const void *coeff,
                         int steps, regular_timing *t)
{
    memset(t, 0, sizeof *t);
    if (steps < 1) {
        perr("regular on-chip run: at least one step (%d)", steps);
        return -1;
    }
    /* the export buffers (on the device from the first call) start with every cell's value at
     * the cached levels (levels <= nz: at most the field) */
    size_t xbytes = h->es * (size_t)h->A.zs * (size_t)(h->A.levels ? h->A.levels : 1);
    if (!h->A.xb0) {
        CK(cudaMalloc(&h->A.xb0, xbytes));
        CK(cudaMalloc(&h->A.xb1, xbytes));
    }
    onchip_reg_params A = h->A;
    CK(cudaMemcpy(A.xb0, state, xbytes, cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy(A.xb1, state, xbytes, cudaMemcpyDeviceToDevice));
    A.state = state;
    A.other = other;
    A.coeff = h->which == ONCHIP_HDIFF ? coeff : NULL;
    A.steps = steps;
    void *args[] = {&A};
    double secs = gpu_coop_launch_timed("regular on-chip run", h->fn, h->nblocks, h->threads,
                                        args, h->smem);
    if (secs < 0)
        return -1;
    regular_onchip_shape(h, t);
    t->kernel_s = secs;
    return 0;
}

void regular_onchip_shape(const regular_onchip *h, regular_timing *t)
{
    int walk = h->fn == onchip_walk_kernels[0] || h->fn == onchip_walk_kernels[1];
    *t = (regular_timing){.blocks = h->nblocks, .threads = h->threads, .levels = h->A.levels,
                          .tx = h->A.tx, .ty = h->A.ty,
                          .prefetch = walk      ? ONCHIP_WALK_AHEAD
                                      : h->cols ? h->cols
                                      : h->pf   ? ONCHIP_REG_PREFETCH
                                                : 0,
                          .cols = h->cols, .walk = walk ? h->A.wl : 0, .strips = h->A.strips,
                          .smem = h->smem};
}

void regular_onchip_close(regular_onchip *h)
{
    if (!h)
        return;
    CK(cudaFree(h->A.xb0));
    CK(cudaFree(h->A.xb1));
    xfree(h);
}

int regular_onchip_run(stencil_t st, precision_t prec, const rgrid *rg, fieldset f, int steps,
                       const regular_request *rq, regular_timing *t)
{
    memset(t, 0, sizeof *t);
    if (steps < 1) {
        perr("regular on-chip run: at least one step (%d)", steps);
        return -1;
    }
    regular_onchip *h = regular_onchip_open(st, prec, rg, rq);
    if (!h)
        return -1;
    size_t bytes = h->es * rg->len;
    void *d_state = gpu_upload(f.p[0], bytes), *d_other = gpu_upload(f.p[0], bytes);
    void *d_coeff = h->which == ONCHIP_HDIFF ? gpu_upload(f.p[1], bytes) : NULL;
    int rc = regular_onchip_steps(h, d_state, d_other, d_coeff, steps, t);
    if (rc == 0) /* after an odd number of steps the state is in `other` */
        gpu_copy(f.p[0], steps % 2 ? d_other : d_state, bytes, 0);
    CK(cudaFree(d_state));
    CK(cudaFree(d_other));
    CK(cudaFree(d_coeff));
    regular_onchip_close(h);
    return rc;
}
