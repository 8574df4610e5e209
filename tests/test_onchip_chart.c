/* test_onchip_chart.c — the flat chart of an unstructured quad grid (src/plan/onchip_chart.h)
 * against an independent reference: the lattice the grid was emulated from (ugrid_emulate keeps
 * cell_at, the regular grid's (x, y) -> cell, which the chart never reads). In every cell order
 * the chart must be that lattice: each place the relations reach (the inner cells and the
 * halo within two steps of them) holds cell_at's cell. Refused, with the cell named: the cubed
 * sphere, a rotated and a scrambled patch (labels that turn), a lattice with one neighbour
 * entry moved, a grid whose inner cells lack a halo. Accepted: a regular mesh read as a mesh
 * (no cell_at there), its inner cells counted. */
#include "check.h"
#include "quad_meshes.h"
#include "src/plan/onchip_chart.h"

#include <string.h>

/* The chart of lattice nx x ny (halo 2) in order lay against cell_at. */
static void lattice_case(int nx, int ny, layout_t lay)
{
    ugrid g;
    if (ugrid_emulate(&g, nx, ny, 3, 2, lay, 8, 5) != 0) {
        CHECK(0, "emulate %dx%d %s", nx, ny, layout_name[lay]);
        return;
    }
    onchip_chart c;
    char why[200] = "";
    int rc = onchip_chart_build(&g, &c, why, sizeof why);
    CHECK(rc == 0, "%dx%d %s: refused: %s", nx, ny, layout_name[lay], why);
    if (rc == 0) {
        CHECK(c.nx == nx && c.ny == ny && ONCHIP_CHART_HALO == 2, "%dx%d %s: chart %dx%d", nx,
              ny, layout_name[lay], c.nx, c.ny);
        long bad = 0, checked = 0;
        for (int y = 0; y < ny && c.nx == nx && c.ny == ny; y++)
            for (int x = 0; x < nx; x++) {
                /* steps from the inner rectangle [2, nx - 3] x [2, ny - 3] */
                int dx = x < 2 ? 2 - x : x > nx - 3 ? x - (nx - 3) : 0;
                int dy = y < 2 ? 2 - y : y > ny - 3 ? y - (ny - 3) : 0;
                if (dx + dy > 2)
                    continue; /* a corner no relation reaches */
                checked++;
                bad += c.cells[x + y * nx] != g.cell_at[y * nx + x];
            }
        CHECK(bad == 0 && checked > 0, "%dx%d %s: %ld of %ld places hold another cell than the "
              "lattice's", nx, ny, layout_name[lay], bad, checked);
        onchip_chart_free(&c);
    }
    /* one inner cell's E entry moved to another cell: refused, naming a cell */
    int victim = g.nhalo + (g.nxy - g.nhalo) / 2, other = g.nhalo + (g.nxy - g.nhalo) / 3;
    int kept = g.nbr[(size_t)R_E * g.nxy + victim];
    g.nbr[(size_t)R_E * g.nxy + victim] = other;
    rc = onchip_chart_build(&g, &c, why, sizeof why);
    CHECK(rc == 1 && strstr(why, "cell") && c.cells == NULL,
          "%dx%d %s: a moved neighbour entry accepted (%d: %s)", nx, ny, layout_name[lay], rc,
          why);
    g.nbr[(size_t)R_E * g.nxy + victim] = kept;
    /* a halo cell's S entry moved: the inner cell east of it reaches the moved cell by R_WS, a
     * second-order relation through the halo: refused */
    int edge = g.cell_at[(ny / 2) * nx + 2], halo = g.nbr[(size_t)R_W * g.nxy + edge];
    CHECK(halo >= 0 && halo < g.nhalo, "%dx%d %s: no halo cell west of (2, %d)", nx, ny,
          layout_name[lay], ny / 2);
    if (halo >= 0 && halo < g.nhalo) {
        g.nbr[(size_t)R_S * g.nxy + halo] = other;
        rc = onchip_chart_build(&g, &c, why, sizeof why);
        CHECK(rc == 1 && strstr(why, "cell") && c.cells == NULL,
              "%dx%d %s: a halo cell's moved entry accepted (%d: %s)", nx, ny, layout_name[lay],
              rc, why);
    }
    ugrid_free(&g);
}

/* The chart of mesh m read as a grid (no cell_at there) into c, g the grid; 0 or 1 as
 * onchip_chart_build, why its reason. */
static int chart_of_mesh(const mesh *m, ugrid *g, onchip_chart *c, char *why, size_t n)
{
    ugrid_from_mesh(g, m, 2, 2, NULL);
    why[0] = 0;
    return onchip_chart_build(g, c, why, n);
}

/* Meshes whose labels turn: refused, the reason naming a cell. A regular mesh: one chart. */
static void meshes(void)
{
    ugrid g;
    onchip_chart c;
    char why[200];
    for (int k = 0; k < NQUAD_CASES; k++) {
        mesh m;
        if (quad_case_make(&quad_cases[k], &m) != 0) {
            CHECK(0, "%s", quad_cases[k].name);
            continue;
        }
        int rc = chart_of_mesh(&m, &g, &c, why, sizeof why);
        CHECK(rc == 1 && strstr(why, "cell"), "%s: taken for one flat chart", quad_cases[k].name);
        printf("%s: %s\n", quad_cases[k].name, why);
        if (rc == 0)
            onchip_chart_free(&c);
        ugrid_free(&g);
        mesh_free(&m);
    }
    /* the scrambled case's mesh before its scrambling: a lattice read from a mesh */
    mesh m;
    mesh_gen_spec s = {MESH_REGULAR, 23, 19, 0, 3, 0, 1, 0, 0};
    if (mesh_generate(&m, &s) != 0) {
        CHECK(0, "regular mesh 23x19");
        return;
    }
    int rc = chart_of_mesh(&m, &g, &c, why, sizeof why);
    CHECK(rc == 0, "regular mesh 23x19: refused: %s", why);
    if (rc == 0) {
        long inner = (long)(c.nx - 4) * (c.ny - 4);
        CHECK(inner == g.nxy - g.nhalo, "regular mesh 23x19: a chart of %ld inner cells, the grid "
              "has %d", inner, g.nxy - g.nhalo);
        /* every inner place's W, E, S and N places hold the cell's own neighbours */
        long bad = 0;
        for (int y = 2; y < c.ny - 2; y++)
            for (int x = 2; x < c.nx - 2; x++) {
                int cell = c.cells[x + y * c.nx];
                static const int dx[4] = {-1, 1, 0, 0}, dy[4] = {0, 0, -1, 1};
                for (int r = 0; r < 4; r++)
                    bad += g.nbr[(size_t)r * g.nxy + cell] !=
                           c.cells[x + dx[r] + (y + dy[r]) * c.nx];
            }
        CHECK(bad == 0, "regular mesh 23x19: %ld neighbours elsewhere than the chart puts them",
              bad);
        onchip_chart_free(&c);
    }
    ugrid_free(&g);
    mesh_free(&m);
}

int main(void)
{
    /* the chart follows a second-order relation only through a halo cell: elsewhere its place is
     * its first hop's first-order relation, so the offsets must add up */
    for (int r = NREL1; r < NREL2; r++)
        CHECK(rel_dx[r] == rel_dx[rel_hop1(r)] + rel_dx[rel_hop2(r)] &&
                  rel_dy[r] == rel_dy[rel_hop1(r)] + rel_dy[rel_hop2(r)],
              "relation %s: its offset is not its two hops'", rel_name[r]);
    static const layout_t lays[] = {LAYOUT_ROWMAJOR, LAYOUT_ZCURVE, LAYOUT_ZCURVE_W, LAYOUT_RANDOM};
    for (int k = 0; k < 4; k++) {
        lattice_case(37, 29, lays[k]);
        lattice_case(9, 7, lays[k]);
    }
    meshes();
    return check_done("test_onchip_chart");
}
