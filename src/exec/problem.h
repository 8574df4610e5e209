/* problem.h — one stencil on one grid: the unstructured grid, its tables and host fields, inputs
 * filled and outputs poisoned; for verification and the benchmark also its twin (the regular grid
 * or lattice it emulates, with its own fields). */
#ifndef PILLAR_PROBLEM_H
#define PILLAR_PROBLEM_H

#include "grids/grid.h"
#include "grids/lattice.h"
#include "grids/mesh.h"
#include "stencils/stencil.h"
#include "storage/ell.h"
#include "storage/field.h"
#include "storage/coeffs.h"
#include "storage/gtable.h"
#include "storage/nbtable.h"
#include "include/pillar_tools.h"

/* The grid and stencil of a problem: include/pillar_tools.h's pillar_grid_spec, whose integer
 * fields hold stencil_t, precision_t and layout_t values. */
typedef pillar_grid_spec problem_spec;

/* What only verification and the benchmark use: the problem's twin, addressed by arithmetic. */
typedef struct {
    int regular;   /* rg and rf: the regular grid this one emulates (an emulated grid, or a mesh
                    * that is a regular patch), its fields filled with the same inputs */
    int lattice;   /* lat is set and rg/rf hold its lattice twin: the mesh's cells in file order,
                    * at ug's level stride (rg.len, rg.zstride, rg.nz only); regular is 0 */
    rgrid rg;
    fieldset rf;   /* the twin's host fields */
    lattice lat;   /* graph stencils on a bounded generated hexagon or triangle mesh: the lattice
                    * that addresses it by arithmetic (grids/lattice.h), else kind 0 */
    coef_set coef_file; /* the stencil's coefficients (stencils/coeffs.h) in the file's cell
                         * order, for the lattice twin; empty for a stencil without */
} problem_twin;

/* One stencil on one grid: the grid, its tables, its fields and, for verification and the
 * benchmark only, its twin. Lean problems (the library, iterated and distributed runs) have no
 * twin. */
typedef struct {
    problem_spec s;
    int nf;      /* fields: inputs + outputs */

    /* the grid */
    ugrid ug;
    const char *mesh_path; /* the grid comes from this mesh file (else NULL: emulated) */
    mesh_order_t mesh_order; /* order of the mesh's cells (METIS: parts of about s.w cells) */
    int mesh_parts;   /* parts of a METIS order, 0 if none */
    mesh mesh;        /* the mesh file's contents */

    /* the tables the kernels read besides the fields */
    nbtable nt;    /* W/E/S/N stencils: the neighbour table of ug */
    ell_table ell; /* graph stencils: the neighbour lists of ug (nt stays empty) */
    gtable gt;     /* graph stencils: the offset table of ug in s.chasing / s.compressed
                    * (storage/gtable.h), what the GPU strategies read */
    coef_set coef; /* the stencil's coefficients (stencils/coeffs.h; fluxdiff's r and κ) per
                    * cell of ug; empty for a stencil without */
    double (*coef_min_all)(void *u, double x); /* non-NULL: ug is a piece of a grid others hold
                                                * (problem_make_piece), its coefficients' minima
                                                * taken over every piece through it */
    void *coef_min_user;

    /* the fields */
    fieldset uf;      /* host fields on ug */
    int lean;         /* made by problem_make_lean: no twin */
    int lean_outputs; /* lean, with output fields */
    int bare;         /* lean without any field (problem_make_bare): uf is empty */
    struct { layout_t layout; int w; mesh_order_t order; } built; /* what ug was built with */

    problem_twin *twin; /* NULL: none */
} problem;

/* Whether pb has a regular twin, or a lattice twin. */
static inline int problem_has_regular(const problem *pb) { return pb->twin && pb->twin->regular; }
static inline int problem_has_lattice(const problem *pb) { return pb->twin && pb->twin->lattice; }

/* Checks the spec (message naming the bad value, -1) and builds everything. */
int problem_check(const problem_spec *s);
int problem_make(problem *pb, const problem_spec *s);
/* Whether stencil st cannot run on mesh m (read from path): a W/E/S/N stencil on a general mesh,
 * a stencil with a frame on a quad mesh whose frame turns. 0 when it can, else -1 after a
 * message naming the file and the stencil (what problem_make_mesh says). */
int problem_mesh_refuses(const mesh *m, const char *path, stencil_t st);
/* The same on the cells of a mesh file in the given order (file, metis, zcurve): the file
 * fixes the cells and levels (nx, ny, nz, halo of s are replaced; halo = the stencil's radius).
 * A mesh that is a regular patch also gets its regular twin for the W/E/S/N stencils, a bounded
 * generated hexagon or triangle mesh its lattice twin for the graph stencils; any other mesh
 * none (twin NULL). The W/E/S/N stencils refuse a general mesh. */
int problem_make_mesh(problem *pb, const problem_spec *s, const char *path, mesh_order_t order);
/* For iterated runs: the unstructured grid only (no regular twin; its inputs hold the values the
 * twin would), and its output fields only when `outputs` is set. */
int problem_make_lean(problem *pb, const problem_spec *s, const char *path, mesh_order_t order,
                      int outputs);
/* For a rank of a distributed run that makes only its own part's fields: the lean problem's grid
 * and tables without any field (uf empty, nf still counts the stencil's fields); the initial inputs
 * at any cells come from problem_fill_inputs. */
int problem_make_bare(problem *pb, const problem_spec *s, const char *path, mesh_order_t order);
/* Input field f's initial values (the ones problem_make_lean puts in uf) at the n cells cells[]
 * of pb->ug, levels [z0, z1): value i of level z at index (z - z0) * zstride + i of dst. */
void problem_fill_inputs(const problem *pb, int f, const int *cells, int n, int z0, int z1,
                         void *dst, long zstride);
/* The same without a problem, on a mesh file without a patch (no /patch_xy: inputs go by the
 * file's cell index, as problem_fill_inputs' do there): input field f of spec s (its stencil and
 * seed) at the n cells of file indices ids[]. */
void problem_fill_inputs_ids(const problem_spec *s, int f, const int *ids, int n, int z0, int z1,
                             void *dst, long zstride);
/* The same on a mesh already in memory and checked (mesh_check), which pb takes over (m is
 * emptied, also on failure); name stands for it in messages (pb->mesh_path). m = NULL: the mesh
 * file at name, or an emulated grid when name is NULL too. */
int problem_make_lean_mesh(problem *pb, const problem_spec *s, mesh *m, const char *name,
                           mesh_order_t order, int outputs);
/* The same for a piece of a grid whose other pieces other processes hold (a rank's cells of a
 * model's decomposition, m its rows): the coefficients' grid-wide minima go through min_all(u, x)
 * (stencil_coeffs_part), which every piece calls alike; collective then. */
int problem_make_piece(problem *pb, const problem_spec *s, mesh *m, const char *name,
                       mesh_order_t order, int outputs, double (*min_all)(void *u, double x),
                       void *u);
void problem_free(problem *pb);
/* Rebuilds the unstructured twin with another layout/storage (the regular grid stays): the cells
 * in layout (a mesh file's: in pb->mesh_order) with run width w, the neighbour table in storage
 * (chasing, compressed), the inputs refilled and the outputs poisoned. When only the storage
 * changes, the grid and the fields stay and only the table is rebuilt (what the benchmark and the
 * tuner do between storages: seconds less per switch on a million cells). 0 or -1 with a message. */
int problem_relayout(problem *pb, layout_t layout, int w, int chasing, int compressed);
void problem_poison(problem *pb);

/* Output points computed per run, and bytes a perfect implementation moves. */
long problem_points(const problem *pb);
double problem_min_bytes(const problem *pb);

#endif
