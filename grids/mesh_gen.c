/* mesh_gen.c — generated meshes: a regular patch, the same patch with its cell numbering
 * permuted locally (shuffled), and the same patch with the W/E/S/N labels of some square blocks
 * rotated (rotated). The cubed sphere is in cubed_sphere.c, triangles and hexagons in polygons.c,
 * the locally refined patch in refined.c. */
#include "mesh.h"

#include "../base/common.h"

#include <stdio.h>
#include <string.h>

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* nx x ny patch, row-major numbering, positions and planar coordinates (cell centres). */
static void gen_patch(mesh *m, int nx, int ny)
{
    m->ncells = nx * ny;
    m->nx = nx;
    m->ny = ny;
    m->nbr = xalloc(sizeof(int) * 4 * (size_t)m->ncells);
    m->xy = xalloc(sizeof(int) * 2 * (size_t)m->ncells);
    m->ncoord = 2;
    m->coord = xalloc(sizeof(double) * 2 * (size_t)m->ncells);
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++) {
            int c = y * nx + x;
            m->xy[2 * c] = x;
            m->xy[2 * c + 1] = y;
            m->coord[2 * c] = x + 0.5;
            m->coord[2 * c + 1] = y + 0.5;
            for (int r = 0; r < NREL1; r++) {
                int xx = x + rel_dx[r], yy = y + rel_dy[r];
                int in = xx >= 0 && xx < nx && yy >= 0 && yy < ny;
                m->nbr[4 * c + r] = in ? yy * nx + xx : -1;
            }
        }
}

/* Renumbers cells: new index of old cell c is to[c]. */
static void renumber(mesh *m, const int *to)
{
    int n = m->ncells;
    int *nbr = xalloc(sizeof(int) * 4 * (size_t)n), *xy = xalloc(sizeof(int) * 2 * (size_t)n);
    double *coord = xalloc(sizeof(double) * 2 * (size_t)n);
    for (int c = 0; c < n; c++) {
        int d = to[c];
        for (int r = 0; r < NREL1; r++)
            nbr[4 * d + r] = m->nbr[4 * c + r] < 0 ? -1 : to[m->nbr[4 * c + r]];
        for (int k = 0; k < 2; k++) {
            xy[2 * d + k] = m->xy[2 * c + k];
            coord[2 * d + k] = m->coord[2 * c + k];
        }
    }
    xfree(m->nbr);
    xfree(m->xy);
    xfree(m->coord);
    m->nbr = nbr;
    m->xy = xy;
    m->coord = coord;
}

/* Seeded permutation of each window of w consecutive cell numbers. */
static void shuffle_windows(mesh *m, int w, uint64_t seed)
{
    int n = m->ncells;
    int *to = xalloc(sizeof(int) * (size_t)n);
    uint64_t s = seed;
    for (int c = 0; c < n; c++)
        to[c] = c;
    for (int b = 0; b < n; b += w) {
        int len = n - b < w ? n - b : w;
        for (int i = len - 1; i > 0; i--) {
            int j = (int)((s = mix(s)) % (uint64_t)(i + 1));
            int t = to[b + i];
            to[b + i] = to[b + j];
            to[b + j] = t;
        }
    }
    renumber(m, to);
    xfree(to);
}

/* Relations in counter-clockwise order; a quarter turn moves each label one step on. */
static const int ccw[4] = {R_E, R_N, R_W, R_S};
static const int ccw_pos[4] = {2, 0, 3, 1}; /* position of W, E, S, N in ccw */

/* In every w x w block of the patch, with a seeded choice, the labels of all its cells turn by
 * the same multiple of 90 degrees. Connectivity stays that of the patch; orientation does not,
 * so the patch positions are dropped (the mesh has no regular twin). */
static void rotate_blocks(mesh *m, int w, uint64_t seed)
{
    for (int c = 0; c < m->ncells; c++) {
        int bx = m->xy[2 * c] / w, by = m->xy[2 * c + 1] / w;
        int q = (int)(mix(seed ^ ((uint64_t)bx << 32 | (uint64_t)by)) % 4);
        int old[4];
        memcpy(old, &m->nbr[4 * c], sizeof old);
        for (int r = 0; r < NREL1; r++)
            m->nbr[4 * c + ccw[(ccw_pos[r] + q) % 4]] = old[r];
    }
    xfree(m->xy);
    m->xy = NULL;
    m->nx = m->ny = 0;
}

int mesh_generate(mesh *m, const mesh_gen_spec *s)
{
    memset(m, 0, sizeof *m);
    if (s->nlevels < 1 || s->nlevels > 100000) {
        perr("mesh generate: --levels %d: expected 1 to 100000", s->nlevels);
        return -1;
    }
    if (s->kind == MESH_CUBED_SPHERE)
        return mesh_gen_cubed_sphere(m, s->n, s->nlevels);
    if (s->kind == MESH_TRIANGLES || s->kind == MESH_HEXAGONS)
        return mesh_gen_polygons(m, s);
    if (s->kind == MESH_REFINED)
        return mesh_gen_refined(m, s);
    if (s->nx < 1 || s->ny < 1 || (double)s->nx * s->ny > 1.5e9) {
        perr("mesh generate: --size %dx%d: expected a positive patch of at most 1.5e9 cells", s->nx,
             s->ny);
        return -1;
    }
    if (s->kind != MESH_REGULAR && s->window < 1) {
        perr("mesh generate: --window %d: expected a positive integer", s->window);
        return -1;
    }
    gen_patch(m, s->nx, s->ny);
    m->nlevels = s->nlevels;
    if (s->kind != MESH_SHUFFLED) /* rotating turns labels only: the cells keep their corners */
        mesh_patch_nodes(m);
    switch (s->kind) {
    case MESH_SHUFFLED:
        shuffle_windows(m, s->window, s->seed);
        mesh_patch_nodes(m); /* by the cells' positions after renumbering */
        snprintf(
            m->kind, sizeof m->kind,
            "shuffled: regular %dx%d patch, cell numbers permuted within windows of %d (seed %llu)",
            s->nx, s->ny, s->window, (unsigned long long)s->seed);
        break;
    case MESH_ROTATED:
        rotate_blocks(m, s->window, s->seed);
        snprintf(
            m->kind, sizeof m->kind,
            "rotated: regular %dx%d patch, W/E/S/N turned by 0-3 quarter turns per %dx%d block "
            "(seed %llu)",
            s->nx, s->ny, s->window, s->window, (unsigned long long)s->seed);
        break;
    default:
        snprintf(m->kind, sizeof m->kind, "regular: %dx%d patch, row-major", s->nx, s->ny);
        break;
    }
    return 0;
}
