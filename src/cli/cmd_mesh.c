/* cmd_mesh.c — `pillar mesh`: the subcommands' help and flags; the work is pillar_tool_mesh's. */
#include "commands.h"

#include <stdio.h>
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
    int n;
    const char *const *names = pillar_names(PILLAR_NAMES_FORMAT, &n);
    for (int k = 0; k < n; k++)
        snprintf(import_formats + strlen(import_formats),
                 sizeof import_formats - strlen(import_formats), "  %-7s %s\n", names[k],
                 pillar_name_summary(PILLAR_NAMES_FORMAT, k));
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
    if (m->gen.periodic && m->gen.kind != pillar_name_index(PILLAR_NAMES_MESH_KIND, "triangles") &&
        m->gen.kind != pillar_name_index(PILLAR_NAMES_MESH_KIND, "hexagons")) {
        pillar_perr("%s: --periodic goes with --kind triangles or hexagons", a.name);
        return -1;
    }
    if (m->gen.refine && m->gen.kind != pillar_name_index(PILLAR_NAMES_MESH_KIND, "refined")) {
        pillar_perr("%s: --refine goes with --kind refined", a.name);
        return -1;
    }
    if (cmd == CMD_MESH_PARTITION && m->parts < 1) {
        pillar_perr("%s: --parts K is required (see 'pillar mesh partition --help')", a.name);
        return -1;
    }
    return 0;
}

/* A subcommand: its flags, then the tool's job (mesh info: in its report). */
static int mesh_cmd(unsigned cmd, const help_part *help, pillar_mesh_job job, int argc, char **argv)
{
    mesh_args a;
    int rc = mesh_parse(cmd, help, argc, argv, &a);
    if (rc)
        return CLI_EXIT(rc);
    if (job == PILLAR_MESH_INFO)
        pillar_report_begin("mesh info", a.json, 0, stdout);
    rc = pillar_tool_mesh(job, &a);
    if (job == PILLAR_MESH_INFO)
        pillar_report_end(rc == 0);
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
        return mesh_cmd(CMD_MESH_GENERATE, generate_help, PILLAR_MESH_GENERATE, argc - 1, argv + 1);
    if (!strcmp(argv[0], "info"))
        return mesh_cmd(CMD_MESH_INFO, info_help, PILLAR_MESH_INFO, argc - 1, argv + 1);
    if (!strcmp(argv[0], "partition"))
        return mesh_cmd(CMD_MESH_PARTITION, partition_help, PILLAR_MESH_PARTITION, argc - 1,
                        argv + 1);
    if (!strcmp(argv[0], "import")) {
        help_import_text();
        return mesh_cmd(CMD_MESH_IMPORT, import_help, PILLAR_MESH_IMPORT, argc - 1, argv + 1);
    }
    pillar_perr("mesh: unknown subcommand '%s' (generate, import, info, partition; see 'pillar "
                "mesh --help')",
                argv[0]);
    return 2;
}
