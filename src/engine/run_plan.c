/* run_plan.c — the plan of an iterated run for every front door (run_plan.h). */
#include "run_plan.h"
#include "access/hooks.h"

#ifdef PILLAR_HAVE_CUDA
#include "src/plan/persist_gpu.h"
#include "src/plan/persist_ooc.h"
#endif

#include <string.h>

double engine_whole_bytes(const problem *pb)
{
    double es = (double)prec_size(pb->s.prec);
    double coef = (double)coef_desc_cell_bytes(&stencil_table[pb->s.stencil].coeffs, pb->s.prec,
                                               pb->ug.adjw) *
                  pb->ug.nxy;
    return (double)pb->nf * es * (double)pb->ug.len + coef +
           (double)(stencil_table[pb->s.stencil].graph ? ell_bytes(&pb->ell)
                                                       : nbtable_bytes(&pb->nt));
}

/* An out-of-core plan of F steps per transfer, sharing only when asked. Returns 0 or -1. */
static int plan_out_of_core(ooc_plan *pl, const problem *pb, const plan_request *rq,
                            size_t budget, int F)
{
    const problem_spec *s = &pb->s;
    if (ooc_plan_make(pl, &pb->ug, s->stencil, s->prec, s->chasing, s->compressed, budget, F) != 0)
        return -1;
    if (!rq->share)
        ooc_plan_share(pl, 0);
    return 0;
}

/* Most steps per transfer the model considers. */
#define MODEL_MAX_FUSE 32

/* The parts of the run: in core (one part) or out of core under the budget, F given or chosen
 * by the model among K, 2K, 4K, ... up to 32 (GPU with rates; else K), K the steps per launch.
 * Returns 0 or -1. */
static int plan_parts(ooc_plan *pl, const problem *pb, const plan_request *rq, size_t budget)
{
    const problem_spec *s = &pb->s;
    if (!rq->ooc)
        return ooc_plan_incore(pl, &pb->ug, s->stencil, s->prec, s->chasing, s->compressed,
                               rq->fuse ? rq->fuse : rq->steps);
    int K = ooc_kernel_steps(rq->kernel_steps);
    if (rq->fuse || !rq->gpu || !rq->rates)
        return plan_out_of_core(pl, pb, rq, budget, rq->fuse ? rq->fuse : K);
    int most = rq->steps < MODEL_MAX_FUSE ? rq->steps : MODEL_MAX_FUSE;
    return ooc_plan_choose(pl, &pb->ug, s->stencil, s->prec, s->chasing, s->compressed, budget,
                           rq->share, K, most > K ? most : K, rq->rates);
}

/* The threads of a K-step kernel's block: its cells. */
#define TILE_THREADS 256

/* Plans made again, smaller, for persistent chunks at most. */
#define PERSIST_OOC_TRIES 40

/* plan_parts for persistent chunks out of core (src/plan/persist_ooc.h): while a part's launch
 * region does not fit the device (its offsets in the SMs' shared memory), the plan is made again
 * for a smaller budget (persist_ooc_shrink), a bounded number of times. Returns 0 or -1. */
static int plan_persistent(ooc_plan *pl, const problem *pb, const plan_request *rq)
{
#ifdef PILLAR_HAVE_CUDA
    size_t target = rq->budget;
    char msg[400] = "";
    for (int tries = 0; tries < PERSIST_OOC_TRIES; tries++) {
        if (plan_parts(pl, pb, rq, target) != 0)
            return -1;
        if (persist_ooc_check(pl) != 0) {
            ooc_plan_free(pl);
            return -1;
        }
        persist_chunk_kernel k;
        persist_shape *shape = xalloc(sizeof(persist_shape) * (size_t)pl->nparts);
        long most;
        perr_capture(msg, sizeof msg);
        int rc = persist_chunk_prepare(&k, pl, rq->bx, shape, &most);
        perr_capture(NULL, 0);
        xfree(shape);
        if (rc == 0) {
            if (pl->nparts * pl->nslabs > 1)
                pl->budget = rq->budget;
            return 0;
        }
        double shrink = persist_ooc_shrink(pl, &k.d, most);
        ooc_plan_free(pl);
        if (most == 0) { /* refused for another reason than size */
            perr("%s", msg);
            return -1;
        }
        target = (size_t)((double)target * shrink);
    }
    perr("run: --persistent on: no plan whose parts fit a persistent launch (%s)", msg);
    return -1;
#else
    (void)pl, (void)pb, (void)rq;
    perr("run: --persistent on runs on the GPU");
    return -1;
#endif
}

/* The parts, and with K > 1 the balls of every part (or graph-twopass's lists on the GPU); when
 * the chunks no longer fit the budget with them, the chunks are planned again for a budget 5%
 * smaller, a few times. Returns 0 or -1. */
static int plan_with_lists(ooc_plan *pl, const problem *pb, const plan_request *rq)
{
    if (rq->gpu && rq->ooc && rq->persistent)
        return plan_persistent(pl, pb, rq);
    int K = ooc_kernel_steps(rq->kernel_steps), B = rq->bx ? rq->bx : TILE_THREADS;
    /* a strategy with its own lists (access/hooks.h; graph-twopass) on the GPU: they replace the
     * neighbour lists, for blocks of its threads */
    const access_desc *d = &access_table[rq->access];
    int lists = K == 1 && rq->gpu && d->iterated && d->prep->prepare &&
                        access_supports(rq->access, pb->s.stencil)
                    ? (rq->bx ? rq->bx : d->shape_uns[0])
                    : 0;
    size_t target = rq->budget;
    for (int tries = 0; tries < 8; tries++, target = target / 20 * 19) {
        if (plan_parts(pl, pb, rq, target) != 0)
            return -1;
        if (K == 1 && !lists)
            return 0;
        if (lists ? ooc_plan_lists(pl, rq->access, lists) != 0 : ooc_plan_tiles(pl, K, B) != 0) {
            ooc_plan_free(pl);
            return -1;
        }
        if (ooc_plan_fits(pl, rq->budget)) {
            if (pl->nparts * pl->nslabs > 1)
                pl->budget = rq->budget;
            return 0;
        }
        ooc_plan_free(pl);
    }
    if (lists)
        perr("run: --access %s: the chunks with its lists do not fit the budget; give more "
             "--device-mem", d->name);
    else
        perr("run: --kernel-steps %d: the chunks' balls do not fit the budget; give more "
             "--device-mem or fewer --kernel-steps", K);
    return -1;
}

int engine_plan(ooc_plan *pl, const problem *pb, const plan_request *rq)
{
    if (plan_with_lists(pl, pb, rq) != 0)
        return -1;
    if (ooc_plan_coeffs(pl, &pb->coef) != 0) { /* each part's coefficients (fluxdiff's) */
        ooc_plan_free(pl);
        return -1;
    }
    return 0;
}
