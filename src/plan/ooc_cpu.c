/* ooc_cpu.c — chunked execution of an out-of-core plan on the CPU. */
#include "ooc_cpu.h"

#include "src/exec/iterate.h"
#include "access/tiles_run.h"
#include "base/progress.h"

#include <string.h>

/* Local arrays of one chunk, sized for the largest one. */
static fieldset chunk_alloc(const ooc_plan *pl)
{
    const stencil_info *si = &stencil_table[pl->stencil];
    size_t len = 0;
    for (int p = 0; p < pl->nparts; p++)
        for (int k = 0; k < pl->nslabs; k++) {
            size_t l = (size_t)pl->part[p].zstride * (size_t)(pl->slab[k].lz1 - pl->slab[k].lz0);
            if (l > len)
                len = l;
        }
    fieldset loc = {{0}};
    for (int f = 0; f < si->nin + si->nout; f++) {
        loc.p[f] = field_alloc(pl->prec, len);
        field_poison(pl->prec, loc.p[f], len);
    }
    return loc;
}

/* Level by level, to[l] = from[gcell[l]] for the cells and levels of a piece of a chunk. */
#define GATHER(TY)                                                                                \
    static void gather_##TY(const ugrid *g, const ooc_part *pt, const ooc_slab *s,                \
                            const ooc_piece *pc, const TY *from, TY *to)                          \
    {                                                                                             \
        long points = (long)pc->n * (pc->z1 - pc->z0);                                            \
        _Pragma("omp parallel for schedule(static) if(points > 4096)")                            \
        for (int z = pc->z0; z < pc->z1; z++) {                                                   \
            const TY *fz = from + (size_t)z * (size_t)g->zstride;                                 \
            TY *tz = to + (size_t)(z - s->lz0) * (size_t)pt->zstride;                             \
            for (int l = pc->c0; l < pc->c0 + pc->n; l++)                                         \
                tz[l] = fz[pt->gcell[l]];                                                         \
        }                                                                                         \
    }
GATHER(double)
GATHER(float)

/* Pieces pc[0..npc) of chunk (pt, s)'s inputs from the host fields `src` into the local arrays. */
static void gather(const ooc_plan *pl, const ugrid *g, const ooc_part *pt, const ooc_slab *s,
                   const ooc_piece *pc, int npc, fieldset src, fieldset loc)
{
    for (int f = 0; f < stencil_table[pl->stencil].nin; f++)
        for (int j = 0; j < npc; j++) {
            if (pl->prec == PREC_FLOAT)
                gather_float(g, pt, s, &pc[j], src.p[f], loc.p[f]);
            else
                gather_double(g, pt, s, &pc[j], src.p[f], loc.p[f]);
        }
}

/* Every input of chunk (pt, s) from the host. */
static void gather_all(const ooc_plan *pl, const ugrid *g, const ooc_part *pt, const ooc_slab *s,
                       fieldset src, fieldset loc)
{
    ooc_piece all = {0, pt->ncells, s->lz0, s->lz1};
    gather(pl, g, pt, s, &all, 1, src, loc);
}

/* Level by level, what a chunk takes from the previous one (sh): values copied bit for bit from
 * the previous chunk's local arrays (part pf, slab sf) into this one's (pt, s). */
#define TAKE(TY)                                                                                  \
    static void take_##TY(const ooc_share *sh, const ooc_part *pf, const ooc_slab *sf,           \
                          const TY *from, const ooc_part *pt, const ooc_slab *s, TY *to)          \
    {                                                                                             \
        for (int z = sh->z0; z < sh->z1; z++) {                                                   \
            const TY *fz = from + (size_t)(z - sf->lz0) * (size_t)pf->zstride;                    \
            TY *tz = to + (size_t)(z - s->lz0) * (size_t)pt->zstride;                             \
            if (!sh->to)                                                                          \
                memcpy(tz, fz, sizeof(TY) * (size_t)sh->n);                                       \
            else                                                                                  \
                for (int j = 0; j < sh->n; j++)                                                   \
                    tz[sh->to[j]] = fz[sh->from[j]];                                              \
        }                                                                                         \
    }
TAKE(uint64_t)
TAKE(uint32_t)

/* Chunk i + 1's inputs that chunk i holds, from chunk i's local arrays (before its steps) into
 * chunk i + 1's, as the device does between its buffers (src/plan/ooc_gpu.c). */
static void take_shared(const ooc_plan *pl, int i, fieldset from, fieldset to)
{
    ooc_share sh;
    ooc_chunk_share(pl, i + 1, &sh);
    const ooc_part *pf = &pl->part[i / pl->nslabs], *pt = &pl->part[(i + 1) / pl->nslabs];
    const ooc_slab *sf = &pl->slab[i % pl->nslabs], *s = &pl->slab[(i + 1) % pl->nslabs];
    for (int f = 0; sh.n > 0 && f < stencil_table[pl->stencil].nin; f++) {
        if (pl->prec == PREC_FLOAT)
            take_uint32_t(&sh, pf, sf, from.p[f], pt, s, to.p[f]);
        else
            take_uint64_t(&sh, pf, sf, from.p[f], pt, s, to.p[f]);
    }
}

/* Poisons the inputs of chunk i in the local arrays, so that an input neither taken nor
 * gathered is seen in the result. */
static void poison_inputs(const ooc_plan *pl, int i, fieldset loc)
{
    const ooc_slab *s = &pl->slab[i % pl->nslabs];
    size_t len = (size_t)pl->part[i / pl->nslabs].zstride * (size_t)(s->lz1 - s->lz0);
    for (int f = 0; f < stencil_table[pl->stencil].nin; f++)
        field_poison(pl->prec, loc.p[f], len);
}

/* The state at the chunk's own points, from the local arrays into the host fields `dst`. */
static void scatter(const ooc_plan *pl, const ugrid *g, const ooc_part *pt, const ooc_slab *s,
                    fieldset loc, fieldset dst)
{
    size_t es = prec_size(pl->prec), nown = (size_t)(pt->own1 - pt->own0);
    const iter_carry *c = iter_carried(pl->stencil);
    for (int j = 0; j < c->n; j++) {
        const char *from = loc.p[c->in[j]];
        char *to = dst.p[c->in[j]];
        for (int z = s->z0; z < s->z1; z++)
            memcpy(to + ((size_t)z * (size_t)g->zstride + (size_t)pt->own0) * es,
                   from + ((size_t)(z - s->lz0) * (size_t)pt->zstride + (size_t)pt->first[0]) * es,
                   nown * es);
    }
}

/* t <= F steps on a gathered chunk in launches of up to K steps on the parts' balls (the GPU's
 * schedule, access/tiles.cu): each launch writes the advanced state into the output field,
 * which is copied back into the state where it is valid. */
static void run_tiles(const ooc_plan *pl, const ooc_part *pt, const ooc_slab *s, int t,
                      fieldset loc)
{
    const iter_carry *c = iter_carried(pl->stencil);
    size_t es = prec_size(pl->prec);
    for (int done = 0; done < t;) {
        int k = t - done < pl->K ? t - done : pl->K;
        tiles_step_args a = {pl->stencil, pl->prec, k, pt->first[t - done - k],
                             s->lz1 - s->lz0, pt->zstride, loc.p[c->in[0]],
                             tiles_fixed_input(pl->stencil, loc), loc.p[c->out[0]]};
        tiles_steps_cpu(&pt->tl, &a);
        char *state = loc.p[c->in[0]];
        const char *next = loc.p[c->out[0]];
        for (int z = 0; z < a.nlev; z++) {
            size_t at = ((size_t)z * (size_t)pt->zstride + (size_t)a.valid) * es;
            memcpy(state + at, next + at, (size_t)(pt->ncells - a.valid) * es);
        }
        done += k;
    }
}

/* t <= F steps on a gathered chunk: step j computes what is within reach of the last one. */
static void run_trapezoid(const ooc_plan *pl, const ooc_part *pt, const ooc_slab *s, int t,
                          fieldset loc)
{
    if (pl->K > 1) {
        run_tiles(pl, pt, s, t, loc);
        return;
    }
    int zr = stencil_table[pl->stencil].zradius;
    for (int j = 1; j <= t; j++) {
        int m = t - j; /* steps still to go after this one */
        cpu_block b = {pt->first[m], pt->ncells, s->z0 - zr * m, s->z1 + zr * m, s->lz0, pt->zstride,
                       &pt->coef};
        if (b.k0 < 0)
            b.k0 = 0;
        if (b.k1 > pl->zend)
            b.k1 = pl->zend;
        iter_step(pl->stencil, pl->prec, &pt->nt, &pt->ell, b, loc);
    }
}

static int plan_fits(const ooc_plan *pl, const ugrid *g)
{
    return pl->nparts > 0 && pl->nz == g->nz && pl->part[0].own0 == g->nhalo &&
           pl->part[pl->nparts - 1].own1 == g->nxy;
}

long ooc_cpu_check_chunks(const ooc_plan *pl, const ugrid *g, fieldset initial, fieldset result,
                          int steps, int nsample, long *points)
{
    const iter_carry *c = iter_carried(pl->stencil);
    int chunks = pl->nparts * pl->nslabs;
    long bad = 0;
    *points = 0;
    if (!ooc_plan_has_coeffs(pl))
        return -1;
    if (nsample > chunks)
        nsample = chunks;
    fieldset loc = chunk_alloc(pl);
    for (int i = 0; i < nsample; i++) {
        int chunk = (int)((long)i * chunks / nsample), p = chunk / pl->nslabs, k = chunk % pl->nslabs;
        const ooc_part *pt = &pl->part[p];
        const ooc_slab *s = &pl->slab[k];
        gather_all(pl, g, pt, s, initial, loc);
        run_trapezoid(pl, pt, s, steps, loc);
        for (int j = 0; j < c->n; j++)
            for (int z = s->z0; z < s->z1; z++)
                for (int l = pt->first[0]; l < pt->ncells; l++) {
                    size_t li = (size_t)(z - s->lz0) * (size_t)pt->zstride + (size_t)l;
                    size_t gi = (size_t)z * (size_t)g->zstride + (size_t)pt->gcell[l];
                    bad += !field_same_bits(pl->prec, loc.p[c->in[j]], li, result.p[c->in[j]], gi);
                    (*points)++;
                }
    }
    for (int i = 0; i < stencil_table[pl->stencil].nin + stencil_table[pl->stencil].nout; i++)
        xfree(loc.p[i]);
    return bad;
}

int ooc_cpu_run(const ooc_plan *pl, const ugrid *g, fieldset f, int steps)
{
    if (!plan_fits(pl, g)) {
        perr("out-of-core: the plan was made for another grid");
        return -1;
    }
    if (!ooc_plan_has_coeffs(pl))
        return -1;
    const iter_carry *c = iter_carried(pl->stencil);
    size_t bytes = prec_size(pl->prec) * g->len;
    fieldset cur = f, next = f; /* state read by a pass, state written by it */
    for (int j = 0; j < c->n; j++) {
        next.p[c->in[j]] = field_alloc(pl->prec, g->len);
        memcpy(next.p[c->in[j]], f.p[c->in[j]], bytes); /* points no pass writes */
    }
    /* chunk i in loc[i % 2]: its pieces from the host, then what chunk i + 1 takes from it (its
     * inputs, before its steps) into the other, then its steps */
    fieldset loc[2] = {chunk_alloc(pl), chunk_alloc(pl)};
    int chunks = pl->nparts * pl->nslabs;
    ooc_piece *pc = xalloc(sizeof(ooc_piece) * (size_t)ooc_max_pieces(pl));
    long passes = (steps + pl->F - 1) / pl->F, pass = 0;
    for (int done = 0; done < steps; pass++) {
        int t = steps - done < pl->F ? steps - done : pl->F;
        for (int i = 0; i < chunks; i++) {
            const ooc_part *pt = &pl->part[i / pl->nslabs];
            const ooc_slab *s = &pl->slab[i % pl->nslabs];
            fieldset here = loc[i % 2], there = loc[(i + 1) % 2];
            if (i == 0)
                poison_inputs(pl, i, here);
            gather(pl, g, pt, s, pc, ooc_chunk_pieces(pl, i, pc), cur, here);
            if (i + 1 < chunks) {
                poison_inputs(pl, i + 1, there);
                take_shared(pl, i, here, there);
            }
            run_trapezoid(pl, pt, s, t, here);
            scatter(pl, g, pt, s, here, next);
            progress_update("chunks", (double)(pass * chunks + i + 1), (double)(passes * chunks));
        }
        fieldset swap = cur;
        cur = next;
        next = swap;
        done += t;
    }
    for (int j = 0; j < c->n; j++) {
        int i = c->in[j];
        if (cur.p[i] != f.p[i]) {
            memcpy(f.p[i], cur.p[i], bytes);
            xfree(cur.p[i]);
        } else {
            xfree(next.p[i]);
        }
    }
    for (int i = 0; i < stencil_table[pl->stencil].nin + stencil_table[pl->stencil].nout; i++) {
        xfree(loc[0].p[i]);
        xfree(loc[1].p[i]);
    }
    xfree(pc);
    return 0;
}
