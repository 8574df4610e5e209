/* cmd_mesh.c — `pillar mesh`: generate, describe and partition mesh files. */
#include "commands.h"
#include "mesh_import.h"
#include "mesh_io.h"
#include "options.h"
#include "table_stats.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char mesh_help[] =
    "usage: pillar mesh SUBCOMMAND [flags]\n"
    "\n"
    "Mesh files: quad meshes (W/E/S/N neighbours) and general meshes (any number of neighbours\n"
    "per cell) in HDF5 (schema: docs/mesh-format.md), run with 'pillar run --mesh'.\n"
    "\n"
    "subcommands:\n"
    "  generate FILE   write a generated mesh: regular, cubed-sphere, shuffled, rotated,\n"
    "                  triangles, hexagons or refined\n"
    "  import IN OUT   convert an ICON grid file (.nc) or a Gmsh mesh (.msh) into a mesh file\n"
    "  info FILE       cells, neighbour histogram, halo and neighbour-table statistics\n"
    "  partition FILE  store a METIS k-way partition in the file\n"
    "\n"
    "'pillar mesh SUBCOMMAND --help' explains each.\n";

static const char generate_help[] =
    "usage: pillar mesh generate FILE [flags]\n"
    "\n"
    "Writes a mesh to FILE (HDF5; written to a temporary file and renamed when complete).\n"
    "\n"
    "  --kind K       the mesh                                          (regular)\n"
    "                 regular       an NXxNY patch, row-major; stores /patch_xy, so runs on it\n"
    "                               are verified against the regular grid\n"
    "                 cubed-sphere  6 panels of NxN cells on the unit sphere; orientation turns\n"
    "                               across panel seams; every cell has 4 neighbours, 3 cells\n"
    "                               meet at each of the 8 cube corners; no halo\n"
    "                 shuffled      the regular patch with cell numbers permuted at random within\n"
    "                               windows of W consecutive cells (same connectivity and\n"
    "                               geometry, a locally scrambled order; keeps /patch_xy)\n"
    "                 rotated       the regular patch with the W/E/S/N labels of the cells of\n"
    "                               each WxW block turned by a seeded 0-3 quarter turns (same\n"
    "                               connectivity, locally rotated orientation; no regular twin)\n"
    "                 triangles     a general mesh: NXxNY squares, each cut along its diagonal\n"
    "                               into 2 triangles (3 neighbours inside, fewer on the border)\n"
    "                 hexagons      a general mesh: NXxNY hexagons in rows, odd rows shifted by\n"
    "                               half a cell (6 neighbours inside)\n"
    "                 refined       a general mesh: an NXxNY quad patch whose centred MxM\n"
    "                               square (--refine) is split 2x2; hanging nodes on its\n"
    "                               border: the coarse cells along it have 5 neighbours\n"
    "  --size NXxNY   patch extent (all but cubed-sphere)                (64x64)\n"
    "  --refine M     refined: edge of the refined square, 1 to the patch's shorter side\n"
    "                 (a third of it, at least 1)\n"
    "  --periodic     triangles, hexagons: wrap around in x and y (a torus: no border, no\n"
    "                 halo; needs at least 2x2 squares or 3x4 hexagons, an even number of rows)\n"
    "  --n N          panel edge of the cubed sphere                     (24)\n"
    "  --levels L     vertical levels stored in the file                 (16)\n"
    "  --window W     shuffled: window of cells; rotated: block edge     (8)\n"
    "  --seed S       seed of shuffled and rotated                       (42)\n"
    "\n"
    "example: pillar mesh generate sphere.h5 --kind cubed-sphere --n 48 --levels 32\n";

static const char info_help[] =
    "usage: pillar mesh info FILE [flags]\n"
    "\n"
    "Describes a mesh file: cells and levels, how many cells have how many neighbours, the halo\n"
    "for stencils of radius 2 (laplap, hdiff) and 1 (fastwaves), the stored partition, and the\n"
    "neighbour tables of the grid built from it (as 'pillar info' does for regular grids). For a\n"
    "general mesh: the degree histogram and the halo of graphlap.\n"
    "\n"
    "  --radius R     halo radius the table statistics use: 1 or 2       (2)\n"
    "  --layout L     cell order: file | metis | zcurve                  (file)\n"
    "                 (zcurve: a Morton curve of the cells' coordinates)\n"
    "  --part-size W  metis without a stored partition: cells per part   (32)\n"
    "\n"
    "example: pillar mesh info sphere.h5 --layout metis\n";

static const char import_help[] =
    "usage: pillar mesh import IN OUT [--levels L]\n"
    "\n"
    "Converts another tool's mesh into a general mesh file OUT (HDF5; written to a temporary file\n"
    "and renamed when complete, so a refused input leaves no OUT). IN is read by its name:\n"
    "\n"
    "  *.nc    an ICON grid file (netCDF-4 = HDF5): cells = the triangles, neighbours from\n"
    "          neighbor_cell_index [3][ncells] (1-based; <= 0: a boundary edge), coordinates\n"
    "          from clon, clat (radians) as points on the unit sphere\n"
    "  *.msh   a Gmsh mesh (needs pillar built with Gmsh): cells = the 2D elements (triangles\n"
    "          and quadrangles), neighbours = elements sharing an edge, coordinates = the\n"
    "          elements' barycentres\n"
    "\n"
    "  --levels L     vertical levels stored in OUT                     (64)\n"
    "\n"
    "example: pillar mesh import icon_grid_R02B04.nc icon.h5 --levels 90\n"
    "         pillar run --mesh icon.h5 --stencil graphlap\n";

static const char partition_help[] =
    "usage: pillar mesh partition FILE --parts K\n"
    "\n"
    "Partitions the cells of FILE into K parts with METIS (k-way, minimal edge cut) and stores\n"
    "the result as dataset /partition (attribute nparts) in FILE, replacing any earlier one. The\n"
    "file is rewritten to a temporary file and renamed, so it is never left half-written.\n"
    "'pillar run --mesh FILE --layout metis' orders cells by this partition.\n"
    "\n"
    "  --parts K      number of parts, 1 to the number of cells\n"
    "\n"
    "example: pillar mesh partition sphere.h5 --parts 64\n";

static int mesh_long(const char *cmd, const char *flag, const char *v, long lo, long hi, long *out)
{
    if (parse_long(v, lo, hi, out) != 0) {
        perr("mesh %s: %s '%s': expected an integer from %ld to %ld", cmd, flag, v, lo, hi);
        return -1;
    }
    return 0;
}

typedef struct {
    const char *file;
    mesh_gen_spec gen;
    int radius, part_size, parts;
    mesh_order_t order; /* info --layout */
    const char *out; /* import: the second file */
} mesh_args;

/* Parses FILE and the flags a subcommand accepts (names in `accept`, space separated).
 * Returns 0, 1 after printing `help` for --help, -1 after a message. */
static int mesh_parse(const char *cmd, const char *accept, const char *help, int argc, char **argv,
                      mesh_args *a)
{
    memset(a, 0, sizeof *a);
    a->gen.kind = MESH_REGULAR;
    a->gen.nx = a->gen.ny = 64;
    a->gen.n = 24;
    a->gen.nlevels = 16;
    a->gen.window = 8;
    a->gen.seed = 42;
    a->radius = 2;
    a->part_size = 32;
    for (int i = 0; i < argc; i++) {
        const char *f = argv[i];
        if (!strcmp(f, "--help") || !strcmp(f, "-h")) {
            fputs(help, stdout);
            return 1;
        }
        if (f[0] != '-') {
            if (a->file && (a->out || strcmp(cmd, "import"))) {
                perr("mesh %s: unexpected argument '%s' (%s)", cmd, f,
                     strcmp(cmd, "import") ? "one FILE only" : "IN and OUT only");
                return -1;
            }
            *(a->file ? &a->out : &a->file) = f;
            continue;
        }
        char key[40];
        snprintf(key, sizeof key, " %s ", f + 2);
        char list[160];
        snprintf(list, sizeof list, " %s ", accept);
        if (strncmp(f, "--", 2) || !strstr(list, key)) {
            perr("mesh %s: unknown flag '%s' (see 'pillar mesh %s --help')", cmd, f, cmd);
            return -1;
        }
        if (!strcmp(f, "--periodic")) {
            a->gen.periodic = 1;
            continue;
        }
        if (i + 1 >= argc) {
            perr("mesh %s: %s needs a value", cmd, f);
            return -1;
        }
        const char *v = argv[++i];
        long x = 0;
        int rc = 0;
        if (!strcmp(f, "--kind")) {
            int k = 0;
            while (k < MESH_KIND_COUNT && strcmp(v, mesh_kind_name[k]))
                k++;
            if (k == MESH_KIND_COUNT) {
                char names[160] = "";
                for (k = 0; k < MESH_KIND_COUNT; k++)
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                             k ? ", " : "", mesh_kind_name[k]);
                perr("mesh %s: --kind '%s': choose one of %s", cmd, v, names);
                return -1;
            }
            a->gen.kind = (mesh_kind)k;
        } else if (!strcmp(f, "--size")) {
            int nz;
            char buf[64];
            snprintf(buf, sizeof buf, "%sx1", v);
            if (strlen(v) > 40 || parse_triple(buf, &a->gen.nx, &a->gen.ny, &nz) != 0) {
                perr("mesh %s: --size '%s': expected NXxNY, two positive integers", cmd, v);
                return -1;
            }
        } else if (!strcmp(f, "--n")) {
            rc = mesh_long(cmd, f, v, 1, 8192, &x);
            a->gen.n = (int)x;
        } else if (!strcmp(f, "--refine")) {
            rc = mesh_long(cmd, f, v, 1, INT_MAX, &x);
            a->gen.refine = (int)x;
        } else if (!strcmp(f, "--levels")) {
            rc = mesh_long(cmd, f, v, 1, 100000, &x);
            a->gen.nlevels = (int)x;
        } else if (!strcmp(f, "--window")) {
            rc = mesh_long(cmd, f, v, 1, INT_MAX, &x);
            a->gen.window = (int)x;
        } else if (!strcmp(f, "--seed")) {
            rc = mesh_long(cmd, f, v, 0, LONG_MAX, &x);
            a->gen.seed = (uint64_t)x;
        } else if (!strcmp(f, "--radius")) {
            rc = mesh_long(cmd, f, v, 1, 2, &x);
            a->radius = (int)x;
        } else if (!strcmp(f, "--part-size")) {
            rc = mesh_long(cmd, f, v, 1, INT_MAX, &x);
            a->part_size = (int)x;
        } else if (!strcmp(f, "--parts")) {
            rc = mesh_long(cmd, f, v, 1, INT_MAX, &x);
            a->parts = (int)x;
        } else if (!strcmp(f, "--layout")) {
            if (mesh_order_parse(v, &a->order) != 0) {
                perr("mesh %s: --layout '%s': choose file, metis or zcurve", cmd, v);
                return -1;
            }
        }
        if (rc != 0)
            return -1;
    }
    if (!a->file || (!strcmp(cmd, "import") && !a->out)) {
        perr("mesh %s: which %s? (see 'pillar mesh %s --help')", cmd,
             strcmp(cmd, "import") ? "FILE" : "IN and OUT files", cmd);
        return -1;
    }
    if (a->gen.periodic && a->gen.kind != MESH_TRIANGLES && a->gen.kind != MESH_HEXAGONS) {
        perr("mesh %s: --periodic goes with --kind triangles or hexagons", cmd);
        return -1;
    }
    if (a->gen.refine && a->gen.kind != MESH_REFINED) {
        perr("mesh %s: --refine goes with --kind refined", cmd);
        return -1;
    }
    return 0;
}

static int mesh_generate_cmd(int argc, char **argv)
{
    mesh_args a;
    int rc = mesh_parse("generate", "kind size n levels window seed periodic refine", generate_help,
                        argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : 2;
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
    printf("halo        radius %d (%s): %d halo cells, %d inner\n", radius,
           graph ? "graphlap" : radius == 2 ? "laplap, hdiff" : "fastwaves", nh, m->ncells - nh);
    xfree(h);
}

/* Cells by number of neighbours, most first: "6: 900, 5: 60, ..." (quad meshes: 4 down to 0). */
static void print_histogram(const mesh *m)
{
    long hist[MESH_MAXDEG + 1];
    mesh_histogram(m, hist);
    printf("neighbours  ");
    int first = 1;
    for (int k = mesh_width(m); k >= 0; k--)
        if (hist[k] || !m->adj) {
            printf("%s%d: %ld", first ? "" : ", ", k, hist[k]);
            first = 0;
        }
    printf(" cells\n");
}

static int mesh_info_cmd(int argc, char **argv)
{
    mesh_args a;
    int rc = mesh_parse("info", "radius layout part-size", info_help, argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : 2;
    mesh m;
    if (mesh_read(a.file, &m) != 0)
        return 1;
    printf("mesh        %s: %s mesh%s%s\n", a.file, m.adj ? "general" : "quad",
           m.kind[0] ? ", " : "", m.kind);
    printf("cells       %d per level, %d levels\n", m.ncells, m.nlevels);
    print_histogram(&m);
    if (m.adj) {
        printf("edges       at most %d per cell%s\n", m.maxdeg,
               m.sides ? " (per-cell counts in /cell_sides)" : "");
    } else {
        int corners = mesh_corners(&m), first;
        if (corners)
            printf("corners     %d vertices where 3 cells meet (not 4)\n", corners);
        long inner, irregular, open, lost;
        mesh_vertex_valence(&m, &inner, &irregular, &open, &lost);
        printf("vertices    %ld interior, %ld of them where not 4 cells meet; %ld on the boundary",
               inner, irregular, open);
        if (lost)
            printf("; %ld corners unresolved (labels of opposite senses)", lost);
        char why[128];
        int breaks = mesh_lattice_breaks(&m, &first, why, sizeof why);
        printf("\nlattice     %d cells where E(W(c)) != c, S(W(c)) != W(S(c)) or the like", breaks);
        if (breaks)
            printf(" (first: cell %d, %s)", first, why);
        printf("\n");
        print_halo(&m, 2, 0);
        print_halo(&m, 1, 0);
    }
    print_halo(&m, 2, 1);
    printf("coordinates %s\n", m.coord ? (m.ncoord == 3 ? "3 per cell" : "2 per cell") : "none");
    if (m.xy)
        printf("patch       regular %dx%d (runs verify against the regular grid)\n", m.nx, m.ny);
    if (m.part)
        printf("partition   %d parts stored\n", m.nparts);

    int *order, np;
    if (mesh_order_make(&m, a.order, a.part_size, a.file, &order, &np, NULL) != 0) {
        mesh_free(&m);
        return 1;
    }
    if (a.order == MESH_ORDER_METIS)
        printf("layout      metis: %d parts%s, chained\n", np, m.part ? " (stored)" : "");
    else if (a.order == MESH_ORDER_ZCURVE)
        printf("layout      zcurve: %s\n",
               mesh_on_sphere(&m) ? "by cube face, 2D Morton order on each (points on a sphere)"
                                  : m.ncoord == 2 ? "2D Morton order of the coordinates"
                                                  : "3D Morton order of the coordinates");
    else
        printf("layout      file order\n");
    if (m.adj) { /* no W/E/S/N tables: the lists graphlap reads */
        printf("tables      neighbour lists (ELL), %d columns: %zu entries, %.1f KB\n", m.maxdeg,
               (size_t)m.maxdeg * (size_t)m.ncells,
               4.0 * ((double)m.maxdeg + 1) * (double)m.ncells / 1024.0);
        xfree(order);
        mesh_free(&m);
        return 0;
    }
    ugrid g;
    ugrid_from_mesh(&g, &m, a.radius, m.nlevels, order);
    printf("tables      grid of radius %d, halo cells first\n\n", a.radius);
    print_table_stats(&g, -1, -1);
    ugrid_free(&g);
    xfree(order);
    mesh_free(&m);
    return 0;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && !strcmp(s + n - k, tail);
}

static int mesh_import_cmd(int argc, char **argv)
{
    mesh_args a;
    int levels_given = 0;
    for (int i = 0; i < argc; i++)
        levels_given |= !strcmp(argv[i], "--levels");
    int rc = mesh_parse("import", "levels", import_help, argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : 2;
    int nlevels = levels_given ? a.gen.nlevels : 64;
    mesh m;
    if (ends_with(a.file, ".nc"))
        rc = mesh_import_icon(a.file, nlevels, &m);
    else if (ends_with(a.file, ".msh"))
        rc = mesh_import_gmsh(a.file, nlevels, &m);
    else {
        perr("mesh import: %s: which format? name an ICON grid file *.nc or a Gmsh mesh *.msh",
             a.file);
        return 2;
    }
    if (rc != 0)
        return 1;
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
    int rc = mesh_parse("partition", "parts", partition_help, argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : 2;
    if (a.parts < 1) {
        perr("mesh partition: --parts K is required (see 'pillar mesh partition --help')");
        return 2;
    }
    mesh m;
    if (mesh_read(a.file, &m) != 0)
        return 1;
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
