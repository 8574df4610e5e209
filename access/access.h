/* access.h — the access strategies (docs/access.md), one descriptor each in one table. Each has
 * an unstructured form and a regular-grid twin; the kernels that implement a strategy live in
 * its own file access/<name>.cu (scaffolding: access/kernels.cuh), which defines its kernel
 * table NAME_kernels (and NAME_kernels_upload where it reads a neighbour table); what it does on
 * the host (block-shape rule, shared memory, its own per-block lists) are the hooks its line
 * names (access/hooks.h). Adding a strategy: its files and one line below (docs/access.md). */
#ifndef PILLAR_ACCESS_H
#define PILLAR_ACCESS_H

#include "../stencils/stencil.h"

#include <stddef.h>

/* One line per strategy:
 * X(ENUM, name, kernels, upload, levels, shape, smem, prep, graph, iterated, twin,
 *   (default block shape, unstructured), (regular), summary)
 *   kernels   NAME of its kernel table NAME_kernels (zloop-sliced shares zloop's)
 *   upload    1: NAME_kernels_upload fills its constant-memory table (it reads neighbour
 *             tables: --constant-tables, --packed-rows apply)
 *   levels    what a thread walks: ONE point, a SLICE of --zslice levels (default 8), ALL levels
 *   shape     block-shape rule, the hook access_shape_SHAPE (access/hooks.h): ANY, WARP (unstructured: bx·by divides 32 or is a multiple of 32,
 *             whole warps), STAGED (Bx1x1 unstructured, BXxBYx1 with at most 4 tile loads per
 *             thread regular), TILE (Bx1xL unstructured, BXxBYxL regular with the tile and its
 *             ring of one cell at most 4 entries per thread), GTILE (Bx1x1 with B >= 32
 *             unstructured; BXxBYx1 with BX even and the tile with its ring of (BX+4)x(BY+2) at
 *             most 3 entries per thread regular), PAIRS (any block regular, whole warps of bx·by a
 *             multiple of 32 unstructured; a thread computes two cells: blocks cover 2·bx
 *             columns of the regular grid, 2·bx·by cells of the unstructured one)
 *   smem      dynamic shared memory, the hook access_smem_SMEM: NONE, OFFSETS (unstructured: NREL2 rows of bx·by|1
 *             offsets), STAGED (the block's cells and halo: one level of values), LAPS (two
 *             buffers of bz levels of one value per cell of the block and its ring), GLAPS (two
 *             halves of GTP_G levels of one Laplacian per entry: access/graph_twopass.cu)
 *   prep      the strategy's own per-block lists, the hooks access_prep_PREP (access/hooks.h):
 *             NONE (it reads the neighbour table); STAGED: per-block halo lists
 *             (storage/staging.h) of the stencil's relations replace the neighbour table;
 *             TWOPASS: lists of the W/E/S/N ring only, next to the table; GRAPH_TWOPASS: the
 *             graph two-pass lists (storage/gtwopass.h) replace it; PAIRS: the lattice pairs'
 *             pattern rows (access/pairs_host.c), next to the table
 *   graph     1: has kernels for the graph stencils (NAME_gkernels, access/graph_kernels.cuh:
 *             the offset tables of storage/gtable.h and the lattice twins)
 *   iterated  1: usable in iterated runs (src/plan/ooc_gpu.c)
 *   twin      the strategy whose regular twin is the same kernel as this one's (itself if its own) */
#define PILLAR_ACCESS(X)                                                                           \
    X(NAIVE, "naive", naive, 1, ONE, ANY, NONE, NONE, 1, 1, IDXVAR, (32, 4, 2), (32, 4, 2),        \
      "one thread per cell; every neighbour looked up at every use")                               \
    X(IDXVAR, "idxvar", idxvar, 1, ONE, ANY, NONE, NONE, 1, 1, IDXVAR, (32, 4, 2), (32, 4, 2),     \
      "one thread per cell; each neighbour looked up once into a register")                        \
    X(SHARED, "shared", shared, 1, ONE, ANY, OFFSETS, NONE, 1, 1, IDXVAR, (32, 4, 2), (32, 4, 2),  \
      "the block's lowest-z thread per plane cell shares the indices through shared memory")       \
    X(SHARED_WARP, "shared-warp", shared_warp, 1, ONE, WARP, NONE, NONE, 1, 1, IDXVAR, (16, 1, 8), \
      (16, 1, 8), "as shared, through warp shuffles (needs block x < 32 dividing 32, z > 1)")      \
    X(ZLOOP, "zloop", zloop, 1, ALL, ANY, NONE, NONE, 1, 1, ZLOOP, (128, 1, 1), (128, 1, 1),       \
      "one thread per pillar; indices looked up once, loop over all levels")                       \
    X(ZLOOP_SLICED, "zloop-sliced", zloop, 1, SLICE, ANY, NONE, NONE, 1, 1, ZLOOP_SLICED,          \
      (128, 1, 1), (128, 1, 1),                                                                    \
      "one thread per slice of m levels (--zslice m, default 8); indices looked up once per "      \
      "slice")                                                                                     \
    X(STAGED, "staged", staged, 0, SLICE, STAGED, STAGED, STAGED, 1, 0, STAGED, (256, 1, 1),       \
      (32, 8, 1),                                                                                  \
      "a block's cells and their halo (per-block lists built once on the host) are copied to "     \
      "shared\nmemory level by level; neighbours are local slots kept in registers (laplap, "      \
      "hdiff, lap)")                                                                               \
    X(TWOPASS, "twopass", twopass, 1, SLICE, TILE, LAPS, TWOPASS, 0, 0, TWOPASS, (128, 1, 4),      \
      (32, 4, 4),                                                                                  \
      "a block of cells x levels computes the Laplacian of its cells and their ring once into "    \
      "shared\nmemory, then the outputs from there (laplap, hdiff, lap); --zslice level groups "   \
      "per block")                                                                                 \
    X(GRAPH_TWOPASS, "graph-twopass", graph_twopass, 0, SLICE, GTILE, GLAPS, GRAPH_TWOPASS, 1, 1,  \
      GRAPH_TWOPASS, (256, 1, 1), (32, 4, 1),                                                      \
      "graph stencils: a block computes the inner Laplacian of its run of cells and their "        \
      "ring once per\nlevel into shared memory, then its outputs from there (per-block lists "     \
      "built once on the host)")                                                                   \
    X(ZLOOP_PLAIN, "zloop-plain", zloop_plain, 1, SLICE, ANY, NONE, NONE, 0, 1, ZLOOP_PLAIN,       \
      (128, 1, 1), (128, 1, 1),                                                                    \
      "zloop-sliced with the values read by plain loads, not the read-only path")                  \
    X(PAIRS, "pairs", pairs, 1, SLICE, PAIRS, NONE, PAIRS, 0, 1, PAIRS, (128, 1, 1), (64, 4, 1),   \
      "two cells of a row per thread, --zslice levels, aligned pairs of values read by vector "    \
      "loads\n(unstructured: where the mesh is a lattice around a warp's pairs, else one cell at " \
      "a time)")

#define PILLAR_ACC_ENUM_(E, ...) ACC_##E,
typedef enum { PILLAR_ACCESS(PILLAR_ACC_ENUM_) ACC_COUNT } access_t;

/* Storage columns of a kernel table: unstructured (chasing*2 + compressed), regular, then
 * compressed with constant-memory rows and compressed with packed rows (each: non-chasing,
 * chasing). */
enum { STORAGE_REGULAR = 4, STORAGE_CONSTANT = 5, STORAGE_ROWS = 7, STORAGE_COUNT = 9 };

/* kernel[stencil][precision][storage]: host stubs for cudaLaunchKernel (W/E/S/N stencils; NULL
 * where a strategy has no kernel for a stencil) */
typedef const void *kernel_table[ST_QUAD_COUNT][2][STORAGE_COUNT];

/* Columns of a graph kernel table: the offset table (chasing*2 + compressed), then the lattice
 * twins; GSTORAGE_ELL names the ELL kernel of iterated runs (access/graph.cu), outside it. */
enum { GSTORAGE_HEX = 4, GSTORAGE_TRI = 5, GSTORAGE_COUNT = 6, GSTORAGE_ELL = 6 };
/* kernel[graph stencil - ST_QUAD_COUNT][precision][column] */
typedef const void *gkernel_table[ST_COUNT - ST_QUAD_COUNT][2][GSTORAGE_COUNT];

typedef enum { LEVELS_ONE, LEVELS_SLICE, LEVELS_ALL } access_levels;
typedef enum { SHAPE_ANY, SHAPE_WARP, SHAPE_STAGED, SHAPE_TILE, SHAPE_GTILE, SHAPE_PAIRS } access_shape;
typedef enum { SMEM_NONE, SMEM_OFFSETS, SMEM_STAGED, SMEM_LAPS, SMEM_GLAPS } access_smem;

struct access_smem_in_s; /* access/hooks.h */
struct access_prep_s;

typedef struct access_desc_s {
    const char *name, *summary;
    access_levels levels;
    access_shape shape;
    access_smem smem;
    int graph, iterated;
    access_t twin;
    int shape_uns[3], shape_reg[3];   /* default block shapes */
    kernel_table *kernels;            /* NULL without the CUDA backend */
    gkernel_table *gkernels;          /* graph stencils (graph = 1); NULL without CUDA */
    int (*upload)(const void *rows, size_t bytes); /* NULL: reads no neighbour table */
    /* the hooks (access/hooks.h): block-shape rule, shared memory, own lists */
    int (*shape_ok)(const struct access_desc_s *d, int uns, int bx, int by, int bz, char *why,
                    size_t n);
    size_t (*smem_bytes)(const struct access_smem_in_s *in);
    const struct access_prep_s *prep;
} access_desc;

extern const access_desc access_table[ACC_COUNT];
extern const char *const access_name[ACC_COUNT];
extern const char *const access_summary[ACC_COUNT];
int access_parse(const char *s, access_t *out); /* 0 on success */

/* The strategy's descriptor, or NULL (with a message) for a value that names none. */
const access_desc *access_get(access_t a);

/* Whether strategy a has kernels for the built-in stencil s, from the registries alone (no CUDA
 * needed): a graph stencil needs a strategy with graph kernels (graph 1); a W/E/S/N one a
 * strategy with W/E/S/N kernels, which the graph two-pass lists (staging 3) have not, and the
 * staged and two-pass strategies (staging 1, 2) only for stencils marked staged in
 * stencils/registry.h. A stencil file's stencil (stencil_is_user): every strategy but the staged
 * ones (staging != 0), graph ones only for a graph stencil. With CUDA, gpu_supports
 * (src/exec/gpu.h) also checks the kernel tables and whether a stencil file was compiled. */
int access_supports(access_t a, stencil_t s);

/* Whether strategy a runs iterated steps of stencil s, from the registries alone: its iterated
 * column and access_supports; a graph stencil's steps run the ELL kernel under idxvar's name or
 * a strategy's own lists (src/plan/ooc_gpu.c, which also asks the CUDA build). */
int access_iterates(access_t a, stencil_t s);
/* The strategies that run iterated steps of s, as "a, b or c", into out (n bytes); returns out. */
const char *access_iterating(stencil_t s, char *out, size_t n);

/* Default block shape of a strategy on the unstructured (uns) or regular grid (idxvar's for a
 * value that names none). */
void access_default_shape(access_t a, int uns, int *bx, int *by, int *bz);

/* Whether a block of bx x by x bz threads suits strategy a's shape rule (above: shape) on the
 * unstructured (uns) or regular grid, and holds 1 to PILLAR_MAX_THREADS (access/launch.h)
 * threads; 1, or 0 with the reason in why (n bytes). */
int access_shape_ok(access_t a, int uns, int bx, int by, int bz, char *why, size_t n);

/* The kernel tables of the strategy files (CUDA backend). */
#ifdef __cplusplus
extern "C" {
#endif
#define PILLAR_ACC_UPLOAD_DECL_1(k) int k##_kernels_upload(const void *rows, size_t bytes);
#define PILLAR_ACC_UPLOAD_DECL_0(k)
#define PILLAR_ACC_GDECL_1(k) extern gkernel_table k##_gkernels;
#define PILLAR_ACC_GDECL_0(k)
#define PILLAR_ACC_DECL_(E, nm, k, up, lev, shape, smem, prep, graph, ...)                     \
    extern kernel_table k##_kernels; PILLAR_ACC_UPLOAD_DECL_##up(k) PILLAR_ACC_GDECL_##graph(k)
PILLAR_ACCESS(PILLAR_ACC_DECL_)
#ifdef __cplusplus
}
#endif

#endif
