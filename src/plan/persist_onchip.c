/* persist_onchip.c — the on-chip persistent runs of laplap, hdiff and lap
 * (src/plan/persist_onchip.h). */
#include "persist_onchip.h"

#include "onchip_model.h"
#include "persist_parts.h"

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

int persist_onchip_run(const problem *pb, fieldset f, int steps, const onchip_request *r,
                       onchip_timing *t)
{
    memset(t, 0, sizeof *t);
    double t0 = now_ms();
    const ugrid *g = &pb->ug;
    stencil_t st = pb->s.stencil;
    if ((st != ST_LAPLAP && st != ST_HDIFF && st != ST_LAP && st != ST_GRAPHLAP) || steps < 1) {
        perr("on-chip persistent run: laplap, hdiff, lap and graphlap only, and at least one step "
             "(%s, %d steps)", stencil_table[st].name, steps);
        return -1;
    }
    int which = st == ST_LAP         ? ONCHIP_LAP
                : st == ST_HDIFF    ? ONCHIP_HDIFF
                : st == ST_GRAPHLAP ? ONCHIP_GRAPHLAP
                                    : ONCHIP_LAPLAP;
    int lists = which == ONCHIP_GRAPHLAP;
    int dev = 0, coop = 0, sms = 0, smem_max = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (!coop) {
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
    int nblocks = r->blocks > 0 ? r->blocks : sms;
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
    int per_sm = 0;
    if (smem <= (size_t)smem_max &&
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, threads, smem) != cudaSuccess) {
        cudaGetLastError();
        per_sm = 0;
    }
    if (smem > (size_t)smem_max || (long)per_sm * sms < nblocks) {
        perr("on-chip persistent run: %d blocks of %d threads with %zu bytes of shared memory "
             "(%d cached levels) cannot all be resident (%d a SM, %d SMs, %d bytes a block at "
             "most)", nblocks, threads, smem, A.levels, per_sm, sms, smem_max);
        persist_parts_free(&P);
        return -1;
    }
    unsigned char *exported = xalloc((size_t)g->nxy);
    for (long i = 0; i < P.export_all; i++)
        exported[P.exports[i]] = 1;
    size_t nb1 = sizeof(int32_t) * (size_t)(nblocks + 1), bytes = es * g->len;
    int32_t *d_own0 = gpu_upload(P.own0, nb1), *d_r1s = gpu_upload(P.r1start, nb1);
    int32_t *d_ownl = P.contiguous ? NULL : gpu_upload(P.own, sizeof(int32_t) * (size_t)P.n);
    int32_t *d_r2s = gpu_upload(P.r2start, nb1), *d_ts = gpu_upload(P.tstart, nb1);
    int32_t *d_r1 = gpu_upload(P.ring1, sizeof(int32_t) * (size_t)P.r1start[nblocks]);
    int32_t *d_r2 = gpu_upload(P.ring2, sizeof(int32_t) * (size_t)P.r2start[nblocks]);
    uint16_t *d_tab = gpu_upload(P.tab, sizeof(uint16_t) * (size_t)W * (size_t)P.tstart[nblocks]);
    unsigned char *d_deg = lists ? gpu_upload(P.deg, (size_t)P.tstart[nblocks]) : NULL;
    unsigned char *d_x = gpu_upload(exported, (size_t)g->nxy);
    void *d_state = gpu_upload(f.p[0], bytes), *d_other = gpu_upload(f.p[0], bytes);
    /* hdiff's fields: in, coeff, out */
    void *d_coeff = which == ONCHIP_HDIFF ? gpu_upload(f.p[1], bytes) : NULL;
    size_t xbytes = es * (size_t)g->nxy * (size_t)(A.levels > 0 ? A.levels : 1);
    void *d_xb[2];
    for (int q = 0; q < 2; q++) {
        CK(cudaMalloc(&d_xb[q], xbytes));
        for (int z = 0; z < A.levels; z++) /* every cell's initial value (the halo's for good) */
            CK(cudaMemcpy((char *)d_xb[q] + es * (size_t)z * g->nxy,
                          (const char *)f.p[0] + es * (size_t)z * g->zstride, es * g->nxy,
                          cudaMemcpyHostToDevice));
    }
    A.state = d_state;
    A.other = d_other;
    A.xb0 = d_xb[0];
    A.xb1 = d_xb[1];
    A.own0 = d_own0;
    A.own = d_ownl;
    A.r1start = d_r1s;
    A.ring1 = d_r1;
    A.r2start = d_r2s;
    A.ring2 = d_r2;
    A.tstart = d_ts;
    A.tab = d_tab;
    A.deg = d_deg;
    A.exported = d_x;
    A.coeff = d_coeff;
    A.zs = g->zstride;
    A.nz = nz;
    A.nxy = g->nxy;
    A.c0 = g->nhalo;
    A.steps = steps;

    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    void *args[] = {&A};
    CK(cudaEventRecord(e0, 0));
    cudaError_t e = cudaLaunchCooperativeKernel(fn, (dim3){(unsigned)nblocks, 1, 1},
                                                (dim3){(unsigned)threads, 1, 1}, args, smem, 0);
    CK(cudaEventRecord(e1, 0));
    int rc = 0;
    if (e != cudaSuccess) {
        cudaGetLastError();
        perr("on-chip persistent run: the cooperative launch of %d blocks x %d threads was "
             "refused: %s", nblocks, threads, cudaGetErrorString(e));
        rc = -1;
    }
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (rc == 0) { /* after an odd number of steps the state is in `other` */
        CK(cudaMemcpy(f.p[0], steps % 2 ? d_other : d_state, bytes, cudaMemcpyDeviceToHost));
        t->blocks = nblocks;
        t->threads = threads;
        t->levels = A.levels;
        t->metis = !P.contiguous;
        t->prefetch = onchip_variant_prefetch[variant];
        t->rows = onchip_variant_rows[variant];
        onchip_device dev = onchip_device_h100();
        t->predicted_s = onchip_predict(&P, which, nz, A.levels, es, &dev).step_s;
        t->smem = smem;
        t->kernel_s = ms * 1e-3;
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    void *frees[] = {d_own0, d_ownl, d_r1s, d_r2s, d_ts, d_r1, d_r2, d_tab, d_deg, d_x, d_state, d_other,
                     d_xb[0], d_xb[1], d_coeff};
    for (size_t i = 0; i < sizeof frees / sizeof frees[0]; i++)
        CK(cudaFree(frees[i]));
    xfree(exported);
    persist_parts_free(&P);
    t->total_s = (now_ms() - t0) * 1e-3;
    return rc;
}
