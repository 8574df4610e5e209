/* layout.c — cell orders of the horizontal plane (rowmajor, zcurve, zcurve-w, random) and the
 * emulated unstructured grid built from them. Halo cells come first, in row-major order. */
#include "grid.h"
#include "morton.h"

#include "../base/common.h"

#include <string.h>

const char *const layout_name[LAYOUT_COUNT] = {"rowmajor", "zcurve", "zcurve-w", "random"};

int layout_parse(const char *s, layout_t *out)
{
    for (int i = 0; i < LAYOUT_COUNT; i++)
        if (strcmp(s, layout_name[i]) == 0) {
            *out = (layout_t)i;
            return 0;
        }
    return -1;
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int log2_exact(int w)
{
    int l = 0;
    while ((1 << l) < w)
        l++;
    return (1 << l) == w ? l : -1;
}

/* Sort key of the inner cell at inner coordinates (xi, yi). */
static uint64_t layout_key(layout_t layout, int lw, int xi, int yi, int nxi)
{
    switch (layout) {
    case LAYOUT_ZCURVE:
        return morton2((uint32_t)xi, (uint32_t)yi);
    case LAYOUT_ZCURVE_W:
        return (morton2((uint32_t)xi >> lw, (uint32_t)yi) << lw) | (uint64_t)(xi & ((1 << lw) - 1));
    default:
        return (uint64_t)yi * (uint64_t)nxi + (uint64_t)xi;
    }
}

int ugrid_emulate(ugrid *g, int nx, int ny, int nz, int halo, layout_t layout, int w, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    int lw = log2_exact(w);
    if (layout == LAYOUT_ZCURVE_W && (lw < 0 || w > 4096)) {
        perr("--zcurve-w %d: the run width must be a power of two from 1 to 4096", w);
        return -1;
    }
    g->nx = nx;
    g->ny = ny;
    g->nz = nz;
    g->halo = halo;
    g->layout = layout;
    g->w = w;
    g->seed = seed;
    g->nxy = nx * ny;
    g->zstride = ((long)g->nxy + 63) / 64 * 64;
    g->len = (size_t)g->zstride * (size_t)nz;
    g->cx = xalloc(sizeof(int) * (size_t)g->nxy);
    g->cy = xalloc(sizeof(int) * (size_t)g->nxy);
    g->cell_at = xalloc(sizeof(int) * (size_t)g->nxy);
    g->nbr = xalloc(sizeof(int) * 4 * (size_t)g->nxy);

    int nxi = nx - 2 * halo, nyi = ny - 2 * halo, c = 0;
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++)
            if (x < halo || x >= nx - halo || y < halo || y >= ny - halo) {
                g->cx[c] = x;
                g->cy[c] = y;
                c++;
            }
    g->nhalo = c;

    int ninner = nxi * nyi;
    cell_key *k = xalloc(sizeof(cell_key) * (size_t)(ninner > 0 ? ninner : 1));
    for (int yi = 0; yi < nyi; yi++)
        for (int xi = 0; xi < nxi; xi++) {
            cell_key *e = &k[yi * nxi + xi];
            e->cell = (yi + halo) * nx + (xi + halo);
            e->key = layout_key(layout, lw, xi, yi, nxi);
        }
    if (layout == LAYOUT_RANDOM) {
        uint64_t s = seed;
        for (int i = ninner - 1; i > 0; i--) {
            int j = (int)(splitmix64(&s) % (uint64_t)(i + 1));
            cell_key t = k[i];
            k[i] = k[j];
            k[j] = t;
        }
    } else {
        cell_key_sort(k, (size_t)ninner);
    }
    for (int i = 0; i < ninner; i++, c++) {
        g->cx[c] = k[i].cell % nx;
        g->cy[c] = k[i].cell / nx;
    }
    xfree(k);

    for (c = 0; c < g->nxy; c++)
        g->cell_at[g->cy[c] * nx + g->cx[c]] = c;
    for (c = 0; c < g->nxy; c++)
        for (int r = 0; r < 4; r++) {
            int x = g->cx[c] + rel_dx[r], y = g->cy[c] + rel_dy[r];
            int inside = x >= 0 && x < nx && y >= 0 && y < ny;
            g->nbr[r * g->nxy + c] = inside ? g->cell_at[y * nx + x] : -1;
        }
    return 0;
}

void ugrid_free(ugrid *g)
{
    xfree(g->cx);
    xfree(g->cy);
    xfree(g->cell_at);
    xfree(g->nbr);
    xfree(g->adj);
    xfree(g->mesh_cell);
    xfree(g->part_start);
    memset(g, 0, sizeof *g);
}

int ugrid_follow(const ugrid *g, int c, int r)
{
    if (r < NREL1)
        return g->nbr[r * g->nxy + c];
    int m = g->nbr[rel_hop1(r) * g->nxy + c];
    return m < 0 ? -1 : g->nbr[rel_hop2(r) * g->nxy + m];
}

void ugrid_regular_copy(const ugrid *g, const rgrid *rg, size_t es, void *u, void *r, int to_reg)
{
    for (int z = 0; z < g->nz; z++)
        for (int c = 0; c < g->nxy; c++) {
            char *pu = (char *)u + ((size_t)c + (size_t)z * (size_t)g->zstride) * es;
            char *pr = (char *)r + (size_t)rgrid_index(rg, g->cx[c], g->cy[c], z) * es;
            memcpy(to_reg ? pr : pu, to_reg ? pu : pr, es);
        }
}
