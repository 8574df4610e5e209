/* test_grid_file.c — pillar_grid_file (include/pillar.h) on grid files of other tools' formats,
 * read directly (src/io/mesh_io.h mesh_load), as `pillar run --mesh` reads them:
 *   - the ICON and MPAS samples of data/ give their cells (80 triangles, 92 cells of the MPAS
 *     sphere), at 64 levels, and a pillar mesh file still its own levels;
 *   - a netCDF file of no format pillar knows is refused with PILLAR_ERR_GRID and a message that
 *     says it is neither a mesh file nor a grid file ("which format?"), kept in the handle:
 *     nothing is printed, also after the importers' format guess, which opens the file with its
 *     own messages held back.
 * usage: test_grid_file SRCDIR */
#include "../include/pillar.h"
#include "check.h"
#include "scratch.h"
#include "grids/mesh.h"
#include "src/io/mesh_io.h"

#include <netcdf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* pillar_grid_file of path after the options opt[0] = opt[1], ... (NULL-terminated; opt NULL:
 * none), then its cells and levels (after pillar_setup of graphlap). */
static pillar_status grid_of_opts(const char *path, const char *const *opt, int *ncells,
                                  int *nlevels, char *err, size_t n)
{
    pillar_ctx *ctx;
    int nhalo;
    *ncells = *nlevels = -1;
    if (pillar_create(&ctx) != PILLAR_OK)
        return PILLAR_ERR_NOMEM;
    pillar_status st = pillar_set_option(ctx, "stencil", "graphlap");
    for (int k = 0; opt && opt[k] && st == PILLAR_OK; k += 2)
        st = pillar_set_option(ctx, opt[k], opt[k + 1]);
    if (st == PILLAR_OK)
        st = pillar_grid_file(ctx, path);
    if (st == PILLAR_OK)
        st = pillar_setup(ctx);
    if (st == PILLAR_OK)
        st = pillar_get_sizes(ctx, ncells, nlevels, &nhalo);
    snprintf(err, n, "%s", pillar_last_error(ctx));
    pillar_destroy(ctx);
    return st;
}

static pillar_status grid_of(const char *path, int *ncells, int *nlevels, char *err, size_t n)
{
    return grid_of_opts(path, NULL, ncells, nlevels, err, n);
}

/* A netCDF file of no grid format: one variable `temperature`. */
static void write_unknown(const char *path)
{
    int nc, dim, var;
    nc_create(path, NC_CLOBBER | NC_NETCDF4, &nc);
    nc_def_dim(nc, "n", 3, &dim);
    nc_def_var(nc, "temperature", NC_DOUBLE, 1, &dim, &var);
    nc_close(nc);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_grid_file SRCDIR\n");
        return 2;
    }
    if (scratch_open("grid_file", NULL) != 0)
        return 1;
    char path[1024], err[1024];
    int ncells, nlevels;
    snprintf(path, sizeof path, "%s/data/icon-cdf5.nc", argv[1]);
    CHECK(grid_of(path, &ncells, &nlevels, err, sizeof err) == PILLAR_OK, "%s: %s", path, err);
    CHECK(ncells == 80 && nlevels == 64, "icon-cdf5.nc: %d cells, %d levels", ncells, nlevels);
    snprintf(path, sizeof path, "%s/data/mpas-sphere.nc", argv[1]);
    CHECK(grid_of(path, &ncells, &nlevels, err, sizeof err) == PILLAR_OK, "%s: %s", path, err);
    CHECK(ncells == 92 && nlevels == 64, "mpas-sphere.nc: %d cells, %d levels", ncells, nlevels);

    /* the options of a grid file read directly: levels, a forced format, bad values refused */
    const char *levels7[] = {"levels", "7", "merge_nodes", "off", NULL};
    CHECK(grid_of_opts(path, levels7, &ncells, &nlevels, err, sizeof err) == PILLAR_OK, "%s", err);
    CHECK(ncells == 92 && nlevels == 7, "mpas-sphere.nc, levels 7: %d cells, %d levels", ncells,
          nlevels);
    const char *as_icon[] = {"format", "icon", NULL};
    CHECK(grid_of_opts(path, as_icon, &ncells, &nlevels, err, sizeof err) == PILLAR_ERR_GRID &&
              strstr(err, "neighbor_cell_index is missing"),
          "mpas-sphere.nc read as icon: %s", err);
    const char *bad_format[] = {"format", "netcdf", NULL};
    CHECK(grid_of_opts(path, bad_format, &ncells, &nlevels, err, sizeof err) ==
                  PILLAR_ERR_UNKNOWN && strstr(err, "ugrid, icon, mpas"),
          "format netcdf: %s", err);
    const char *bad_tol[] = {"merge_nodes", "near", NULL}, *bad_levels[] = {"levels", "-3", NULL};
    CHECK(grid_of_opts(path, bad_tol, &ncells, &nlevels, err, sizeof err) == PILLAR_ERR_ARG,
          "merge_nodes near: %s", err);
    CHECK(grid_of_opts(path, bad_levels, &ncells, &nlevels, err, sizeof err) == PILLAR_ERR_ARG,
          "levels -3: %s", err);

    mesh m;
    mesh_gen_spec spec = {.kind = MESH_HEXAGONS, .nx = 6, .ny = 4, .nlevels = 5, .periodic = 1};
    CHECK(mesh_generate(&m, &spec) == 0 && mesh_write(tmpname("hex.nc"), &m) == 0, "hexagons");
    mesh_free(&m);
    CHECK(grid_of(tmpname("hex.nc"), &ncells, &nlevels, err, sizeof err) == PILLAR_OK, "%s", err);
    CHECK(ncells == 24 && nlevels == 5, "hex.nc: %d cells, %d levels", ncells, nlevels);

    /* refused, the message kept in the handle and nothing printed */
    write_unknown(tmpname("unknown.h5"));
    char log[512];
    snprintf(log, sizeof log, "%s", tmpname("stderr.txt"));
    fflush(stderr);
    int saved = dup(2);
    FILE *f = freopen(log, "w", stderr);
    pillar_status st = grid_of(tmpname("unknown.h5"), &ncells, &nlevels, err, sizeof err);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    CHECK(f != NULL, "stderr to %s", log);
    FILE *in = fopen(log, "r");
    long printed = in && fseek(in, 0, SEEK_END) == 0 ? ftell(in) : -1;
    if (in)
        fclose(in);
    CHECK(st == PILLAR_ERR_GRID, "unknown.h5: status %s", pillar_status_name(st));
    CHECK(strstr(err, "attribute /pillar_mesh_version is missing") &&
              strstr(err, "which format?"), "unknown.h5: message '%s'", err);
    CHECK(printed == 0, "unknown.h5: %ld bytes printed on stderr", printed);
    scratch_remove();
    return check_done("grid_file");
}
