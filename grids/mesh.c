/* mesh.c — checking a mesh, its halo and the unstructured grid built from it. */
#include "mesh.h"

#include "../base/common.h"

#include <stdio.h>
#include <string.h>

const char *const mesh_kind_name[MESH_KIND_COUNT] = {"regular", "cubed-sphere", "shuffled",
                                                     "rotated", "triangles", "hexagons",
                                                     "refined"};

void mesh_free(mesh *m)
{
    xfree(m->nbr);
    xfree(m->adj);
    xfree(m->sides);
    xfree(m->coord);
    xfree(m->xy);
    xfree(m->part);
    xfree(m->node_coord);
    xfree(m->cell_nodes);
    memset(m, 0, sizeof *m);
}

/* Whether cell d has c among its neighbours. */
static int lists(const mesh *m, int d, int c)
{
    const int *row = mesh_row(m, d);
    for (int j = 0; j < mesh_width(m); j++)
        if (row[j] == c)
            return 1;
    return 0;
}

int mesh_complete(const mesh *m, int c)
{
    const int *row = mesh_row(m, c);
    for (int j = 0; j < mesh_sides(m, c); j++)
        if (row[j] < 0)
            return 0;
    return 1;
}

static int check_patch(const mesh *m, char *err, size_t n)
{
    long area = (long)m->nx * m->ny;
    if (m->nx < 1 || m->ny < 1 || area != m->ncells) {
        snprintf(err, n, "/patch_xy: attributes nx=%d ny=%d do not cover the %d cells", m->nx,
                 m->ny, m->ncells);
        return -1;
    }
    int *at = xalloc(sizeof(int) * (size_t)area);
    memset(at, 0xff, sizeof(int) * (size_t)area);
    int rc = 0;
    for (int c = 0; c < m->ncells && rc == 0; c++) {
        int x = m->xy[2 * c], y = m->xy[2 * c + 1];
        if (x < 0 || x >= m->nx || y < 0 || y >= m->ny) {
            snprintf(err, n, "/patch_xy: cell %d at (%d,%d) lies outside the %dx%d patch", c, x, y,
                     m->nx, m->ny);
            rc = -1;
        } else if (at[y * m->nx + x] >= 0) {
            snprintf(err, n, "/patch_xy: cells %d and %d both lie at (%d,%d)", at[y * m->nx + x], c,
                     x, y);
            rc = -1;
        } else {
            at[y * m->nx + x] = c;
        }
    }
    for (int c = 0; c < m->ncells && rc == 0; c++)
        for (int r = 0; r < NREL1 && rc == 0; r++) {
            int x = m->xy[2 * c] + rel_dx[r], y = m->xy[2 * c + 1] + rel_dy[r];
            int want = (x >= 0 && x < m->nx && y >= 0 && y < m->ny) ? at[y * m->nx + x] : -1;
            if (m->nbr[4 * c + r] != want) {
                snprintf(err, n,
                         "/patch_xy: cell %d at (%d,%d) has %s = %d, but the patch puts %d "
                         "there",
                         c, m->xy[2 * c], m->xy[2 * c + 1], rel_name[r], m->nbr[4 * c + r], want);
                rc = -1;
            }
        }
    xfree(at);
    return rc;
}

/* W/E/S/N entries: -1 or a cell other than c itself, no cell twice in a row (a quad has four
 * edges, each with its own neighbour). */
static int check_quad(const mesh *m, char *err, size_t n)
{
    for (int c = 0; c < m->ncells; c++)
        for (int r = 0; r < NREL1; r++) {
            for (int q = 0; q < r; q++)
                if (m->nbr[4 * c + r] >= 0 && m->nbr[4 * c + q] == m->nbr[4 * c + r]) {
                    snprintf(err, n, "/neighbours: cell %d lists cell %d twice (%s and %s)", c,
                             m->nbr[4 * c + r], rel_name[q], rel_name[r]);
                    return -1;
                }
            int d = m->nbr[4 * c + r];
            if (d < -1 || d >= m->ncells) {
                snprintf(err, n, "/neighbours: cell %d: %s = %d is out of range (-1 or 0..%d)", c,
                         rel_name[r], d, m->ncells - 1);
                return -1;
            }
            if (d == c) {
                snprintf(err, n, "/neighbours: cell %d is its own %s neighbour", c, rel_name[r]);
                return -1;
            }
        }
    return 0;
}

/* Rows of a general mesh: edge counts in 1..maxdeg, entries -1 or another cell, -1 past the
 * cell's edges, no cell twice in a row. */
static int check_general(const mesh *m, char *err, size_t n)
{
    if (m->maxdeg < 1 || m->maxdeg > MESH_MAXDEG) {
        snprintf(err, n, "/cell_neighbours: %d columns; expected 1 to %d", m->maxdeg, MESH_MAXDEG);
        return -1;
    }
    for (int c = 0; c < m->ncells; c++) {
        int sides = mesh_sides(m, c);
        if (sides < 1 || sides > m->maxdeg) {
            snprintf(err, n, "/cell_sides: cell %d has %d edges; expected 1 to %d", c, sides,
                     m->maxdeg);
            return -1;
        }
        const int *row = mesh_row(m, c);
        for (int j = 0; j < m->maxdeg; j++) {
            int d = row[j];
            if (d < -1 || d >= m->ncells) {
                snprintf(err, n,
                         "/cell_neighbours: cell %d: column %d = %d is out of range (-1 or 0..%d)",
                         c, j, d, m->ncells - 1);
                return -1;
            }
            if (d == c) {
                snprintf(err, n, "/cell_neighbours: cell %d is its own neighbour (column %d)", c, j);
                return -1;
            }
            if (j >= sides && d >= 0) {
                snprintf(err, n,
                         "/cell_neighbours: cell %d: column %d = %d lies past its %d edges "
                         "(/cell_sides); expected -1",
                         c, j, d, sides);
                return -1;
            }
            for (int i = 0; i < j && d >= 0; i++)
                if (row[i] == d) {
                    snprintf(err, n,
                             "/cell_neighbours: cell %d lists cell %d twice (columns %d and %d)", c,
                             d, i, j);
                    return -1;
                }
        }
    }
    return 0;
}

/* Symmetry: if d is a neighbour of c, c is one of d's. */
static int check_symmetric(const mesh *m, char *err, size_t n)
{
    for (int c = 0; c < m->ncells; c++) {
        const int *row = mesh_row(m, c);
        for (int j = 0; j < mesh_width(m); j++) {
            int d = row[j];
            if (d >= 0 && !lists(m, d, c)) {
                char rel[32];
                if (m->adj)
                    snprintf(rel, sizeof rel, "column %d", j);
                else
                    snprintf(rel, sizeof rel, "%s", rel_name[j]);
                snprintf(err, n,
                         "%s: asymmetric at cell %d: %s = %d, but cell %d does not list %d among "
                         "its neighbours",
                         mesh_nbr_name(m), c, rel, d, d, c);
                return -1;
            }
        }
    }
    return 0;
}

int mesh_check(const mesh *m, char *err, size_t n)
{
    if (m->ncells <= 0) {
        snprintf(err, n, "%s: the mesh has no cells", mesh_nbr_name(m));
        return -1;
    }
    if (m->nlevels < 1) {
        snprintf(err, n, "attribute nlevels = %d: a mesh needs at least 1 level", m->nlevels);
        return -1;
    }
    if ((m->adj ? check_general(m, err, n) : check_quad(m, err, n)) != 0 ||
        check_symmetric(m, err, n) != 0)
        return -1;
    if (m->adj && m->xy) {
        snprintf(err, n, "/patch_xy: a regular patch is a quad mesh (/neighbours), not a general "
                         "one (/cell_neighbours)");
        return -1;
    }
    if (m->coord && m->ncoord != 2 && m->ncoord != 3) {
        snprintf(err, n, "/coordinates: %d components per cell; expected 2 or 3", m->ncoord);
        return -1;
    }
    if (m->xy && check_patch(m, err, n) != 0)
        return -1;
    if (mesh_check_nodes(m, err, n) != 0)
        return -1;
    if (m->part) {
        if (m->nparts < 1 || m->nparts > m->ncells) {
            snprintf(err, n, "/partition: attribute nparts = %d; expected 1 to the %d cells",
                     m->nparts, m->ncells);
            return -1;
        }
        for (int c = 0; c < m->ncells; c++)
            if (m->part[c] < 0 || m->part[c] >= m->nparts) {
                snprintf(err, n, "/partition: cell %d is in part %d, not in 0..%d", c, m->part[c],
                         m->nparts - 1);
                return -1;
            }
    }
    return 0;
}

void mesh_histogram(const mesh *m, long hist[MESH_MAXDEG + 1])
{
    memset(hist, 0, (MESH_MAXDEG + 1) * sizeof hist[0]);
    for (int c = 0; c < m->ncells; c++) {
        const int *row = mesh_row(m, c);
        int k = 0;
        for (int j = 0; j < mesh_width(m); j++)
            k += row[j] >= 0;
        hist[k]++;
    }
}

static int mesh_follow(const mesh *m, int c, int r)
{
    if (r < NREL1)
        return m->nbr[4 * c + r];
    int d = m->nbr[4 * c + rel_hop1(r)];
    return d < 0 ? -1 : m->nbr[4 * d + rel_hop2(r)];
}

int mesh_graph_halo(const mesh *m, int radius, unsigned char *halo)
{
    int count = 0;
    for (int c = 0; c < m->ncells; c++)
        halo[c] = !mesh_complete(m, c);
    if (radius >= 2) { /* then also the cells next to an incomplete one */
        unsigned char *open = xalloc((size_t)m->ncells);
        memcpy(open, halo, (size_t)m->ncells);
        for (int c = 0; c < m->ncells; c++) {
            const int *row = mesh_row(m, c);
            for (int j = 0; j < mesh_width(m) && !halo[c]; j++)
                halo[c] = row[j] >= 0 && open[row[j]];
        }
        xfree(open);
    }
    for (int c = 0; c < m->ncells; c++)
        count += halo[c];
    return count;
}

int mesh_halo(const mesh *m, int radius, unsigned char *halo)
{
    if (m->adj)
        return mesh_graph_halo(m, radius, halo);
    int nrel = radius >= 2 ? NREL2 : NREL1, count = 0;
    for (int c = 0; c < m->ncells; c++) {
        halo[c] = 0;
        for (int r = 0; r < nrel && !halo[c]; r++)
            halo[c] = mesh_follow(m, c, r) < 0;
        count += halo[c];
    }
    return count;
}

void ugrid_from_mesh(ugrid *g, const mesh *m, int radius, int nz, const int *order)
{
    unsigned char *halo = xalloc((size_t)m->ncells);
    mesh_halo(m, radius, halo);
    ugrid_from_mesh_halo(g, m, halo, radius, nz, order);
    xfree(halo);
}

void ugrid_from_mesh_halo(ugrid *g, const mesh *m, const unsigned char *halo, int radius, int nz,
                          const int *order)
{
    memset(g, 0, sizeof *g);
    int n = m->ncells;
    for (int c = 0; c < n; c++)
        g->nhalo += halo[c] != 0;
    g->nz = nz;
    g->halo = radius;
    g->layout = LAYOUT_ROWMAJOR; /* informative only: the order is the caller's */
    g->nxy = n;
    g->zstride = ((long)n + 63) / 64 * 64;
    g->len = (size_t)g->zstride * (size_t)nz;
    g->mesh_cell = xalloc(sizeof(int) * (size_t)n);

    int *to = xalloc(sizeof(int) * (size_t)n); /* mesh cell -> grid cell */
    int nh = 0, ni = g->nhalo;
    for (int k = 0; k < n; k++) {
        int c = order ? order[k] : k;
        int dst = halo[c] ? nh++ : ni++;
        g->mesh_cell[dst] = c;
        to[c] = dst;
    }
    if (m->nbr) {
        g->nbr = xalloc(sizeof(int) * 4 * (size_t)n);
        for (int c = 0; c < n; c++)
            for (int r = 0; r < NREL1; r++) {
                int d = m->nbr[4 * g->mesh_cell[c] + r];
                g->nbr[r * n + c] = d < 0 ? -1 : to[d];
            }
    }
    g->adjw = mesh_width(m);
    g->adj = xalloc(sizeof(int) * (size_t)g->adjw * (size_t)n);
    for (int c = 0; c < n; c++) {
        const int *row = mesh_row(m, g->mesh_cell[c]);
        int k = 0;
        for (int j = 0; j < g->adjw; j++)
            if (row[j] >= 0)
                g->adj[(size_t)k++ * n + c] = to[row[j]];
        for (; k < g->adjw; k++)
            g->adj[(size_t)k * n + c] = -1;
    }
    if (m->xy) {
        g->nx = m->nx;
        g->ny = m->ny;
        g->cx = xalloc(sizeof(int) * (size_t)n);
        g->cy = xalloc(sizeof(int) * (size_t)n);
        g->cell_at = xalloc(sizeof(int) * (size_t)n);
        for (int c = 0; c < n; c++) {
            g->cx[c] = m->xy[2 * g->mesh_cell[c]];
            g->cy[c] = m->xy[2 * g->mesh_cell[c] + 1];
            g->cell_at[g->cy[c] * g->nx + g->cx[c]] = c;
        }
    }
    xfree(to);
}

void ugrid_mark_parts(ugrid *g, const int *part)
{
    int runs = 0;
    for (int c = g->nhalo; c < g->nxy; c++)
        runs += c == g->nhalo || part[g->mesh_cell[c]] != part[g->mesh_cell[c - 1]];
    g->nparts = runs;
    g->part_start = xalloc(sizeof(int) * ((size_t)runs + 1));
    for (int c = g->nhalo, j = 0; c < g->nxy; c++)
        if (c == g->nhalo || part[g->mesh_cell[c]] != part[g->mesh_cell[c - 1]])
            g->part_start[j++] = c;
    g->part_start[runs] = g->nxy;
}

int mesh_corners(const mesh *m)
{
    int count = 0;
    for (int c = 0; c < m->ncells; c++)
        for (int r = 0; r < NREL1; r++)
            for (int s = r + 1; s < NREL1; s++) {
                int d = m->nbr[4 * c + r], e = m->nbr[4 * c + s];
                count += d > c && e > d && lists(m, d, e);
                count += e > c && d > e && lists(m, e, d);
            }
    return count;
}

/* Relation r of cell c of a quad mesh; -1 for none and for c = -1. */
static int quad_nbr(const mesh *m, int c, int r) { return c < 0 ? -1 : m->nbr[4 * c + r]; }

int mesh_lattice_breaks_at(const mesh *m, int c, char *why, size_t n)
{
    static const int opposite[4] = {R_E, R_W, R_N, R_S};
    for (int r = 0; r < NREL1; r++) {
        int d = quad_nbr(m, c, r);
        if (d >= 0 && quad_nbr(m, d, opposite[r]) != c) {
            if (why)
                snprintf(why, n, "%s(%s(c)) = %d, not c", rel_name[opposite[r]], rel_name[r],
                         quad_nbr(m, d, opposite[r]));
            return 1;
        }
    }
    for (int x = R_W; x <= R_E; x++)
        for (int y = R_S; y <= R_N; y++) {
            int dx = quad_nbr(m, c, x), dy = quad_nbr(m, c, y);
            if (dx >= 0 && dy >= 0 && quad_nbr(m, dx, y) != quad_nbr(m, dy, x)) {
                if (why)
                    snprintf(why, n, "%s(%s(c)) = %d, but %s(%s(c)) = %d", rel_name[y],
                             rel_name[x], quad_nbr(m, dx, y), rel_name[x], rel_name[y],
                             quad_nbr(m, dy, x));
                return 1;
            }
        }
    return 0;
}

int mesh_lattice_breaks(const mesh *m, int *first, char *why, size_t n)
{
    int count = 0;
    *first = -1;
    for (int c = 0; c < m->ncells; c++)
        if (mesh_lattice_breaks_at(m, c, count == 0 ? why : NULL, n) && count++ == 0)
            *first = c;
    return count;
}

/* Relations in counter-clockwise order; corner j of a cell lies between edges ccw[j] and
 * ccw[j+1]. */
static const int ccw[4] = {R_E, R_N, R_W, R_S};

/* Position in ccw of the edge of cell d whose neighbour is c, or -1. */
static int edge_to(const mesh *m, int d, int c)
{
    for (int j = 0; j < 4; j++)
        if (m->nbr[4 * d + ccw[j]] == c)
            return j;
    return -1;
}

void mesh_vertex_valence(const mesh *m, long *interior, long *irregular, long *open,
                         long *unresolved)
{
    *interior = *irregular = *open = *unresolved = 0;
    for (int c = 0; c < m->ncells; c++)
        for (int j = 0; j < 4; j++) {
            /* walk around the vertex at corner j of c: cross edge ccw[j+1] into d; the vertex is
             * d's corner that starts at the edge leading back to the cell left */
            long start = 4L * c + j, least = start;
            int cell = c, corner = j, steps = 0, status = 0; /* 1 closed, 2 open, 3 lost */
            while (!status) {
                int d = m->nbr[4 * cell + ccw[(corner + 1) % 4]];
                int back = d < 0 ? -1 : edge_to(m, d, cell);
                if (d < 0) {
                    status = 2;
                    break;
                }
                cell = d;
                corner = back;
                steps++;
                if (back < 0 || steps > 4 * MESH_MAXDEG)
                    status = 3;
                else if (4L * cell + corner == start)
                    status = 1;
                else if (4L * cell + corner < least)
                    least = 4L * cell + corner;
            }
            if (status == 2)
                continue; /* counted where the walk starts at the boundary, below */
            if (status == 3) {
                *unresolved += 1;
                continue;
            }
            if (least != start)
                continue; /* counted from its least (cell, corner) */
            *interior += 1;
            *irregular += steps != 4;
        }
    /* boundary vertices: the corner of the first cell of each run around one, the one whose
     * edge before the corner (ccw[j]) lies on the boundary */
    for (int c = 0; c < m->ncells; c++)
        for (int j = 0; j < 4; j++)
            *open += m->nbr[4 * c + ccw[j]] < 0;
}
