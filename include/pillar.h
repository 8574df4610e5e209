/* pillar.h — the C API of libpillar: stencils of the pillar engine applied to a model's own
 * fields on its own grid (docs/api.md gives every contract in full).
 *
 * One handle, pillar_ctx, holds one stencil on one grid and its fields. Its life:
 *
 *   pillar_create(&ctx);
 *   pillar_set_option(ctx, "stencil", "laplap");          options: before pillar_setup
 *   pillar_grid_quad(ctx, ncells, nlevels, nbr);           or _general, or _file
 *   pillar_setup(ctx);                                     builds the engine's grid and fields
 *   pillar_set_field(ctx, "in", values, nlevels * ncells); every input, in the caller's order
 *   pillar_step(ctx, T);  or  pillar_apply(ctx);           (pillar_set_comm: over MPI ranks)
 *   pillar_get_field(ctx, "in", values, nlevels * ncells); back in the caller's order
 *   pillar_destroy(ctx);
 *
 * Fields are arrays [nlevels][ncells] (level-major: value of cell c at level z at index
 * z * ncells + c) in the CALLER's cell order: the order of the rows of the neighbour table (or of
 * the mesh file). pillar renumbers the cells internally (option "order", halo cells first);
 * pillar_get_permutation tells how, for a caller that wants to follow it.
 *
 * Halo cells: a cell whose neighbourhood of the stencil's radius is incomplete (a neighbour is
 * -1 within reach) is a halo cell and is never computed. pillar_get_halo lists them. After
 * pillar_apply an output field holds NaN at halo cells and at levels the stencil does not compute
 * (the top level of fastwaves); after pillar_step the state keeps its values there unchanged.
 *
 * Errors: every function validates its arguments and returns a pillar_status; on failure
 * pillar_last_error(ctx) holds one line saying why. The library never prints and never exits:
 * when the host runs out of memory or a CUDA call fails deep inside the engine, the call returns
 * PILLAR_ERR_NOMEM or PILLAR_ERR_BACKEND and the handle is faulted: what that call had built (and
 * allocated) is abandoned, every later call on the handle returns PILLAR_ERR_STATE, and
 * pillar_destroy frees the handle itself only.
 *
 * Residency: on the GPU backend a handle keeps its fields on the device between calls once its
 * first run (or field set) has planned and uploaded the grid; pillar_step(ctx, T) is then T
 * kernel launches queued without waiting, and a host array crosses the link once per set or get.
 * Errors of launched kernels surface at a later call (docs/api.md).
 *
 * Threads: handles are independent (no global mutable state is shared between them); one handle
 * must not be used by two threads at once. The CPU backend runs with OpenMP threads.
 *
 * Plain C99, no other header needed: usable from C, C++ (extern "C") and Fortran (ISO_C_BINDING;
 * every argument is a pointer, an int, a size_t or a NUL-terminated string). */
#ifndef PILLAR_H
#define PILLAR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PILLAR_API_VERSION 1

typedef enum {
    PILLAR_OK = 0,
    PILLAR_ERR_NULL = 1,        /* a required pointer argument is NULL */
    PILLAR_ERR_ARG = 2,         /* a number out of range, a wrong array size, a bad value */
    PILLAR_ERR_UNKNOWN = 3,     /* an unknown option, option value, stencil or field name */
    PILLAR_ERR_GRID = 4,        /* the neighbour table or mesh file is not a valid grid */
    PILLAR_ERR_UNSUPPORTED = 5, /* valid, but this stencil / grid / backend cannot do it */
    PILLAR_ERR_STATE = 6,       /* called out of order (e.g. an option after pillar_setup) */
    PILLAR_ERR_BACKEND = 7,     /* the backend failed (no GPU, a CUDA error: the handle is faulted) */
    PILLAR_ERR_NOMEM = 8        /* the host ran out of memory (after pillar_create: faulted) */
} pillar_status;

typedef struct pillar_ctx pillar_ctx;

/* A new handle in *ctx (NULL on failure: PILLAR_ERR_NULL if ctx is NULL, PILLAR_ERR_NOMEM). */
pillar_status pillar_create(pillar_ctx **ctx);
/* Frees the handle and everything it holds; NULL is ignored. */
void pillar_destroy(pillar_ctx *ctx);
/* The message of the handle's last failed call ("" if none; "no handle" for NULL). Valid until
 * the next call on the handle. */
const char *pillar_last_error(const pillar_ctx *ctx);
/* The name of a status ("PILLAR_ERR_ARG"), for messages. */
const char *pillar_status_name(pillar_status s);

/* ---- before pillar_setup ---- */

/* Sets an option by name (both strings NUL-terminated):
 *   stencil    laplap (default), hdiff, fastwaves, lap, graphlap (the registry's names)
 *   precision  double (default) | float: the engine's arithmetic
 *   order      auto (default: the plan's order, else file) | file (the caller's order, halo
 *              cells first) | metis | zcurve (needs coordinates: pillar_set_coordinates or a
 *              mesh file that has them); fields keep the caller's order whichever runs
 *   part_cells cells per METIS part (default 32)
 *   storage    auto (default) | chasing | nonchasing | chasing-compressed |
 *              nonchasing-compressed
 *   access     auto (default) | the GPU access strategy (naive, idxvar, shared, shared-warp,
 *              zloop, zloop-sliced, staged, twopass; the CPU ignores it). auto: the plan's, else the
 *              storage and strategy pillar measured fastest for the stencil (docs/api.md); every choice
 *              gives the same bits
 *   backend    auto (default: the GPU when one is usable, else the CPU) | cpu | gpu
 *   levels     0 (default) | 1 to 100000: the levels of pillar_grid_file's grid (0: a pillar
 *              mesh file's own, 64 for another tool's grid file)
 *   format     auto (default: from the file's content) | ugrid | icon | mpas | scrip | esmf |
 *              bounds | gmsh: how pillar_grid_file reads another tool's grid file
 *   merge_nodes 0 (default: nodes at identical positions are one) | a distance | off: how
 *              pillar_grid_file merges the coincident nodes of a UGRID file (pillar mesh import
 *              --merge-nodes)
 *   plan       auto (default: the plan cache's plan for this grid, stencil, precision, levels
 *              and device, docs/tune.md) | off (the untuned defaults) | the path of a plan file;
 *              it sets the options left auto (order, storage, access); a stale or bad plan: a
 *              note on stderr and the defaults
 *   tune       off (default) | on: pillar_setup measures the candidates on the GPU (60 s at
 *              most), stores the plan and takes it; on the CPU PILLAR_ERR_UNSUPPORTED
 *   persistent auto (default) | on | off: on the GPU, on runs all of a pillar_step's steps in
 *              one cooperative launch (laplap, hdiff, lap, in core: docs/persistent.md; another
 *              stencil, or a grid larger than the device, fails with PILLAR_ERR_BACKEND and the
 *              state unchanged); auto, for laplap, hdiff and lap in core, times the first two
 *              calls of each step count on chip and in core and runs later calls of that count
 *              the faster way (a note in pillar_last_error says which), else one launch a step;
 *              the CPU ignores it */
pillar_status pillar_set_option(pillar_ctx *ctx, const char *key, const char *value);

/* Your own stencil instead of a built-in one (docs/own-stencil.md): a stencil file in the body
 * contract, compiled at run time by the system C compiler (and for the GPU by NVRTC when pillar
 * was built with it), cached on disk ($PILLAR_CACHE_DIR, $XDG_CACHE_HOME/pillar or
 * ~/.cache/pillar). Replaces option "stencil"; its fields are set and read by the names of its
 * in(...) and out(...) clauses. A file that is not a valid stencil, reads outside its declared
 * radius or does not compile: PILLAR_ERR_ARG with the file, line and compiler message in
 * pillar_last_error; no C compiler: PILLAR_ERR_UNSUPPORTED. Compiled stencils stay loaded for
 * the life of the process (at most 32 distinct ones), shared by every handle. */
pillar_status pillar_set_stencil_file(pillar_ctx *ctx, const char *path);
/* The same from the text of a stencil file; name stands for it in messages. */
pillar_status pillar_set_stencil_source(pillar_ctx *ctx, const char *name, const char *source);

/* The grid, from the caller's arrays (copied; the caller keeps them):
 *   quad:    nbr[4*c + r], r = 0 W, 1 E, 2 S, 3 N: the neighbour cell or -1 (none). Symmetric:
 *            if d is a neighbour of c, c is a neighbour of d.
 *   general: adj[maxdeg*c + j]: the cell across edge j of c, or -1 (1 <= maxdeg <= 16).
 *            Only graph stencils (graphlap) run on it.
 * ncells >= 1, nlevels >= 1 (and enough for the stencil, e.g. fastwaves needs 2). */
pillar_status pillar_grid_quad(pillar_ctx *ctx, int ncells, int nlevels, const int *nbr);
pillar_status pillar_grid_general(pillar_ctx *ctx, int ncells, int nlevels, int maxdeg,
                                  const int *adj);
/* The grid from a pillar mesh file (netCDF-4/HDF5, docs/mesh-format.md), or from any grid file
 * pillar mesh import reads (imported in memory, 64 levels): cells, levels, coordinates. */
pillar_status pillar_grid_file(pillar_ctx *ctx, const char *path);
/* Cell coordinates for order zcurve: xyz[ncoord*c + k], ncoord 2 or 3 (copied). After a grid. */
pillar_status pillar_set_coordinates(pillar_ctx *ctx, int ncells, int ncoord, const double *xyz);

/* Builds the engine's grid, tables and fields with the options. Afterwards the options and the
 * grid are fixed. */
pillar_status pillar_setup(pillar_ctx *ctx);

/* ---- after pillar_setup ---- */

/* Cells per level, levels and halo cells of the grid. Any pointer may be NULL. */
pillar_status pillar_get_sizes(pillar_ctx *ctx, int *ncells, int *nlevels, int *nhalo);
/* perm[c] = pillar's internal cell of the caller's cell c (a permutation of 0..ncells-1). */
pillar_status pillar_get_permutation(pillar_ctx *ctx, int *perm, int ncells);
/* halo[c] = 1 if the caller's cell c is a halo cell (never computed), else 0. */
pillar_status pillar_get_halo(pillar_ctx *ctx, int *halo, int ncells);

/* The stencil's fields: nin inputs then nout outputs; name of field k (owned by the library). */
pillar_status pillar_field_count(pillar_ctx *ctx, int *nin, int *nout);
pillar_status pillar_field_name(pillar_ctx *ctx, int k, const char **name);

/* Sets input field `name` from values[z * ncells + c] in the caller's order; count must be
 * nlevels * ncells; every value finite (and within float range for precision float). On failure
 * the field is unchanged. Every input must be set once before pillar_apply or pillar_step. */
pillar_status pillar_set_field(pillar_ctx *ctx, const char *name, const double *values,
                               size_t count);
pillar_status pillar_set_field_float(pillar_ctx *ctx, const char *name, const float *values,
                                     size_t count);
/* Copies field `name` (input or output) into values in the caller's order (count as above).
 * An output only after pillar_apply (PILLAR_ERR_STATE otherwise); NaN at uncomputed points. */
pillar_status pillar_get_field(pillar_ctx *ctx, const char *name, double *values, size_t count);
pillar_status pillar_get_field_float(pillar_ctx *ctx, const char *name, float *values,
                                     size_t count);

/* The same four calls with `values` in device memory (cudaMalloc or cudaMallocManaged, on the
 * device the library uses): for a model that holds its fields on the GPU. Only for a handle on
 * the GPU backend (PILLAR_ERR_UNSUPPORTED otherwise, and in a build without CUDA); a host array
 * is refused (PILLAR_ERR_ARG). Where the handle keeps its fields resident on the device (the
 * GPU backend in core: docs/api.md) they are renumbered there without crossing to the host;
 * otherwise through host memory once. The results are the same bits as the host calls'. */
pillar_status pillar_set_field_device(pillar_ctx *ctx, const char *name, const double *values,
                                      size_t count);
pillar_status pillar_set_field_device_float(pillar_ctx *ctx, const char *name,
                                            const float *values, size_t count);
pillar_status pillar_get_field_device(pillar_ctx *ctx, const char *name, double *values,
                                      size_t count);
pillar_status pillar_get_field_device_float(pillar_ctx *ctx, const char *name, float *values,
                                            size_t count);

/* Binds the caller's device array `values` (count = nlevels * ncells, the caller's order) to
 * field `name` for the calls that follow, so that a model keeping its state on the GPU calls
 * only pillar_step in its time loop: before each pillar_step / pillar_apply the handle takes a
 * bound input's values from the array (the model may write into it between calls), and after it
 * the array holds the field's new values (the state after steps, an output after an
 * application). An input takes the array's values at once, checked as pillar_set_field_device
 * checks them. Where the array can serve as pillar's own — GPU backend in core, the caller's
 * cell order is pillar's (pillar_get_permutation is the identity), ncells is a multiple of 64
 * (no padding between levels) and the precision is the handle's — it is used in place: the
 * kernels read and write it, nothing is copied (one device-to-device copy after an odd number
 * of steps) and nothing checks its values again. Otherwise each call renumbers it on the device
 * as pillar_set_field_device / pillar_get_field_device do. pillar_step and pillar_apply return
 * once the array holds the new values (it may then be read or written on any stream); what the
 * caller writes into it must be complete (a synchronized stream) before the next call.
 * values = NULL unbinds (the field keeps its values in the handle's memory). The array must stay
 * allocated while bound. Same refusals as pillar_set_field_device. */
pillar_status pillar_bind_field_device(pillar_ctx *ctx, const char *name, double *values,
                                       size_t count);
pillar_status pillar_bind_field_device_float(pillar_ctx *ctx, const char *name, float *values,
                                             size_t count);

/* One application: every output from the inputs; the inputs are unchanged. */
pillar_status pillar_apply(pillar_ctx *ctx);
/* steps >= 0 iterated time steps: the stencil's state inputs advance by its fold (laplap:
 * in <- in - laplap(in)/64; hdiff: in <- out; fastwaves: u_pos, v_pos <- u_out, v_out; lap:
 * in <- in - lap(in)/8; graphlap: in <- in - graphlap(in)/1024) at the inner cells and computed
 * levels; the other inputs stay fixed. Bit for bit the result of `pillar run --steps T`. The
 * outputs are undefined afterwards (get them after pillar_apply). */
pillar_status pillar_step(pillar_ctx *ctx, int steps);

/* Distributes pillar_step over the ranks of an MPI communicator, given as its Fortran handle
 * (an MPI_Fint: MPI_Comm_c2f(comm) in C, the integer communicator itself in Fortran), so that
 * this header needs no mpi.h. Every rank of the communicator makes its own handle with the same
 * options, grid and inputs and calls pillar_step collectively: each rank then advances one METIS
 * part of the cells (with the halo of radius x F, exchanged every F steps; option "fuse", default
 * 1; on GPUs option "halo": nccl, ipc, staged or auto) and every rank ends with the whole state, bit for bit the result without a communicator
 * (docs/distributed.md). Any time after pillar_create; MPI must be initialised. PILLAR_ERR_STATE
 * when it is not, PILLAR_ERR_ARG for a handle that is not a communicator, PILLAR_ERR_UNSUPPORTED
 * in a build without MPI. */
pillar_status pillar_set_comm(pillar_ctx *ctx, int fcomm);

/* A model's own decomposition, instead of pillar_set_comm (docs/distributed.md). On each rank of
 * the MPI communicator fcomm (its Fortran handle, as for pillar_set_comm) the handle's grid is the
 * rank's LOCAL grid: pillar_grid_quad or pillar_grid_general given the local table (-1 for no
 * cell and for a cell the rank does not hold), its ncells local cells in the model's own order,
 * the first nowned owned by this rank, the rest halo cells owned by other ranks; gid[ncells]
 * their global ids (0 or more; each owned by exactly one rank). Collective: every rank of fcomm
 * calls it, after the grid and the options "stencil" and "fuse" (fixed from then on), before
 * pillar_setup. pillar derives the exchange from the global ids (a directory spread over the
 * ranks: no rank holds more than its own cells). pillar_step then gives the halo cells their
 * owners' values before every pass of F steps (option "fuse", default 1; every input before the
 * first pass of a call, the state before the others) and once after the last pass: afterwards
 * every local cell, halo included, holds its owner's final values, and the owned cells are bit
 * for bit those of the one-rank run on the whole grid. The halo must hold every cell within
 * radius x F of the owned cells (the stencil's radius: 2 for laplap and hdiff, 1 for lap).
 * pillar_apply gives the inputs' halo cells their owners' values, then computes: the outputs
 * equal the one-rank run's at the owned cells. Fields are the local arrays [nlevels][ncells].
 * On the CPU each rank computes its owned cells and the ring's trapezoid only, step 1's interior
 * while the ring's messages fly; on the GPU (and with pillar_set_halo_exchange) each pass
 * computes the whole local grid; where the first could not be set up pillar_step runs the second
 * and, having succeeded, says why in pillar_last_error.
 *
 * A bad decomposition is refused on every rank with the same status and the same message
 * (pillar_last_error), naming the cell (local index, global id) and the rank: PILLAR_ERR_GRID for
 * a rank that owns no cell, a global id below 0, given twice on a rank or owned by two ranks, a
 * halo cell no rank owns, tables that disagree across ranks (another kind, width or number of
 * levels; a halo cell's row, in global ids column by column, other than its owner's) or a halo
 * too thin for radius x F; PILLAR_ERR_NULL for gid NULL; PILLAR_ERR_ARG for nowned outside
 * 0 .. ncells; PILLAR_ERR_STATE out of order (no grid, a grid file, after pillar_setup, after
 * pillar_set_comm); PILLAR_ERR_UNSUPPORTED in a build without MPI, or for a stencil whose
 * coefficients only the whole grid can make. Arguments one rank refuses alone are agreed too.
 * fluxdiff takes the cells' centres (pillar_set_coordinates, the local cells') and makes its
 * coefficients from the rank's rows, its time step the least over every rank's cells (so the
 * same bits as the one-rank run's); pillar_setup is then collective. MPI must be initialised; a
 * handle that is not a communicator is refused on the rank that gives it, at once (no agreement
 * is possible then). */
pillar_status pillar_set_decomposition(pillar_ctx *ctx, int fcomm, int nowned, const int *gid);

/* The halo exchange of a model that exchanges itself (after pillar_set_decomposition; its
 * checks and passes stay): wherever pillar would exchange, it calls fn(user, field, values,
 * nlevels, ncells, on_device) for each field it needs current, values the field's local array
 * [nlevels][ncells] in the model's cell order and the handle's precision (double, or float with
 * option precision float), in host memory (on_device is 0 in this version). fn gives every halo
 * cell its owner's values and returns 0; it is collective like any exchange of the model's. A
 * nonzero return fails the call (pillar_step, pillar_apply) with PILLAR_ERR_BACKEND on every
 * rank. fn = NULL: pillar exchanges itself again. Any time after pillar_set_decomposition. */
typedef int (*pillar_halo_fn)(void *user, const char *field, void *values, int nlevels,
                              int ncells, int on_device);
pillar_status pillar_set_halo_exchange(pillar_ctx *ctx, pillar_halo_fn fn, void *user);

/* Writes the grid as a pillar mesh file (docs/mesh-format.md), its cells in the caller's order:
 * `pillar run --mesh PATH` then runs the same grid. Before or after pillar_setup. */
pillar_status pillar_write_mesh(pillar_ctx *ctx, const char *path);
/* Writes the fields as a pillar field file (docs/field-format.md) in the caller's order: the
 * inputs, and the outputs when they hold pillar_apply's results (NaN where not computed); after
 * pillar_step the file records the steps. `pillar run --input PATH` reads it back. The file
 * appears complete or not at all. After every input is set. */
pillar_status pillar_write_fields(pillar_ctx *ctx, const char *path);

#ifdef __cplusplus
}
#endif

#endif
