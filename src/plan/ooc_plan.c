/* ooc_plan.c — chunks of whole pillars (and slabs of levels) with their halo, each with its own
 * local neighbour table, sized to a device-memory budget. */
#include "ooc_plan.h"

#include "src/exec/iterate.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNREACHED INT_MAX

/* Cells within graph distance `depth` of a set of sources, grown one source at a time by a
 * breadth-first search that stops where it finds no shorter path. */
typedef struct {
    const ugrid *g;
    int graph;    /* walk the neighbour lists g->adj (graph stencils), else W/E/S/N */
    int depth;
    int *dist;    /* per global cell; UNREACHED outside the ball */
    int *touched; /* the cells of the ball, in the order reached */
    int count;
    int *queue;
} ball;

static void ball_init(ball *b, const ugrid *g, stencil_t s, int depth)
{
    b->g = g;
    b->graph = stencil_table[s].graph;
    b->depth = depth;
    b->dist = xalloc(sizeof(int) * (size_t)g->nxy);
    b->touched = xalloc(sizeof(int) * (size_t)g->nxy);
    b->queue = xalloc(sizeof(int) * (size_t)g->nxy);
    for (int c = 0; c < g->nxy; c++)
        b->dist[c] = UNREACHED;
    b->count = 0;
}

static void ball_clear(ball *b)
{
    for (int i = 0; i < b->count; i++)
        b->dist[b->touched[i]] = UNREACHED;
    b->count = 0;
}

static void ball_free(ball *b)
{
    xfree(b->dist);
    xfree(b->touched);
    xfree(b->queue);
}

/* Lowers dist[c] to d (reaching c if new); whether it was lowered. */
static int ball_lower(ball *b, int c, int d)
{
    if (b->dist[c] <= d)
        return 0;
    if (b->dist[c] == UNREACHED)
        b->touched[b->count++] = c;
    b->dist[c] = d;
    return 1;
}

/* Adds source c: the ball grows to the cells within `depth` of c. */
static void ball_add(ball *b, int c)
{
    const ugrid *g = b->g;
    int head = 0, tail = 0;
    if (!ball_lower(b, c, 0))
        return;
    b->queue[tail++] = c;
    while (head < tail) {
        int u = b->queue[head++], d = b->dist[u];
        if (d >= b->depth)
            continue;
        int w = b->graph ? g->adjw : NREL1;
        const int *nb = b->graph ? g->adj : g->nbr;
        for (int r = 0; r < w; r++) {
            int v = nb[(size_t)r * g->nxy + u];
            if (v >= 0 && ball_lower(b, v, d + 1))
                b->queue[tail++] = v;
        }
    }
}

/* ---- sizes ---- */

static long local_zstride(int ncells) { return ((long)ncells + 63) / 64 * 64; }

typedef struct {
    int nf;        /* fields on the device */
    size_t es;     /* bytes per value */
    int nrel;      /* relations in the table (a graph stencil: columns of its lists) */
    int compressed; /* a column more per cell (patterns; a graph stencil's degrees) */
    size_t coef;    /* bytes per cell of the coefficients (stencils/coeffs.h; fluxdiff: r and a
                     * κ per column) */
} chunk_shape;

/* Device bytes of one buffer of a chunk of ncells cells and nlev levels: fields, a table no
 * larger than the uncompressed one (plus the pattern array when compressed), the coefficients
 * of a stencil that reads them (and 4 bytes of alignment), and a share list of at most one entry
 * (2 words) per cell. */
static size_t chunk_bound(const chunk_shape *cs, int ncells, int nlev)
{
    size_t fields = (size_t)cs->nf * cs->es * (size_t)local_zstride(ncells) * (size_t)nlev;
    size_t table = sizeof(int32_t) * (size_t)ncells * (size_t)(cs->nrel + (cs->compressed ? 1 : 0));
    size_t coef = cs->coef ? cs->coef * (size_t)ncells + sizeof(int32_t) : 0;
    return fields + table + coef + 2 * sizeof(int32_t) * (size_t)ncells;
}

static chunk_shape shape_of(const ugrid *g, stencil_t s, precision_t p, int chasing, int compressed)
{
    const stencil_info *si = &stencil_table[s];
    chunk_shape cs = {si->nin + si->nout, prec_size(p), chasing ? NREL1 : NREL2, compressed, 0};
    if (si->graph) {
        cs.nrel = g->adjw;
        cs.compressed = 1;
        cs.coef = coef_desc_cell_bytes(&si->coeffs, p, g->adjw);
    }
    return cs;
}

/* Levels held by a slab of one level. */
static int min_held(stencil_t s, int F, int nz)
{
    int held = 1 + 2 * stencil_table[s].zradius * F;
    return held < nz ? held : nz;
}

/* The largest ball of one inner cell: of every cell on grids up to 2^14 cells, else of 2^14
 * cells spread evenly along the cell order (a ball of depth 64 has ~8000 cells: sampling keeps
 * planning at large F to a second; it only sizes slabs, plan_parts measures every part it makes
 * and ooc_plan_make checks the largest chunk against the budget). */
static int max_single_ball(ball *b)
{
    int most = 0, inner = b->g->nxy - b->g->nhalo;
    int step = inner > (1 << 14) ? inner / (1 << 14) : 1;
    for (int c = b->g->nhalo; c < b->g->nxy; c += step) {
        ball_add(b, c);
        if (b->count > most)
            most = b->count;
        ball_clear(b);
    }
    return most;
}

/* The largest ball of one run of a METIS part (g->part_start). */
static int max_unit_ball(ball *b)
{
    const ugrid *g = b->g;
    int most = 0;
    for (int j = 0; j < g->nparts; j++) {
        for (int c = g->part_start[j]; c < g->part_start[j + 1]; c++)
            ball_add(b, c);
        if (b->count > most)
            most = b->count;
        ball_clear(b);
    }
    return most;
}

/* ---- slabs ---- */

/* Cuts the computed levels [0, zend) into slabs whose chunks of one pillar fit the budget.
 * Returns the number of slabs, or 0 if not even one level fits. */
static int plan_slabs(ooc_plan *pl, const chunk_shape *cs, int maxball, int zr)
{
    int ext = zr * pl->F, levels = 0;
    for (int L = pl->zend; L >= 1; L--) {
        int held = L + 2 * ext < pl->nz ? L + 2 * ext : pl->nz;
        if (OOC_BUFFERS * chunk_bound(cs, maxball, held) <= pl->budget) {
            levels = L;
            break;
        }
    }
    if (levels == 0)
        return 0;
    int n = (pl->zend + levels - 1) / levels;
    pl->slab = xalloc(sizeof(ooc_slab) * (size_t)n);
    for (int k = 0; k < n; k++) {
        ooc_slab *s = &pl->slab[k];
        s->z0 = (int)((long)k * pl->zend / n);
        s->z1 = (int)((long)(k + 1) * pl->zend / n);
        s->lz0 = s->z0 - ext > 0 ? s->z0 - ext : 0;
        s->lz1 = s->z1 + ext < pl->nz ? s->z1 + ext : pl->nz;
    }
    return n;
}

/* ---- parts ---- */

/* A fixed or ring cell of a part, with what orders it: fixed cells (band F + 1) first, then the
 * ring's bands farthest first; in each, the cells the previous part does not hold first. */
typedef struct {
    int cell, dist, band, shared;
} ring_cell;

static int ring_cmp(const void *pa, const void *pb)
{
    const ring_cell *a = pa, *b = pb;
    if (a->band != b->band)
        return b->band - a->band;
    if (a->shared != b->shared)
        return a->shared - b->shared;
    if (a->dist != b->dist)
        return b->dist - a->dist;
    return (a->cell > b->cell) - (a->cell < b->cell);
}

/* What part pt takes from the previous part (prevloc: global cell -> its local cell there, -1
 * where it holds none; NULL for the first part), and the runs of the cells it does not take. */
static void part_share(ooc_part *pt, const int *prevloc)
{
    int n = pt->ncells, own = pt->first[0];
    unsigned char *taken = xalloc((size_t)n);
    for (int l = 0; l < n; l++)
        taken[l] = prevloc && prevloc[pt->gcell[l]] >= 0;
    for (int l = own, e; l < n; l = e) { /* short runs of own cells come from the host */
        for (e = l; e < n && taken[e] == taken[l]; e++)
            ;
        if (taken[l] && e - l < OOC_SHARE_RUN)
            memset(taken + l, 0, (size_t)(e - l));
    }
    pt->nshare = pt->nkeep = 0;
    for (int l = 0; l < n; l++) {
        pt->nshare += taken[l];
        pt->nkeep += !taken[l] && (l == 0 || l == own || taken[l - 1]);
    }
    pt->share_to = xalloc(sizeof(int) * (size_t)pt->nshare);
    pt->share_from = xalloc(sizeof(int) * (size_t)pt->nshare);
    pt->keep = xalloc(2 * sizeof(int) * (size_t)pt->nkeep);
    for (int l = 0, j = 0, r = -1; l < n; l++) {
        if (taken[l]) {
            pt->share_to[j] = l;
            pt->share_from[j++] = prevloc[pt->gcell[l]];
            continue;
        }
        if (l == 0 || l == own || taken[l - 1]) {
            r++;
            pt->keep[2 * r] = l;
            pt->keep[2 * r + 1] = 0;
        }
        pt->keep[2 * r + 1]++;
    }
    xfree(taken);
}

static const int *ring_sort_gcell; /* ring_order_cmp's key (qsort takes no context) */

static int ring_order_cmp(const void *pa, const void *pb)
{
    int a = ring_sort_gcell[*(const int *)pa], b = ring_sort_gcell[*(const int *)pb];
    return (a > b) - (a < b);
}

/* The fixed and ring cells [0, first[0]) by ascending global cell. */
static void part_ring_order(ooc_part *pt)
{
    int n = pt->first[0];
    pt->ring_order = xalloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int l = 0; l < n; l++)
        pt->ring_order[l] = l;
    ring_sort_gcell = pt->gcell;
    qsort(pt->ring_order, (size_t)n, sizeof(int), ring_order_cmp);
    ring_sort_gcell = NULL;
}

/* Numbers the ball of own cells [own0, own1) locally (fixed, ring by band, own), builds the local
 * grid and table, and what the part takes from the previous one (prevloc, see part_share). With
 * `own` set the own cells are own[0 .. own1 - own0) instead, in that order. `loc` is a global ->
 * local map, all -1 on entry and on return. */
static void part_build(ooc_part *pt, const ball *b, int own0, int own1, const int *own, int radius,
                       int F, int chasing, int compressed, int *loc, const int *prevloc)
{
    const ugrid *g = b->g;
    int n = b->count, nown = own1 - own0, nfixed = 0, nheld = 0;
    ring_cell *ring = xalloc(sizeof(ring_cell) * (size_t)n); /* fixed and ring cells */
    for (int i = 0; i < n; i++) {
        int c = b->touched[i], d = b->dist[c], shared = prevloc && prevloc[c] >= 0;
        if (c < g->nhalo) {
            ring[nheld++] = (ring_cell){c, 0, F + 1, shared};
            nfixed++;
        } else if (d > 0) {
            ring[nheld++] = (ring_cell){c, d, (d + radius - 1) / radius, shared};
        }
    }
    qsort(ring, (size_t)nheld, sizeof(ring_cell), ring_cmp);

    memset(pt, 0, sizeof *pt);
    pt->own0 = own0;
    pt->own1 = own1;
    pt->ncells = n;
    pt->nfixed = nfixed;
    pt->zstride = local_zstride(n);
    pt->gcell = xalloc(sizeof(int) * (size_t)n);
    pt->first = xalloc(sizeof(int) * (size_t)(F + 1));
    for (int i = 0; i < nheld; i++)
        pt->gcell[i] = ring[i].cell;
    for (int i = 0; i < nown; i++)
        pt->gcell[nheld + i] = own ? own[i] : own0 + i;
    for (int m = F, i = 0; m >= 0; m--) { /* bands farthest first: first[F] = nfixed */
        while (i < nheld && ring[i].band > m)
            i++;
        pt->first[m] = i;
    }
    xfree(ring);
    part_ring_order(pt);
    part_share(pt, prevloc);

    ugrid *lg = &pt->lg;
    lg->nxy = n;
    lg->nhalo = pt->first[0];
    lg->zstride = pt->zstride;
    int w = b->graph ? g->adjw : NREL1;
    int *lnb = xalloc(sizeof(int) * (size_t)w * (size_t)(n > 0 ? n : 1));
    const int *gnb = b->graph ? g->adj : g->nbr;
    for (int l = 0; l < n; l++)
        loc[pt->gcell[l]] = l;
    for (int l = 0; l < n; l++)
        for (int r = 0; r < w; r++) {
            int v = gnb[(size_t)r * g->nxy + pt->gcell[l]];
            lnb[(size_t)r * n + l] = v >= 0 ? loc[v] : -1;
        }
    for (int l = 0; l < n; l++)
        loc[pt->gcell[l]] = -1;
    if (b->graph) {
        lg->adjw = w;
        lg->adj = lnb;
        ell_build(&pt->ell, lg);
    } else {
        lg->nbr = lnb;
        nbtable_build(&pt->nt, lg, chasing, compressed);
    }
}

/* Grows parts greedily along the cell order while a chunk of nlev levels fits the budget, by
 * whole METIS parts (pl->units) or by cells. */
static void plan_parts(ooc_plan *pl, const ugrid *g, const chunk_shape *cs, ball *b, int nlev,
                       int chasing, int compressed)
{
    int cap = 16, radius = stencil_table[pl->stencil].radius, unit = 0;
    int *loc = xalloc(sizeof(int) * (size_t)g->nxy), *prevloc = xalloc(sizeof(int) * (size_t)g->nxy);
    for (int c = 0; c < g->nxy; c++)
        loc[c] = prevloc[c] = -1;
    pl->part = xalloc(sizeof(ooc_part) * (size_t)cap);
    for (int own0 = g->nhalo; own0 < g->nxy;) {
        int own1 = own0;
        while (own1 < g->nxy) {
            int end = pl->units ? g->part_start[unit + 1] : own1 + 1;
            for (int c = own1; c < end; c++)
                ball_add(b, c);
            if (own1 > own0 && OOC_BUFFERS * chunk_bound(cs, b->count, nlev) > pl->budget)
                break;
            own1 = end;
            unit += pl->units > 0;
        }
        ball_clear(b);
        for (int c = own0; c < own1; c++)
            ball_add(b, c);
        if (pl->nparts == cap) {
            pl->part = xgrow(pl->part, sizeof(ooc_part) * (size_t)cap,
                             sizeof(ooc_part) * (size_t)cap * 2);
            cap *= 2;
        }
        ooc_part *pt = &pl->part[pl->nparts];
        part_build(pt, b, own0, own1, NULL, radius, pl->F, chasing, compressed, loc,
                   pl->nparts > 0 ? prevloc : NULL);
        if (pl->nparts > 0)
            for (int l = 0; l < pt[-1].ncells; l++)
                prevloc[pt[-1].gcell[l]] = -1;
        for (int l = 0; l < pt->ncells; l++)
            prevloc[pt->gcell[l]] = l;
        pl->nparts++;
        ball_clear(b);
        own0 = own1;
    }
    xfree(loc);
    xfree(prevloc);
}

/* ---- sharing ---- */

void ooc_chunk_share(const ooc_plan *pl, int chunk, ooc_share *sh)
{
    memset(sh, 0, sizeof *sh);
    if (!pl->share || chunk <= 0 || chunk >= pl->nparts * pl->nslabs)
        return;
    int p = chunk / pl->nslabs, prev = (chunk - 1) / pl->nslabs;
    const ooc_slab *s = &pl->slab[chunk % pl->nslabs], *ps = &pl->slab[(chunk - 1) % pl->nslabs];
    const ooc_part *pt = &pl->part[p];
    int z0 = s->lz0 > ps->lz0 ? s->lz0 : ps->lz0, z1 = s->lz1 < ps->lz1 ? s->lz1 : ps->lz1;
    int n = prev == p ? pt->ncells : pt->nshare;
    if (z0 >= z1 || n == 0)
        return;
    sh->z0 = z0;
    sh->z1 = z1;
    sh->n = n;
    if (prev != p) {
        sh->to = pt->share_to;
        sh->from = pt->share_from;
    }
}

/* Pieces of all the cells of part pt at levels [z0, z1): fixed and ring cells, own cells. */
static int all_cells(const ooc_part *pt, int z0, int z1, ooc_piece *pc)
{
    int n = 0;
    if (z0 >= z1)
        return 0;
    if (pt->first[0] > 0)
        pc[n++] = (ooc_piece){0, pt->first[0], z0, z1};
    pc[n++] = (ooc_piece){pt->first[0], pt->ncells - pt->first[0], z0, z1};
    return n;
}

int ooc_chunk_pieces(const ooc_plan *pl, int chunk, ooc_piece *pc)
{
    const ooc_part *pt = &pl->part[chunk / pl->nslabs];
    const ooc_slab *s = &pl->slab[chunk % pl->nslabs];
    ooc_share sh;
    ooc_chunk_share(pl, chunk, &sh);
    if (sh.n == 0)
        return all_cells(pt, s->lz0, s->lz1, pc);
    int n = all_cells(pt, s->lz0, sh.z0, pc);
    for (int r = 0; sh.to && r < pt->nkeep; r++)
        pc[n++] = (ooc_piece){pt->keep[2 * r], pt->keep[2 * r + 1], sh.z0, sh.z1};
    return n + all_cells(pt, sh.z1, s->lz1, pc + n);
}

int ooc_max_pieces(const ooc_plan *pl)
{
    int most = 0;
    for (int p = 0; p < pl->nparts; p++)
        if (pl->part[p].nkeep > most)
            most = pl->part[p].nkeep;
    return most + 4;
}

/* Bytes of the share list chunk i carries to the device for chunk i + 1, another part's. */
static size_t carried_list_bytes(const ooc_plan *pl, int chunk)
{
    ooc_share sh;
    ooc_chunk_share(pl, chunk + 1, &sh);
    return sh.to ? 2 * sizeof(int32_t) * (size_t)sh.n : 0;
}

/* ---- the plan ---- */

/* Bytes of what a part's steps read besides the fields: its table, or with K > 1 its balls, or
 * its graph-twopass lists. */
static size_t part_table_bytes(const ooc_plan *pl, const ooc_part *pt)
{
    if (pl->K > 1)
        return tiles_bytes(&pt->tl);
    size_t coef = sizeof(int32_t) * ooc_coeffs_words(pt, pl->stencil, pl->prec);
    if (pt->lists) /* with the table before them where the kernels read both */
        return sizeof(int32_t) * (ooc_part_lists_at(pt) + access_words(pt->lists_a, pt->lists)) +
               coef;
    return (stencil_table[pl->stencil].graph ? ell_bytes(&pt->ell) : nbtable_bytes(&pt->nt)) + coef;
}

size_t ooc_coeffs_words(const ooc_part *pt, stencil_t s, precision_t p)
{
    if (!stencil_table[s].coeffs.n)
        return 0;
    size_t bytes = coef_desc_cell_bytes(&stencil_table[s].coeffs, p, pt->lg.adjw) * (size_t)pt->ncells;
    return 1 + bytes / sizeof(int32_t); /* a word of alignment (8 bytes for double) */
}

int ooc_part_coeffs(ooc_part *pt, stencil_t s, precision_t p, const coef_set *all,
                    const char *who)
{
    const coef_desc *d = &stencil_table[s].coeffs;
    if (!d->n)
        return 0;
    if (!all || all->count != d->n || all->n < 1) {
        perr("%s: %s reads coefficients (stencils/coeffs.h), and the problem has none", who,
             stencil_table[s].name);
        return -1;
    }
    for (int i = 0; i < d->n; i++)
        if (all->width[i] != coef_desc_width(d, i, pt->lg.adjw)) {
            perr("%s: the coefficients' array %d has %d columns, the part's lists %d", who, i,
                 all->width[i], pt->lg.adjw);
            return -1;
        }
    return coef_set_gather(&pt->coef, all, pt->gcell, pt->ncells, p, who);
}

int ooc_plan_coeffs(ooc_plan *pl, const coef_set *all)
{
    for (int p = 0; p < pl->nparts; p++)
        if (ooc_part_coeffs(&pl->part[p], pl->stencil, pl->prec, all, "out-of-core") != 0)
            return -1;
    return 0;
}

int ooc_plan_has_coeffs(const ooc_plan *pl)
{
    if (!stencil_table[pl->stencil].coeffs.n)
        return 1;
    for (int p = 0; p < pl->nparts; p++)
        if (!pl->part[p].coef.count) {
            perr("out-of-core: %s reads coefficients, and the plan's parts have none "
                 "(ooc_plan_coeffs)", stencil_table[pl->stencil].name);
            return 0;
        }
    return 1;
}

size_t ooc_chunk_bytes(const ooc_plan *pl, int part, int slab)
{
    const ooc_part *pt = &pl->part[part];
    const ooc_slab *s = &pl->slab[slab];
    const stencil_info *si = &stencil_table[pl->stencil];
    return (size_t)(si->nin + si->nout) * prec_size(pl->prec) * (size_t)pt->zstride *
               (size_t)(s->lz1 - s->lz0) +
           part_table_bytes(pl, pt) + carried_list_bytes(pl, part * pl->nslabs + slab);
}

static void plan_traffic(ooc_plan *pl)
{
    double es = (double)prec_size(pl->prec), in = stencil_table[pl->stencil].nin * es;
    int ncarry = iter_carried(pl->stencil)->n, chunks = pl->nparts * pl->nslabs;
    ooc_piece *pc = xalloc(sizeof(ooc_piece) * (size_t)ooc_max_pieces(pl));
    pl->max_chunk_bytes = 0;
    pl->h2d_field_bytes = pl->h2d_table_bytes = pl->list_bytes = pl->shared_bytes = pl->d2h_bytes = 0;
    for (int i = 0; i < chunks; i++) {
        const ooc_part *pt = &pl->part[i / pl->nslabs];
        const ooc_slab *s = &pl->slab[i % pl->nslabs];
        size_t bytes = ooc_chunk_bytes(pl, i / pl->nslabs, i % pl->nslabs);
        if (bytes > pl->max_chunk_bytes)
            pl->max_chunk_bytes = bytes;
        int np = ooc_chunk_pieces(pl, i, pc);
        for (int j = 0; j < np; j++)
            pl->h2d_field_bytes += (double)pc[j].n * (pc[j].z1 - pc[j].z0) * in;
        ooc_share sh;
        ooc_chunk_share(pl, i, &sh);
        pl->shared_bytes += (double)sh.n * (sh.z1 - sh.z0) * in;
        pl->h2d_table_bytes += (double)part_table_bytes(pl, pt);
        pl->list_bytes += (double)carried_list_bytes(pl, i);
        pl->d2h_bytes += (double)(pt->own1 - pt->own0) * (s->z1 - s->z0) * ncarry * es;
    }
    xfree(pc);
}

void ooc_plan_share(ooc_plan *pl, int on)
{
    pl->share = on;
    plan_traffic(pl);
}

/* What every plan records first: the stencil, precision, F steps per transfer (one per launch,
 * sharing allowed) and the grid's levels. */
static void plan_head(ooc_plan *pl, const ugrid *g, stencil_t s, precision_t p, int F)
{
    pl->stencil = s;
    pl->prec = p;
    pl->F = F;
    pl->K = 1;
    pl->share = 1;
    pl->nz = g->nz;
    pl->zend = stencil_zend(s, g->nz);
}

/* ooc_plan_make, with its messages unless quiet. */
static int plan_make(ooc_plan *pl, const ugrid *g, stencil_t s, precision_t p, int chasing,
                     int compressed, size_t budget, int F, int quiet)
{
    memset(pl, 0, sizeof *pl);
    const stencil_info *si = &stencil_table[s];
    if (F < 1) {
        if (!quiet)
            perr("out-of-core: %d steps per transfer: need at least 1", F);
        return -1;
    }
    if (g->nhalo >= g->nxy) {
        if (!quiet)
            perr("out-of-core: the grid has no inner cells");
        return -1;
    }
    if (si->graph && !g->adj) {
        if (!quiet)
            perr("out-of-core: %s reads neighbour lists, and this grid has none (not from a mesh "
                 "file)", si->name);
        return -1;
    }
    plan_head(pl, g, s, p, F);
    pl->budget = budget;
    chunk_shape cs = shape_of(g, s, p, chasing, compressed);

    ball b;
    ball_init(&b, g, s, si->radius * F);
    int maxball = max_single_ball(&b);
    pl->nslabs = plan_slabs(pl, &cs, maxball, si->zradius);
    if (pl->nslabs == 0) {
        int held = min_held(s, F, g->nz);
        if (!quiet)
            perr("out-of-core: a device-memory budget of %zu bytes is too small for %s (%s) with %d "
                 "step(s) per transfer: one pillar of one level with its halo (%d cells, %d levels, "
                 "%d fields, %d buffers) needs %zu bytes",
                 budget, si->name, prec_name(p), F, maxball, held, cs.nf, OOC_BUFFERS,
                 OOC_BUFFERS * chunk_bound(&cs, maxball, held));
        ball_free(&b);
        return -1;
    }
    int nlev = 0;
    for (int k = 0; k < pl->nslabs; k++)
        if (pl->slab[k].lz1 - pl->slab[k].lz0 > nlev)
            nlev = pl->slab[k].lz1 - pl->slab[k].lz0;
    if (g->nparts > 0 && OOC_BUFFERS * chunk_bound(&cs, max_unit_ball(&b), nlev) <= budget)
        pl->units = g->nparts;
    plan_parts(pl, g, &cs, &b, nlev, chasing, compressed);
    ball_free(&b);
    plan_traffic(pl);
    if (pl->nparts * pl->nslabs > 1 && OOC_BUFFERS * pl->max_chunk_bytes > budget) {
        if (!quiet)
            perr("out-of-core: a device-memory budget of %zu bytes is too small for %s (%s) with %d "
                 "step(s) per transfer: its largest chunk needs %zu bytes x %d buffers",
                 budget, si->name, prec_name(p), F, pl->max_chunk_bytes, OOC_BUFFERS);
        ooc_plan_free(pl);
        return -1;
    }
    return 0;
}

int ooc_plan_make(ooc_plan *pl, const ugrid *g, stencil_t s, precision_t p, int chasing,
                  int compressed, size_t budget, int F)
{
    return plan_make(pl, g, s, p, chasing, compressed, budget, F, 0);
}

int ooc_kernel_steps(int requested)
{
    return requested > 1 ? requested : 1;
}

int ooc_plan_incore(ooc_plan *pl, const ugrid *g, stencil_t s, precision_t p, int chasing,
                    int compressed, int F)
{
    memset(pl, 0, sizeof *pl);
    if (F < 1 || g->nhalo >= g->nxy || (stencil_table[s].graph && !g->adj)) {
        perr("out-of-core: %s", F < 1              ? "need at least 1 step per transfer"
                                : g->nhalo >= g->nxy ? "the grid has no inner cells"
                                                     : "a graph stencil needs the grid's neighbour lists");
        return -1;
    }
    plan_head(pl, g, s, p, F);
    pl->nparts = pl->nslabs = 1;
    pl->slab = xalloc(sizeof(ooc_slab));
    pl->slab[0] = (ooc_slab){0, pl->zend, 0, g->nz};
    pl->part = xalloc(sizeof(ooc_part));
    ooc_part *pt = &pl->part[0];
    memset(pt, 0, sizeof *pt);
    pt->own0 = g->nhalo;
    pt->own1 = g->nxy;
    pt->ncells = g->nxy;
    pt->nfixed = g->nhalo;
    pt->zstride = local_zstride(g->nxy);
    pt->first = xalloc(sizeof(int) * (size_t)(F + 1));
    for (int m = 0; m <= F; m++)
        pt->first[m] = g->nhalo;
    pt->gcell = xalloc(sizeof(int) * (size_t)g->nxy);
    for (int c = 0; c < g->nxy; c++)
        pt->gcell[c] = c;
    part_ring_order(pt);
    pt->lg.nxy = g->nxy;
    pt->lg.nhalo = g->nhalo;
    pt->lg.zstride = pt->zstride;
    if (stencil_table[s].graph) {
        pt->lg.adjw = g->adjw;
        pt->lg.adj = xalloc(sizeof(int) * (size_t)g->adjw * (size_t)g->nxy);
        memcpy(pt->lg.adj, g->adj, sizeof(int) * (size_t)g->adjw * (size_t)g->nxy);
        ell_build(&pt->ell, &pt->lg);
    } else {
        pt->lg.nbr = xalloc(sizeof(int) * NREL1 * (size_t)g->nxy);
        memcpy(pt->lg.nbr, g->nbr, sizeof(int) * NREL1 * (size_t)g->nxy);
        nbtable_build(&pt->nt, &pt->lg, chasing, compressed);
    }
    plan_traffic(pl);
    pl->budget = pl->max_chunk_bytes;
    return 0;
}

size_t ooc_min_budget(const ugrid *g, stencil_t s, precision_t p, int chasing, int compressed, int F)
{
    chunk_shape cs = shape_of(g, s, p, chasing, compressed);
    ball b;
    ball_init(&b, g, s, stencil_table[s].radius * (F > 0 ? F : 1));
    int maxball = max_single_ball(&b);
    ball_free(&b);
    return OOC_BUFFERS * chunk_bound(&cs, maxball, min_held(s, F, g->nz));
}

int ooc_part_of_cells(ooc_part *pt, const ugrid *g, stencil_t s, int chasing, int compressed,
                      int F, const int *own, int nown)
{
    memset(pt, 0, sizeof *pt);
    if (F < 1 || nown < 1 || (stencil_table[s].graph && !g->adj)) {
        perr("a part: %s", F < 1     ? "need at least 1 step between exchanges"
                           : nown < 1 ? "it owns no cells"
                                      : "a graph stencil needs the grid's neighbour lists");
        return -1;
    }
    for (int i = 0; i < nown; i++)
        if (own[i] < g->nhalo || own[i] >= g->nxy) {
            perr("a part: cell %d is not an inner cell of the grid (%d to %d)", own[i], g->nhalo,
                 g->nxy - 1);
            return -1;
        }
    ball b;
    ball_init(&b, g, s, stencil_table[s].radius * F);
    for (int i = 0; i < nown; i++)
        ball_add(&b, own[i]);
    int *loc = xalloc(sizeof(int) * (size_t)g->nxy);
    for (int c = 0; c < g->nxy; c++)
        loc[c] = -1;
    part_build(pt, &b, 0, nown, own, stencil_table[s].radius, F, chasing, compressed, loc, NULL);
    pt->own0 = pt->own1 = -1;
    xfree(loc);
    ball_free(&b);
    return 0;
}

int ooc_plan_tiles(ooc_plan *pl, int K, int B)
{
    int radius = stencil_table[pl->stencil].radius;
    if (!stencil_table[pl->stencil].ksteps) {
        perr("out-of-core: %s has no K-step kernels", stencil_table[pl->stencil].name);
        return -1;
    }
    if (K > pl->F)
        K = pl->F;
    for (int p = 0; p < pl->nparts; p++) {
        ooc_part *pt = &pl->part[p];
        /* no launch writes below first[F - K] (the first launch of a full pass: its valid
         * region), so blocks start there */
        int (*make)(tiles *, const ugrid *, int, int, int, int, int, const int *) =
            stencil_table[pl->stencil].graph ? tiles_build_lists : tiles_build;
        if (make(&pt->tl, &pt->lg, pt->nfixed, pt->first[pl->F - K], B, K, radius, pt->gcell) != 0)
            return -1;
    }
    pl->K = K;
    plan_traffic(pl);
    if (pl->nparts * pl->nslabs == 1 && pl->max_chunk_bytes > pl->budget)
        pl->budget = pl->max_chunk_bytes;
    return 0;
}

int ooc_part_lists(ooc_part *pt, access_t a, stencil_t s, int F, int nt, const int *more,
                   int nmore)
{
    int ncuts = F - 1 + nmore;
    int *cuts = xalloc(sizeof(int) * (size_t)(ncuts > 0 ? ncuts : 1));
    for (int m = 0; m < F - 1; m++)
        cuts[m] = pt->first[m];
    for (int i = 0; i < nmore; i++)
        cuts[F - 1 + i] = more[i];
    for (int i = 1; i < ncuts; i++) /* ascending, as the lists want them */
        for (int j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
            int swap = cuts[j];
            cuts[j] = cuts[j - 1];
            cuts[j - 1] = swap;
        }
    ugrid view = pt->lg; /* the same lists, the computed cells from first[F-1] on */
    view.nhalo = pt->first[F - 1];
    access_release(pt->lists_a, pt->lists);
    pt->lists = NULL;
    access_prep_in in = {&view, s, nt, cuts, ncuts};
    int rc = access_prepare(a, &in, &pt->lists);
    pt->lists_a = a;
    xfree(cuts);
    return rc;
}

size_t ooc_part_lists_at(const ooc_part *pt)
{
    if (!pt->lists || !access_table[pt->lists_a].prep->beside_table)
        return 0;
    return (nbtable_bytes(&pt->nt) / sizeof(int32_t) + 3) / 4 * 4;
}

int ooc_plan_lists(ooc_plan *pl, access_t a, int nt)
{
    if (pl->K > 1) {
        perr("out-of-core: %s lists are for single steps (%s, K > 1 steps per launch)",
             access_name[a], stencil_table[pl->stencil].name);
        return -1;
    }
    for (int p = 0; p < pl->nparts; p++)
        if (ooc_part_lists(&pl->part[p], a, pl->stencil, pl->F, nt, NULL, 0) != 0)
            return -1;
    if (!pl->part[0].lists)
        return 0; /* a strategy that reads the table */
    pl->lists_bx = nt;
    pl->lists_a = a;
    plan_traffic(pl);
    if (pl->nparts * pl->nslabs == 1 && pl->max_chunk_bytes > pl->budget)
        pl->budget = pl->max_chunk_bytes;
    return 0;
}


int ooc_plan_fits(const ooc_plan *pl, size_t budget)
{
    return pl->nparts * pl->nslabs == 1 || OOC_BUFFERS * pl->max_chunk_bytes <= budget;
}

void ooc_part_free(ooc_part *pt)
{
    xfree(pt->first);
    xfree(pt->gcell);
    xfree(pt->ring_order);
    nbtable_free(&pt->nt);
    ell_free(&pt->ell);
    tiles_free(&pt->tl);
    access_release(pt->lists_a, pt->lists);
    coef_set_free(&pt->coef);
    ugrid_free(&pt->lg);
    xfree(pt->share_to);
    xfree(pt->share_from);
    xfree(pt->keep);
    memset(pt, 0, sizeof *pt);
}

void ooc_plan_free(ooc_plan *pl)
{
    for (int i = 0; i < pl->nparts; i++)
        ooc_part_free(&pl->part[i]);
    xfree(pl->part);
    xfree(pl->slab);
    memset(pl, 0, sizeof *pl);
}

double ooc_h2d_per_step(const ooc_plan *pl)
{
    return (pl->h2d_field_bytes + pl->h2d_table_bytes + pl->list_bytes) / pl->F;
}

double ooc_d2h_per_step(const ooc_plan *pl) { return pl->d2h_bytes / pl->F; }

/* ---- the model ---- */

double ooc_model_step_s(const ooc_plan *pl, const ooc_rates *r)
{
    const stencil_info *si = &stencil_table[pl->stencil];
    double es = (double)prec_size(pl->prec), compute = 0;
    for (int p = 0; p < pl->nparts; p++)
        for (int k = 0; k < pl->nslabs; k++)
            for (int m = 0; m < pl->F; m++)
                compute += (double)(pl->part[p].ncells - pl->part[p].first[m]) *
                           (pl->slab[k].lz1 - pl->slab[k].lz0) * (si->nin + si->nout) * es;
    compute += 2 * pl->shared_bytes; /* what chunks take from the previous one: read, written */
    double in = (pl->h2d_field_bytes + pl->h2d_table_bytes + pl->list_bytes) / r->h2d;
    double out = pl->d2h_bytes / r->d2h, kern = compute / (0.75 * r->dev);
    double pass = in > out ? in : out;
    return (pass > kern ? pass : kern) / pl->F;
}

int ooc_plan_choose(ooc_plan *pl, const ugrid *g, stencil_t s, precision_t p, int chasing,
                    int compressed, size_t budget, int share, int min_f, int max_f,
                    const ooc_rates *r)
{
    if (ooc_plan_make(pl, g, s, p, chasing, compressed, budget, min_f) != 0)
        return -1;
    ooc_plan_share(pl, share);
    double best = ooc_model_step_s(pl, r);
    for (int F = 2 * min_f; F <= max_f; F *= 2) {
        ooc_plan cand;
        if (plan_make(&cand, g, s, p, chasing, compressed, budget, F, 1) != 0)
            break; /* a larger F no longer fits: not an error */
        ooc_plan_share(&cand, share);
        double t = ooc_model_step_s(&cand, r);
        if (t >= 0.95 * best) {
            ooc_plan_free(&cand);
            break;
        }
        ooc_plan_free(pl);
        *pl = cand;
        best = t;
    }
    return 0;
}

void ooc_plan_describe(const ooc_plan *pl, char *buf, size_t n)
{
    double held = 0, own = 0;
    for (int p = 0; p < pl->nparts; p++)
        for (int k = 0; k < pl->nslabs; k++) {
            const ooc_part *pt = &pl->part[p];
            const ooc_slab *s = &pl->slab[k];
            held += (double)pt->ncells * (s->lz1 - s->lz0);
            own += (double)(pt->own1 - pt->own0) * (s->z1 - s->z0);
        }
    snprintf(buf, n,
             "%d chunk(s) = %d part(s) x %d slab(s), %d step(s) per transfer, largest %.3f MB x%d of "
             "%.3f MB; halo overhead %.2fx; per step host->device %.3f MB (tables %.3f MB, share "
             "lists %.3f MB), device->host %.3f MB, shared on the device %.3f MB%s",
             pl->nparts * pl->nslabs, pl->nparts, pl->nslabs, pl->F, pl->max_chunk_bytes / 1e6,
             pl->nparts * pl->nslabs > 1 ? OOC_BUFFERS : 1, pl->budget / 1e6, own > 0 ? held / own : 0.0, ooc_h2d_per_step(pl) / 1e6,
             pl->h2d_table_bytes / pl->F / 1e6, pl->list_bytes / pl->F / 1e6,
             ooc_d2h_per_step(pl) / 1e6, pl->shared_bytes / pl->F / 1e6,
             pl->share ? "" : " (sharing off)");
    size_t len = strlen(buf);
    if (pl->units > 0 && len < n) {
        snprintf(buf + len, n - len, "; parts of whole METIS parts (%d in all)", pl->units);
        len = strlen(buf);
    }
    if (pl->lists_bx > 0 && len < n) {
        snprintf(buf + len, n - len, "; %s lists of blocks of %d threads replace the "
                 "neighbour lists", access_name[pl->lists_a], pl->lists_bx);
        len = strlen(buf);
    }
    if (pl->K > 1 && len < n) {
        int maxball = 0;
        for (int p = 0; p < pl->nparts; p++)
            if (pl->part[p].tl.maxball > maxball)
                maxball = pl->part[p].tl.maxball;
        snprintf(buf + len, n - len, "; %d steps per kernel launch on blocks of %d cells (balls of "
                 "%d cells at most; tables replaced by the balls)", pl->K, pl->part[0].tl.B, maxball);
    }
}
