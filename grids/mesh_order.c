/* mesh_order.c — cell orders of a mesh file: the z-curve of the cells' coordinates, and the
 * choice among the file's order, METIS (metis_order.c) and the z-curve for `--layout`.
 *
 * The z-curve sorts the cells by a Morton key of their coordinates quantised onto a grid of equal
 * steps in every axis (2D keys for 2 coordinates, 3D keys for 3), ties by file index. One case
 * gets a different key: a mesh whose points all lie on one sphere around the origin (the cubed
 * sphere, an imported ICON grid). A 3D Morton curve cuts a sphere into sub-cubes whose pieces of
 * surface are oddly shaped; projecting each point onto the face of the cube it lies under (the
 * axis of its largest coordinate, with its sign) and taking the 2D Morton key of its equiangular
 * position on that face, face by face, is a plain 2D z-curve on each panel of a cubed sphere and
 * a similar one on any other spherical mesh. On a cubed sphere of 6x96² cells it lets a block of
 * 32 (or 512) consecutive cells reach 6.3 blocks through its neighbours against 8.2 (7.7) for the
 * 3D key, and sends 4.2% of the neighbour pairs more than 256 cells apart against 6.0%. */
#include "mesh.h"
#include "morton.h"

#include "../base/common.h"

#include <math.h>
#include <string.h>

const char *const mesh_order_name[MESH_ORDER_COUNT] = {"file", "metis", "zcurve"};

int mesh_order_parse(const char *s, mesh_order_t *out)
{
    for (int i = 0; i < MESH_ORDER_COUNT; i++)
        if (!strcmp(s, mesh_order_name[i])) {
            *out = (mesh_order_t)i;
            return 0;
        }
    return -1;
}

int mesh_on_sphere(const mesh *m)
{
    if (m->ncoord != 3 || !m->coord)
        return 0;
    const double *p = m->coord;
    double r0 = hypot(hypot(p[0], p[1]), p[2]);
    for (int c = 1; c < m->ncells && r0 > 0; c++) {
        p = m->coord + 3 * (size_t)c;
        if (fabs(hypot(hypot(p[0], p[1]), p[2]) - r0) > 1e-6 * r0)
            return 0;
    }
    return r0 > 0;
}

/* t in [0, 1] onto 0..2^bits - 1. */
static uint32_t quantise(double t, int bits) { return (uint32_t)(t * (double)((1u << bits) - 1)); }

/* Key of point p on a sphere around the origin: its cube face (3 bits), then the 2D Morton key
 * of its equiangular position on the face, 30 bits per axis. */
static uint64_t sphere_key(const double *p)
{
    int a = 0;
    for (int k = 1; k < 3; k++)
        if (fabs(p[k]) > fabs(p[a]))
            a = k;
    double quarter = atan(1.0), h = fabs(p[a]);
    double u = atan(p[(a + 1) % 3] / h) / quarter, v = atan(p[(a + 2) % 3] / h) / quarter;
    uint64_t face = (uint64_t)(2 * a + (p[a] < 0));
    return face << 60 | morton2(quantise((u + 1) / 2, 30), quantise((v + 1) / 2, 30));
}

int mesh_zcurve_order(const mesh *m, const char *file, int *order)
{
    int n = m->ncells, dims = m->ncoord;
    if (!m->coord) {
        perr("%s: --layout zcurve orders the cells by their coordinates, but the file has no "
             "/coordinates", file);
        return -1;
    }
    for (size_t i = 0; i < (size_t)n * (size_t)dims; i++)
        if (!isfinite(m->coord[i])) {
            perr("%s: /coordinates: cell %zu has a coordinate that is not finite (%g); --layout "
                 "zcurve needs finite ones", file, i / (size_t)dims, m->coord[i]);
            return -1;
        }
    /* the bounding box in halves, which cannot overflow, and one step for all axes */
    double lo[3], half[3], ext = 0;
    for (int k = 0; k < dims; k++) {
        double a = m->coord[k], b = a;
        for (int c = 1; c < n; c++) {
            double v = m->coord[(size_t)dims * c + k];
            a = v < a ? v : a;
            b = v > b ? v : b;
        }
        lo[k] = a;
        half[k] = b / 2 - a / 2;
        ext = half[k] > ext ? half[k] : ext;
    }
    int sphere = mesh_on_sphere(m), bits = dims == 2 ? 31 : 21;
    cell_key *key = xalloc(sizeof(cell_key) * (size_t)n);
    for (int c = 0; c < n; c++) {
        const double *p = m->coord + (size_t)dims * c;
        uint32_t q[3] = {0, 0, 0};
        for (int k = 0; k < dims && ext > 0; k++)
            q[k] = quantise((p[k] / 2 - lo[k] / 2) / ext, bits);
        key[c].cell = c;
        key[c].key = sphere      ? sphere_key(p)
                     : dims == 2 ? morton2(q[0], q[1])
                                 : morton3(q[0], q[1], q[2]);
    }
    cell_key_sort(key, (size_t)n);
    for (int i = 0; i < n; i++)
        order[i] = key[i].cell;
    xfree(key);
    return 0;
}

int mesh_order_make(const mesh *m, mesh_order_t o, int w, const char *file, int **order,
                    int *parts, int **part)
{
    *order = NULL;
    *parts = 0;
    if (part)
        *part = NULL;
    if (o == MESH_ORDER_FILE)
        return 0;
    *order = xalloc(sizeof(int) * (size_t)m->ncells);
    if (part && o == MESH_ORDER_METIS)
        *part = xalloc(sizeof(int) * (size_t)m->ncells);
    int rc = o == MESH_ORDER_ZCURVE ? mesh_zcurve_order(m, file, *order)
                                    : (*parts = mesh_locality_order(m, w, *order, part ? *part : NULL));
    if (rc < 0) {
        xfree(*order);
        *order = NULL;
        *parts = 0;
        if (part) {
            xfree(*part);
            *part = NULL;
        }
        return -1;
    }
    return 0;
}
