/* regular_loop.c — the host loop of the regular twin: one launch of a strategy's regular kernel
 * a step (src/plan/regular_runs.h). */
#include "regular_runs.h"

#include "src/exec/gpu_launch.h"
#include "src/exec/iterate.h"

#include <string.h>

int regular_loop_run(stencil_t st, precision_t prec, const rgrid *rg, fieldset f, int steps,
                     access_t a, int bx, int by, int bz, regular_timing *t)
{
    memset(t, 0, sizeof *t);
    const iter_carry *c = iter_carried(st);
    const stencil_info *si = &stencil_table[st];
    if (c->n == 0 || c->n != si->nout || si->graph || si->coeffs.n) {
        perr("regular host loop: %s has no iterated run on the regular grid", si->name);
        return -1;
    }
    if (steps < 1) {
        perr("regular host loop: at least one step (%d)", steps);
        return -1;
    }
    if (!bx)
        gpu_default_shape(a, 0, &bx, &by, &bz);
    char why[160];
    if (!gpu_shape_ok(a, 0, bx, by, bz, why, sizeof why)) {
        perr("regular host loop: --threads: %s", why);
        return -1;
    }
    kparams P;
    memset(&P, 0, sizeof P);
    P.zs = rg->zstride;
    P.ys = rg->ystride;
    P.x0 = rg->halo;
    P.nxi = rg->nx - 2 * rg->halo;
    P.nyi = rg->ny - 2 * rg->halo;
    P.a = rg->a;
    P.zend = stencil_zend(st, rg->nz);
    P.fold = 1; /* the bodies store the new state (registry.h's fold) */
    gpu_launch l;
    if (gpu_launch_plan(&l, a, 0, st, prec, STORAGE_REGULAR, 0, bx, by, bz, &P) != 0)
        return -1;
    l.smem = gpu_smem_bytes(a, 0, prec, bx, by, bz, 0);
    int optin = 0;
    CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    if (l.smem > (size_t)optin) {
        perr("regular host loop: --access %s: blocks of %dx%dx%d need %zu bytes of shared memory, "
             "the device has %d a block", access_name[a], bx, by, bz, l.smem, optin);
        return -1;
    }
    if (l.smem > 48 * 1024)
        CK(cudaFuncSetAttribute(l.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)l.smem));
    size_t bytes = prec_size(prec) * rg->len;
    /* the inputs; each carried field's twin starts as a copy (its halo and fixed levels are
     * never written) */
    void *d[PILLAR_MAXF] = {0}, *twin[PILLAR_MAXF] = {0};
    for (int i = 0; i < si->nin; i++)
        d[i] = gpu_upload(f.p[i], bytes);
    for (int j = 0; j < c->n; j++)
        twin[j] = gpu_upload(f.p[c->in[j]], bytes);
    for (int i = 0; i < si->nin; i++)
        P.f.p[i] = d[i];
    gpu_span sp;
    gpu_span_begin(&sp);
    for (int s = 0; s < steps; s++) { /* step s reads the state in d (even s) or twin */
        for (int j = 0; j < c->n; j++) {
            P.f.p[c->in[j]] = s % 2 ? twin[j] : d[c->in[j]];
            P.f.p[c->out[j]] = s % 2 ? d[c->in[j]] : twin[j];
        }
        gpu_launch_run(&l, &P, NULL);
    }
    double secs = gpu_span_end(&sp);
    for (int j = 0; j < c->n; j++)
        gpu_copy(f.p[c->in[j]], steps % 2 ? twin[j] : d[c->in[j]], bytes, 0);
    for (int i = 0; i < PILLAR_MAXF; i++) {
        CK(cudaFree(d[i]));
        CK(cudaFree(twin[i]));
    }
    *t = (regular_timing){.blocks = (int)(l.grid.x * l.grid.y * l.grid.z),
                          .threads = bx * by * bz, .smem = l.smem, .kernel_s = secs};
    return 0;
}
