/* test_dist.c — distributed iterated runs without MPI (src/dist/): P ranks in one process
 * (dist_sim_run) equal the in-core iteration bit for bit for every iterated stencil, P = 1, 2,
 * 3, 4, 7, layouts, storages, precisions, generated grids and mesh kinds, F = 1..3 steps between
 * exchanges; fluxdiff with each rank's coefficients on periodic hexagons and triangles, the
 * refined patch and the cubed sphere (file and METIS orders), and caught when they are gathered
 * in the wrong numbering; each rank's cells, ring, interior and lists are checked against the global grid
 * (ugrid_follow, the mesh's lists), not through the plan's own tables; each rank's share made
 * from its rows alone (dist_rank_make_local) in a shuffled local order with other global ids
 * equals the whole-grid one by global id, and broken rows are refused; a graph stencil's
 * graph-twopass lists of each rank are cut at every range a pass launches. With --gpu (built
 * with CUDA; 77 without a device): every rank's part on the one GPU (dist_sim_steps_gpu), the
 * same comparisons, and the graph stencils (graphlap, fluxdiff) also by graph-twopass on P = 2,
 * 3, 4 ranks, F = 1..3. */
#include "check.h"
#include "access/graph_twopass.h"
#include "grids/mesh.h"
#include "src/dist/dist_sim.h"
#include "src/exec/iterate.h"
#ifdef TEST_DIST_CUDA
#include "src/exec/gpu.h"
#endif

#include <string.h>

#define STEPS 5

static const int ranks[] = {1, 2, 3, 4, 7};
#define NRANKS ((int)(sizeof ranks / sizeof ranks[0]))

/* Whether the body at global cell c reads only cells of rank `me` or the grid's halo: every
 * relation it reads followed on the global grid (W/E/S/N), or its neighbours (graph, radius 1:
 * fluxdiff) and theirs (radius 2: graphlap). */
static int reads_own_only(const ugrid *g, stencil_t s, const int *part, int me, int c)
{
    const stencil_info *si = &stencil_table[s];
    if (!si->graph) {
        for (int r = 0; r < NREL2; r++) {
            if (!(si->rels & (1u << r)))
                continue;
            int v = ugrid_follow(g, c, r);
            if (v >= g->nhalo && part[v] != me)
                return 0;
        }
        return 1;
    }
    for (int i = 0; i < g->adjw; i++) {
        int a = g->adj[(size_t)i * g->nxy + c];
        if (a < 0)
            continue;
        if (a >= g->nhalo && part[a] != me)
            return 0;
        for (int k = 0; k < g->adjw && si->radius > 1; k++) {
            int b = g->adj[(size_t)k * g->nxy + a];
            if (b >= g->nhalo && part[b] != me)
                return 0;
        }
    }
    return 1;
}

/* Whether the lists' blocks [gtwopass_block_of(c0), gtwopass_block_of(c1)) own exactly the
 * cells [c0, c1). */
static int whole_blocks(const gtwopass *gp, int c0, int c1)
{
    return gtwopass_block_start(gp, gtwopass_block_of(gp, c0)) == c0 &&
           gtwopass_block_start(gp, gtwopass_block_of(gp, c1)) == c1;
}

/* A rank's graph-twopass lists (dist_rank_lists) for blocks of 32 and 96 threads: they cover
 * [first[F-1], ncells), and every cell range a pass of t <= F steps launches (step 1's interior
 * and boundary, steps 2..t) is whole blocks. */
static void check_gtwopass_cuts(dist_rank *d, const char *what)
{
    const ooc_part *pt = &d->pt;
    for (int nt = 32; nt <= 96; nt += 64) {
        if (dist_rank_lists(d, ACC_GRAPH_TWOPASS, nt) != 0) {
            CHECK(0, "%s: rank %d: no graph-twopass lists for blocks of %d", what, d->rank, nt);
            continue;
        }
        long bad = graph_twopass_lists(pt->lists)->n != pt->ncells - pt->first[d->F - 1] ||
                   gtwopass_block_start(graph_twopass_lists(pt->lists), 0) != pt->first[d->F - 1];
        for (int t = 1; t <= d->F; t++) {
            bad += !whole_blocks(graph_twopass_lists(pt->lists), d->inner0, pt->ncells);
            bad += !whole_blocks(graph_twopass_lists(pt->lists), pt->first[t - 1], d->inner0);
            for (int j = 2; j <= t; j++)
                bad += !whole_blocks(graph_twopass_lists(pt->lists), pt->first[t - j], pt->ncells);
        }
        CHECK(bad == 0, "%s: rank %d, blocks of %d: %ld launch ranges not whole blocks", what,
              d->rank, nt, bad);
    }
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Sorted copy of the global ids of local cells [l0, l1) of rank d. */
static int *gids_sorted(const dist_rank *d, int l0, int l1)
{
    int *v = xalloc(sizeof(int) * (size_t)(l1 > l0 ? l1 - l0 : 1));
    for (int l = l0; l < l1; l++)
        v[l - l0] = d->gid[l];
    qsort(v, (size_t)(l1 - l0), sizeof(int), cmp_int);
    return v;
}

/* A rank's share from its rows alone (dist_rank_make_local) in a shuffled local order, with
 * global ids 3c + 7 instead of grid cells, equals the whole-grid one (ref) by global id: the same
 * bands, interior, boundary, fixed and ring cells, and the same ring cells asked of each owner in
 * the same order. Then L broken three ways is refused with a message naming the cell. */
static void test_local(const problem *pb, const int *part, int n, int r, int F, const dist_rank *ref,
                       const char *what)
{
    const ugrid *g = &pb->ug;
    stencil_t s = pb->s.stencil;
    dist_local L;
    if (dist_local_from_grid(&L, g, part, n, r, s, F) != 0) {
        CHECK(0, "%s: rank %d: dist_local_from_grid", what, r);
        return;
    }
    /* perm: new cell -> old cell, own cells among themselves, the others among themselves */
    int nl = L.nlocal, *perm = xalloc(sizeof(int) * (size_t)nl), *inv = xalloc(sizeof(int) * (size_t)nl);
    uint64_t x = 0x9e3779b97f4a7c15ull + (uint64_t)r;
    for (int l = 0; l < nl; l++)
        perm[l] = l;
    for (int part_ = 0; part_ < 2; part_++) {
        int a = part_ ? L.nown : 0, b = part_ ? nl : L.nown;
        for (int i = b - 1; i > a; i--) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int j = a + (int)(x % (uint64_t)(i - a + 1)), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
    }
    for (int l = 0; l < nl; l++)
        inv[perm[l]] = l;
    dist_local S = L;
    S.gid = xalloc(sizeof(int) * (size_t)nl);
    S.owner = xalloc(sizeof(int) * (size_t)nl);
    for (int l = 0; l < nl; l++) {
        S.gid[l] = 3 * L.gid[perm[l]] + 7;
        S.owner[l] = L.owner[perm[l]];
    }
    S.nbr = S.adj = NULL;
    for (int t = 0; t < 2; t++) {
        const int *in = t ? L.adj : L.nbr;
        int w = t ? L.adjw : NREL1;
        if (!in)
            continue;
        int *out = xalloc(sizeof(int) * (size_t)w * (size_t)nl);
        for (int c = 0; c < w; c++)
            for (int l = 0; l < nl; l++) {
                int v = in[(size_t)c * nl + perm[l]];
                out[(size_t)c * nl + l] = v >= 0 ? inv[v] : -1;
            }
        *(t ? &S.adj : &S.nbr) = out;
    }
    dist_rank d;
    if (dist_rank_make_local(&d, &S, n, r, s, pb->s.prec, pb->s.chasing, pb->s.compressed, F) != 0) {
        CHECK(0, "%s: rank %d: dist_rank_make_local", what, r);
    } else {
        long bad = d.nown != ref->nown || d.pt.ncells != ref->pt.ncells ||
                   d.pt.nfixed != ref->pt.nfixed || d.inner0 != ref->inner0 ||
                   d.edge1 != ref->edge1 ||
                   d.nrecv != ref->nrecv;
        for (int m = 0; m <= F && !bad; m++)
            bad += d.pt.first[m] != ref->pt.first[m];
        for (int l = 0; l < d.pt.ncells && !bad; l++)
            bad += d.gid[l] != S.gid[d.pt.gcell[l]];
        /* the same global ids in every band, the fixed cells, the boundary and the interior
         * (the cells between edge1 and inner0 depend on the order of the rows) */
        int cut[16], nc = 0;
        cut[nc++] = 0;
        for (int m = F; m >= 0 && !bad; m--)
            cut[nc++] = ref->pt.first[m];
        cut[nc++] = ref->edge1;
        cut[nc++] = ref->pt.ncells;
        for (int k = 0; k + 1 < nc && !bad; k++) {
            int *a = gids_sorted(&d, cut[k], cut[k + 1]), *b = gids_sorted(ref, cut[k], cut[k + 1]);
            for (int i = 0; i < cut[k + 1] - cut[k]; i++)
                bad += a[i] != 3 * b[i] + 7;
            xfree(a);
            xfree(b);
        }
        for (int j = 0; j < d.nrecv && !bad; j++) {
            bad += d.rpeer[j] != ref->rpeer[j] || d.rstart[j + 1] != ref->rstart[j + 1];
            for (int i = d.rstart[j]; i < d.rstart[j + 1] && !bad; i++)
                bad += d.gid[d.rcell[i]] != 3 * ref->gid[ref->rcell[i]] + 7;
        }
        CHECK(bad == 0, "%s: rank %d of %d, F = %d: its share from shuffled local rows differs "
              "from the whole grid's", what, r, n, F);
        dist_rank_free(&d);
    }
    /* refusals: a duplicated global id, an owned cell of another rank, a neighbour out of range */
    char msg[256];
    for (int k = 0; k < 3 && nl > 1; k++) {
        int keep_gid = S.gid[nl - 1], keep_owner = S.owner[0];
        int *t = stencil_table[s].graph ? S.adj : S.nbr, keep_nb = t[0];
        if (k == 0)
            S.gid[nl - 1] = S.gid[0];
        else if (k == 1)
            S.owner[0] = n > 1 ? (r + 1) % n : -1;
        else
            t[0] = nl;
        msg[0] = 0;
        perr_capture(msg, sizeof msg);
        int rc = dist_rank_make_local(&d, &S, n, r, s, pb->s.prec, pb->s.chasing, pb->s.compressed, F);
        perr_capture(NULL, 0);
        static const char *const want[] = {"twice", "owned cell", "not a local cell"};
        CHECK(rc == -1 && strstr(msg, want[k]) && strstr(msg, "rank"),
              "%s: rank %d: broken rows (%s) not refused: rc %d '%s'", what, r, want[k], rc, msg);
        if (rc == 0)
            dist_rank_free(&d);
        S.gid[nl - 1] = keep_gid;
        S.owner[0] = keep_owner;
        t[0] = keep_nb;
    }
    /* symmetry (what a part-only read checks of its rows): the part's rows pass; an own cell's
     * neighbour whose row loses it is named, by both global ids */
    if (S.adj) {
        msg[0] = 0;
        perr_capture(msg, sizeof msg);
        int ok = dist_local_symmetric(&S, r, "m.h5", "/cell_neighbours") == 0;
        perr_capture(NULL, 0);
        CHECK(ok, "%s: rank %d: symmetric rows refused: %s", what, r, msg);
        int l = -1, m = -1, at = -1;
        for (int c = 0; c < S.nown && at < 0; c++)
            for (int j = 0; j < S.adjw && at < 0; j++) {
                int v = S.adj[(size_t)j * (size_t)nl + (size_t)c];
                for (int k = 0; v >= 0 && k < S.adjw && at < 0; k++)
                    if (S.adj[(size_t)k * (size_t)nl + (size_t)v] == c)
                        l = c, m = v, at = k;
            }
        if (at >= 0) {
            S.adj[(size_t)at * (size_t)nl + (size_t)m] = -1;
            char want[96];
            snprintf(want, sizeof want, "asymmetric at cell %d: it lists cell %d, but", S.gid[l],
                     S.gid[m]);
            msg[0] = 0;
            perr_capture(msg, sizeof msg);
            int rc = dist_local_symmetric(&S, r, "m.h5", "/cell_neighbours");
            perr_capture(NULL, 0);
            CHECK(rc == -1 && strstr(msg, want) && strstr(msg, "m.h5: /cell_neighbours"),
                  "%s: rank %d: an asymmetric row not refused: rc %d '%s'", what, r, rc, msg);
            S.adj[(size_t)at * (size_t)nl + (size_t)m] = l;
        }
    }
    xfree(perm);
    xfree(inv);
    dist_local_free(&S);
    dist_local_free(&L);
}

/* Each rank of a partition: its own cells are exactly its part, its interior reads nothing of
 * another rank and its boundary does, every ring cell comes from its owner, and what each rank
 * sends another is, cell for cell, what that one receives. */
static void test_ranks(const problem *pb, int n, int F, const char *what)
{
    const ugrid *g = &pb->ug;
    stencil_t s = pb->s.stencil;
    int *part = xalloc(sizeof(int) * (size_t)g->nxy);
    if (ugrid_partition(g, stencil_table[s].graph, n, part) != 0) {
        CHECK(0, "%s: partition into %d", what, n);
        xfree(part);
        return;
    }
    dist_rank *d = xalloc(sizeof(dist_rank) * (size_t)n);
    long owned = 0, bad_own = 0, bad_inner = 0, bad_edge = 0, bad_ring = 0;
    for (int r = 0; r < n; r++) {
        CHECK(dist_rank_make(&d[r], g, &pb->coef, part, n, r, s, pb->s.prec, pb->s.chasing,
                             pb->s.compressed, F) == 0, "%s: rank %d", what, r);
        const ooc_part *pt = &d[r].pt;
        owned += d[r].nown;
        /* the interior starts aligned, at most 31 interior cells after the boundary's end */
        CHECK(d[r].inner0 >= d[r].edge1 && d[r].inner0 - d[r].edge1 < 32 &&
                  (d[r].inner0 % 32 == 0 || d[r].inner0 == pt->ncells),
              "%s: rank %d: boundary ends at %d, interior from %d of %d", what, r, d[r].edge1,
              d[r].inner0, pt->ncells);
        for (int l = pt->first[0]; l < pt->ncells; l++) {
            int c = pt->gcell[l];
            bad_own += part[c] != r;
            if (l >= d[r].edge1)
                bad_inner += !reads_own_only(g, s, part, r, c);
            else
                bad_edge += reads_own_only(g, s, part, r, c);
        }
        for (int j = 0; j < d[r].nrecv; j++)
            for (int i = d[r].rstart[j]; i < d[r].rstart[j + 1]; i++)
                bad_ring += part[pt->gcell[d[r].rcell[i]]] != d[r].rpeer[j] ||
                            d[r].rcell[i] < pt->nfixed || d[r].rcell[i] >= pt->first[0];
        bad_ring += d[r].rstart[d[r].nrecv] != pt->first[0] - pt->nfixed;
    }
    for (int r = 0; r < n; r++)
        test_local(pb, part, n, r, F, &d[r], what);
    if (stencil_table[s].graph)
        for (int r = 0; r < n; r++)
            check_gtwopass_cuts(&d[r], what);
    CHECK(owned == g->nxy - g->nhalo, "%s, %d ranks: %ld cells owned of %d", what, n, owned,
          g->nxy - g->nhalo);
    CHECK(bad_own == 0 && bad_inner == 0 && bad_edge == 0 && bad_ring == 0,
          "%s, %d ranks: %ld own cells of another part, %ld interior cells reading another rank, "
          "%ld boundary cells that do not, %ld ring cells misfiled", what, n, bad_own, bad_inner,
          bad_edge, bad_ring);
    /* the lists, built as the MPI run builds them: receiver's wants -> sender's sends */
    for (int r = 0; r < n; r++) {
        int *want = xalloc(sizeof(int) * (size_t)n), total = 0;
        memset(want, 0, sizeof(int) * (size_t)n);
        for (int q = 0; q < n; q++)
            for (int j = 0; j < d[q].nrecv; j++)
                if (d[q].rpeer[j] == r)
                    total += want[q] = d[q].rstart[j + 1] - d[q].rstart[j];
        int *ids = xalloc(sizeof(int) * (size_t)(total + 1)), at = 0;
        for (int q = 0; q < n; q++)
            for (int j = 0; j < d[q].nrecv; j++)
                if (d[q].rpeer[j] == r)
                    for (int i = d[q].rstart[j]; i < d[q].rstart[j + 1]; i++)
                        ids[at++] = d[q].pt.gcell[d[q].rcell[i]];
        CHECK(dist_rank_sends(&d[r], want, ids) == 0, "%s: sends of rank %d", what, r);
        long bad = 0;
        for (int j = 0, k = 0; j < d[r].nsend; j++)
            for (int i = d[r].sstart[j]; i < d[r].sstart[j + 1]; i++, k++)
                bad += d[r].pt.gcell[d[r].scell[i]] != ids[k];
        CHECK(bad == 0, "%s: rank %d sends %ld cells other than those asked", what, r, bad);
        xfree(want);
        xfree(ids);
    }
    for (int r = 0; r < n; r++)
        dist_rank_free(&d[r]);
    xfree(d);
    xfree(part);
}

/* P ranks in one process == in core, bit for bit, for every P and F = 1..maxf. */
static int use_gpu; /* --gpu: the ranks' parts on the device */

/* dist_sim_run, or its passes on the device with --gpu (strategy gtp ? graph-twopass : the
 * default below). */
static int sim_run(const problem *pb, int P, int F, fieldset f, int gtp)
{
    if (!use_gpu)
        return dist_sim_run(&pb->ug, &pb->coef, pb->s.stencil, pb->s.prec, pb->s.chasing,
                            pb->s.compressed, NULL, P, F, f, STEPS);
    dist_sim sm;
    if (dist_sim_open(&sm, &pb->ug, &pb->coef, pb->s.stencil, pb->s.prec, pb->s.chasing,
                      pb->s.compressed, NULL, P, F) != 0)
        return -1;
    /* idxvar, and zloop on an even number of ranks where it iterates the stencil (a graph
     * stencil's steps run the ELL kernel, idxvar's form only: ooc_launch_prepare) */
    access_t a = ACC_IDXVAR;
#ifdef TEST_DIST_CUDA
    if (P % 2 == 0 && gpu_supports(ACC_ZLOOP, pb->s.stencil) && !stencil_table[pb->s.stencil].graph)
        a = ACC_ZLOOP;
#endif
    if (gtp) /* the ranks' two-pass lists (dist_gpu_open, dist_rank_lists) */
        a = ACC_GRAPH_TWOPASS;
    int rc = dist_sim_steps_gpu(&sm, f, STEPS, a, NULL);
    dist_sim_close(&sm);
    return rc;
}

static int test_runs(const problem *pb, const char *what, int maxf)
{
    fieldset ref = iter_fields_copy(pb);
    iter_run_incore(pb, ref, STEPS);
    long changed = iter_state_differ(pb, ref, pb->uf, NULL);
    CHECK(changed > 0, "%s: %d steps changed nothing", what, STEPS);
    int runs = 0;
    for (int i = 0; i < NRANKS; i++)
        for (int F = 1; F <= maxf; F++) {
            fieldset f = iter_fields_copy(pb);
            int rc = sim_run(pb, ranks[i], F, f, 0);
            long points = 0, bad = rc == 0 ? iter_state_differ(pb, f, ref, &points) : -1;
            CHECK(rc == 0 && bad == 0, "%s, %d ranks, F = %d: %ld of %ld points differ from in core",
                  what, ranks[i], F, bad, points);
            iter_fields_free(pb, &f);
            runs++;
        }
    /* on the GPU, a graph stencil also by graph-twopass: P = 2, 3, 4, F = 1..3 */
    for (int P = 2; use_gpu && stencil_table[pb->s.stencil].graph && P <= 4; P++)
        for (int F = 1; F <= 3; F++) {
            fieldset f = iter_fields_copy(pb);
            int rc = sim_run(pb, P, F, f, 1);
            long points = 0, bad = rc == 0 ? iter_state_differ(pb, f, ref, &points) : -1;
            CHECK(rc == 0 && bad == 0,
                  "%s, graph-twopass, %d ranks, F = %d: %ld of %ld points differ from in core",
                  what, P, F, bad, points);
            iter_fields_free(pb, &f);
            runs++;
        }
    test_ranks(pb, 4, 2, what);
    iter_fields_free(pb, &ref);
    return runs;
}

/* Breaks the interior on purpose: every own cell taken for interior, computed before the ring
 * arrives, which dist_sim_steps poisons first. */
static void break_interior(dist_sim *sm, const problem *pb)
{
    (void)pb;
    for (int r = 0; r < sm->nranks; r++)
        sm->d[r].inner0 = sm->d[r].pt.first[0];
}

/* Gathers every rank's coefficients wrongly on purpose: local cell l given global cell l's (the
 * global numbering where the local one belongs). */
static void break_coeffs(dist_sim *sm, const problem *pb)
{
    size_t es = prec_size(pb->s.prec);
    const coef_set *all = &pb->coef;
    for (int r = 0; r < sm->nranks; r++) {
        coef_set *lc = &sm->d[r].pt.coef;
        for (int i = 0; i < lc->count; i++)
            for (int j = 0; j < lc->width[i]; j++)
                memcpy((char *)lc->a[i] + es * (size_t)j * (size_t)lc->n,
                       (const char *)all->a[i] + es * (size_t)j * (size_t)all->n,
                       es * (size_t)lc->n);
    }
}

/* 3 ranks, F = 2, with the fault `breaks` made in them: the run must then differ from in core,
 * and the same run without it must not. The test can fail; `fault` names what went unnoticed. */
static void test_negative(const problem *pb, void (*breaks)(dist_sim *, const problem *),
                          const char *fault)
{
    fieldset ref = iter_fields_copy(pb);
    iter_run_incore(pb, ref, STEPS);
    for (int broken = 0; broken < 2; broken++) {
        dist_sim sm;
        if (dist_sim_open(&sm, &pb->ug, &pb->coef, pb->s.stencil, pb->s.prec, pb->s.chasing,
                          pb->s.compressed, NULL, 3, 2) != 0) {
            CHECK(0, "negative (%s): open", fault);
            continue;
        }
        if (broken)
            breaks(&sm, pb);
        fieldset f = iter_fields_copy(pb);
        dist_sim_steps(&sm, f, STEPS);
        long bad = iter_state_differ(pb, f, ref, NULL);
        if (broken)
            CHECK(bad > 0, "%s went unnoticed", fault);
        else
            CHECK(bad == 0, "negative control (%s): the unbroken run differs (%ld points)", fault,
                  bad);
        iter_fields_free(pb, &f);
        dist_sim_close(&sm);
    }
    iter_fields_free(pb, &ref);
}

/* A stencil that reads coefficients, given none: refused with a message, nothing made. */
static void test_no_coeffs(const problem *pb)
{
    dist_sim sm;
    char msg[256] = "";
    perr_capture(msg, sizeof msg);
    int rc = dist_sim_open(&sm, &pb->ug, NULL, pb->s.stencil, pb->s.prec, pb->s.chasing,
                           pb->s.compressed, NULL, 2, 1);
    perr_capture(NULL, 0);
    CHECK(rc == -1 && strstr(msg, "distributed run") && strstr(msg, "coefficients"),
          "fluxdiff without coefficients: rc %d '%s'", rc, msg);
}

typedef struct {
    const char *name;
    mesh_gen_spec spec;
    stencil_t stencils[3];
    int nst;
} mesh_case;

int main(int argc, char **argv)
{
    int runs = 0;
    if (argc > 1 && !strcmp(argv[1], "--gpu")) {
#ifdef TEST_DIST_CUDA
        char msg[256];
        if (!gpu_probe(msg, sizeof msg)) {
            printf("test_dist --gpu: skipped: %s\n", msg);
            return 77;
        }
        use_gpu = 1;
#else
        printf("test_dist --gpu: skipped: built without CUDA\n");
        return 77;
#endif
    }
    /* generated grids: every W/E/S/N stencil, layouts, storages, precisions in turn */
    const stencil_t quad[] = {ST_LAPLAP, ST_HDIFF, ST_FASTWAVES, ST_LAP};
    const layout_t layouts[] = {LAYOUT_ZCURVE, LAYOUT_ROWMAJOR, LAYOUT_RANDOM};
    for (int k = 0; k < 4; k++)
        for (int l = 0; l < 3; l++) {
            int v = k * 3 + l;
            problem_spec s = {quad[k], v % 2 ? PREC_FLOAT : PREC_DOUBLE, 23, 19, 5, 2, layouts[l],
                              32, 42 + (uint64_t)v, v % 3 != 1, v % 4 == 0};
            problem pb;
            if (problem_make_lean(&pb, &s, NULL, MESH_ORDER_FILE, 1) != 0) {
                CHECK(0, "problem %d", v);
                continue;
            }
            char what[128];
            snprintf(what, sizeof what, "%s %s %s %s%s", stencil_table[s.stencil].name,
                     prec_name(s.prec), layout_name[s.layout], s.chasing ? "chasing" : "nonchasing",
                     s.compressed ? " compressed" : "");
            runs += test_runs(&pb, what, l == 0 ? 3 : 2);
            if (k == 0 && l == 0 && !use_gpu)
                test_negative(&pb, break_interior,
                              "an interior that reads the ring before it arrives");
            problem_free(&pb);
        }

    /* meshes: quads whose labels turn (cubed sphere, rotated), general meshes with graphlap */
    const mesh_case cases[] = {
        {"cubed sphere", {MESH_CUBED_SPHERE, 0, 0, 6, 4, 0, 1, 0, 0}, {ST_LAPLAP, ST_HDIFF, ST_LAP}, 3},
        {"rotated", {MESH_ROTATED, 16, 14, 0, 4, 6, 1, 0, 0}, {ST_LAPLAP, ST_GRAPHLAP}, 2},
        {"periodic hexagons", {MESH_HEXAGONS, 12, 10, 0, 4, 0, 1, 1, 0}, {ST_GRAPHLAP}, 1},
        {"triangles", {MESH_TRIANGLES, 10, 8, 0, 4, 0, 1, 0, 0}, {ST_GRAPHLAP}, 1},
        {"refined patch", {MESH_REFINED, 15, 15, 0, 4, 0, 1, 0, 5}, {ST_GRAPHLAP}, 1},
    };
    for (size_t m = 0; m < sizeof cases / sizeof cases[0]; m++)
        for (int i = 0; i < cases[m].nst; i++) {
            mesh_order_t order = (mesh_order_t)((m + (size_t)i) % MESH_ORDER_COUNT);
            mesh me;
            if (mesh_generate(&me, &cases[m].spec) != 0) {
                CHECK(0, "%s: generate", cases[m].name);
                continue;
            }
            problem_spec s = {cases[m].stencils[i], i % 2 ? PREC_FLOAT : PREC_DOUBLE, 0, 0, 0, 0,
                              LAYOUT_ROWMAJOR, 16, 7, 1, (int)m % 2};
            problem pb;
            if (problem_make_lean_mesh(&pb, &s, &me, cases[m].name, order, 1) != 0) {
                CHECK(0, "%s: problem", cases[m].name);
                continue;
            }
            char what[128];
            snprintf(what, sizeof what, "%s %s on %s (%s order)", stencil_table[s.stencil].name,
                     prec_name(s.prec), cases[m].name, mesh_order_name[order]);
            runs += test_runs(&pb, what, 2);
            problem_free(&pb);
        }

    /* fluxdiff: each rank carries its cells' coefficients (dist_rank_make, ooc_part_coeffs);
     * closed meshes and a bounded patch, file and METIS orders, both precisions */
    const mesh_case fx[] = {
        {"periodic hexagons", {MESH_HEXAGONS, 12, 10, 0, 4, 0, 1, 1, 0}, {ST_FLUXDIFF}, 1},
        {"periodic triangles", {MESH_TRIANGLES, 10, 8, 0, 4, 0, 1, 1, 0}, {ST_FLUXDIFF}, 1},
        {"refined patch", {MESH_REFINED, 15, 15, 0, 4, 0, 1, 0, 5}, {ST_FLUXDIFF}, 1},
        {"cubed sphere", {MESH_CUBED_SPHERE, 0, 0, 6, 4, 0, 1, 0, 0}, {ST_FLUXDIFF}, 1},
    };
    for (size_t m = 0; m < sizeof fx / sizeof fx[0]; m++)
        for (int o = 0; o < 2; o++) {
            mesh_order_t order = o ? MESH_ORDER_METIS : MESH_ORDER_FILE;
            mesh me;
            if (mesh_generate(&me, &fx[m].spec) != 0) {
                CHECK(0, "%s: generate", fx[m].name);
                continue;
            }
            problem_spec s = {ST_FLUXDIFF, (m + (size_t)o) % 2 ? PREC_FLOAT : PREC_DOUBLE, 0, 0, 0,
                              0, LAYOUT_ROWMAJOR, 16, 7, 1, 0};
            problem pb;
            if (problem_make_lean_mesh(&pb, &s, &me, fx[m].name, order, 1) != 0) {
                CHECK(0, "%s: fluxdiff problem", fx[m].name);
                continue;
            }
            char what[128];
            snprintf(what, sizeof what, "fluxdiff %s on %s (%s order)", prec_name(s.prec),
                     fx[m].name, mesh_order_name[order]);
            runs += test_runs(&pb, what, m == 0 && o == 0 ? 3 : 2);
            if (m == 0 && o == 1 && !use_gpu) {
                test_negative(&pb, break_coeffs,
                              "fluxdiff: coefficients gathered in global cell numbers");
                test_no_coeffs(&pb);
            }
            problem_free(&pb);
        }
    printf("%d distributed runs of %d steps (P = 1, 2, 3, 4, 7%s) equal the in-core iteration\n",
           runs, STEPS, use_gpu ? ", on the GPU" : "");
    return check_done("test_dist");
}
