/* plan_use.h — a run's plan: what the run keys it on, where it comes from (the plan cache, a plan
 * file the user names, or none), and its configuration applied to the run's settings field by
 * field, where the settings were not given explicitly. Shared by `pillar run` (one application,
 * iterated, out of core, persistent, each MPI rank) and the library (src/api/pillar.c), so that
 * every front door keys, finds and words its plan alike (docs/tune.md). Never prints: the note
 * of a stale or bad plan is the caller's to show. */
#ifndef PILLAR_PLAN_USE_H
#define PILLAR_PLAN_USE_H

#include "plan_cache.h"
#include "grids/mesh.h"
#include "src/exec/run_options.h"

#include <stddef.h>

/* Where a run's plan comes from. */
typedef enum {
    PLAN_FROM_CACHE, /* the plan cache (the default) */
    PLAN_FROM_OFF,   /* none: the untuned defaults */
    PLAN_FROM_FILE   /* the plan file the user names */
} plan_from;

/* The source `spec` names: NULL or "auto": the cache, unless the environment's PILLAR_PLAN says
 * otherwise ("off", or a file); "off": none; anything else: that file (into *file). */
plan_from plan_source(const char *spec, const char **file);

/* The device a run keys its plan on: the GPU's name (gpu_describe) for the GPU backend, "cpu" for
 * the CPU backend (docs/tune.md: what a CPU run takes from a plan). */
void plan_device(int gpu, char *out, size_t n);

/* The content id ("sha256:<hex>") of a mesh given as tables in memory (the library's
 * pillar_grid_quad, pillar_grid_general): its cells' relations, edge counts and coordinates, not
 * a file's bytes (a plan made for the file does not match the tables read from it). */
void plan_tables_id(const mesh *m, char *out, size_t n);

/* pr for the mesh id `mesh` (plan_content_id, plan_size_id, plan_tables_id), stencil (its name,
 * or stencil_id when not NULL), prec, levels, the device (plan_device) and this version. */
void plan_problem_set(plan_problem *pr, const char *mesh, int stencil, const char *stencil_id,
                      precision_t prec, int levels, int gpu);

/* The problem of a run: the mesh (the content id of the file at mesh_path, or the generator spec
 * of an emulated grid of nx x ny cells), the stencil (a built-in stencil's name, or stencil_id
 * when not NULL: a stencil file's content id), the precision, the levels, the device (plan_device)
 * and this pillar's version. 0, or -1 with a message (a mesh file that cannot be hashed). */
int plan_problem_of(plan_problem *pr, const char *mesh_path, int nx, int ny, int stencil,
                    const char *stencil_id, precision_t prec, int levels, int gpu);

/* A run's plan as looked up. */
typedef struct {
    plan_status st;    /* PLAN_FOUND: p is the plan; else p holds the defaults */
    plan p;
    char path[1200];   /* the plan file found (PLAN_FOUND) */
    char note[1600];   /* stale, bad: the one line to show (every front door shows it as is) */
} plan_choice;

/* Looks up the plan of pr for stencil s from spec (plan_source). has_coords: the mesh has cell
 * coordinates (a plan ordering a mesh by z-curve without them is bad). Never prints, never
 * blocks on what it finds. The status (also in out->st). */
plan_status plan_choose(const char *spec, const plan_problem *pr, int s, int has_coords,
                        plan_choice *out);

/* What of a run's settings is the plan's to choose: the fields not given explicitly. */
typedef struct {
    int order;     /* the cell order (--layout, the library's order) */
    int storage;   /* chasing or not (--storage) */
    int compress;  /* compressed or not (--compress) */
    int access;    /* the strategy (--access) */
    int threads;   /* the block shape (--threads) */
    int zslice;    /* levels per thread of slicing strategies (--zslice) */
} plan_free;

/* The fields of o no flag set (the explicit marks of include/pillar_tools.h). */
plan_free plan_free_fields(const options *o);

/* What applying a plan changed. */
enum {
    PLAN_SET_LAYOUT = 1 << 0,  /* the cell order or the storage: the grid is built anew */
    PLAN_SET_KERNEL = 1 << 1   /* the strategy, its shape or zslice (GPU runs) */
};

/* Applies c (of problem pr) to o where f leaves the field free; the strategy, shape and zslice
 * only when gpu (a CPU run takes the order and storage alone) and, for iterated runs
 * (iterated), only a strategy that has iterated kernels (graph-twopass not with kernel steps;
 * persistent launches keep their own shape). A mask of PLAN_SET_*. */
unsigned plan_apply(options *o, const plan_problem *pr, const plan_config *c, plan_free f,
                    int gpu, int iterated);

/* One line on what c chooses: "zcurve order, nonchasing compressed, graph-twopass 128x1x2
 * zslice 16" (gpu 0: without the strategy). */
void plan_describe(const plan_problem *pr, const plan_config *c, int gpu, char *out, size_t n);

#endif
