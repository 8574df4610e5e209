/* cmd_mesh.c — `pillar mesh`: generate, describe and partition mesh files. */
#include "commands.h"
#include "options.h"
#include "table_stats.h"
#include "src/io/mesh_import.h"
#include "src/io/mesh_io.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char mesh_help[] =
    "usage: pillar mesh SUBCOMMAND [flags]\n"
    "\n"
    "Mesh files: quad meshes (W/E/S/N neighbours) and general meshes (any number of neighbours\n"
    "per cell) in netCDF-4/HDF5 (schema: docs/mesh-format.md), run with 'pillar run --mesh'.\n"
    "\n"
    "subcommands:\n"
    "  generate FILE   write a generated mesh: regular, cubed-sphere, shuffled, rotated,\n"
    "                  triangles, hexagons or refined\n"
    "  import IN OUT   convert an ICON, MPAS, UGRID or SCRIP netCDF file or a Gmsh mesh into a\n"
    "                  mesh file\n"
    "  info FILE       cells, neighbour histogram, halo and neighbour-table statistics\n"
    "  partition FILE  store a METIS k-way partition in the file\n"
    "\n"
    "'pillar mesh SUBCOMMAND --help' explains each.\n";

static const help_part generate_help[] = {
    {"usage: pillar mesh generate FILE [flags]\n"
     "\n"
     "Writes a mesh to FILE (netCDF-4; written to a temporary file and renamed when complete).\n"
     "\n", 0},
    {NULL, HELP_MAIN | HELP_ALWAYS},
    {"\n"
     "example: pillar mesh generate sphere.h5 --kind cubed-sphere --n 48 --levels 32\n", 0},
    {NULL, 0}};

static const help_part info_help[] = {
    {"usage: pillar mesh info FILE [flags]\n"
     "\n"
     "Describes a mesh file: cells and levels, how many cells have how many neighbours, the halo\n"
     "for stencils of radius 2 (laplap, hdiff) and 1 (fastwaves), the stored partition, and the\n"
     "neighbour tables of the grid built from it (as 'pillar info' does for regular grids). For a\n"
     "general mesh: the degree histogram and the halo of graphlap.\n"
     "\n", 0},
    {NULL, HELP_MAIN | HELP_ALWAYS},
    {"\n"
     "example: pillar mesh info sphere.h5 --layout metis\n", 0},
    {NULL, 0}};

/* The import help's list of formats, from the importer registry (help_import_text). */
static char import_formats[2048];

static help_part import_help[] = {
    {"usage: pillar mesh import IN OUT [--levels L] [--format NAME] [--merge-nodes [TOL]]\n"
     "\n"
     "Converts another tool's mesh into a general mesh file OUT (netCDF-4; written to a temporary file\n"
     "and renamed when complete, so a refused input leaves no OUT). IN's format is found from its\n"
     "content (netCDF in any variant: classic, 64-bit offset, CDF-5, netCDF-4; which variables it\n"
     "holds; the Gmsh header; never its name), the first of these that matches\n"
     "(docs/mesh-formats-in.md; a file none recognises is refused with what each looks for):\n"
     "\n", 0},
    {import_formats, 0},
    {"\n"
     "Cells keep the file's order; neighbours are the cells across each edge; coordinates are\n"
     "the cell centres (points on the unit sphere from longitude/latitude); where the file has\n"
     "them the nodes (cell corners) are kept too (/node_coordinates, /cell_nodes). Neighbour lists\n"
     "that disagree, an edge of three cells, a neighbour listed twice or an index out of range\n"
     "are refused, naming the variable and the first bad cell. Gmsh: an element listed again\n"
     "(one listing per physical group, ghost cells of a partitioned file) counts once; a 3D\n"
     "(volume) mesh is refused.\n"
     "\n", 0},
    {NULL, HELP_MAIN | HELP_ALWAYS},
    {"\n"
     "example: pillar mesh import icon_grid_R02B04.nc icon.h5 --levels 90\n"
     "         pillar run --mesh icon.h5 --stencil graphlap\n", 0},
    {NULL, 0}};

/* Fills import_formats: "  NAME   summary" per importer. */
static void help_import_text(void)
{
    import_formats[0] = 0;
    for (int k = 0; k < MESH_IMPORTER_COUNT; k++)
        snprintf(import_formats + strlen(import_formats),
                 sizeof import_formats - strlen(import_formats), "  %-7s %s\n",
                 mesh_importers[k].name, mesh_importers[k].summary);
}

static const help_part partition_help[] = {
    {"usage: pillar mesh partition FILE --parts K\n"
     "\n"
     "Partitions the cells of FILE into K parts with METIS (k-way, minimal edge cut) and stores\n"
     "the result as dataset /partition (attribute nparts) in FILE, replacing any earlier one. The\n"
     "file is rewritten to a temporary file and renamed, so it is never left half-written.\n"
     "'pillar run --mesh FILE --layout metis' orders cells by this partition.\n"
     "\n", 0},
    {NULL, HELP_MAIN | HELP_ALWAYS},
    {"\n"
     "example: pillar mesh partition sphere.h5 --parts 64\n", 0},
    {NULL, 0}};

/* Parses a mesh subcommand's FILE(s) and flags, then checks the flags that go together.
 * Returns cli_parse's result (0, 1 after help or version, -1 after a message). */
static int mesh_parse(unsigned cmd, const help_part *help, int argc, char **argv, mesh_args *m)
{
    cli_args a;
    int rc = cli_parse(&a, cmd, help, argc, argv);
    if (rc != 0)
        return rc;
    *m = a.m;
    if (m->gen.periodic && m->gen.kind != MESH_TRIANGLES && m->gen.kind != MESH_HEXAGONS) {
        perr("%s: --periodic goes with --kind triangles or hexagons", a.name);
        return -1;
    }
    if (m->gen.refine && m->gen.kind != MESH_REFINED) {
        perr("%s: --refine goes with --kind refined", a.name);
        return -1;
    }
    if (cmd == CMD_MESH_PARTITION && m->parts < 1) {
        perr("%s: --parts K is required (see 'pillar mesh partition --help')", a.name);
        return -1;
    }
    return 0;
}

static int mesh_generate_cmd(int argc, char **argv)
{
    mesh_args a;
    int rc = mesh_parse(CMD_MESH_GENERATE, generate_help, argc, argv, &a);
    if (rc)
        return CLI_EXIT(rc);
    mesh m;
    if (mesh_generate(&m, &a.gen) != 0)
        return 2;
    char err[512];
    if (mesh_check(&m, err, sizeof err) != 0) { /* a generator bug, never bad input */
        perr("mesh generate: internal error, the generated mesh is invalid: %s", err);
        mesh_free(&m);
        return 1;
    }
    rc = mesh_write(a.file, &m);
    if (rc == 0)
        printf("wrote %s: %s; %d cells, %d levels\n", a.file, m.kind, m.ncells, m.nlevels);
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

/* The flags of a command that reads one mesh file, then the file into m: any grid file for
 * info, a pillar mesh file for partition (which stores into it). Returns -1 to go on, or the
 * command's exit status (help shown, a bad command line, an unreadable file). */
static int mesh_args_read(unsigned cmd, const help_part *help, int argc, char **argv,
                          mesh_args *a, mesh *m)
{
    int rc = mesh_parse(cmd, help, argc, argv, a);
    if (rc)
        return CLI_EXIT(rc);
    mesh_load_opts grid = cli_grid_opts(a);
    rc = cmd == CMD_MESH_PARTITION ? mesh_read_pillar(a->file, m) : mesh_load(a->file, &grid, m);
    return rc != 0 ? 1 : -1;
}

static int mesh_info_report(const mesh_args *a, mesh *m);

static int mesh_info_cmd(int argc, char **argv)
{
    mesh_args a;
    mesh m;
    int rc = mesh_args_read(CMD_MESH_INFO, info_help, argc, argv, &a, &m);
    if (rc >= 0)
        return rc;
    report_begin("mesh info", a.json, 0);
    rc = mesh_info_report(&a, &m);
    report_end(rc == 0);
    return rc;
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

static int mesh_import_cmd(int argc, char **argv)
{
    mesh_args a;
    help_import_text();
    int rc = mesh_parse(CMD_MESH_IMPORT, import_help, argc, argv, &a);
    if (rc)
        return CLI_EXIT(rc);
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
        printf("merged %d coincident node ids (%s): %d nodes of the file's %d%s\n", o.merged,
               how, o.nodes - o.merged, o.nodes,
               o.merge_tol > 0 ? "" : " (--merge-nodes off keeps them apart)");
    }
    rc = mesh_write(a.out, &m);
    if (rc == 0) {
        long hist[MESH_MAXDEG + 1];
        mesh_histogram(&m, hist);
        printf("wrote %s: %s; %d cells, %d levels; neighbours", a.out, m.kind, m.ncells, m.nlevels);
        for (int k = mesh_width(&m); k >= 0; k--)
            if (hist[k])
                printf(" %d: %ld", k, hist[k]);
        printf("\n");
    }
    mesh_free(&m);
    return rc == 0 ? 0 : 1;
}

static int mesh_partition_cmd(int argc, char **argv)
{
    mesh_args a;
    mesh m;
    int rc = mesh_args_read(CMD_MESH_PARTITION, partition_help, argc, argv, &a, &m);
    if (rc >= 0)
        return rc;
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
        printf("%s: stored a METIS partition into %d parts of %d to %d cells\n", a.file, m.nparts,
               lo, hi);
        xfree(size);
    }
    mesh_free(&m);
    return rc;
}

int cmd_mesh(int argc, char **argv)
{
    if (argc < 1 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h") ||
        !strcmp(argv[0], "help")) {
        fputs(mesh_help, stdout);
        return argc < 1 ? 2 : 0;
    }
    if (!strcmp(argv[0], "--version")) {
        print_version();
        return 0;
    }
    if (!strcmp(argv[0], "generate"))
        return mesh_generate_cmd(argc - 1, argv + 1);
    if (!strcmp(argv[0], "info"))
        return mesh_info_cmd(argc - 1, argv + 1);
    if (!strcmp(argv[0], "partition"))
        return mesh_partition_cmd(argc - 1, argv + 1);
    if (!strcmp(argv[0], "import"))
        return mesh_import_cmd(argc - 1, argv + 1);
    perr("mesh: unknown subcommand '%s' (generate, import, info, partition; see 'pillar mesh "
         "--help')",
         argv[0]);
    return 2;
}
