/* tune.c — the search of `pillar tune`: candidates, pruning, ordering, measuring in budget. */
#include "tune.h"

#include "base/progress.h"
#include "grids/grid.h"
#include "grids/mesh.h"
#include "plan_cache.h"
#include "plan_defaults.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- priors: lower is tried earlier ---- */

/* The built-in plan of p (plan_defaults.h): what a run takes without a tuned plan, the
 * baseline, and what the priors put first. */
static plan_config builtin_of(const tune_problem *p)
{
    plan_config c;
    plan_config_builtin(&p->pr, p->stencil, p->has_coords, p->ncells, &c);
    return c;
}

/* Cell orders in the order worth trying: the built-in plan's, then z-curves, which keep
 * neighbours close in memory; on meshes METIS last (computing it costs most). */
static int order_rank(const tune_problem *p, int order)
{
    if (order == builtin_of(p).order)
        return 0;
    if (plan_emulated(&p->pr))
        return order == LAYOUT_ZCURVE_W ? 1 : order == LAYOUT_ZCURVE ? 2 : 3;
    return order == MESH_ORDER_ZCURVE ? 1 : order == MESH_ORDER_METIS ? 3 : 2;
}

/* The built-in plan's storage first, then compressed tables. */
static int storage_rank(const tune_problem *p, int chasing, int compressed)
{
    plan_config b = builtin_of(p);
    if (chasing == b.chasing && compressed == b.compressed)
        return 0;
    return 1 + !compressed + (chasing ? 2 : 0);
}

/* The built-in plan's strategy first, then those that look indices up once per cell or pillar. */
static int access_rank(const tune_problem *p, access_t a)
{
    if (a == builtin_of(p).access)
        return 0;
    if (stencil_table[p->stencil].graph)
        return a == ACC_IDXVAR || a == ACC_ZLOOP ? 1 : 2;
    return a == ACC_ZLOOP || a == ACC_ZLOOP_SLICED || a == ACC_ZLOOP_PLAIN || a == ACC_IDXVAR ||
                   a == ACC_TWOPASS
               ? 1
               : 2;
}

/* The first zslice a strategy that walks slices is tried with (the run's default, 8;
 * graph-twopass reads its lists once per slice: 32), at most the levels. */
static int first_zslice(const tune_problem *p, access_t a)
{
    if (access_table[a].levels != LEVELS_SLICE)
        return 0;
    int z = a == ACC_GRAPH_TWOPASS ? 32 : 8;
    return z < p->pr.levels ? z : p->pr.levels;
}

/* ---- candidates ---- */

typedef struct {
    tune_candidate *v;
    int n, cap, pruned;
} cand_list;

static void add(cand_list *L, const plan_config *c, double prior, int tier, int parent)
{
    if (L->n == L->cap) {
        int nc = L->cap ? 2 * L->cap : 256;
        L->v = xgrow(L->v, sizeof *L->v * (size_t)L->cap, sizeof *L->v * (size_t)nc);
        L->cap = nc;
    }
    tune_candidate *t = &L->v[L->n++];
    t->c = *c;
    t->prior = prior;
    t->tier = tier;
    t->parent = parent;
}

static int same_config(const plan_config *a, const plan_config *b)
{
    return a->order == b->order && a->chasing == b->chasing && a->compressed == b->compressed &&
           a->access == b->access && a->bx == b->bx && a->by == b->by && a->bz == b->bz &&
           a->zslice == b->zslice && a->kernel_steps == b->kernel_steps;
}

/* Whether order o of p's grid is worth a candidate (heuristics: the random layout is a test of
 * the engine, never fast; a z-curve needs cell coordinates). */
static int order_wanted(const tune_problem *p, int o)
{
    if (plan_emulated(&p->pr))
        return o != LAYOUT_RANDOM;
    return o != MESH_ORDER_ZCURVE || p->has_coords;
}

/* Whether strategy a is worth candidates for p: it has kernels for the stencil (registries), it
 * has iterated runs when p is one, and it is not naive (which looks every neighbour up at every
 * use what idxvar looks up once: never faster). */
static int access_wanted(const tune_problem *p, access_t a)
{
    return access_supports(a, (stencil_t)p->stencil) && (!p->iterated || access_table[a].iterated) &&
           a != ACC_NAIVE;
}

static int log2_distance(int a, int b)
{
    int d = 0;
    for (; a > b; a /= 2)
        d++;
    for (; b > a; b /= 2)
        d++;
    return d;
}

/* How far shape c is from the strategy's first shape, for the order its shapes are tried in:
 * blocks of cells alone (bz = 1, every H100 winner measured) first, then the nearer slices, then
 * the nearer widths. */
static int shape_distance(const plan_config *first, const plan_config *c)
{
    int dz = first->zslice > 0 && c->zslice > 0 ? log2_distance(c->zslice, first->zslice) : 0;
    return (c->bz > 1) * 100 + dz * 10 + log2_distance(c->bx, first->bx);
}

/* The block shapes (and slices) of strategy a beyond its first one: 64 to 512 threads, blocks
 * of cells x levels (the unstructured grid is linear: by = 1), each allowed by its shape rule. */
static void add_shapes(cand_list *L, const tune_problem *p, const plan_config *first, double prior,
                       int parent)
{
    const access_desc *d = &access_table[first->access];
    static const int zs_plain[] = {4, 8, 16, 32, 64}, zs_gtp[] = {16, 32, 64};
    const int *zs = first->access == ACC_GRAPH_TWOPASS ? zs_gtp : zs_plain;
    const int nzs = d->levels != LEVELS_SLICE ? 1 : first->access == ACC_GRAPH_TWOPASS ? 3 : 5;
    const int xmin = d->shape == SHAPE_WARP ? 8 : 32;
    for (int t = 64; t <= 512; t *= 2)
        for (int bx = xmin; bx <= t; bx *= 2) {
            int bz = t / bx;
            char why[200];
            if (d->shape == SHAPE_WARP && bx >= 32) { /* needs several levels a warp */
                L->pruned++;
                continue;
            }
            if ((d->levels == LEVELS_ALL && bz > 1) || bz > 8 || bz > p->pr.levels ||
                !access_shape_ok(first->access, 1, bx, 1, bz, why, sizeof why)) {
                L->pruned++;
                continue;
            }
            for (int k = 0; k < nzs; k++) {
                plan_config c = *first;
                c.bx = bx;
                c.by = 1;
                c.bz = bz;
                c.zslice = d->levels == LEVELS_SLICE ? zs[k] : 0;
                if (c.zslice > p->pr.levels) {
                    L->pruned++;
                    continue;
                }
                if (same_config(&c, first) || (L->n > 0 && same_config(&c, &L->v[0].c)))
                    continue; /* its first shape, or the baseline (the built-in plan) */
                add(L, &c, prior + 1e-5 * shape_distance(first, &c), 2, parent);
            }
        }
}

static int by_prior(const void *a, const void *b)
{
    const tune_candidate *x = a, *y = b;
    return x->prior < y->prior ? -1 : x->prior > y->prior ? 1 : 0;
}

int tune_candidates(const tune_problem *p, tune_candidate **out, int *n, int *pruned)
{
    *out = NULL;
    *n = *pruned = 0;
    if (p->stencil < 0 || p->stencil >= stencil_count()) {
        perr("tune: stencil %d: no such stencil", p->stencil);
        return -1;
    }
    if (stencil_table[p->stencil].graph && plan_emulated(&p->pr)) {
        perr("tune: %s runs on mesh files only", stencil_table[p->stencil].name);
        return -1;
    }
    cand_list L = {0};
    plan_config base = builtin_of(p);
    if (!access_wanted(p, base.access) || !access_supports(base.access, (stencil_t)p->stencil)) {
        perr("tune: the default strategy %s does not run %s", access_name[base.access],
             stencil_table[p->stencil].name);
        return -1;
    }
    add(&L, &base, -1, 0, -1);
    const int norders = plan_emulated(&p->pr) ? LAYOUT_COUNT : MESH_ORDER_COUNT;
    /* tier 1: every order x storage x strategy with the strategy's first shape, grouped by order
     * and storage (each group one relayout of the grid), best groups first */
    for (int o = 0; o < norders; o++)
        for (int st = 0; st < 4; st++)
            for (int a = 0; a < ACC_COUNT; a++) {
                /* a graph stencil reads its neighbour lists, never the W/E/S/N table: the
                 * table's storage changes nothing it runs (only the built-in plan's) */
                if (!order_wanted(p, o) || !access_wanted(p, (access_t)a) ||
                    (stencil_table[p->stencil].graph &&
                     (st >> 1 != base.chasing || (st & 1) != base.compressed))) {
                    L.pruned++;
                    continue;
                }
                plan_config c = base;
                c.order = o;
                c.chasing = st >> 1;
                c.compressed = st & 1;
                c.access = (access_t)a;
                access_default_shape(c.access, 1, &c.bx, &c.by, &c.bz);
                c.zslice = first_zslice(p, c.access);
                char why[200];
                if (c.bz > p->pr.levels || !access_shape_ok(c.access, 1, c.bx, c.by, c.bz, why, sizeof why)) {
                    L.pruned++;
                    continue;
                }
                double group = order_rank(p, o) * 4 + storage_rank(p, c.chasing, c.compressed);
                int parent = L.n;
                if (!same_config(&c, &base))
                    add(&L, &c, group * 10 + access_rank(p, c.access), 1, -1);
                else
                    parent = 0;
                /* tier 2: the other shapes, after every first shape (tune_search reorders them
                 * by what their first shape measured) */
                add_shapes(&L, p, &c, 1000 + group * 10 + access_rank(p, c.access), parent);
            }
    /* stable: equal priors keep their enumeration order */
    for (int i = 0; i < L.n; i++)
        L.v[i].prior += i * 1e-9;
    qsort(L.v, (size_t)L.n, sizeof *L.v, by_prior);
    /* parents moved: find each again by its configuration */
    for (int i = 0; i < L.n; i++) {
        if (L.v[i].tier != 2)
            continue;
        plan_config first = L.v[i].c;
        access_default_shape(first.access, 1, &first.bx, &first.by, &first.bz);
        first.zslice = first_zslice(p, first.access);
        L.v[i].parent = -1;
        for (int j = 0; j < L.n && L.v[j].tier < 2; j++)
            if (same_config(&L.v[j].c, &first))
                L.v[i].parent = j;
    }
    *out = L.v;
    *n = L.n;
    *pruned = L.pruned;
    return 0;
}

/* ---- the search ---- */

static double mono_now(void *ctx)
{
    (void)ctx;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- the search: group by group ----
 *
 * A group is one cell order and table storage: moving to another relays the grid out and
 * uploads it again (seconds on a million cells; a METIS order tens), while a strategy or shape
 * within a group costs one timing. So the search descends group by group:
 *   1. the built-in plan, then every strategy's first shape in its group;
 *   2. one probe in each other group (the best configuration so far, moved there) and, where
 *      the probe comes within TUNE_SHAPE_SPREAD of the best, that group's first shapes too (no
 *      second relayout); another order's other storages only where its first probe came
 *      within TUNE_ORDER_SPREAD (a slow order is slow in every storage);
 *   3. the groups by the best each measured (the unprobed last): their first shapes where not
 *      yet measured, then the shapes of the strategies whose first shape came within
 *      TUNE_SHAPE_SPREAD of the best: at most TUNE_FIRST_VARIANTS a strategy in a first round
 *      over the groups, the rest in a second (the groups sorted again), so that one group's
 *      many shapes do not take the budget before another group's strategy is refined.
 * A move that does not fit the budget is skipped, not the search: a timing in the group at
 * hand may still fit.
 * Within a budget the cheap and likely come first. */

static int same_group(const plan_config *a, const plan_config *b)
{
    return a->order == b->order && a->chasing == b->chasing && a->compressed == b->compressed;
}

#define TUNE_ORDERS 8 /* >= LAYOUT_COUNT and MESH_ORDER_COUNT */

/* The clock of a search. Three kinds of measurement cost differently: a timing in the last
 * one's group, a move to another storage in the same order (the table rebuilt), and a move to
 * another order (the grid relaid out: computing a METIS order dominates). A measurement starts
 * only where the elapsed time plus its estimate fits the budget: a timing the mean of the
 * timings so far; a move the longest of its kind so far (into that order, for an order), else
 * the longest move so far but into METIS orders, and for a METIS order never entered at least
 * TUNE_METIS_S_PER_CELL per cell. The first measurement counts as a move into its order (it set everything up). */
typedef struct {
    const tune_opts *o;
    const tune_problem *p;
    double (*now)(void *);
    double start;
    double t_spent;             /* timings within the last one's group */
    int t_count;
    double store_max;           /* the longest move to another storage, same order */
    double order_max[TUNE_ORDERS]; /* the longest move into each order (0: none yet) */
    double plain_max;           /* the longest move but into a METIS order */
    int measured;
    plan_config last; /* the last measured configuration */
} budget;

enum { TIMING, STORAGE_MOVE, ORDER_MOVE };

static int kind_of(const budget *b, const plan_config *c)
{
    if (b->measured == 0 || b->last.order != c->order)
        return ORDER_MOVE;
    return same_group(&b->last, c) ? TIMING : STORAGE_MOVE;
}

static int is_metis(const budget *b, int order)
{
    return !plan_emulated(&b->p->pr) && order == MESH_ORDER_METIS;
}

/* The seconds measuring c is expected to take. */
static double estimate(const budget *b, const plan_config *c)
{
    int o = c->order >= 0 && c->order < TUNE_ORDERS ? c->order : 0;
    switch (kind_of(b, c)) {
    case TIMING:
        return b->t_count ? b->t_spent / b->t_count : b->plain_max;
    case STORAGE_MOVE:
        return b->store_max > 0 ? b->store_max : b->plain_max;
    default:
        if (b->order_max[o] > 0)
            return b->order_max[o];
        if (is_metis(b, c->order) && b->plain_max < TUNE_METIS_S_PER_CELL * (double)b->p->ncells)
            return TUNE_METIS_S_PER_CELL * (double)b->p->ncells;
        return b->plain_max;
    }
}

/* Whether measuring c fits: the first always does. */
static int fits(const budget *b, const plan_config *c)
{
    if (b->o->max_measure > 0 && b->measured >= b->o->max_measure)
        return 0;
    if (b->o->budget_s <= 0 || b->measured == 0)
        return 1;
    return b->now(b->o->clock_ctx) - b->start + estimate(b, c) <= b->o->budget_s;
}

/* Counts a measurement of c that took dt seconds. */
static void spend(budget *b, const plan_config *c, double dt)
{
    int k = kind_of(b, c), o = c->order >= 0 && c->order < TUNE_ORDERS ? c->order : 0;
    if (k == TIMING) {
        b->t_spent += dt;
        b->t_count++;
    } else {
        double *m = k == STORAGE_MOVE ? &b->store_max : &b->order_max[o];
        *m = dt > *m ? dt : *m;
        if (k == STORAGE_MOVE || !is_metis(b, c->order))
            b->plain_max = dt > b->plain_max ? dt : b->plain_max;
    }
    b->measured++;
    b->last = *c;
}

typedef struct {
    const tune_opts *o;
    tune_measure_fn measure;
    void *ctx;
    const tune_candidate *cand;
    int n;
    budget b;
    tune_result *r;
    int *row_of;   /* candidate -> its row, -1: not measured */
    char *done;    /* candidate measured or pruned by measurement */
    int stopped;   /* the budget ran out */
    double total;  /* for progress: candidates not pruned */
} search;

/* Measures candidate i into the next row (once). 0: measured (or measured before); 1: a move
 * that does not fit the budget, skipped (a later timing may still fit); -1: the budget has run
 * out (a timing does not fit, or the count is reached). */
static int measure_one(search *S, int i)
{
    if (S->done[i])
        return 0;
    if (S->stopped)
        return -1;
    if (!fits(&S->b, &S->cand[i].c)) {
        if (kind_of(&S->b, &S->cand[i].c) != TIMING &&
            (S->o->max_measure <= 0 || S->b.measured < S->o->max_measure))
            return 1;
        S->stopped = 1;
        return -1;
    }
    tune_result *r = S->r;
    tune_row *row = &r->rows[r->nrows];
    row->c = S->cand[i].c;
    row->prior = S->cand[i].prior;
    double t0 = S->b.now(S->o->clock_ctx), ms = 0;
    row->ok = S->measure(&S->cand[i].c, S->ctx, &ms) == 0 && ms > 0;
    row->ms = row->ok ? ms : 0;
    spend(&S->b, &row->c, S->b.now(S->o->clock_ctx) - t0);
    S->row_of[i] = r->nrows++;
    S->done[i] = 1;
    if (row->ok && (r->best < 0 || row->ms < r->rows[r->best].ms))
        r->best = S->row_of[i];
    progress_update("candidates", r->nrows, S->total);
    return 0;
}

typedef struct {
    int cand;
    double key, prior;
} variant;

static int by_key(const void *a, const void *b)
{
    const variant *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->prior < y->prior ? -1 : x->prior > y->prior ? 1 : 0;
}

/* Group g's first shapes (tiers 0 and 1: every strategy's) not measured yet. 0, or -1 when the
 * budget has run out. */
static int group_firsts(search *S, const plan_config *g)
{
    for (int i = 0; i < S->n; i++)
        if (S->cand[i].tier < 2 && same_group(&S->cand[i].c, g) && measure_one(S, i) < 0)
            return -1;
    return 0;
}

/* Group g (any of its candidates' configuration): its first shapes, then the shape variants
 * whose first shape came within TUNE_SHAPE_SPREAD of the best, fastest parent first, at most
 * `per` of each strategy not measured yet (0: all); the others pruned. 0, or -1 when the budget
 * has run out. */
static int search_group(search *S, const plan_config *g, variant *v, int per)
{
    const tune_candidate *cand = S->cand;
    if (group_firsts(S, g) != 0)
        return -1;
    tune_result *r = S->r;
    int nv = 0;
    for (int j = 0; j < S->n; j++) {
        if (cand[j].tier < 2 || S->done[j] || !same_group(&cand[j].c, g))
            continue;
        int pr = cand[j].parent >= 0 ? S->row_of[cand[j].parent] : -1;
        if (pr < 0 || !r->rows[pr].ok || r->best < 0 ||
            r->rows[pr].ms > TUNE_SHAPE_SPREAD * r->rows[r->best].ms) {
            r->pruned++; /* its first shape did not run, or ran too slow */
            S->done[j] = 1;
            S->total--;
            continue;
        }
        v[nv++] = (variant){j, r->rows[pr].ms, cand[j].prior};
    }
    qsort(v, (size_t)nv, sizeof *v, by_key);
    int *taken = xalloc(sizeof(int) * (size_t)S->n); /* shapes taken, by parent */
    memset(taken, 0, sizeof(int) * (size_t)S->n);
    int rc = 0;
    for (int k = 0; k < nv && rc == 0; k++) {
        int parent = cand[v[k].cand].parent;
        if (per > 0 && taken[parent] >= per)
            continue;
        taken[parent]++;
        rc = measure_one(S, v[k].cand) < 0 ? -1 : 0;
    }
    xfree(taken);
    return rc;
}

/* The fastest measured row in candidate i's group, in ms (1e30: none). */
static double group_best(const search *S, int i)
{
    double best = 1e30;
    for (int k = 0; k < S->r->nrows; k++)
        if (S->r->rows[k].ok && same_group(&S->r->rows[k].c, &S->cand[i].c) && S->r->rows[k].ms < best)
            best = S->r->rows[k].ms;
    return best;
}

int tune_search(const tune_problem *p, const tune_opts *o, tune_measure_fn measure, void *ctx,
                tune_result *r)
{
    memset(r, 0, sizeof *r);
    r->best = r->baseline = -1;
    tune_candidate *cand;
    int n, pruned;
    if (tune_candidates(p, &cand, &n, &pruned) != 0)
        return -1;
    r->candidates = n;
    r->pruned = pruned;
    r->rows = xalloc(sizeof *r->rows * (size_t)n);
    search S = {o, measure, ctx, cand, n, {0}, r, xalloc(sizeof(int) * (size_t)n),
                xalloc((size_t)n), 0, n};
    S.b.o = o;
    S.b.p = p;
    S.b.now = o->now ? o->now : mono_now;
    for (int i = 0; i < n; i++) {
        S.row_of[i] = -1;
        S.done[i] = 0;
    }
    S.b.start = S.b.now(o->clock_ctx);
    variant *v = xalloc(sizeof *v * (size_t)n);
    /* the groups, in the order of their first candidate (by prior: the built-in plan's first) */
    int *group = xalloc(sizeof(int) * (size_t)n), ng = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int k = 0; k < ng && !seen; k++)
            seen = same_group(&cand[group[k]].c, &cand[i].c);
        if (!seen)
            group[ng++] = i;
    }
    measure_one(&S, 0); /* the built-in plan: the baseline */
    group_firsts(&S, &cand[0].c);
    /* one probe in each other group: the best configuration so far, moved there; the group's
     * first shapes too where the probe comes near the best. Another order's further storages
     * only where its first probe came within TUNE_ORDER_SPREAD of the best (the others wait for
     * the last round) */
    double order_probe[TUNE_ORDERS]; /* each order's first probe / the best before it; 0: none */
    for (int k = 0; k < TUNE_ORDERS; k++)
        order_probe[k] = 0;
    for (int k = 1; k < ng && !S.stopped; k++) {
        int go = cand[group[k]].c.order, slot = go >= 0 && go < TUNE_ORDERS ? go : 0;
        if (go != cand[0].c.order && order_probe[slot] > TUNE_ORDER_SPREAD)
            continue;
        int at = -1;
        if (r->best >= 0) {
            plan_config want = r->rows[r->best].c;
            want.order = cand[group[k]].c.order;
            want.chasing = cand[group[k]].c.chasing;
            want.compressed = cand[group[k]].c.compressed;
            for (int i = 0; i < n && at < 0; i++)
                if (same_config(&cand[i].c, &want))
                    at = i;
        }
        if (at < 0)
            at = group[k]; /* the best's configuration is no candidate there: the group's first */
        double before = r->best >= 0 ? r->rows[r->best].ms : 0;
        int m = measure_one(&S, at);
        if (m < 0)
            break;
        int row = S.row_of[at];
        if (m == 0 && order_probe[slot] == 0) /* the order's first probe against the best then */
            order_probe[slot] = r->rows[row].ok && before > 0 ? r->rows[row].ms / before : 1e30;
        if (m == 0 && r->rows[row].ok && r->rows[row].ms <= TUNE_SHAPE_SPREAD * r->rows[r->best].ms)
            group_firsts(&S, &cand[group[k]].c);
    }
    /* the groups by the best each measured, each searched through: first at most
     * TUNE_FIRST_VARIANTS shapes a strategy, then (sorted again) the rest */
    variant *order = xalloc(sizeof *order * (size_t)(ng ? ng : 1));
    for (int round = 0; round < 2 && !S.stopped; round++) {
        for (int k = 0; k < ng; k++)
            order[k] = (variant){group[k], group_best(&S, group[k]), cand[group[k]].prior};
        qsort(order, (size_t)ng, sizeof *order, by_key);
        for (int k = 0; k < ng && !S.stopped; k++)
            search_group(&S, &cand[order[k].cand].c, v, round == 0 ? TUNE_FIRST_VARIANTS : 0);
    }
    for (int i = 0; i < n; i++)
        r->out_of_budget += !S.done[i];
    if (r->nrows)
        progress_update("candidates", r->nrows, r->nrows);
    r->elapsed_s = S.b.now(o->clock_ctx) - S.b.start;
    r->baseline = S.row_of[0] >= 0 && r->rows[S.row_of[0]].ok ? S.row_of[0] : -1;
    xfree(order);
    xfree(group);
    xfree(v);
    xfree(S.row_of);
    xfree(S.done);
    xfree(cand);
    if (r->best < 0) {
        perr("tune: none of the %d candidates measured could run", r->nrows);
        return -1;
    }
    return 0;
}

void tune_result_free(tune_result *r)
{
    xfree(r->rows);
    memset(r, 0, sizeof *r);
}

void tune_make_plan(const tune_problem *p, const tune_result *r, plan *out)
{
    memset(out, 0, sizeof *out);
    out->pr = p->pr;
    plan_key(&p->pr, out->key);
    out->c = r->rows[r->best].c;
    out->ms = r->rows[r->best].ms;
    out->default_ms = r->baseline >= 0 ? r->rows[r->baseline].ms : 0;
    plan_now(out->measured);
}
