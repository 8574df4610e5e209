/* quad_meshes.h — quad meshes whose W/E/S/N labels turn, for the tests that check laplap and
 * hdiff on them (test_quad on the CPU, test_gpu and test_ooc_gpu on the device), and the
 * independent references those tests compare with. */
#ifndef PILLAR_QUAD_MESHES_H
#define PILLAR_QUAD_MESHES_H

#include "grids/mesh.h"
#include "base/common.h"
#include "src/exec/problem.h"

#include <math.h>
#include <string.h>

typedef struct {
    const char *name;
    mesh_gen_spec spec;
    int scramble; /* 1: cells renumbered at random, each cell's labels turned and mirrored */
} quad_case;

/* spec: kind, nx, ny, n, nlevels, window, seed, periodic, refine */
static const quad_case quad_cases[] = {
    {"cubed sphere n=1", {MESH_CUBED_SPHERE, 0, 0, 1, 3, 0, 1, 0, 0}, 0},
    {"cubed sphere n=2", {MESH_CUBED_SPHERE, 0, 0, 2, 3, 0, 1, 0, 0}, 0},
    {"cubed sphere n=5", {MESH_CUBED_SPHERE, 0, 0, 5, 4, 0, 1, 0, 0}, 0},
    {"cubed sphere n=24", {MESH_CUBED_SPHERE, 0, 0, 24, 3, 0, 1, 0, 0}, 0},
    {"rotated 37x29", {MESH_ROTATED, 37, 29, 0, 4, 4, 7, 0, 0}, 0},
    {"scrambled 23x19", {MESH_REGULAR, 23, 19, 0, 3, 0, 1, 0, 0}, 1},
};
enum { NQUAD_CASES = sizeof quad_cases / sizeof quad_cases[0] };

static inline uint64_t quad_mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Renumbers the cells of a quad mesh at random and gives each cell its own labelling: its four
 * neighbours turned by 0-3 quarter turns and, for half of the cells, mirrored (W <-> E), so
 * that W stays opposite E and S opposite N locally but no two neighbours need agree. The patch
 * positions and coordinates are dropped. */
static inline void quad_scramble(mesh *m, uint64_t seed)
{
    static const int ccw[4] = {R_E, R_N, R_W, R_S}, pos[4] = {2, 0, 3, 1}; /* pos of W E S N */
    int n = m->ncells, *to = xalloc(sizeof(int) * (size_t)n), *nbr = xalloc(sizeof(int) * 4 * (size_t)n);
    uint64_t s = seed;
    for (int c = 0; c < n; c++)
        to[c] = c;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)((s = quad_mix(s)) % (uint64_t)(i + 1)), t = to[i];
        to[i] = to[j];
        to[j] = t;
    }
    for (int c = 0; c < n; c++) {
        int q = (int)((s = quad_mix(s)) % 4), mirror = (int)((s = quad_mix(s)) % 2);
        for (int r = 0; r < NREL1; r++) {
            int p = (pos[r] + q) % 4, d = m->nbr[4 * c + r];
            int lab = ccw[mirror ? (4 - p) % 4 : p];
            nbr[4 * to[c] + lab] = d < 0 ? -1 : to[d];
        }
    }
    xfree(m->nbr);
    xfree(to);
    m->nbr = nbr;
    xfree(m->xy);
    xfree(m->coord);
    m->xy = NULL;
    m->coord = NULL;
    m->ncoord = m->nx = m->ny = 0;
}

/* Generates case q into m (scrambled if it says so). Returns 0 or -1. */
static inline int quad_case_make(const quad_case *q, mesh *m)
{
    if (mesh_generate(m, &q->spec) != 0)
        return -1;
    if (q->scramble)
        quad_scramble(m, 77);
    return 0;
}

/* lap at grid cell x of a quad-mesh problem, in x's own row order, at level offset zo. */
static inline double quad_lap(const ugrid *g, const double *in, int x, long zo)
{
    double s = in[g->nbr[x] + zo] + in[g->nbr[g->nxy + x] + zo];
    s += in[g->nbr[2 * g->nxy + x] + zo];
    s += in[g->nbr[3 * g->nxy + x] + zo];
    return 4 * in[x + zo] - s;
}

/* Points of the double-precision hdiff output `out` of pb that differ from the edge-based
 * reference by more than a few rounding errors: for each edge (c, n) of an inner cell c,
 * f = lap(n) - lap(c), each lap from that cell's own neighbours, f = 0 when
 * f·(in(n) - in(c)) > 0, and out = in - coeff·Σ f, summed over the edges W, E, S, N of c. */
static inline long hdiff_edge_reference_differ(const problem *pb, const void *outp)
{
    const ugrid *g = &pb->ug;
    const double *in = pb->uf.p[0], *coeff = pb->uf.p[1], *out = outp;
    long bad = 0;
    for (int z = 0; z < g->nz; z++)
        for (int c = g->nhalo; c < g->nxy; c++) {
            long zo = (long)z * g->zstride;
            double lc = quad_lap(g, in, c, zo), sum = 0, mag = 0;
            for (int r = 0; r < NREL1; r++) {
                int n = g->nbr[r * g->nxy + c];
                double f = quad_lap(g, in, n, zo) - lc;
                if (f * (in[n + zo] - in[c + zo]) > 0)
                    f = 0;
                sum += f;
                mag += fabs(f);
            }
            double ref = in[c + zo] - coeff[c + zo] * sum;
            double tol = 8 * 2.3e-16 * (fabs(in[c + zo]) + fabs(coeff[c + zo]) * mag);
            bad += !(fabs(out[c + zo] - ref) <= tol);
        }
    return bad;
}

#endif
