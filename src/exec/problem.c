/* problem.c — building, filling and freeing a problem. */
#include "problem.h"

#include "src/io/mesh_io.h"

#include <math.h>
#include <string.h>

int problem_check(const problem_spec *s)
{
    int h = s->halo, need = 2 * h + 1;
    if (s->nx < need || s->ny < need) {
        perr("--size %dx%dx%d: the grid is smaller than its halo (a halo of %d on each side "
             "needs at least %dx%d cells)", s->nx, s->ny, s->nz, h, need, need);
        return -1;
    }
    int minz = stencil_table[s->stencil].ztop + 1;
    if (s->nz < minz) {
        perr("--size %dx%dx%d: %s needs at least %d levels", s->nx, s->ny, s->nz,
             stencil_table[s->stencil].name, minz);
        return -1;
    }
    if ((double)s->nx * s->ny > 1.5e9 || (double)s->nx * s->ny * s->nz > 4e10) {
        perr("--size %dx%dx%d: too large", s->nx, s->ny, s->nz);
        return -1;
    }
    return 0;
}

/* Fills the unstructured inputs from the regular ones, cell by cell. */
static void fill_unstructured(problem *pb)
{
    const problem_spec *s = &pb->s;
    int nin = stencil_table[s->stencil].nin;
    size_t es = prec_size(s->prec);
    for (int f = 0; f < nin; f++) {
        char *u = pb->uf.p[f];
        const char *r = pb->twin->rf.p[f];
#pragma omp parallel for schedule(static)
        for (int z = 0; z < s->nz; z++)
            for (int c = 0; c < pb->ug.nxy; c++)
                memcpy(u + ((size_t)c + (size_t)z * pb->ug.zstride) * es,
                       r + (size_t)rgrid_index(&pb->twin->rg, pb->ug.cx[c], pb->ug.cy[c], z) * es, es);
    }
}

/* Inputs without a regular twin: by the cell's (x, y) on an emulated grid or a mesh that is a
 * regular patch (the values its twin holds, so an iterated run starts where a single run does),
 * else by the file's cell index (x) and level. */
static double input_at(const problem *pb, int f, int c, int z)
{
    const problem_spec *s = &pb->s;
    const ugrid *g = &pb->ug;
    return g->cx ? stencil_input(s->stencil, f, g->cx[c], g->cy[c], z, s->seed)
                 : stencil_input(s->stencil, f, g->mesh_cell[c], 0, z, s->seed);
}

static void fill_direct_inputs(problem *pb)
{
    for (int f = 0; f < stencil_table[pb->s.stencil].nin; f++)
        problem_fill_inputs(pb, f, NULL, pb->ug.nxy, 0, pb->s.nz, pb->uf.p[f], pb->ug.zstride);
}

void problem_fill_inputs(const problem *pb, int f, const int *cells, int n, int z0, int z1,
                         void *dst, long zstride)
{
#pragma omp parallel for schedule(static) collapse(2)
    for (int z = z0; z < z1; z++)
        for (int i = 0; i < n; i++)
            field_set(pb->s.prec, dst, (size_t)i + (size_t)(z - z0) * (size_t)zstride,
                      input_at(pb, f, cells ? cells[i] : i, z));
}

void problem_fill_inputs_ids(const problem_spec *s, int f, const int *ids, int n, int z0, int z1,
                             void *dst, long zstride)
{
#pragma omp parallel for schedule(static) collapse(2)
    for (int z = z0; z < z1; z++)
        for (int i = 0; i < n; i++)
            field_set(s->prec, dst, (size_t)i + (size_t)(z - z0) * (size_t)zstride,
                      stencil_input(s->stencil, f, ids[i], 0, z, s->seed));
}

static int build_mesh_grid(problem *pb)
{
    const problem_spec *s = &pb->s;
    int *order, *part;
    if (mesh_order_make(&pb->mesh, pb->mesh_order, s->w, pb->mesh_path, &order, &pb->mesh_parts,
                        &part))
        return -1;
    if (stencil_table[s->stencil].graph) {
        unsigned char *halo = xalloc((size_t)pb->mesh.ncells);
        mesh_graph_halo(&pb->mesh, s->halo, halo);
        ugrid_from_mesh_halo(&pb->ug, &pb->mesh, halo, s->halo, s->nz, order);
        ell_build(&pb->ell, &pb->ug);
        gtable_build(&pb->gt, &pb->ug, s->chasing, s->compressed);
        xfree(halo);
    } else {
        ugrid_from_mesh(&pb->ug, &pb->mesh, s->halo, s->nz, order);
    }
    if (part)
        ugrid_mark_parts(&pb->ug, part); /* out-of-core chunks follow them (src/plan/ooc_plan.h) */
    xfree(order);
    xfree(part);
    return 0;
}

/* A piece that fails before its coefficients are built still takes part in their minima (the
 * other pieces wait for it there): one min_all of nothing for each the build would have taken. */
static void piece_failed(problem *pb)
{
    if (pb->coef_min_all && stencil_table[pb->s.stencil].coeffs.n > 0 &&
        stencil_table[pb->s.stencil].coeffs.build_part)
        pb->coef_min_all(pb->coef_min_user, INFINITY);
}

static int build_unstructured(problem *pb)
{
    const problem_spec *s = &pb->s;
    if (pb->mesh_path ? build_mesh_grid(pb) != 0
                      : ugrid_emulate(&pb->ug, s->nx, s->ny, s->nz, s->halo, s->layout, s->w,
                                      s->seed) != 0) {
        piece_failed(pb);
        return -1;
    }
    pb->built.layout = s->layout;
    pb->built.w = s->w;
    pb->built.order = pb->mesh_order;
    if (!stencil_table[s->stencil].graph)
        nbtable_build(&pb->nt, &pb->ug, s->chasing, s->compressed);
    else if (pb->coef_min_all
                 ? stencil_coeffs_part(s->stencil, &pb->coef, &pb->ug, &pb->mesh, s->prec,
                                       pb->mesh_path, pb->coef_min_all, pb->coef_min_user) != 0
                 : stencil_coeffs(s->stencil, &pb->coef, &pb->ug, &pb->mesh, s->prec, 0,
                                  pb->mesh_path) != 0)
        return -1;
    int nin = stencil_table[s->stencil].nin;
    if (pb->bare)
        return 0;
    for (int f = 0; f < pb->nf; f++)
        if (f < nin || !pb->lean || pb->lean_outputs)
            pb->uf.p[f] = field_alloc(s->prec, pb->ug.len);
    if (problem_has_regular(pb))
        fill_unstructured(pb);
    else
        fill_direct_inputs(pb);
    return 0;
}

/* A framed stencil (stencils/registry.h; fastwaves) moves a vector given in each cell's W/E/S/N
 * frame: on a mesh where that frame turns (a lattice identity fails, mesh_lattice_breaks) its
 * components would be mixed up, so it is refused there, naming the first such cell. Returns 0,
 * or -1 after the message. */
static int refuse_turning_frame(const char *path, const mesh *m, const char *name)
{
    char why[128];
    int first, n = mesh_lattice_breaks(m, &first, why, sizeof why);
    if (n == 0)
        return 0;
    perr("%s: %s moves a vector in each cell's W/E/S/N frame, but the frame turns "
         "at %d cells, first at cell %d (%s); it runs on quad meshes whose labels keep one frame "
         "(a regular or shuffled patch); the stencils without a frame run on this one",
         path, name, n, first, why);
    return -1;
}

int problem_mesh_refuses(const mesh *m, const char *path, stencil_t st)
{
    const stencil_info *si = &stencil_table[st];
    if (m->adj && !si->graph) {
        perr("%s: %s reads W/E/S/N relations, but this is a general mesh (/cell_neighbours); "
             "run --stencil graphlap on it", path, si->name);
        return -1;
    }
    return si->framed ? refuse_turning_frame(path, m, si->name) : 0;
}

/* Reads the mesh (or takes `given`, already checked, which is then emptied) and takes the grid's
 * extent from it: levels from the file, halo = the stencil's radius, and for a regular patch its
 * nx x ny. */
static int load_mesh(problem *pb, mesh *given)
{
    problem_spec *s = &pb->s;
    if (given) {
        pb->mesh = *given;
        memset(given, 0, sizeof *given);
    } else if (mesh_read(pb->mesh_path, &pb->mesh) != 0) {
        return -1;
    }
    const stencil_info *si = &stencil_table[s->stencil];
    if (problem_mesh_refuses(&pb->mesh, pb->mesh_path, s->stencil) != 0)
        return -1;
    s->nz = pb->mesh.nlevels;
    s->halo = si->radius;
    s->nx = pb->mesh.xy && !si->graph ? pb->mesh.nx : pb->mesh.ncells;
    s->ny = pb->mesh.xy && !si->graph ? pb->mesh.ny : 1;
    pb->twin->regular = pb->mesh.xy != NULL && !si->graph;
    /* the lattice twin: lattice_inner knows the inner cells of radius 1 and 2 */
    if (si->graph && si->radius >= 1 && si->radius <= 2)
        lattice_detect(&pb->mesh, &pb->twin->lat);
    if ((double)pb->mesh.ncells * s->nz > 4e10) {
        perr("%s: %d cells x %d levels: too large", pb->mesh_path, pb->mesh.ncells, s->nz);
        return -1;
    }
    if (s->nz < si->ztop + 1) {
        perr("%s: attribute /nlevels = %d: %s needs at least %d levels", pb->mesh_path, s->nz,
             si->name, si->ztop + 1);
        return -1;
    }
    unsigned char *halo = xalloc((size_t)pb->mesh.ncells);
    int inner = pb->mesh.ncells - (si->graph ? mesh_graph_halo(&pb->mesh, si->radius, halo)
                                             : mesh_halo(&pb->mesh, si->radius, halo));
    xfree(halo);
    if (inner == 0) {
        perr("%s: no inner cells for %s: every cell lacks a neighbour within radius %d",
             pb->mesh_path, si->name, si->radius);
        return -1;
    }
    return 0;
}

/* The regular grid and its input fields. */
static void build_regular(problem *pb)
{
    const problem_spec *s = &pb->s;
    pb->twin->rg = rgrid_make(s->nx, s->ny, s->nz, s->halo, prec_size(s->prec));
    for (int f = 0; f < pb->nf; f++)
        pb->twin->rf.p[f] = field_alloc(s->prec, pb->twin->rg.len);
    for (int f = 0; f < stencil_table[s->stencil].nin; f++) {
        void *r = pb->twin->rf.p[f];
#pragma omp parallel for schedule(static)
        for (int z = 0; z < s->nz; z++)
            for (int y = 0; y < s->ny; y++)
                for (int x = 0; x < s->nx; x++)
                    field_set(s->prec, r, (size_t)rgrid_index(&pb->twin->rg, x, y, z),
                              stencil_input(s->stencil, f, x, y, z, s->seed));
    }
}

/* The lattice twin of a graph stencil's mesh: rf holds the inputs of uf in the file's cell order
 * (a graph grid keeps every cell of the mesh, so each file cell has its grid cell). */
static int build_lattice_twin(problem *pb)
{
    if (stencil_coeffs(pb->s.stencil, &pb->twin->coef_file, &pb->ug, &pb->mesh, pb->s.prec, 1,
                       pb->mesh_path) != 0)
        return -1;
    const ugrid *g = &pb->ug;
    size_t es = prec_size(pb->s.prec);
    pb->twin->lattice = 1;
    pb->twin->rg.nz = pb->s.nz;
    pb->twin->rg.len = g->len;
    pb->twin->rg.zstride = g->zstride;
    for (int f = 0; f < pb->nf; f++)
        pb->twin->rf.p[f] = field_alloc(pb->s.prec, g->len);
    for (int f = 0; f < stencil_table[pb->s.stencil].nin; f++)
        for (int z = 0; z < pb->s.nz; z++)
            for (int c = 0; c < g->nxy; c++)
                memcpy((char *)pb->twin->rf.p[f] + ((size_t)g->mesh_cell[c] + (size_t)z * g->zstride) * es,
                       (const char *)pb->uf.p[f] + ((size_t)c + (size_t)z * g->zstride) * es, es);
    return 0;
}

int problem_make(problem *pb, const problem_spec *s)
{
    return problem_make_mesh(pb, s, NULL, MESH_ORDER_FILE);
}

static int problem_build(problem *pb, const problem_spec *s, const char *path, mesh_order_t order,
                         mesh *given)
{
    pb->s = *s;
    pb->mesh_path = path;
    pb->mesh_order = order;
    /* the twin is decided while the grid is read: a regular grid for an emulated grid or a mesh
     * that is a regular patch, a lattice for a bounded generated hexagon or triangle mesh */
    pb->twin = xalloc(sizeof *pb->twin);
    memset(pb->twin, 0, sizeof *pb->twin);
    pb->twin->regular = 1;
    const stencil_info *si = &stencil_table[s->stencil];
    pb->nf = si->nin + si->nout;
    if ((path && load_mesh(pb, given) != 0) || (pb->twin->regular && problem_check(&pb->s) != 0)) {
        piece_failed(pb);
        problem_free(pb);
        return -1;
    }
    if (pb->lean || (!pb->twin->regular && !pb->twin->lat.kind)) { /* no twin */
        xfree(pb->twin);
        pb->twin = NULL;
    }
    if (problem_has_regular(pb))
        build_regular(pb);
    if (build_unstructured(pb) != 0) {
        problem_free(pb);
        return -1;
    }
    if (pb->twin && pb->twin->lat.kind && build_lattice_twin(pb) != 0) {
        problem_free(pb);
        return -1;
    }
    problem_poison(pb);
    return 0;
}

int problem_make_mesh(problem *pb, const problem_spec *s, const char *path, mesh_order_t order)
{
    memset(pb, 0, sizeof *pb);
    return problem_build(pb, s, path, order, NULL);
}

int problem_make_lean(problem *pb, const problem_spec *s, const char *path, mesh_order_t order,
                      int outputs)
{
    return problem_make_lean_mesh(pb, s, NULL, path, order, outputs);
}

int problem_make_bare(problem *pb, const problem_spec *s, const char *path, mesh_order_t order)
{
    memset(pb, 0, sizeof *pb);
    pb->lean = 1;
    pb->bare = 1;
    return problem_build(pb, s, path, order, NULL);
}

int problem_make_lean_mesh(problem *pb, const problem_spec *s, mesh *m, const char *name,
                           mesh_order_t order, int outputs)
{
    return problem_make_piece(pb, s, m, name, order, outputs, NULL, NULL);
}

int problem_make_piece(problem *pb, const problem_spec *s, mesh *m, const char *name,
                       mesh_order_t order, int outputs, double (*min_all)(void *u, double x),
                       void *u)
{
    memset(pb, 0, sizeof *pb);
    pb->lean = 1;
    pb->lean_outputs = outputs;
    pb->coef_min_all = min_all;
    pb->coef_min_user = u;
    if (m && !name)
        name = "the mesh";
    return problem_build(pb, s, name, order, m);
}

/* Only the neighbour table of pb's grid, in storage (chasing, compressed). */
static void rebuild_table(problem *pb, int chasing, int compressed)
{
    pb->s.chasing = chasing;
    pb->s.compressed = compressed;
    if (!stencil_table[pb->s.stencil].graph) {
        nbtable_free(&pb->nt);
        nbtable_build(&pb->nt, &pb->ug, chasing, compressed);
    } else {
        gtable_free(&pb->gt);
        gtable_build(&pb->gt, &pb->ug, chasing, compressed);
    }
}

int problem_relayout(problem *pb, layout_t layout, int w, int chasing, int compressed)
{
    if (pb->ug.nxy > 0 && pb->built.layout == layout && pb->built.w == w &&
        (!pb->mesh_path || pb->built.order == pb->mesh_order)) {
        rebuild_table(pb, chasing, compressed);
        problem_poison(pb);
        return 0;
    }
    for (int f = 0; f < pb->nf; f++)
        xfree(pb->uf.p[f]);
    nbtable_free(&pb->nt);
    ell_free(&pb->ell);
    gtable_free(&pb->gt);
    coef_set_free(&pb->coef);
    ugrid_free(&pb->ug);
    pb->s.layout = layout;
    pb->s.w = w;
    pb->s.chasing = chasing;
    pb->s.compressed = compressed;
    if (build_unstructured(pb) != 0)
        return -1;
    problem_poison(pb);
    return 0;
}

void problem_poison(problem *pb)
{
    const stencil_info *si = &stencil_table[pb->s.stencil];
    for (int f = si->nin; f < pb->nf; f++) {
        if (pb->twin && pb->twin->rf.p[f])
            field_poison(pb->s.prec, pb->twin->rf.p[f], pb->twin->rg.len);
        if (pb->uf.p[f])
            field_poison(pb->s.prec, pb->uf.p[f], pb->ug.len);
    }
}

void problem_free(problem *pb)
{
    for (int f = 0; f < pb->nf; f++)
        xfree(pb->uf.p[f]);
    if (pb->twin) {
        for (int f = 0; f < pb->nf; f++)
            xfree(pb->twin->rf.p[f]);
        coef_set_free(&pb->twin->coef_file);
        xfree(pb->twin);
    }

    nbtable_free(&pb->nt);
    ell_free(&pb->ell);
    gtable_free(&pb->gt);
    coef_set_free(&pb->coef);
    ugrid_free(&pb->ug);
    mesh_free(&pb->mesh);
    memset(pb, 0, sizeof *pb);
}

long problem_points(const problem *pb)
{
    long inner = pb->ug.nxy - pb->ug.nhalo;
    return inner * stencil_zend(pb->s.stencil, pb->s.nz);
}

double problem_min_bytes(const problem *pb)
{
    return (double)problem_points(pb) * pb->nf * (double)prec_size(pb->s.prec);
}
