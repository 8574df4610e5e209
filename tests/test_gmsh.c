/* Gmsh import: a unit square meshed by Gmsh (its C API) with triangles, and again recombined into
 * quadrangles, imports with one cell per 2D element, symmetric neighbours, and as many missing
 * neighbours as Gmsh has boundary line elements; graphlap runs on both. The quadrangles import
 * as a quad mesh, where laplap equals graphlap bit for bit and hdiff an edge-based reference. Files Gmsh cannot read
 * are refused. Without Gmsh, import says so and the test exits 77 (skipped). */
#include "check.h"
#include "h5_put.h"
#include "quad_meshes.h"
#include "same_cells.h"
#include "scratch.h"
#include "src/exec/cpu_exec.h"
#include "src/io/mesh_import.h"
#include "src/io/mesh_io.h"
#include "src/exec/runner.h"
#include "src/exec/verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* Imports path expecting failure; returns whether the message names needle. */
static int refused(const char *path, const char *needle)
{
    char log[512], msg[1024];
    snprintf(log, sizeof log, "%s/stderr.txt", dir);
    int saved = stderr_to(log);
    mesh m;
    int rc = mesh_import_gmsh(path, &(mesh_import_opts){.nlevels = 4}, &m);
    stderr_restore(saved, log, msg, sizeof msg);
    CHECK(rc != 0 && m.ncells == 0, "%s was imported", path);
    CHECK(strstr(msg, needle) != NULL, "%s: message does not say '%s': %s", path, needle, msg);
    return strstr(msg, needle) != NULL;
}

#ifndef PILLAR_HAVE_GMSH

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--make")) {
        printf("SKIP: pillar was built without Gmsh\n");
        return 77;
    }
    if (scratch_open("gmsh", NULL) != 0)
        return 1;
    char path[512];
    snprintf(path, sizeof path, "%s", tmpname("any.msh"));
    /* a file that passes the checks made before Gmsh would open it (an MSH 4 header), so what
     * refuses it is the missing Gmsh, not the file */
    FILE *fp = fopen(path, "w");
    CHECK(fp != NULL, "cannot write %s", path);
    if (fp) {
        fputs("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n", fp);
        fclose(fp);
    }
    refused(path, "built without Gmsh");
    scratch_remove();
    if (check_failures)
        return check_done("test_gmsh");
    printf("SKIP: pillar was built without Gmsh\n");
    return 77;
}

#else

#include <gmshc.h>

static void gmsh_start(void)
{
    int ierr;
#if GMSH_API_VERSION_MAJOR > 4 || (GMSH_API_VERSION_MAJOR == 4 && GMSH_API_VERSION_MINOR >= 9)
    gmshInitialize(0, NULL, 0, 0, &ierr);
#else
    gmshInitialize(0, NULL, 0, &ierr);
#endif
    gmshOptionSetNumber("General.Terminal", 0, &ierr);
}

/* Elements of dimension dim in the current model. */
static long count_elements(int dim)
{
    int *types, ierr;
    size_t ntypes, **et, *et_n, et_nn, **nt, *nt_n, nt_nn;
    gmshModelMeshGetElements(&types, &ntypes, &et, &et_n, &et_nn, &nt, &nt_n, &nt_nn, dim, -1,
                             &ierr);
    long n = 0;
    for (size_t t = 0; t < ntypes; t++) {
        n += (long)et_n[t];
        gmshFree(et[t]);
        gmshFree(nt[t]);
    }
    gmshFree(types);
    gmshFree(et);
    gmshFree(et_n);
    gmshFree(nt);
    gmshFree(nt_n);
    return n;
}

/* Meshes the unit square (recombined into quadrangles or not), writes it to path; returns the
 * number of 2D elements and of boundary line elements. */
static void make_square(const char *path, int recombine, long *cells, long *boundary)
{
    int ierr;
    gmsh_start();
    gmshModelAdd("square", &ierr);
    double h = 0.12;
    int p1 = gmshModelGeoAddPoint(0, 0, 0, h, -1, &ierr), p2 = gmshModelGeoAddPoint(1, 0, 0, h, -1, &ierr);
    int p3 = gmshModelGeoAddPoint(1, 1, 0, h, -1, &ierr), p4 = gmshModelGeoAddPoint(0, 1, 0, h, -1, &ierr);
    int l[4] = {gmshModelGeoAddLine(p1, p2, -1, &ierr), gmshModelGeoAddLine(p2, p3, -1, &ierr),
                gmshModelGeoAddLine(p3, p4, -1, &ierr), gmshModelGeoAddLine(p4, p1, -1, &ierr)};
    int loop = gmshModelGeoAddCurveLoop(l, 4, -1, 0, &ierr);
    gmshModelGeoAddPlaneSurface(&loop, 1, -1, &ierr);
    gmshModelGeoSynchronize(&ierr);
    if (recombine)
        gmshOptionSetNumber("Mesh.RecombineAll", 1, &ierr);
    gmshModelMeshGenerate(2, &ierr);
    CHECK(ierr == 0, "Gmsh could not mesh the square");
    gmshWrite(path, &ierr);
    CHECK(ierr == 0, "Gmsh could not write %s", path);
    *cells = count_elements(2);
    *boundary = count_elements(1);
    gmshFinalize(&ierr);
}

/* On the quad mesh at h5 (graphlap problem pg, its outputs og): laplap equals graphlap bit for
 * bit in every storage, and hdiff the edge-based reference of quad_meshes.h. */
static void check_quad_runs(const char *h5, const problem *pg, fieldset og)
{
    int first;
    CHECK(mesh_lattice_breaks(&pg->mesh, &first, NULL, 0) > 0, "Gmsh quads break no lattice identity");
    for (int storage = 0; storage < 4; storage++) {
        problem_spec s = {ST_LAPLAP, PREC_DOUBLE, 0, 0, 0, 2, LAYOUT_ROWMAJOR, 16, 2, storage >> 1,
                          storage & 1};
        problem pl, ph;
        CHECK(problem_make_mesh(&pl, &s, h5, MESH_ORDER_METIS) == 0, "laplap on Gmsh quads");
        fieldset ol = runner_outputs(&pl, 1);
        cpu_run_unstructured(&pl, ol);
        long d = differ_by_file_cell(&pl, ol, pg, og);
        CHECK(d == 0, "Gmsh quads, storage %d: laplap and graphlap differ at %ld points", storage, d);
        runner_free_outputs(&pl, &ol);
        problem_free(&pl);
        s.stencil = ST_HDIFF;
        CHECK(problem_make_mesh(&ph, &s, h5, MESH_ORDER_FILE) == 0, "hdiff on Gmsh quads");
        fieldset oh = runner_outputs(&ph, 1);
        cpu_run_unstructured(&ph, oh);
        long bad = hdiff_edge_reference_differ(&ph, oh.p[2]);
        CHECK(bad == 0, "Gmsh quads, storage %d: hdiff differs from the edge reference at %ld "
              "points", storage, bad);
        runner_free_outputs(&ph, &oh);
        problem_free(&ph);
    }
}

static void check_square(int recombine)
{
    const char *what = recombine ? "quadrangles" : "triangles";
    char path[512];
    snprintf(path, sizeof path, "%s", tmpname(recombine ? "quads.msh" : "tris.msh"));
    long cells, boundary;
    make_square(path, recombine, &cells, &boundary);
    mesh m;
    CHECK(mesh_import_gmsh(path, &(mesh_import_opts){.nlevels = 5}, &m) == 0, "import %s", path);
    CHECK(m.ncells == cells && cells > 50, "%s: %d cells, Gmsh made %ld", what, m.ncells, cells);
    CHECK(recombine ? (m.nbr && !m.adj && m.maxdeg == 0) : (m.adj && m.maxdeg == 3), "%s: %s "
          "mesh, maxdeg %d", what, m.nbr ? "quad" : "general", m.maxdeg);
    CHECK(m.nlevels == 5 && m.ncoord == 3, "%s: levels, coordinates", what);
    long missing = 0;
    for (int c = 0; c < m.ncells; c++) {
        const int *row = mesh_row(&m, c);
        for (int j = 0; j < mesh_sides(&m, c); j++)
            missing += row[j] < 0;
        CHECK(m.coord[3 * c] > 0 && m.coord[3 * c] < 1 && m.coord[3 * c + 1] > 0 &&
                  m.coord[3 * c + 1] < 1,
              "%s: barycentre of cell %d outside the square", what, c);
    }
    CHECK(missing == boundary, "%s: %ld edges without a neighbour, Gmsh has %ld boundary lines",
          what, missing, boundary);

    /* graphlap on it: every inner point written, the halo (the border strip) not */
    const char *h5 = tmpname("gmsh.h5");
    CHECK(mesh_write(h5, &m) == 0, "write");
    problem pb;
    problem_spec s = {ST_GRAPHLAP, PREC_DOUBLE, 0, 0, 0, 2, LAYOUT_ROWMAJOR, 16, 2, 1, 0};
    CHECK(problem_make_mesh(&pb, &s, h5, MESH_ORDER_METIS) == 0, "%s: graphlap problem", what);
    fieldset out = runner_outputs(&pb, 1);
    cpu_run_unstructured(&pb, out);
    verify_result v = verify_compare_cells(&pb, out, out);
    CHECK(pb.ug.nhalo > 0 && v.checked == (long)(pb.ug.nxy - pb.ug.nhalo) * 5 && v.unwritten == 0,
          "%s: graphlap: %d halo cells, %ld checked, %ld unwritten", what, pb.ug.nhalo, v.checked,
          v.unwritten);
    if (recombine) /* a quad mesh: laplap and hdiff run on it */
        check_quad_runs(h5, &pb, out);
    runner_free_outputs(&pb, &out);
    problem_free(&pb);
    mesh_free(&m);
}

/* ---- files as users have them: MSH 2.2 with overlapping physical groups, partitioned with ghost
 * cells, 3D; written by Gmsh itself ---- */

/* Meshes the unit square with triangles into the current model (two physical groups over the
 * same surface, as when a surface is both "fluid" and "all"); returns its 2D elements. */
static long square_with_groups(void)
{
    int ierr;
    gmshModelAdd("groups", &ierr);
    double h = 0.2;
    int p[4] = {gmshModelGeoAddPoint(0, 0, 0, h, -1, &ierr), gmshModelGeoAddPoint(1, 0, 0, h, -1, &ierr),
                gmshModelGeoAddPoint(1, 1, 0, h, -1, &ierr), gmshModelGeoAddPoint(0, 1, 0, h, -1, &ierr)};
    int l[4];
    for (int i = 0; i < 4; i++)
        l[i] = gmshModelGeoAddLine(p[i], p[(i + 1) % 4], -1, &ierr);
    int loop = gmshModelGeoAddCurveLoop(l, 4, -1, 0, &ierr);
    int surface = gmshModelGeoAddPlaneSurface(&loop, 1, -1, &ierr);
    gmshModelGeoSynchronize(&ierr);
    gmshModelAddPhysicalGroup(2, &surface, 1, 1, &ierr);
    gmshModelAddPhysicalGroup(2, &surface, 1, 2, &ierr);
    gmshModelMeshGenerate(2, &ierr);
    CHECK(ierr == 0, "Gmsh could not mesh the square");
    return count_elements(2);
}

/* Writes the sample files into dir: square.msh (MSH 4.1), groups22.msh (MSH 2.2, every element
 * listed once per physical group), ghosts.msh (MSH 4.1, 3 partitions with ghost cells),
 * ghosts22.msh (the same in MSH 2.2) and cube.msh (a tetrahedral volume). Returns the square's
 * number of triangles. */
static long write_samples(const char *dir)
{
    char path[600];
    int ierr;
    gmsh_start();
    long cells = square_with_groups();
    snprintf(path, sizeof path, "%s/square.msh", dir);
    gmshWrite(path, &ierr);
    gmshOptionSetNumber("Mesh.MshFileVersion", 2.2, &ierr);
    snprintf(path, sizeof path, "%s/groups22.msh", dir);
    gmshWrite(path, &ierr);
    gmshOptionSetNumber("Mesh.PartitionCreateGhostCells", 1, &ierr);
    gmshModelMeshPartition(3, &ierr);
    CHECK(ierr == 0, "Gmsh could not partition the square");
    snprintf(path, sizeof path, "%s/ghosts22.msh", dir);
    gmshWrite(path, &ierr);
    gmshOptionSetNumber("Mesh.MshFileVersion", 4.1, &ierr);
    snprintf(path, sizeof path, "%s/ghosts.msh", dir);
    gmshWrite(path, &ierr);
    gmshModelAdd("cube", &ierr);
    gmshOptionSetNumber("Mesh.MeshSizeMax", 0.5, &ierr);
    gmshModelOccAddBox(0, 0, 0, 1, 1, 1, -1, &ierr);
    gmshModelOccSynchronize(&ierr);
    gmshModelMeshGenerate(3, &ierr);
    CHECK(ierr == 0 && count_elements(3) > 0, "Gmsh could not mesh the cube");
    snprintf(path, sizeof path, "%s/cube.msh", dir);
    gmshWrite(path, &ierr);
    CHECK(ierr == 0, "Gmsh could not write %s", path);
    gmshFinalize(&ierr);
    return cells;
}

/* Cell c's barycentre, rounded to 1e-9, as a sort key. */
typedef struct {
    long long x, y;
    int deg;
} cell_key;

static int cell_key_cmp(const void *a, const void *b)
{
    const cell_key *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    return p->deg - q->deg;
}

/* The cells of m by position (and number of neighbours), sorted; n keys. */
static cell_key *cell_keys(const mesh *m)
{
    cell_key *k = xalloc(sizeof(cell_key) * (size_t)m->ncells);
    for (int c = 0; c < m->ncells; c++) {
        k[c].x = llround(m->coord[3 * c] * 1e9);
        k[c].y = llround(m->coord[3 * c + 1] * 1e9);
        for (int j = 0; j < mesh_sides(m, c); j++)
            k[c].deg += mesh_row(m, c)[j] >= 0;
    }
    qsort(k, (size_t)m->ncells, sizeof(cell_key), cell_key_cmp);
    return k;
}

/* Each cell's corners (the kept nodes) average to its barycentre, and every node is a corner. */
static void check_nodes(const mesh *m, const char *what)
{
    if (!m->cell_nodes || m->nnodes <= 0 || m->node_width != 3 || m->nnode_coord != 3) {
        CHECK(0, "%s: no nodes, or not 3 corners of 3 coordinates", what);
        return;
    }
    unsigned char *used = xalloc((size_t)m->nnodes + 1);
    long bad = 0;
    for (int c = 0; c < m->ncells; c++) {
        double x = 0, y = 0;
        for (int j = 0; j < 3; j++) {
            int v = m->cell_nodes[3 * c + j];
            if (v < 0 || v >= m->nnodes) {
                bad++;
                continue;
            }
            used[v] = 1;
            x += m->node_coord[3 * v] / 3;
            y += m->node_coord[3 * v + 1] / 3;
        }
        bad += fabs(x - m->coord[3 * c]) > 1e-12 || fabs(y - m->coord[3 * c + 1]) > 1e-12;
    }
    for (int v = 0; v < m->nnodes; v++)
        bad += !used[v];
    CHECK(bad == 0, "%s: %ld cells whose nodes are not their corners, or unused nodes", what, bad);
    xfree(used);
}

/* Every sample imports as the plain square: as many cells as Gmsh made, at the same places with
 * the same numbers of neighbours; the cube is refused as 3D. */
static void check_samples(void)
{
    long cells = write_samples(dir);
    mesh ref;
    CHECK(mesh_import_gmsh(tmpname("square.msh"), &(mesh_import_opts){.nlevels = 2}, &ref) == 0,
          "import square.msh");
    CHECK(ref.ncells == cells && cells > 20, "square.msh: %d cells, Gmsh made %ld", ref.ncells,
          cells);
    check_nodes(&ref, "square.msh");
    cell_key *want = cell_keys(&ref);
    static const char *const same[] = {"groups22.msh", "ghosts.msh", "ghosts22.msh"};
    for (size_t k = 0; k < sizeof same / sizeof same[0]; k++) {
        mesh m;
        CHECK(mesh_import_gmsh(tmpname(same[k]), &(mesh_import_opts){.nlevels = 2}, &m) == 0,
              "import %s", same[k]);
        if (m.ncells != ref.ncells) {
            CHECK(0, "%s: %d cells; the square has %d", same[k], m.ncells, ref.ncells);
        } else {
            cell_key *got = cell_keys(&m);
            CHECK(memcmp(got, want, sizeof(cell_key) * (size_t)m.ncells) == 0,
                  "%s: not the square's cells and neighbour counts", same[k]);
            xfree(got);
            CHECK(strstr(m.kind, "listed again, counted once"), "%s: kind '%s'", same[k], m.kind);
            check_nodes(&m, same[k]);
        }
        mesh_free(&m);
    }
    xfree(want);
    mesh_free(&ref);
    refused(tmpname("cube.msh"), "a 3D (volume) mesh");
    refused(tmpname("cube.msh"), "Tetrahedron");
}

/* An edge of 3 and of 4 triangles (different corners, so not repeats): the message counts them
 * and names every one. */
static void check_overshared_edges(void)
{
    static const char head[] = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n6\n1 0 0 0\n"
                               "2 1 0 0\n3 0 1 0\n4 0 -1 0\n5 1 1 1\n6 1 -1 1\n$EndNodes\n";
    static const struct {
        const char *name, *elements, *needle;
    } cases[] = {
        {"edge3.msh", "3\n1 2 0 1 2 3\n2 2 0 1 2 4\n3 2 0 1 2 5\n",
         "shared by 3 cells (0, 1 and 2)"},
        {"edge4.msh", "4\n1 2 0 1 2 3\n2 2 0 1 2 4\n3 2 0 1 2 5\n4 2 0 1 2 6\n",
         "shared by 4 cells (0, 1, 2 and 3)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        FILE *f = fopen(tmpname(cases[k].name), "w");
        fprintf(f, "%s$Elements\n%s$EndElements\n", head, cases[k].elements);
        fclose(f);
        refused(tmpname(cases[k].name), cases[k].needle);
    }
}

/* Files that are not meshes, or bad ones: each refused with its message. A Gmsh script that would
 * mesh a square and run a shell command is never executed (the command would create PWNED). */
static void bad_files(void)
{
    static const char nodes[] = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0 0\n"
                                "2 1 0 0\n3 1 1 0\n$EndNodes\n$Elements\n1\n";
    char script[1024], pwned[512], missing[512];
    snprintf(pwned, sizeof pwned, "%s", tmpname("PWNED"));
    snprintf(script, sizeof script,
             "Point(1)={0,0,0}; Point(2)={1,0,0}; Point(3)={1,1,0}; Point(4)={0,1,0};\n"
             "Line(1)={1,2}; Line(2)={2,3}; Line(3)={3,4}; Line(4)={4,1};\n"
             "Curve Loop(1)={1,2,3,4}; Plane Surface(1)={1}; Mesh 2;\n"
             "System \"touch %s\";\n", pwned);
    snprintf(missing, sizeof missing, "%s1 2 2 0 1 1 2 9\n$EndElements\n", nodes);
    static const struct {
        const char *name, *text, *needle;
    } cases[] = {
        {"script.msh", NULL, "its first line is not $MeshFormat"},
        {"text.msh", "$MeshFormat\nnot a mesh\n", "second line is not an MSH version line"},
        {"v3.msh", "$MeshFormat\n3.0 0 8\n$EndMeshFormat\n", "neither 2 nor 4"},
        {"missing-node.msh", NULL, "node index 9"},
        {"empty.msh", "", "is empty"},
        {"mesh.txt", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n", "must be named *.msh"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *text = cases[k].text ? cases[k].text : k == 0 ? script : missing;
        FILE *f = fopen(tmpname(cases[k].name), "w");
        fputs(text, f);
        fclose(f);
        refused(tmpname(cases[k].name), cases[k].needle);
    }
    CHECK(access(pwned, F_OK) != 0, "the Gmsh script ran a shell command");
    /* a message of Gmsh's reader (in its child process) reaches a caller that captures them */
    char captured[512];
    mesh mc;
    perr_capture(captured, sizeof captured);
    int rc = mesh_import_gmsh(tmpname("missing-node.msh"), &(mesh_import_opts){.nlevels = 4}, &mc);
    perr_capture(NULL, 0);
    CHECK(rc != 0 && strstr(captured, "node index 9"), "captured message: '%s'", captured);
    CHECK(mkdir(tmpname("dir.msh"), 0700) == 0, "mkdir");
    refused(tmpname("dir.msh"), "a directory, not a Gmsh mesh");
    CHECK(mkfifo(tmpname("fifo.msh"), 0600) == 0, "mkfifo");
    refused(tmpname("fifo.msh"), "a FIFO (named pipe), not a Gmsh mesh");
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--make")) { /* the samples, for gmsh_cli.sh */
        write_samples(argv[2]);
        return check_done("test_gmsh --make");
    }
    if (scratch_open("gmsh", NULL) != 0)
        return 1;
    check_square(0);
    check_square(1);
    check_samples();
    check_overshared_edges();
    refused(tmpname("none.msh"), "cannot read the Gmsh mesh");
    bad_files();
    scratch_remove();
    return check_done("test_gmsh");
}

#endif
