/* mesh.c — `pillar mesh` (pillar_tool_mesh): generate, import, describe and partition mesh
 * files. */
#include "tools.h"
#include "table_stats.h"
#include "src/io/mesh_import.h"
#include "src/io/mesh_io.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mesh_generate_job(const mesh_args *ap)
{
    mesh_args a = *ap;
    mesh m;
    mesh_gen_spec gs = {(mesh_kind)a.gen.kind, a.gen.nx, a.gen.ny, a.gen.n, a.gen.nlevels,
                        a.gen.window, a.gen.seed, a.gen.periodic, a.gen.refine};
    int rc;
    if (mesh_generate(&m, &gs) != 0)
        return 2;
    char err[512];
    if (mesh_check(&m, err, sizeof err) != 0) { /* a generator bug, never bad input */
        perr("mesh generate: internal error, the generated mesh is invalid: %s", err);
        mesh_free(&m);
        return 1;
    }
    rc = mesh_write(a.file, &m);
    if (rc == 0)
        report_printf("wrote %s: %s; %d cells, %d levels\n", a.file, m.kind, m.ncells, m.nlevels);
    mesh_free(&m);
    return rc == 0 ? 0 : 1;
}

static void print_halo(const mesh *m, int radius, int graph)
{
    unsigned char *h = xalloc((size_t)m->ncells);
    int nh = graph ? mesh_graph_halo(m, radius, h) : mesh_halo(m, radius, h);
    report_printf("halo        radius %d (%s): %d halo cells, %d inner\n", radius,
                  graph         ? "graphlap"
                  : radius == 2 ? "laplap, hdiff"
                                : "fastwaves",
                  nh, m->ncells - nh);
    xfree(h);
}

/* Cells by number of neighbours, most first: "6: 900, 5: 60, ..." (quad meshes: 4 down to 0). */
static void print_histogram(const mesh *m)
{
    long hist[MESH_MAXDEG + 1];
    mesh_histogram(m, hist);
    report_printf("neighbours  ");
    int first = 1;
    for (int k = mesh_width(m); k >= 0; k--)
        if (hist[k] || !m->adj) {
            report_printf("%s%d: %ld", first ? "" : ", ", k, hist[k]);
            first = 0;
        }
    report_printf(" cells\n");
}

/* The one mesh file of info (any grid file) or partition (a pillar mesh file, which it stores
 * into) into m. 0, or 1 after a message. */
static int mesh_file_read(pillar_mesh_job job, const mesh_args *a, mesh *m)
{
    mesh_load_opts grid = {a->format >= 0 ? mesh_importers[a->format].name : NULL,
                           a->gen.nlevels, a->merge_tol};
    int rc = job == PILLAR_MESH_PARTITION ? mesh_read_pillar(a->file, m)
                                          : mesh_load(a->file, &grid, m);
    return rc != 0 ? 1 : 0;
}

static int mesh_info_report(const mesh_args *a, mesh *m);

static int mesh_info_job(const mesh_args *a)
{
    mesh m;
    if (mesh_file_read(PILLAR_MESH_INFO, a, &m) != 0)
        return 1;
    return mesh_info_report(a, &m);
}

/* mesh info's report on m (read from a->file; freed here). 0, or 1 after a message. */
static int mesh_info_report(const mesh_args *a, mesh *m)
{
    report_printf("mesh        %s: %s mesh%s%s\n", a->file, m->adj ? "general" : "quad",
                  m->kind[0] ? ", " : "", m->kind);
    report_printf("cells       %d per level, %d levels\n", m->ncells, m->nlevels);
    report_number("cells", m->ncells);
    report_number("levels", m->nlevels);
    report_number("nodes", m->cell_nodes ? m->nnodes : 0);
    report_bool("general", m->adj != NULL);
    print_histogram(m);
    if (m->adj) {
        report_printf("edges       at most %d per cell%s\n", m->maxdeg,
                      m->sides ? " (per-cell counts in /cell_sides)" : "");
    } else {
        int corners = mesh_corners(m), first;
        if (corners)
            report_printf("corners     %d vertices where 3 cells meet (not 4)\n", corners);
        long inner, irregular, open, lost;
        mesh_vertex_valence(m, &inner, &irregular, &open, &lost);
        report_printf(
            "vertices    %ld interior, %ld of them where not 4 cells meet; %ld on the boundary",
            inner, irregular, open);
        if (lost)
            report_printf("; %ld corners unresolved (labels of opposite senses)", lost);
        char why[128];
        int breaks = mesh_lattice_breaks(m, &first, why, sizeof why);
        report_printf("\nlattice     %d cells where E(W(c)) != c, S(W(c)) != W(S(c)) or the like",
                      breaks);
        if (breaks)
            report_printf(" (first: cell %d, %s)", first, why);
        report_printf("\n");
        print_halo(m, 2, 0);
        print_halo(m, 1, 0);
    }
    print_halo(m, 2, 1);
    report_printf("coordinates %s\n",
                  m->coord ? (m->ncoord == 3 ? "3 per cell" : "2 per cell") : "none");
    if (m->cell_nodes)
        report_printf("nodes       %d, %d coordinates each; up to %d corners per cell\n", m->nnodes,
                      m->nnode_coord, m->node_width);
    if (m->xy)
        report_printf("patch       regular %dx%d (runs verify against the regular grid)\n", m->nx,
                      m->ny);
    if (m->part)
        report_printf("partition   %d parts stored\n", m->nparts);

    int *order, np;
    if (mesh_order_make(m, a->order, a->part_size, a->file, &order, &np, NULL) != 0) {
        mesh_free(m);
        return 1;
    }
    if (a->order == MESH_ORDER_METIS)
        report_printf("layout      metis: %d parts%s, chained\n", np, m->part ? " (stored)" : "");
    else if (a->order == MESH_ORDER_ZCURVE)
        report_printf("layout      zcurve: %s\n",
                      mesh_on_sphere(m)
                          ? "by cube face, 2D Morton order on each (points on a sphere)"
                      : m->ncoord == 2 ? "2D Morton order of the coordinates"
                                      : "3D Morton order of the coordinates");
    else
        report_printf("layout      file order\n");
    if (m->adj) { /* no W/E/S/N tables: the lists graphlap reads, and tables of offsets */
        report_printf("tables      neighbour lists (ELL), %d columns: %zu entries, %.1f KB\n",
                      m->maxdeg, (size_t)m->maxdeg * (size_t)m->ncells,
                      4.0 * ((double)m->maxdeg + 1) * (double)m->ncells / 1024.0);
        ugrid g;
        unsigned char *halo = xalloc((size_t)m->ncells);
        mesh_graph_halo(m, 2, halo);
        ugrid_from_mesh_halo(&g, m, halo, 2, m->nlevels, order);
        report_printf(
            "            offsets with per-cell degrees (docs/storage.md), graph halo of radius "
            "2 first\n\n");
        print_gtable_stats(&g);
        ugrid_free(&g);
        xfree(halo);
        xfree(order);
        mesh_free(m);
        return 0;
    }
    ugrid g;
    ugrid_from_mesh(&g, m, a->radius, m->nlevels, order);
    report_printf("tables      grid of radius %d, halo cells first\n\n", a->radius);
    print_table_stats(&g, -1, -1);
    ugrid_free(&g);
    xfree(order);
    mesh_free(m);
    return 0;
}

static int mesh_import_job(const mesh_args *ap)
{
    const mesh_args a = *ap;
    int rc;
    mesh m;
    mesh_import_opts o = {.nlevels = a.gen.nlevels /* 64 unless --levels */,
                          .merge_tol = a.merge_tol};
    rc = mesh_import(a.file, a.format, &o, &m);
    if (rc != 0)
        return 1;
    if (o.merged > 0) {
        char how[64] = "at identical positions";
        if (o.merge_tol > 0)
            snprintf(how, sizeof how, "at most %g apart", o.merge_tol);
        report_printf("merged %d coincident node ids (%s): %d nodes of the file's %d%s\n", o.merged,
               how, o.nodes - o.merged, o.nodes,
               o.merge_tol > 0 ? "" : " (--merge-nodes off keeps them apart)");
    }
    rc = mesh_write(a.out, &m);
    if (rc == 0) {
        long hist[MESH_MAXDEG + 1];
        mesh_histogram(&m, hist);
        report_printf("wrote %s: %s; %d cells, %d levels; neighbours", a.out, m.kind, m.ncells, m.nlevels);
        for (int k = mesh_width(&m); k >= 0; k--)
            if (hist[k])
                report_printf(" %d: %ld", k, hist[k]);
        report_printf("\n");
    }
    mesh_free(&m);
    return rc == 0 ? 0 : 1;
}

static int mesh_partition_job(const mesh_args *ap)
{
    const mesh_args a = *ap;
    mesh m;
    if (mesh_file_read(PILLAR_MESH_PARTITION, &a, &m) != 0)
        return 1;
    int rc;
    xfree(m.part);
    m.part = xalloc(sizeof(int) * (size_t)m.ncells);
    m.nparts = a.parts;
    rc = mesh_partition(&m, a.parts, m.part) == 0 && mesh_write(a.file, &m) == 0 ? 0 : 1;
    if (rc == 0) {
        int *size = xalloc(sizeof(int) * (size_t)m.nparts), lo = INT_MAX, hi = 0;
        for (int c = 0; c < m.ncells; c++)
            size[m.part[c]]++;
        for (int p = 0; p < m.nparts; p++) {
            lo = size[p] < lo ? size[p] : lo;
            hi = size[p] > hi ? size[p] : hi;
        }
        report_printf("%s: stored a METIS partition into %d parts of %d to %d cells\n", a.file, m.nparts,
               lo, hi);
        xfree(size);
    }
    mesh_free(&m);
    return rc;
}

typedef struct {
    pillar_mesh_job job;
    const mesh_args *a;
} mesh_job_arg;

static int mesh_guarded(void *arg)
{
    const mesh_job_arg *j = arg;
    switch (j->job) {
    case PILLAR_MESH_GENERATE:
        return mesh_generate_job(j->a);
    case PILLAR_MESH_INFO:
        return mesh_info_job(j->a);
    case PILLAR_MESH_IMPORT:
        return mesh_import_job(j->a);
    case PILLAR_MESH_PARTITION:
        return mesh_partition_job(j->a);
    }
    perr("mesh: unknown job %d", (int)j->job);
    return 2;
}

int pillar_tool_mesh(pillar_mesh_job job, const pillar_mesh_settings *m)
{
    mesh_job_arg j = {job, m};
    return tools_guarded(mesh_guarded, &j);
}
