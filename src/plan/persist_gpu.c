/* persist_gpu.c — the persistent executor (src/plan/persist_gpu.h). */
#include "persist_gpu.h"

#include "persist_lists.h"

#include "src/exec/gpu_launch.h"
#include "src/exec/iterate.h"
#include "src/exec/runner.h"

#include <string.h>

typedef struct {
    const void *fn;
    int threads;
} occ_ctx;

/* persist_occupancy_fn of the kernel fn with ctx's threads. */
static int occupancy(size_t smem, void *ctx_)
{
    const occ_ctx *c = ctx_;
    return gpu_blocks_per_sm(c->fn, c->threads, smem);
}

static int device_attr(enum cudaDeviceAttr a)
{
    int dev = 0, v = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&v, a, dev));
    return v;
}

/* Bytes per second the device's memory moves at its peak (double data rate x bus width), from
 * attributes some CUDA versions no longer give; PERSIST_DRAM_FALLBACK where they are missing. */
#define PERSIST_DRAM_FALLBACK 3.0e12
static double peak_dram(void)
{
    int dev = 0, khz = 0, bits = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, dev) != cudaSuccess ||
        khz <= 0 || bits <= 0) {
        cudaGetLastError();
        return PERSIST_DRAM_FALLBACK;
    }
    return khz * 1e3 * 2.0 * bits / 8.0;
}

/* The kernel of pb's stencil, precision and storage (a graph stencil's: lists in shared memory
 * or not, graph_lists); ctx for its occupancy. */
static occ_ctx kernel_of(const problem *pb, const persist_request *r, int graph_lists)
{
    const nbtable *nt = &pb->nt;
    const problem_spec *s = &pb->s;
    int shared = graph_lists == PERSIST_LISTS_SHARED;
    occ_ctx oc = {persist_is_graph(s->stencil)
                      ? persist_graph_kernel(s->stencil, s->prec, shared)
                      : persist_kernels[s->stencil][s->prec][nt->chasing * 2 + nt->compressed],
                  r->threads ? r->threads : PERSIST_THREADS};
    if (!oc.fn)
        fault_raise(FAULT_INTERNAL, "persistent run: no kernel for a supported stencil");
    return oc;
}

/* The device's SMs, warps, shared memory, clock and memory rate (dram_bps: 0 for the peak). */
static void device_of(persist_device *d, double dram_bps)
{
    d->sms = device_attr(cudaDevAttrMultiProcessorCount);
    d->warps_sm = device_attr(cudaDevAttrMaxThreadsPerMultiProcessor) / 32;
    d->smem_sm = (size_t)device_attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
    d->smem_block = (size_t)device_attr(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    int khz = 0, dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev) != cudaSuccess || khz <= 0) {
        cudaGetLastError();
        khz = 1755000; /* the H100 SXM's boost clock where the attribute is missing */
    }
    d->clock_hz = khz * 1e3;
    d->dram_bps = dram_bps > 0 ? dram_bps : peak_dram();
}

/* Whether the device has cooperative launches; else a message. */
static int cooperative_ok(void)
{
    if (device_attr(cudaDevAttrCooperativeLaunch))
        return 1;
    perr("--persistent: this device has no cooperative launches (a grid barrier needs them)");
    return 0;
}

/* persist_gpu_plan of a graph stencil: where its lists are read (persist_graph_lists), then the
 * model's shape with no level cached. */
static int graph_plan(const problem *pb, const persist_request *r, const persist_device *d,
                      persist_cache *c)
{
    const problem_spec *s = &pb->s;
    const ugrid *g = &pb->ug;
    if (r->levels > 0) {
        perr("--persistent-levels %d: %s keeps no level of its state on chip (its persistent "
             "kernel streams every level; docs/persistent.md); give 0 or leave it out",
             r->levels, stencil_table[s->stencil].name);
        return -1;
    }
    occ_ctx ol = kernel_of(pb, r, PERSIST_LISTS_SHARED), ot = kernel_of(pb, r, PERSIST_LISTS_TABLE);
    const enum cudaFuncAttribute most = cudaFuncAttributeMaxDynamicSharedMemorySize;
    CK(cudaFuncSetAttribute(ol.fn, most, (int)d->smem_block));
    CK(cudaFuncSetAttribute(ot.fn, most, (int)d->smem_block));
    long cells = (long)g->nxy - g->nhalo;
    int words = 1 + pb->ell.maxdeg; /* a cell's degree and first ring */
    persist_shape sh;
    int lists = persist_graph_lists(&sh, cells, ol.threads, d->sms, d->warps_sm, words,
                                    d->smem_block, r->blocks, r->lists, occupancy, &ol, occupancy,
                                    &ot);
    if (lists < 0)
        return -1;
    persist_work w = {cells, stencil_zend(s->stencil, g->nz), (int)prec_size(s->prec),
                      lists ? words : 0, stencil_table[s->stencil].nin - 1, 0,
                      persist_graph_reads(&pb->ell, g->nhalo, (int)cells)};
    if (persist_model_plan(c, g, 0, &w, d, ol.threads, r->blocks, PERSIST_LEVELS_NONE, occupancy,
                           lists ? (void *)&ol : (void *)&ot) != 0)
        return -1;
    c->graph_lists = lists ? PERSIST_LISTS_SHARED : PERSIST_LISTS_TABLE;
    return 0;
}

int persist_gpu_plan(const problem *pb, const persist_request *r, persist_cache *c)
{
    const problem_spec *s = &pb->s;
    const ugrid *g = &pb->ug;
    char why[300];
    if (!persist_supported(s->stencil, why, sizeof why)) {
        perr("--persistent: %s", why);
        return -1;
    }
    if (!cooperative_ok())
        return -1;
    persist_device d;
    device_of(&d, r->dram_bps);
    if (persist_is_graph(s->stencil))
        return graph_plan(pb, r, &d, c);
    occ_ctx oc = kernel_of(pb, r, 0);
    CK(cudaFuncSetAttribute(oc.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)d.smem_block));
    persist_work w = {(long)g->nxy - g->nhalo, stencil_zend(s->stencil, g->nz),
                      (int)prec_size(s->prec), persist_words(s->stencil),
                      stencil_table[s->stencil].nin - 1, 0, 0};
    return persist_model_plan(c, g, persist_mask(s->stencil), &w, &d, oc.threads, r->blocks,
                              r->levels, occupancy, &oc);
}

/* The neighbour table of pb on the device, one allocation (freed by the caller): a graph
 * stencil's ELL table (degrees, then the columns) into P's g_* fields, else the offset table
 * (and its patterns) into P.nbv. */
static int32_t *table_upload(const problem *pb, kparams *P)
{
    int32_t *dtab;
    if (persist_is_graph(pb->s.stencil)) {
        const ell_table *e = &pb->ell;
        size_t n = (size_t)e->nxy, cols = (size_t)e->maxdeg * n;
        CK(cudaMalloc((void **)&dtab, sizeof(int32_t) * (n + (cols ? cols : 1))));
        CK(cudaMemcpy(dtab, e->deg, sizeof(int32_t) * n, cudaMemcpyHostToDevice));
        if (cols)
            CK(cudaMemcpy(dtab + n, e->nb, sizeof(int32_t) * cols, cudaMemcpyHostToDevice));
        P->g_deg = dtab;
        P->g_nb = dtab + n;
        P->g_stride = e->nxy;
        return dtab;
    }
    const nbtable *nt = &pb->nt;
    size_t tab = (size_t)nt->nrel * (size_t)nt->ntab, pat = nt->compressed ? (size_t)nt->nxy : 0;
    CK(cudaMalloc((void **)&dtab, sizeof(int32_t) * (tab + pat)));
    CK(cudaMemcpy(dtab, nt->tab, sizeof(int32_t) * tab, cudaMemcpyHostToDevice));
    if (pat)
        CK(cudaMemcpy(dtab + tab, nt->pat, sizeof(int32_t) * pat, cudaMemcpyHostToDevice));
    P->nbv = (nbview){dtab, pat ? dtab + tab : NULL, nt->ntab, 0};
    return dtab;
}

int persist_gpu_run(const problem *pb, fieldset f, int steps, const persist_request *r,
                    persist_timing *t)
{
    const problem_spec *s = &pb->s;
    const stencil_info *si = &stencil_table[s->stencil];
    const ugrid *g = &pb->ug;
    memset(t, 0, sizeof *t);
    if (steps < 1) {
        perr("--persistent: %d steps: a run has one at least", steps);
        return -1;
    }
    if (persist_gpu_plan(pb, r, &t->cache) != 0)
        return -1;
    t->shape = t->cache.shape;
    t->sms = device_attr(cudaDevAttrMultiProcessorCount);
    occ_ctx oc = kernel_of(pb, r, t->cache.graph_lists);
    persist_lists L;
    memset(&L, 0, sizeof L);
    if (t->cache.levels > 0) {
        if (persist_lists_build(&L, g, t->shape.nblocks, persist_mask(s->stencil)) != 0)
            return -1;
        if (L.hmax != t->cache.hmax || L.M != t->shape.max_cells)
            fault_raise(FAULT_INTERNAL, "persistent run: the lists (halo %d, %d cells) differ "
                        "from the plan's (%d, %ld)", L.hmax, L.M, t->cache.hmax,
                        t->shape.max_cells);
    }

    double t0 = now_ms();
    const iter_carry *c = iter_carried(s->stencil);
    int fin = c->in[0], fout = c->out[0];
    size_t bytes = prec_size(s->prec) * g->len;
    persist_params A;
    memset(&A, 0, sizeof A);
    for (int i = 0; i < pb->nf; i++) {
        CK(cudaMalloc(&A.P.f.p[i], bytes));
        if (i < si->nin)
            CK(cudaMemcpy(A.P.f.p[i], f.p[i], bytes, cudaMemcpyHostToDevice));
    }
    /* the output array holds the state too: the points no step writes read the same from both */
    CK(cudaMemcpy(A.P.f.p[fout], A.P.f.p[fin], bytes, cudaMemcpyDeviceToDevice));
    int32_t *dtab = table_upload(pb, &A.P);
    A.P.zs = g->zstride;
    A.P.zend = stencil_zend(s->stencil, g->nz);
    A.P.c0 = g->nhalo;
    A.P.n = g->nxy - g->nhalo;
    A.P.fold = 1;
    A.steps = steps;
    A.state = A.P.f.p[fin];
    A.other = A.P.f.p[fout];
    A.fin = fin;
    A.fout = fout;
    int32_t *dlists = NULL;
    if (t->cache.levels > 0) { /* hstart, halo, slots in one allocation */
        size_t nh = (size_t)t->shape.nblocks + 1, nhalo = (size_t)L.nhalo_all,
               nsl = (size_t)(1 + NREL2) * (size_t)L.n;
        CK(cudaMalloc((void **)&dlists, sizeof(int32_t) * (nh + nhalo + nsl)));
        CK(cudaMemcpy(dlists, L.hstart, sizeof(int32_t) * nh, cudaMemcpyHostToDevice));
        if (nhalo)
            CK(cudaMemcpy(dlists + nh, L.halo, sizeof(int32_t) * nhalo, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dlists + nh + nhalo, L.slots, sizeof(int32_t) * nsl, cudaMemcpyHostToDevice));
        A.levels = t->cache.levels;
        A.M = L.M;
        A.H = L.hmax;
        A.hstart = dlists;
        A.halo = dlists + nh;
        A.slots = dlists + nh + nhalo;
    }
    A.offs_at = (unsigned)t->cache.offs_at;
    A.slots_at = (unsigned)t->cache.slots_at;

    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    void *args[] = {&A};
    CK(cudaEventRecord(e0, 0));
    cudaError_t e = cudaLaunchCooperativeKernel(oc.fn, (dim3){(unsigned)t->shape.nblocks, 1, 1},
                                                (dim3){(unsigned)oc.threads, 1, 1},
                                                args, t->shape.smem, 0);
    CK(cudaEventRecord(e1, 0));
    int rc = 0;
    if (e != cudaSuccess) { /* refused before it ran (a shape that cannot be resident) */
        cudaGetLastError();
        perr("--persistent: the cooperative launch of %d blocks x %d threads was refused: %s",
             t->shape.nblocks, oc.threads, cudaGetErrorString(e));
        rc = -1;
    }
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    t->kernel_s = ms * 1e-3;
    if (rc == 0) /* after an odd number of steps the state is in the output array */
        CK(cudaMemcpy(f.p[fin], A.P.f.p[steps % 2 ? fout : fin], bytes, cudaMemcpyDeviceToHost));
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    CK(cudaFree(dtab));
    if (dlists)
        CK(cudaFree(dlists));
    persist_lists_free(&L);
    for (int i = 0; i < pb->nf; i++)
        CK(cudaFree(A.P.f.p[i]));
    t->total_s = (now_ms() - t0) * 1e-3;
    return rc;
}

int persist_chunk_prepare(persist_chunk_kernel *k, const ooc_plan *pl, int threads,
                          persist_shape *shape, long *most)
{
    memset(k, 0, sizeof *k);
    *most = 0;
    if (persist_ooc_check(pl) != 0 || !cooperative_ok())
        return -1;
    const nbtable *nt = &pl->part[0].nt;
    k->fn = persist_kernels[pl->stencil][pl->prec][nt->chasing * 2 + nt->compressed];
    k->threads = threads ? threads : PERSIST_THREADS;
    if (!k->fn)
        fault_raise(FAULT_INTERNAL, "persistent chunks: no kernel for a supported stencil");
    device_of(&k->d, 0);
    CK(cudaFuncSetAttribute(k->fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)k->d.smem_block));
    occ_ctx oc = {k->fn, k->threads};
    return persist_ooc_shapes(shape, pl, k->threads, &k->d, occupancy, &oc, most);
}

void persist_chunk_launch(const persist_chunk_kernel *k, const persist_shape *s, const ooc_plan *pl,
                          const ooc_part *pt, const ooc_slab *sl, const int32_t *tab,
                          const int32_t *first, fieldset d, int steps, void *stream)
{
    const iter_carry *c = iter_carried(pl->stencil);
    const stencil_info *si = &stencil_table[pl->stencil];
    int k0 = sl->z0, k1 = sl->z1 < pl->zend ? sl->z1 : pl->zend; /* zradius 0: the slab's levels */
    int c0, n;
    persist_ooc_cells(pl, pt, &c0, &n);
    if (steps < 1 || steps > pl->F || k1 <= k0 || n <= 0)
        return;
    size_t shift = (size_t)(k0 - sl->lz0) * (size_t)pt->zstride * prec_size(pl->prec);
    persist_params A;
    memset(&A, 0, sizeof A);
    for (int i = 0; i < si->nin + si->nout; i++)
        A.P.f.p[i] = (char *)d.p[i] + shift;
    const int32_t *pat = pt->nt.compressed ? tab + (size_t)pt->nt.nrel * (size_t)pt->nt.ntab : NULL;
    A.P.nbv = (nbview){tab, pat, pt->nt.ntab, 0};
    A.P.zs = pt->zstride;
    A.P.zend = k1 - k0;
    A.P.kbase = k0;
    A.P.c0 = c0;
    A.P.n = n;
    A.P.fold = 1;
    A.steps = steps;
    A.fin = c->in[0];
    A.fout = c->out[0];
    A.state = A.P.f.p[A.fin];
    A.other = A.P.f.p[A.fout];
    A.active = first;
    void *args[] = {&A};
    CK(cudaLaunchCooperativeKernel(k->fn, (dim3){(unsigned)s->nblocks, 1, 1},
                                   (dim3){(unsigned)k->threads, 1, 1}, args, s->smem,
                                   (cudaStream_t)stream));
}
