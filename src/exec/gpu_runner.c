/* gpu_runner.c — host side of the CUDA backend, in C through the CUDA runtime API. Every CUDA
 * call and every launch is checked; a failure raises FAULT_DEVICE (base/common.h). */
#include "gpu.h"

#include "gpu_launch.h"
#include "base/progress.h"
#include "access/hooks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int poison_device(void *p, size_t n, size_t stride, size_t offset, int is_float); /* storage/poison.cu */

struct gpu_ctx {
    const problem *pb;
    int uns;
    int aos;         /* fields as one array of structs in d.p[0] (fastwaves) */
    size_t len;      /* elements per field */
    fieldset d;      /* device fields */
    int32_t *tab, *pat;
    kparams P;
    cudaEvent_t e0, e1;
    void *lists;     /* a strategy's own lists (access/hooks.h), built on first use, */
    access_t lists_a; /* for this strategy */
    int lists_bx;    /* and blocks of this many threads; */
    int32_t *dlists; /* their image on the device */
    int32_t *rows;   /* the compressed table as packed rows (--packed-rows), built on first use */
    int32_t *gt_tab, *gt_pat; /* graph stencils: the offset table (storage/gtable.h) */
    void *coef;      /* the stencil's coefficients (stencils/coeffs.h), back to back */
};

int gpu_probe(char *msg, size_t n)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        if (e != cudaSuccess)
            snprintf(msg, n, "no usable NVIDIA driver or GPU: %s", cudaGetErrorString(e));
        else
            snprintf(msg, n, "no CUDA device found");
        cudaGetLastError();
        return 0;
    }
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        snprintf(msg, n, "cannot read the device properties");
        return 0;
    }
    snprintf(msg, n, "%s (sm_%d%d, %d SMs)", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
    return 1;
}

/* Packs the inputs into one array of structs (outputs left zero: poisoned before each run). */
static void upload_aos(gpu_ctx *c, const fieldset *host)
{
    const problem *pb = c->pb;
    size_t es = prec_size(pb->s.prec), nf = (size_t)pb->nf;
    char *img = xalloc(es * nf * c->len);
    for (int f = 0; f < stencil_table[pb->s.stencil].nin; f++)
        for (size_t i = 0; i < c->len; i++)
            memcpy(img + (i * nf + (size_t)f) * es, (const char *)host->p[f] + i * es, es);
    CK(cudaMalloc(&c->d.p[0], es * nf * c->len));
    CK(cudaMemcpy(c->d.p[0], img, es * nf * c->len, cudaMemcpyHostToDevice));
    xfree(img);
}

gpu_ctx *gpu_open(const problem *pb, int uns, int aos)
{
    gpu_ctx *c = xalloc(sizeof *c);
    c->pb = pb;
    c->uns = uns;
    c->aos = aos;
    c->len = uns ? pb->ug.len : pb->twin->rg.len;
    size_t bytes = c->len * prec_size(pb->s.prec);
    const fieldset *host = uns ? &pb->uf : &pb->twin->rf;
    int nin = stencil_table[pb->s.stencil].nin;
    if (aos)
        upload_aos(c, host);
    else
        for (int f = 0; f < pb->nf; f++) {
            CK(cudaMalloc(&c->d.p[f], bytes));
            if (f < nin)
                CK(cudaMemcpy(c->d.p[f], host->p[f], bytes, cudaMemcpyHostToDevice));
        }
    kparams *P = &c->P;
    P->f = c->d;
    P->zend = stencil_zend(pb->s.stencil, pb->s.nz);
    P->g_radius = stencil_table[pb->s.stencil].radius;
    if (stencil_table[pb->s.stencil].coeffs.n) { /* the grid's cells, or the file's (twin) */
        const coef_set *g = uns ? &pb->coef : &pb->twin->coef_file;
        size_t es = prec_size(pb->s.prec), nb = es * coef_set_cell_values(g) * (size_t)g->n;
        void *h = xalloc(nb);
        coef_set_pack(g, es, h);
        CK(cudaMalloc(&c->coef, nb));
        CK(cudaMemcpy(c->coef, h, nb, cudaMemcpyHostToDevice));
        xfree(h);
        kparams_coeffs(P, c->coef, g, es);
    }
    if (uns && stencil_table[pb->s.stencil].graph) {
        const gtable *t = &pb->gt;
        size_t tb = sizeof(int32_t) * gtable_entries(t);
        CK(cudaMalloc((void **)&c->gt_tab, tb));
        CK(cudaMemcpy(c->gt_tab, t->p.tab, tb, cudaMemcpyHostToDevice));
        if (t->compressed) {
            CK(cudaMalloc((void **)&c->gt_pat, sizeof(int32_t) * (size_t)t->nxy));
            CK(cudaMemcpy(c->gt_pat, t->p.pat, sizeof(int32_t) * (size_t)t->nxy, cudaMemcpyHostToDevice));
        }
        P->gt_tab = c->gt_tab;
        P->gt_pat = c->gt_pat;
        P->gt_ntab = t->p.ntab;
        P->gt_D = t->maxdeg;
        P->zs = pb->ug.zstride;
        P->c0 = pb->ug.nhalo;
        P->n = pb->ug.nxy - pb->ug.nhalo;
    } else if (stencil_table[pb->s.stencil].graph) { /* the lattice twin, file order */
        P->zs = pb->twin->rg.zstride;
        P->lat_nx = pb->twin->lat.nx;
        P->lat_ny = pb->twin->lat.ny;
        P->lat_w = lattice_w(pb->twin->lat.kind, pb->twin->lat.nx);
        P->x0 = 0;
        P->nxi = P->lat_w;
        P->nyi = P->lat_ny;
    } else if (uns) {
        const nbtable *t = &pb->nt;
        size_t tb = sizeof(int32_t) * nbtable_entries(t);
        CK(cudaMalloc((void **)&c->tab, tb));
        CK(cudaMemcpy(c->tab, t->tab, tb, cudaMemcpyHostToDevice));
        if (t->compressed) {
            CK(cudaMalloc((void **)&c->pat, sizeof(int32_t) * (size_t)t->nxy));
            CK(cudaMemcpy(c->pat, t->pat, sizeof(int32_t) * (size_t)t->nxy, cudaMemcpyHostToDevice));
        }
        P->nbv.tab = c->tab;
        P->nbv.pat = c->pat;
        P->nbv.ntab = t->ntab;
        P->zs = pb->ug.zstride;
        P->c0 = pb->ug.nhalo;
        P->n = pb->ug.nxy - pb->ug.nhalo;
    } else {
        P->zs = pb->twin->rg.zstride;
        P->ys = pb->twin->rg.ystride;
        P->x0 = pb->s.halo;
        P->nxi = pb->s.nx - 2 * pb->s.halo;
        P->nyi = pb->s.ny - 2 * pb->s.halo;
        P->a = pb->twin->rg.a;
    }
    CK(cudaEventCreate(&c->e0));
    CK(cudaEventCreate(&c->e1));
    return c;
}

static void drop_lists(gpu_ctx *c)
{
    if (!c->lists)
        return;
    CK(cudaFree(c->dlists));
    access_release(c->lists_a, c->lists);
    c->lists = NULL;
    c->dlists = NULL;
}

/* Strategy a's own lists (access/hooks.h prep) for blocks of bx threads over the grid's inner
 * cells, built once per strategy and bx and kept on the device (none for a strategy without
 * lists); -1 with a message when they cannot be built. */
static int ensure_lists(gpu_ctx *c, access_t a, int bx)
{
    if (c->lists && c->lists_a == a && c->lists_bx == bx)
        return 0;
    drop_lists(c);
    access_prep_in in = {&c->pb->ug, c->pb->s.stencil, bx, NULL, 0};
    if (access_prepare(a, &in, &c->lists) != 0)
        return -1;
    if (!c->lists)
        return 0;
    c->lists_a = a;
    c->lists_bx = bx;
    size_t words = access_words(a, c->lists);
    int32_t *img = xalloc(sizeof(int32_t) * (words ? words : 1));
    access_pack(a, c->lists, img);
    CK(cudaMalloc((void **)&c->dlists, sizeof(int32_t) * (words ? words : 1)));
    CK(cudaMemcpy(c->dlists, img, sizeof(int32_t) * words, cudaMemcpyHostToDevice));
    xfree(img);
    return 0;
}

void gpu_close(gpu_ctx *c)
{
    for (int f = 0; f < c->pb->nf; f++)
        if (c->d.p[f])
            CK(cudaFree(c->d.p[f]));
    if (c->tab)
        CK(cudaFree(c->tab));
    if (c->pat)
        CK(cudaFree(c->pat));
    drop_lists(c);
    if (c->rows)
        CK(cudaFree(c->rows));
    if (c->gt_tab)
        CK(cudaFree(c->gt_tab));
    if (c->gt_pat)
        CK(cudaFree(c->gt_pat));
    if (c->coef)
        CK(cudaFree(c->coef));
    CK(cudaEventDestroy(c->e0));
    CK(cudaEventDestroy(c->e1));
    xfree(c);
}

int gpu_supports(access_t a, stencil_t s)
{
    if ((int)a < 0 || a >= ACC_COUNT || (int)s < 0 || (int)s >= stencil_count())
        return 0;
    const access_desc *d = &access_table[a];
    if (stencil_is_user(s)) /* compiled at run time: every strategy but the staged ones */
        return loaded_get(s) && loaded_get(s)->gpu_kernel && !d->prep->prepare &&
               (!stencil_table[s].graph || d->graph);
    if (stencil_table[s].graph)
        return d->graph && d->gkernels && (*d->gkernels)[s - ST_QUAD_COUNT][0][0] != NULL;
    return d->kernels && (*d->kernels)[s][0][0] != NULL;
}

typedef int (*upload_fn)(const void *, size_t);
static upload_fn strategy_upload(access_t a, int aos)
{
    return aos ? aos_kernels_upload : access_table[a].upload;
}

/* Puts the leading pattern rows of the compressed table into strategy a's constant memory;
 * returns the number of rows placed there. */
static int upload_constant_rows(gpu_ctx *c, access_t a)
{
    const nbtable *t = &c->pb->nt;
    int rows = t->npat < PILLAR_CONST_WORDS / t->nrel ? t->npat : PILLAR_CONST_WORDS / t->nrel;
    int32_t *img = xalloc(sizeof(int32_t) * (size_t)rows * t->nrel);
    for (int r = 0; r < t->nrel; r++)
        for (int row = 0; row < rows; row++)
            img[r * rows + row] = t->tab[(size_t)r * t->ntab + row];
    size_t bytes = sizeof(int32_t) * (size_t)rows * t->nrel;
    const loaded_code *lc = loaded_get(c->pb->s.stencil);
    if (lc) {
        if (lc->gpu_upload(c->pb->s.stencil, a, img, bytes) != 0)
            fault_raise(FAULT_DEVICE, "constant-memory rows of %s", stencil_table[c->pb->s.stencil].name);
    } else {
        CK((cudaError_t)strategy_upload(a, c->aos)(img, bytes));
    }
    xfree(img);
    return rows;
}

void gpu_default_shape(access_t a, int uns, int *bx, int *by, int *bz)
{
    access_default_shape(a, uns, bx, by, bz);
}

int gpu_shape_ok(access_t a, int uns, int bx, int by, int bz, char *why, size_t n)
{
    return access_shape_ok(a, uns, bx, by, bz, why, n);
}

size_t gpu_smem_bytes(access_t a, int uns, precision_t p, int bx, int by, int bz, int hmax)
{
    access_smem_in in = {0, uns, 0, p, bx, by, bz, 0, hmax};
    return access_table[a].smem_bytes(&in);
}

size_t gpu_graph_smem_bytes(access_t a, int lattice_kind, precision_t p, int bx, int by, int D,
                            int hmax)
{
    access_smem_in in = {1, !lattice_kind, lattice_kind, p, bx, by, 1, D, hmax};
    return access_table[a].smem_bytes(&in);
}

static void poison_outputs(gpu_ctx *c)
{
    int nin = stencil_table[c->pb->s.stencil].nin, is_float = c->pb->s.prec == PREC_FLOAT;
    for (int f = nin; f < c->pb->nf; f++)
        if (c->aos)
            CK((cudaError_t)poison_device(c->d.p[0], c->len, (size_t)c->pb->nf, (size_t)f, is_float));
        else
            CK((cudaError_t)poison_device(c->d.p[f], c->len, 1, 0, is_float));
}

/* The compressed table with each pattern's offsets in one row: rows[row * nrel + r]. */
static int32_t *packed_rows(gpu_ctx *c)
{
    if (!c->rows) {
        const nbtable *t = &c->pb->nt;
        size_t n = (size_t)t->npat * (size_t)t->nrel;
        int32_t *img = xalloc(sizeof(int32_t) * n);
        for (int row = 0; row < t->npat; row++)
            for (int r = 0; r < t->nrel; r++)
                img[(size_t)row * t->nrel + r] = t->tab[(size_t)r * t->ntab + row];
        CK(cudaMalloc((void **)&c->rows, sizeof(int32_t) * n));
        CK(cudaMemcpy(c->rows, img, sizeof(int32_t) * n, cudaMemcpyHostToDevice));
        xfree(img);
    }
    return c->rows;
}

int gpu_launch_plan(gpu_launch *l, access_t a, int aos, stencil_t s, precision_t p, int column,
                    int uns, int bx, int by, int bz, kparams *P)
{
    const access_desc *d = access_get(a);
    if (!d)
        return -1;
    int pillar = d->levels != LEVELS_ONE;
    P->zslice = d->levels == LEVELS_ALL ? P->zend : (P->zslice > 0 ? P->zslice : 8);
    int slices = pillar ? (P->zend + P->zslice - 1) / P->zslice : P->zend;
    memset(l, 0, sizeof *l);
    l->block = (dim3){(unsigned)bx, (unsigned)by, (unsigned)bz};
    if (uns) {
        const long cells = (long)bx * by * (d->shape == SHAPE_PAIRS ? 2 : 1); /* a block's cells */
        l->grid.x = (unsigned)((P->n + cells - 1) / cells);
        l->grid.y = 1;
    } else {
        const int cols = d->shape == SHAPE_PAIRS ? 2 * bx : bx; /* a block's columns */
        l->grid.x = (unsigned)((P->nxi + cols - 1) / cols);
        l->grid.y = (unsigned)((P->nyi + by - 1) / by);
    }
    l->grid.z = (unsigned)((slices + bz - 1) / bz);
    if (l->grid.y > 65535 || l->grid.z > 65535) {
        perr("--threads %dx%dx%d: the grid of blocks is too large; use larger blocks", bx, by, bz);
        return -1;
    }
    l->loaded = loaded_get(s);
    if (l->loaded && aos)
        l->fn = NULL;
    else if (l->loaded) {
        if (!gpu_supports(a, s)) {
            perr("--access %s: no kernel for %s (a stencil file is compiled for every strategy but "
                 "staged)", d->name, stencil_table[s].name);
            return -1;
        }
        l->fn = l->loaded->gpu_kernel(s, a, p, column);
        if (!l->fn)
            return -1; /* the compiler's message */
    } else if (stencil_table[s].graph && column == GSTORAGE_ELL)
        l->fn = graph_kernels[s - ST_QUAD_COUNT][p]; /* iterated runs: the ELL kernel */
    else if (stencil_table[s].graph)
        l->fn = d->gkernels && column >= 0 && column < GSTORAGE_COUNT
                    ? (*d->gkernels)[s - ST_QUAD_COUNT][p][column]
                    : NULL;
    else if (aos)
        l->fn = a == ACC_IDXVAR && s == ST_FASTWAVES ? aos_kernels[p][column] : NULL;
    else
        l->fn = d->kernels ? (*d->kernels)[s][p][column] : NULL;
    if (!l->fn) {
        perr("--access %s: no kernel for %s%s in this storage", d->name, stencil_table[s].name,
             aos ? " as an array of structs" : "");
        return -1;
    }
    return 0;
}

int gpu_coop_limits(int *sms, int *smem_max)
{
    int dev = 0, coop = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    CK(cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaDeviceGetAttribute(smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    return coop != 0;
}

double gpu_coop_launch_timed(const char *who, const void *fn, int blocks, int threads, void **args,
                             size_t smem)
{
    gpu_span sp;
    gpu_span_begin(&sp);
    cudaError_t e = cudaLaunchCooperativeKernel(fn, (dim3){(unsigned)blocks, 1, 1},
                                                (dim3){(unsigned)threads, 1, 1}, args, smem, 0);
    if (e != cudaSuccess) {
        cudaGetLastError();
        perr("%s: the cooperative launch of %d blocks x %d threads was refused: %s", who, blocks,
             threads, cudaGetErrorString(e));
    }
    double secs = gpu_span_end(&sp);
    CK(cudaGetLastError());
    return e == cudaSuccess ? secs : -1;
}

void gpu_span_begin(gpu_span *s)
{
    CK(cudaEventCreate(&s->e0));
    CK(cudaEventCreate(&s->e1));
    CK(cudaEventRecord(s->e0, 0));
}

double gpu_span_end(gpu_span *s)
{
    CK(cudaEventRecord(s->e1, 0));
    CK(cudaEventSynchronize(s->e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, s->e0, s->e1));
    CK(cudaEventDestroy(s->e0));
    CK(cudaEventDestroy(s->e1));
    return ms * 1e-3;
}

int gpu_blocks_per_sm(const void *fn, int threads, size_t smem)
{
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, threads, smem) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return per_sm;
}

void gpu_launch_run(const gpu_launch *l, kparams *P, void *stream)
{
    if (l->grid.x == 0 || l->grid.z == 0)
        return; /* nothing to compute */
    if (l->loaded) {
        const unsigned g[3] = {l->grid.x, l->grid.y, l->grid.z};
        const unsigned b[3] = {l->block.x, l->block.y, l->block.z};
        if (l->loaded->gpu_launch(l->fn, g, b, l->smem, stream, P) != 0)
            fault_raise(FAULT_DEVICE, "launch of a loaded stencil's kernel failed");
        return;
    }
    void *args[] = {P};
    CK(cudaLaunchKernel(l->fn, l->grid, l->block, args, l->smem, (cudaStream_t)stream));
    CK(cudaGetLastError());
}

int gpu_time(gpu_ctx *c, access_t a, int bx, int by, int bz, int zslice, int tables, int runs,
             timing *t)
{
    char why[160];
    const access_desc *d = access_get(a);
    if (!d)
        return -1;
    if (!gpu_shape_ok(a, c->uns, bx, by, bz, why, sizeof why)) {
        perr("--threads: %s", why);
        return -1;
    }
    const problem *pb = c->pb;
    if (c->aos && (a != ACC_IDXVAR || pb->s.stencil != ST_FASTWAVES)) {
        perr("--aos: the array-of-structs variant is fastwaves with --access idxvar");
        return -1;
    }
    int graph = stencil_table[pb->s.stencil].graph;
    if (!gpu_supports(a, pb->s.stencil)) {
        perr("--access %s: %s has no such kernel (%s serves the stencils whose field 'in' "
             "carries the horizontal neighbourhood: staged in stencils/registry.h)",
             access_name[a], stencil_table[pb->s.stencil].name, access_name[a]);
        return -1;
    }
    if (graph && tables != TABLES_GLOBAL) {
        perr("%s: %s reads its offset table from global memory only (no constant-memory or "
             "packed-row variant for lists of any length)",
             tables == TABLES_CONSTANT ? "--constant-tables" : "--packed-rows",
             stencil_table[pb->s.stencil].name);
        return -1;
    }
    if (graph && !c->uns && !problem_has_lattice(pb)) {
        perr("--grid regular: %s has a regular twin on bounded hexagon and triangle meshes made by "
             "pillar mesh generate only", stencil_table[pb->s.stencil].name);
        return -1;
    }
    if (c->uns && ensure_lists(c, a, bx) != 0) /* the strategy's own lists (access/hooks.h) */
        return -1;
    kparams P = c->P;
    int column = c->uns ? pb->nt.chasing * 2 + pb->nt.compressed : STORAGE_REGULAR;
    if (graph)
        column = c->uns ? pb->gt.chasing * 2 + pb->gt.compressed
                 : pb->twin->lat.kind == LATTICE_HEXAGONS ? GSTORAGE_HEX : GSTORAGE_TRI;
    unsigned blocks = 0;
    int hmax = 0;
    if (c->uns && c->lists) { /* the lists' fields of P, their column and blocks */
        if (d->prep->bind(c->lists, c->dlists, P.c0, P.c0 + P.n, &P, &column, &blocks) != 0)
            return -1;
        hmax = d->prep->hmax(c->lists);
    }
    if (tables != TABLES_GLOBAL) {
        const char *flag = tables == TABLES_CONSTANT ? "--constant-tables" : "--packed-rows";
        if (!c->uns || !pb->nt.compressed ||
            !(stencil_is_user(pb->s.stencil) ? access_table[a].upload != NULL : strategy_upload(a, c->aos) != NULL)) {
            perr("%s: %s", flag, !c->uns ? "applies to unstructured grids"
                                 : !pb->nt.compressed ? "needs a compressed table (--compress)"
                                                      : "this strategy reads no neighbour table");
            return -1;
        }
        if (tables == TABLES_CONSTANT) {
            P.nbv.crows = upload_constant_rows(c, a);
            column = STORAGE_CONSTANT + pb->nt.chasing;
        } else {
            P.nbv.tab = packed_rows(c);
            column = STORAGE_ROWS + pb->nt.chasing;
        }
    }
    P.zslice = zslice;
    gpu_launch l;
    if (gpu_launch_plan(&l, a, c->aos, pb->s.stencil, pb->s.prec, column, c->uns, bx, by, bz, &P) != 0)
        return -1;
    if (blocks) /* the lists' blocks (graph-twopass: one block per run of its lists) */
        l.grid.x = blocks;
    l.smem = graph ? gpu_graph_smem_bytes(a, c->uns ? 0 : pb->twin->lat.kind, pb->s.prec, bx, by,
                                          c->uns ? pb->gt.maxdeg : 0, hmax)
                   : gpu_smem_bytes(a, c->uns, pb->s.prec, bx, by, bz, hmax);
    int optin = 0;
    CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    if (l.smem > (size_t)optin) {
        perr("--access %s: blocks of %dx%dx%d need %zu bytes of shared memory, the device has %d "
             "a block: use smaller blocks", d->name, bx, by, bz, l.smem, optin);
        return -1;
    }
    if (l.smem > 48 * 1024 && !l.loaded)
        CK(cudaFuncSetAttribute(l.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)l.smem));
    double *ms = xalloc(sizeof(double) * (size_t)runs);
    for (int r = -2; r < runs; r++) {
        poison_outputs(c);
        CK(cudaEventRecord(c->e0, 0));
        gpu_launch_run(&l, &P, NULL);
        CK(cudaEventRecord(c->e1, 0));
        CK(cudaEventSynchronize(c->e1));
        float e;
        CK(cudaEventElapsedTime(&e, c->e0, c->e1));
        if (r >= 0) {
            ms[r] = e;
            progress_update("runs", r + 1, runs);
        }
    }
    qsort(ms, (size_t)runs, sizeof(double), cmp_double);
    t->runs = runs;
    t->median_ms = ms[runs / 2];
    t->min_ms = ms[0];
    t->max_ms = ms[runs - 1];
    t->bx = bx;
    t->by = by;
    t->bz = bz;
    gpu_probe(t->backend, sizeof t->backend);
    xfree(ms);
    return 0;
}

void gpu_fetch(gpu_ctx *c, fieldset out)
{
    int nin = stencil_table[c->pb->s.stencil].nin;
    size_t es = prec_size(c->pb->s.prec), nf = (size_t)c->pb->nf;
    if (c->aos) {
        char *img = xalloc(es * nf * c->len);
        CK(cudaMemcpy(img, c->d.p[0], es * nf * c->len, cudaMemcpyDeviceToHost));
        for (int f = nin; f < c->pb->nf; f++)
            for (size_t i = 0; i < c->len; i++)
                memcpy((char *)out.p[f] + i * es, img + (i * nf + (size_t)f) * es, es);
        xfree(img);
        return;
    }
    for (int f = nin; f < c->pb->nf; f++)
        CK(cudaMemcpy(out.p[f], c->d.p[f], c->len * prec_size(c->pb->s.prec), cudaMemcpyDeviceToHost));
}

int gpu_execute(const problem *pb, const options *o, int uns, fieldset out, timing *t)
{
    int bx = o->bx, by = o->by, bz = o->bz;
    if (!bx)
        gpu_default_shape(o->access, uns, &bx, &by, &bz);
    gpu_ctx *c = gpu_open(pb, uns, o->aos);
    if (o->constant_tables && o->packed_rows) {
        perr("--constant-tables and --packed-rows exclude each other");
        gpu_close(c);
        return -1;
    }
    int tables = o->packed_rows ? TABLES_ROWS : o->constant_tables ? TABLES_CONSTANT : TABLES_GLOBAL;
    int rc = gpu_time(c, o->access, bx, by, bz, o->zslice, tables, o->runs, t);
    if (rc == 0)
        gpu_fetch(c, out);
    gpu_close(c);
    return rc;
}

double gpu_copy_bandwidth(size_t bytes, int runs)
{
    void *a, *b;
    cudaEvent_t e0, e1;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemset(a, 1, bytes));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    double *ms = xalloc(sizeof(double) * (size_t)runs);
    for (int r = -2; r < runs; r++) {
        CK(cudaEventRecord(e0, 0));
        CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(e1, 0));
        CK(cudaEventSynchronize(e1));
        float e;
        CK(cudaEventElapsedTime(&e, e0, e1));
        if (r >= 0)
            ms[r] = e;
    }
    qsort(ms, (size_t)runs, sizeof(double), cmp_double);
    double bw = 2.0 * (double)bytes / (ms[runs / 2] * 1e-3);
    xfree(ms);
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return bw;
}

/* Median seconds of `runs` timed copies of one or both directions. */
static void time_copies(void *host[2], void *dev[2], size_t bytes, int runs, int which,
                        cudaStream_t st[2], double *sec_h2d, double *sec_d2h)
{
    cudaEvent_t e[3];
    for (int i = 0; i < 3; i++)
        CK(cudaEventCreate(&e[i]));
    double *a = xalloc(sizeof(double) * (size_t)runs), *b = xalloc(sizeof(double) * (size_t)runs);
    for (int r = -1; r < runs; r++) {
        CK(cudaDeviceSynchronize());
        CK(cudaEventRecord(e[0], st[0]));
        CK(cudaStreamWaitEvent(st[1], e[0], 0));
        if (which & 1)
            CK(cudaMemcpyAsync(dev[0], host[0], bytes, cudaMemcpyHostToDevice, st[0]));
        if (which & 2)
            CK(cudaMemcpyAsync(host[1], dev[1], bytes, cudaMemcpyDeviceToHost, st[1]));
        CK(cudaEventRecord(e[1], st[0]));
        CK(cudaEventRecord(e[2], st[1]));
        CK(cudaDeviceSynchronize());
        float m1, m2;
        CK(cudaEventElapsedTime(&m1, e[0], e[1]));
        CK(cudaEventElapsedTime(&m2, e[0], e[2]));
        if (r >= 0) {
            a[r] = m1 * 1e-3;
            b[r] = m2 * 1e-3;
        }
    }
    qsort(a, (size_t)runs, sizeof(double), cmp_double);
    qsort(b, (size_t)runs, sizeof(double), cmp_double);
    *sec_h2d = a[runs / 2];
    *sec_d2h = b[runs / 2];
    xfree(a);
    xfree(b);
    for (int i = 0; i < 3; i++)
        CK(cudaEventDestroy(e[i]));
}

void gpu_link_bandwidth(size_t bytes, int runs, gpu_link *l)
{
    void *host[2], *dev[2];
    cudaStream_t st[2];
    for (int i = 0; i < 2; i++) {
        CK(cudaMallocHost(&host[i], bytes));
        memset(host[i], 1, bytes);
        CK(cudaMalloc(&dev[i], bytes));
        CK(cudaMemset(dev[i], 1, bytes));
        CK(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking));
    }
    double h, d, unused;
    time_copies(host, dev, bytes, runs, 1, st, &h, &unused);
    time_copies(host, dev, bytes, runs, 2, st, &unused, &d);
    l->h2d = (double)bytes / h;
    l->d2h = (double)bytes / d;
    time_copies(host, dev, bytes, runs, 3, st, &h, &d);
    l->duplex_h2d = (double)bytes / h;
    l->duplex_d2h = (double)bytes / d;
    for (int i = 0; i < 2; i++) {
        CK(cudaFreeHost(host[i]));
        CK(cudaFree(dev[i]));
        CK(cudaStreamDestroy(st[i]));
    }
}

size_t gpu_free_bytes(void)
{
    size_t freeb = 0, total = 0;
    CK(cudaMemGetInfo(&freeb, &total));
    return freeb;
}

int gpu_is_device_memory(const void *p)
{
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError(); /* an address CUDA does not know: not device memory */
        return 0;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

/* cudaMemcpy from pageable host memory returns once the values are staged, before the DMA into
 * device memory is done; only work on the legacy stream is ordered after it. Kernels on streams
 * of their own (cudaStreamNonBlocking) are not: the legacy stream is waited for here. */
void gpu_copy(void *dst, const void *src, size_t bytes, int to_device)
{
    CK(cudaMemcpy(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost));
    if (to_device)
        CK(cudaStreamSynchronize(cudaStreamLegacy));
}

void *gpu_upload(const void *src, size_t bytes)
{
    void *p = NULL;
    CK(cudaMalloc(&p, bytes ? bytes : 4));
    if (bytes)
        gpu_copy(p, src, bytes, 1);
    return p;
}

void gpu_describe(gpu_info *g)
{
    struct cudaDeviceProp prop;
    int v;
    memset(g, 0, sizeof *g);
    CK(cudaGetDeviceProperties(&prop, 0));
    snprintf(g->name, sizeof g->name, "%s", prop.name);
    g->cc_major = prop.major;
    g->cc_minor = prop.minor;
    g->sms = prop.multiProcessorCount;
    g->l2_bytes = (size_t)prop.l2CacheSize;
    g->memory_bytes = prop.totalGlobalMem;
    CK(cudaDriverGetVersion(&g->driver));
    CK(cudaRuntimeGetVersion(&g->runtime));
    if (cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, 0) == cudaSuccess)
        g->sm_clock_mhz = v / 1000;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, 0) == cudaSuccess)
        g->mem_clock_mhz = v / 1000;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrGlobalMemoryBusWidth, 0) == cudaSuccess)
        g->bus_bits = v;
    cudaGetLastError();
}
