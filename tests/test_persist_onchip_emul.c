/* test_persist_onchip_emul.c — issue 35, step S1: the schedule of an on-chip persistent launch
 * (notes/issue35-design.md, section 4), emulated on the CPU block by block, against the in-core
 * iteration (iter_run_incore), bit for bit, for laplap, hdiff, lap and graphlap (the schedule of
 * access/persist_onchip.cu). It is a different formulation of their steps:
 *
 * - each block keeps the state of its own cells at its first L levels (the cached levels) in a
 *   local array for the whole run; the other levels stream through the global state, as today;
 * - a step reads a cached level's ring (src/plan/persist_parts.h) from export buffers of the
 *   step's parity, which every block wrote at the previous step (its exports; grid halo cells are
 *   fixed and written once), and writes its own exports to the other parity: the grid barrier's
 *   ping-pong;
 * - pass 1 computes the Laplacian at every own and ring-1 entry from that entry's own row of the
 *   local table; pass 2 the stencil at the own cells from those (laplap; hdiff: the fluxes
 *   across the cell's four edges, limited), then the fold (laplap: state - v/64); the bodies'
 *   20 frame-free relations are never read; lap has ring 1 alone and pass 2 alone;
 * - at the end the cached levels are flushed to the global state.
 *
 * graphlap runs the same schedule along its neighbour lists (parts and rows from the lists; pass 1
 * graphlap.h's Laplacian along each row, pass 2 its outer sum and fold).
 *
 * Cases: the lattice in row-major, z-curve and random order; graphlap on hexagons, triangles, a
 * refined patch and the cubed sphere; 1, 2, 3 and 7 blocks (runs of the order, and METIS's
 * parts); no level, one and every level cached; 1, 2 and 7 steps; double and float. (The local table's relations on
 * the cubed sphere are tested in test_persist_parts.) A mutation (one block's inner ring cells
 * read from the wrong parity) must be caught. */
#include "check.h"
#include "graph_meshes.h"
#include "base/common.h"
#include "grids/mesh.h"
#include "src/exec/iterate.h"
#include "src/exec/problem.h"
#include "src/io/mesh_io.h"
#include "src/plan/persist_parts.h"
#include "stencils/graphlap.h"
#include "stencils/laplap.h"
#include "stencils/stencil.h"

#include <string.h>
#include <unistd.h>

enum { MUTATE_NONE, MUTATE_PARITY };

/* hdiff.h's limiter on values: the flux, zeroed where it runs along hi - lo */
#define EMUL_LIMIT(flux, hi, lo) ((flux) * ((hi) - (lo)) > (T)0 ? (T)0 : (flux))

/* emulate_T(pb, P, f, steps, L, mutate): advances state f (field 0, pb's grid; hdiff's
 * coefficients field 1) by `steps` steps of pb's stencil (laplap, hdiff, lap) on the blocks of P
 * with L cached levels. */
#define EMULATE(TY)                                                                               \
    static void emulate_##TY(const problem *pb, const persist_parts *P, fieldset f, int steps,     \
                             int L, int mutate)                                                   \
    {                                                                                             \
        typedef TY T; /* the type LAPLAP_COMBINE computes in */                                   \
        const ugrid *g = &pb->ug;                                                                 \
        stencil_t st = pb->s.stencil;                                                             \
        const T *coeff = st == ST_HDIFF ? (const T *)f.p[1] : NULL;                               \
        int nz = g->nz, nxy = g->nxy, nb = P->nblocks;                                            \
        long zs = g->zstride;                                                                     \
        T *cur = (T *)f.p[0], *nxt = xalloc(sizeof(T) * g->len);                                  \
        memcpy(nxt, cur, sizeof(T) * g->len);                                                     \
        /* export buffers: a plane of cells a cached level, two parities; all cells start with    \
         * the initial state (the grid halo's values for the whole run) */                        \
        T *xb[2];                                                                                 \
        for (int p = 0; p < 2; p++) {                                                             \
            xb[p] = xalloc(sizeof(T) * (size_t)nxy * (size_t)(L > 0 ? L : 1));                    \
            for (int z = 0; z < L; z++)                                                           \
                memcpy(xb[p] + (size_t)z * nxy, cur + z * zs, sizeof(T) * (size_t)nxy);           \
        }                                                                                         \
        /* each block's cache: own cells x cached levels */                                       \
        T **loc = xalloc(sizeof(T *) * (size_t)nb);                                               \
        for (int b = 0; b < nb; b++) {                                                            \
            int m = P->own0[b + 1] - P->own0[b];                                                  \
            loc[b] = xalloc(sizeof(T) * (size_t)m * (size_t)(L > 0 ? L : 1));                     \
            for (int z = 0; z < L; z++)                                                           \
                for (int j = 0; j < m; j++)                                                       \
                    loc[b][(size_t)z * m + j] = cur[z * zs + P->own[P->own0[b] + j]];             \
        }                                                                                         \
        T *v = xalloc(sizeof(T) * (size_t)P->slots_max), *lap = xalloc(sizeof(T) * (size_t)P->slots_max); \
        int *oslot = xalloc(sizeof(int) * (size_t)nxy); /* an own cell's slot in its block */     \
        for (int b = 0; b < nb; b++)                                                              \
            for (int j = 0; j < P->own0[b + 1] - P->own0[b]; j++)                                 \
                oslot[P->own[P->own0[b] + j]] = j;                                                \
        for (int t = 0; t < steps; t++) {                                                         \
            int par = t & 1;                                                                      \
            for (int b = 0; b < nb; b++) {                                                        \
                int m = P->own0[b + 1] - P->own0[b];                                              \
                int h1 = P->r1start[b + 1] - P->r1start[b], h2 = P->r2start[b + 1] - P->r2start[b]; \
                const int W = P->width;                                                           \
                const uint16_t *tab = P->tab + (size_t)W * P->tstart[b];                          \
                for (int z = 0; z < nz; z++) {                                                    \
                    int cached = z < L;                                                           \
                    /* the level's values at the block's slots */                                  \
                    for (int s = 0; s < m + h1 + h2; s++) {                                       \
                        int c = persist_parts_cell(P, g, b, s);                                   \
                        if (s < m)                                                                \
                            v[s] = cached ? loc[b][(size_t)z * m + s] : cur[z * zs + c];          \
                        else if (cached) {                                                        \
                            int q = mutate == MUTATE_PARITY && b == nb / 2 && c >= g->nhalo       \
                                        ? !par : par;                                             \
                            v[s] = xb[q][(size_t)z * nxy + c];                                     \
                        } else                                                                    \
                            v[s] = cur[z * zs + c];                                               \
                    }                                                                             \
                    /* pass 1: the Laplacian at every own and ring-1 entry, from its own row (the   \
                     * table has no ring-1 rows at depth 1: lap has no pass 1) */                 \
                    for (int e = 0; e < P->tstart[b + 1] - P->tstart[b] && st != ST_LAP; e++) {  \
                        const uint16_t *r = tab + (size_t)W * e;                                  \
                        if (st == ST_GRAPHLAP) { /* graphlap.h's GRAPHLAP_LAP along the row */    \
                            int d = P->deg[P->tstart[b] + e];                                     \
                            T sum = v[r[0]];                                                      \
                            for (int j = 1; j < d; j++)                                           \
                                sum += v[r[j]];                                                   \
                            lap[e] = (T)d * v[e] - sum;                                           \
                        } else                                                                    \
                            lap[e] = LAPLAP_COMBINE(v[e], v[r[0]], v[r[1]], v[r[2]], v[r[3]]);    \
                    }                                                                             \
                    /* pass 2: the stencil at the own cells, folded into the state */             \
                    for (int e = 0; e < m; e++) {                                                 \
                        const uint16_t *r = tab + (size_t)W * e;                                  \
                        int c = P->own[P->own0[b] + e];                                           \
                        T s;                                                                      \
                        if (st == ST_GRAPHLAP) { /* GRAPHLAP_OUTER, then its fold */              \
                            int d = P->deg[P->tstart[b] + e];                                     \
                            T sum = lap[r[0]];                                                    \
                            for (int k = 1; k < d; k++)                                           \
                                sum += lap[r[k]];                                                 \
                            s = v[e] - ((T)d * lap[e] - sum) / (T)GRAPHLAP_DAMPING;               \
                        } else if (st == ST_LAP)                                                  \
                            s = v[e] - LAPLAP_COMBINE(v[e], v[r[0]], v[r[1]], v[r[2]], v[r[3]]) / \
                                           (T)8;                                                  \
                        else if (st == ST_LAPLAP)                                                 \
                            s = v[e] - LAPLAP_COMBINE(lap[e], lap[r[0]], lap[r[1]], lap[r[2]],    \
                                                      lap[r[3]]) / (T)64;                         \
                        else { /* hdiff: the fluxes across c's four edges, hdiff.h's limiter */   \
                            T lc = lap[e], ic = v[e];                                             \
                            T fxc = EMUL_LIMIT(lap[r[1]] - lc, v[r[1]], ic);                      \
                            T fxw = EMUL_LIMIT(lc - lap[r[0]], ic, v[r[0]]);                      \
                            T fyc = EMUL_LIMIT(lap[r[3]] - lc, v[r[3]], ic);                      \
                            T fys = EMUL_LIMIT(lc - lap[r[2]], ic, v[r[2]]);                      \
                            s = ic - coeff[z * zs + c] * (fxc - fxw + fyc - fys);                 \
                        }                                                                         \
                        if (cached)                                                               \
                            loc[b][(size_t)z * m + e] = s;                                        \
                        else                                                                      \
                            nxt[z * zs + c] = s;                                                  \
                    }                                                                             \
                    if (cached) /* the exports, for the next step's rings */                      \
                        for (int i = P->xstart[b]; i < P->xstart[b + 1]; i++) {                   \
                            int c = P->exports[i];                                                \
                            xb[!par][(size_t)z * nxy + c] =                                        \
                                loc[b][(size_t)z * m + oslot[c]];                                 \
                        }                                                                         \
                }                                                                                 \
            }                                                                                     \
            /* the streamed levels: the next state becomes the current one */                    \
            for (int z = L; z < nz; z++)                                                          \
                memcpy(cur + z * zs, nxt + z * zs, sizeof(T) * (size_t)nxy);                      \
        }                                                                                         \
        for (int b = 0; b < nb; b++) { /* the flush */                                            \
            int m = P->own0[b + 1] - P->own0[b];                                                  \
            for (int z = 0; z < L; z++)                                                           \
                for (int j = 0; j < m; j++)                                                       \
                    cur[z * zs + P->own[P->own0[b] + j]] = loc[b][(size_t)z * m + j];             \
            xfree(loc[b]);                                                                        \
        }                                                                                         \
        xfree(loc);                                                                               \
        xfree(oslot);                                                                             \
        xfree(v);                                                                                 \
        xfree(lap);                                                                               \
        xfree(xb[0]);                                                                             \
        xfree(xb[1]);                                                                             \
        xfree(nxt);                                                                               \
    }
EMULATE(double)
EMULATE(float)

/* Runs one case: the emulation against iter_run_incore; returns the points that differ. */
static long one(const problem *pb, int nblocks, int steps, int L, int mutate, int metis)
{
    persist_parts P;
    int depth = pb->s.stencil == ST_LAP ? 1 : 2, lists = pb->s.stencil == ST_GRAPHLAP, rc;
    if (metis) { /* blocks owning METIS's parts: cells scattered over the storage order; 2:
                  * halves of the order to the first and last block, the others empty */
        int *part = xalloc(sizeof(int) * (size_t)pb->ug.nxy), c0 = pb->ug.nhalo;
        rc = 0;
        if (metis == 2)
            for (int c = 0; c < pb->ug.nxy; c++)
                part[c] = c < c0 ? -1 : 2 * (c - c0) < pb->ug.nxy - c0 ? 0 : nblocks - 1;
        else
            rc = ugrid_partition(&pb->ug, lists, nblocks, part);
        rc = rc == 0 ? persist_parts_build_from(&P, &pb->ug, nblocks, depth, part, lists) : -1;
        xfree(part);
    } else
        rc = persist_parts_build_from(&P, &pb->ug, nblocks, depth, NULL, lists);
    if (rc != 0)
        return -1;
    fieldset ref = iter_fields_copy(pb), emu = iter_fields_copy(pb);
    iter_run_incore(pb, ref, steps);
    if (pb->s.prec == PREC_DOUBLE)
        emulate_double(pb, &P, emu, steps, L, mutate);
    else
        emulate_float(pb, &P, emu, steps, L, mutate);
    long bad = iter_state_differ(pb, ref, emu, NULL);
    iter_fields_free(pb, &ref);
    iter_fields_free(pb, &emu);
    persist_parts_free(&P);
    return bad;
}

static void cases(problem *pb, const char *what)
{
    static const int nbs[] = {1, 2, 3, 7}, Ts[] = {1, 2, 7};
    int nz = pb->ug.nz, Ls[] = {0, 1, nz};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 3; k++)
            for (int l = 0; l < 3; l++) {
                long bad = one(pb, nbs[i], Ts[k], Ls[l], MUTATE_NONE, 0);
                CHECK(bad == 0, "%s %s: %d blocks, %d steps, %d of %d levels cached: %ld points "
                      "differ", what, prec_name(pb->s.prec), nbs[i], Ts[k], Ls[l], nz, bad);
                if (nbs[i] > 1 && k == 1) { /* 2 steps, METIS's parts */
                    bad = one(pb, nbs[i], Ts[k], Ls[l], MUTATE_NONE, 1);
                    CHECK(bad == 0, "%s %s: %d METIS blocks, %d steps, %d of %d levels cached: "
                          "%ld points differ", what, prec_name(pb->s.prec), nbs[i], Ts[k], Ls[l],
                          nz, bad);
                }
            }
    /* blocks that own no cell (METIS leaves some parts of a small grid empty) */
    long bad = one(pb, 4, 2, 1, MUTATE_NONE, 2);
    CHECK(bad == 0, "%s %s: 4 blocks, two of them empty: %ld points differ", what,
          prec_name(pb->s.prec), bad);
    /* one block's inner ring cells read from the wrong parity: caught from the second step on */
    bad = one(pb, 3, 2, nz, MUTATE_PARITY, 0);
    CHECK(bad > 0, "%s %s: a ring entry of the wrong parity went unnoticed", what,
          prec_name(pb->s.prec));
}

/* graphlap on meshes of any cells (its parts and rows follow the neighbour lists): hexagons and
 * triangles, bounded and periodic, a refined patch and the cubed sphere, in file order. */
static void graph_meshes(void)
{
    char dir[] = "/tmp/pillar-test-emul-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "a temporary folder");
        return;
    }
    char path[64];
    snprintf(path, sizeof path, "%s/mesh.h5", dir);
    for (int k = 0; k < NGRAPH_CASES; k++)
        for (int prec = 0; prec < 2; prec++) {
            mesh m;
            int ok = mesh_generate(&m, &graph_cases[k].spec) == 0 && mesh_write(path, &m) == 0;
            mesh_free(&m);
            problem_spec s = {ST_GRAPHLAP, (precision_t)prec, 0, 0, 0, 2, LAYOUT_ROWMAJOR, 8, 5,
                              0, 0};
            problem pb;
            if (!ok || problem_make_mesh(&pb, &s, path, MESH_ORDER_FILE) != 0) {
                CHECK(0, "graphlap on %s", graph_cases[k].name);
                continue;
            }
            char what[64];
            snprintf(what, sizeof what, "graphlap %s", graph_cases[k].name);
            cases(&pb, what);
            problem_free(&pb);
        }
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    static const layout_t lays[] = {LAYOUT_ROWMAJOR, LAYOUT_ZCURVE, LAYOUT_RANDOM};
    static const stencil_t sts[] = {ST_LAPLAP, ST_HDIFF, ST_LAP};
    for (int si = 0; si < 3; si++)
        for (int prec = 0; prec < 2; prec++)
            for (int k = 0; k < 3; k++) {
                stencil_t st = sts[si];
                problem_spec s = {st, prec, 37, 29, 5, stencil_table[st].radius, lays[k], 8, 5, 0,
                                  0};
                problem pb;
                if (problem_make(&pb, &s) != 0) {
                    CHECK(0, "problem_make %s", layout_name[lays[k]]);
                    continue;
                }
                char what[64];
                snprintf(what, sizeof what, "%s %s", stencil_table[st].name, layout_name[lays[k]]);
                cases(&pb, what);
                problem_free(&pb);
            }
    graph_meshes();
    return check_done("test_persist_onchip_emul");
}
