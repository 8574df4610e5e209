/* resident.c — a problem's fields resident on the device (resident.h). */
#include "resident.h"
#include "run_plan.h"

#include "src/exec/gpu_launch.h"
#include "src/exec/iterate.h"
#include "src/plan/ooc_gpu.h"

#include <string.h>

int poison_device(void *p, size_t n, size_t stride, size_t offset, int is_float); /* poison.cu */

struct resident {
    const problem *pb;
    ooc_plan pl;        /* the grid as one in-core part, one step per pass */
    ooc_launch launch;  /* a step's kernel */
    ooc_launch apply;   /* the same kernel without the fold */
    int32_t *tab;       /* the part's image on the device (ooc_part_image_pack) */
    fieldset d;         /* every field's device array, the grid's layout */
    void *scratch;      /* one spare array of a field */
    void *adopted[PILLAR_MAXF]; /* a caller's array used in place as input k's (NULL: none) */
    void *own[PILLAR_MAXF];     /* meanwhile, k's own array */
    cudaStream_t stream;
    size_t es;
};

resident *resident_open(const problem *pb, const resident_kernel *k)
{
    const problem_spec *s = &pb->s;
    resident *r = xalloc(sizeof *r);
    memset(r, 0, sizeof *r);
    r->pb = pb;
    r->es = prec_size(s->prec);
    ooc_kernel ok = {k->access, k->bx, k->by, k->bz, k->zslice, 0};
    if (ooc_launch_prepare(&r->launch, &ok, s->stencil, s->prec, s->chasing, s->compressed) != 0) {
        xfree(r);
        return NULL;
    }
    r->apply = r->launch;
    r->apply.apply = 1;
    /* the whole grid as one part of one step per launch, with its lists and coefficients */
    plan_request rq = {1, 0, 0, k->access, r->launch.bx, 1, 1, 0, 1, 0, NULL};
    if (engine_plan(&r->pl, pb, &rq) != 0) {
        xfree(r);
        return NULL;
    }
    const ooc_part *pt = &r->pl.part[0];
    size_t words = ooc_part_image_words(pt, s->stencil, s->prec);
    int32_t *image = xalloc(sizeof(int32_t) * (words ? words : 1));
    ooc_part_image_pack(pt, s->stencil, s->prec, image);
    CK(cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking));
    CK(cudaMalloc((void **)&r->tab, sizeof(int32_t) * (words ? words : 1)));
    CK(cudaMemcpy(r->tab, image, sizeof(int32_t) * words, cudaMemcpyHostToDevice));
    xfree(image);
    size_t len = pb->ug.len;
    for (int i = 0; i < pb->nf; i++) {
        CK(cudaMalloc(&r->d.p[i], r->es * len));
        CK((cudaError_t)poison_device(r->d.p[i], len, 1, 0, s->prec == PREC_FLOAT));
    }
    CK(cudaMalloc(&r->scratch, r->es * len));
    CK(cudaDeviceSynchronize());
    return r;
}

void resident_close(resident *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->pb->nf; i++)
        resident_release(r, i); /* every array its own again */
    for (int i = 0; i < r->pb->nf; i++)
        CK(cudaFree(r->d.p[i]));
    CK(cudaFree(r->scratch));
    CK(cudaFree(r->tab));
    CK(cudaStreamDestroy(r->stream));
    ooc_plan_free(&r->pl);
    xfree(r);
}

/* The output field that carries state field k from step to step, or -1 if k carries none. */
static int carried_pair(const resident *r, int k)
{
    const iter_carry *c = iter_carried(r->pb->s.stencil);
    for (int j = 0; j < c->n; j++)
        if (c->in[j] == k)
            return c->out[j];
    return -1;
}

void resident_wrote(resident *r, int k)
{
    int o = carried_pair(r, k);
    if (o < 0)
        return;
    /* what no step writes but later steps read: the halo cells of every level and the levels at
     * and above the computed ones, into the array the next step writes */
    const ugrid *g = &r->pb->ug;
    size_t es = r->es, pitch = (size_t)g->zstride * es;
    int zend = r->pl.zend;
    char *to = r->d.p[o];
    const char *from = r->d.p[k];
    if (g->nhalo > 0)
        CK(cudaMemcpy2DAsync(to, pitch, from, pitch, (size_t)g->nhalo * es, (size_t)g->nz,
                             cudaMemcpyDeviceToDevice, r->stream));
    if (zend < g->nz)
        CK(cudaMemcpyAsync(to + (size_t)zend * pitch, from + (size_t)zend * pitch,
                           (size_t)(g->nz - zend) * pitch, cudaMemcpyDeviceToDevice, r->stream));
}

void resident_put(resident *r, int k, const void *host)
{
    CK(cudaMemcpyAsync(r->d.p[k], host, r->es * r->pb->ug.len, cudaMemcpyHostToDevice,
                       r->stream));
    resident_wrote(r, k);
    CK(cudaStreamSynchronize(r->stream));
}

void resident_get(resident *r, int k, void *host)
{
    CK(cudaMemcpyAsync(host, r->d.p[k], r->es * r->pb->ug.len, cudaMemcpyDeviceToHost,
                       r->stream));
    CK(cudaStreamSynchronize(r->stream));
}

void resident_pair(resident *r, int k, void **cur, void **other)
{
    int o = carried_pair(r, k);
    *cur = r->d.p[k];
    *other = o >= 0 ? r->d.p[o] : NULL;
}

void resident_swap(resident *r, int k)
{
    int o = carried_pair(r, k);
    if (o < 0)
        return;
    void *swap = r->d.p[k];
    r->d.p[k] = r->d.p[o];
    r->d.p[o] = swap;
}

void *resident_field(resident *r, int k) { return r->d.p[k]; }

void *resident_scratch(resident *r) { return r->scratch; }

void resident_swap_in(resident *r, int k)
{
    void *old = r->d.p[k];
    r->d.p[k] = r->scratch;
    r->scratch = old;
    resident_wrote(r, k);
}

void *resident_stream(resident *r) { return r->stream; }

/* Launch errors fault inside gpu_launch_run; an error of an earlier kernel that has already
 * surfaced is reported here, without waiting. */
static int launched(const char *what)
{
    cudaError_t e = cudaPeekAtLastError();
    if (e == cudaSuccess)
        return 0;
    perr("%s: %s", what, cudaGetErrorString(e));
    return -1;
}

int resident_steps(resident *r, int steps)
{
    const problem_spec *s = &r->pb->s;
    const ooc_part *pt = &r->pl.part[0];
    const iter_carry *c = iter_carried(s->stencil);
    for (int t = 0; t < steps; t++) {
        /* reads the state arrays, writes the new state into the output arrays: swap them */
        ooc_step_launch(&r->launch, s->stencil, s->prec, pt, r->tab, r->d, 0, 0, r->pl.zend,
                        pt->first[0], pt->ncells, 0, r->stream);
        for (int j = 0; j < c->n; j++) {
            void *swap = r->d.p[c->in[j]];
            r->d.p[c->in[j]] = r->d.p[c->out[j]];
            r->d.p[c->out[j]] = swap;
        }
    }
    return launched("time steps on the device");
}

int resident_apply(resident *r)
{
    const problem_spec *s = &r->pb->s;
    const ooc_part *pt = &r->pl.part[0];
    ooc_step_launch(&r->apply, s->stencil, s->prec, pt, r->tab, r->d, 0, 0, r->pl.zend,
                    pt->first[0], pt->ncells, 0, r->stream);
    return launched("an application on the device");
}

int resident_sync(resident *r)
{
    cudaError_t e = cudaStreamSynchronize(r->stream);
    if (e == cudaSuccess)
        return 0;
    perr("on the device: %s", cudaGetErrorString(e));
    return -1;
}

/* The slot (field index) whose array is p, or -1. */
static int slot_of(const resident *r, const void *p)
{
    for (int i = 0; i < r->pb->nf; i++)
        if (r->d.p[i] == p)
            return i;
    return -1;
}

void resident_adopt(resident *r, int k, void *dev)
{
    resident_release(r, k);
    r->own[k] = r->d.p[k];
    r->d.p[k] = dev;
    r->adopted[k] = dev;
    resident_wrote(r, k);
}

void resident_settle(resident *r)
{
    for (int k = 0; k < r->pb->nf; k++) {
        void *dev = r->adopted[k];
        if (!dev || r->d.p[k] == dev)
            continue;
        /* the state ended in the other array of the pair: copied into the caller's, which
         * becomes k's again (the other array takes the slot the caller's array had) */
        int o = slot_of(r, dev);
        CK(cudaMemcpyAsync(dev, r->d.p[k], r->es * r->pb->ug.len, cudaMemcpyDeviceToDevice,
                           r->stream));
        if (o >= 0)
            r->d.p[o] = r->d.p[k];
        else
            r->scratch = r->d.p[k];
        r->d.p[k] = dev;
    }
}

void resident_release(resident *r, int k)
{
    void *dev = r->adopted[k];
    if (!dev)
        return;
    resident_settle(r);
    /* k's own array takes the values back */
    CK(cudaMemcpyAsync(r->own[k], dev, r->es * r->pb->ug.len, cudaMemcpyDeviceToDevice,
                       r->stream));
    CK(cudaStreamSynchronize(r->stream));
    r->d.p[k] = r->own[k];
    r->own[k] = NULL;
    r->adopted[k] = NULL;
}
