/* fuzz_import.c — libFuzzer targets for the importers of other tools' files, one per reader:
 *
 *   fuzz_gmsh   (built with -DFUZZ_GMSH)  the input is a file named fuzz.msh, imported with
 *               mesh_import_gmsh: pillar's MSH header check, then Gmsh's MSH reader, then the
 *               edge pairing and mesh_check
 *   fuzz_nc     (otherwise)               the input is a file named fuzz.nc, imported with
 *               mesh_import and no --format: the format found from its content (the netCDF
 *               signature, then each importer's detect), so one target covers libnetcdf in
 *               every variant and the ICON, MPAS, UGRID and SCRIP readers
 *
 * A refused input must leave the mesh empty; an imported one must pass mesh_check. No input may
 * make Gmsh run anything: the target fails if a file named PWNED appears in its directory
 * (tests/fuzz/import-seeds/ has Gmsh scripts that would create it). tests/fuzz/README.md says
 * how to run them (ctest label `fuzz`, 10 minutes each). */
#include "grids/mesh.h"
#include "src/io/h5_util.h"
#include "src/io/mesh_import.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef FUZZ_GMSH
#define FUZZ_NAME "fuzz.msh"
#define FUZZ_IMPORT mesh_import_gmsh
#else
#define FUZZ_NAME "fuzz.nc"
#define FUZZ_IMPORT import_by_content
/* mesh_import with the format found from the content */
static int import_by_content(const char *path, mesh_import_opts *o, mesh *m)
{
    return mesh_import(path, -1, o, m);
}
#endif

static char dir[64], path[128], pwned[128];

static void fuzz_fail(const char *why)
{
    fprintf(stderr, "fuzz_import: %s\n", why);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/pillar-fuzz-import-XXXXXX");
        if (!mkdtemp(dir))
            fuzz_fail("mkdtemp");
        snprintf(path, sizeof path, "%s/%s", dir, FUZZ_NAME);
        snprintf(pwned, sizeof pwned, "%s/PWNED", dir);
        if (chdir(dir) != 0) /* a relative "touch PWNED" would land here */
            fuzz_fail("chdir");
        h5_quiet();
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        fuzz_fail("cannot write the input file");
    mesh m;
    char err[512];
    if (FUZZ_IMPORT(path, &(mesh_import_opts){.nlevels = 2}, &m) == 0) {
        if (mesh_check(&m, err, sizeof err) != 0)
            fuzz_fail("an imported mesh fails mesh_check");
        mesh_free(&m);
    } else if (m.ncells != 0 || m.adj || m.nbr || m.coord) {
        fuzz_fail("a refused input left a partial mesh");
    }
    if (access(pwned, F_OK) == 0)
        fuzz_fail("the input ran a command (PWNED exists)");
    return 0;
}
