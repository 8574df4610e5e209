/* plan_file.h — a plan: the configuration a run uses for one problem (mesh, stencil, precision,
 * levels) on one device, as `pillar tune` measured it fastest, stored as a small JSON object a
 * person can read (docs/tune.md). Written whole; read strictly: every field checked against the
 * registries (stencils, access strategies and their block-shape rules, cell orders), a bad file
 * refused with a message naming the file and the field. */
#ifndef PILLAR_PLAN_FILE_H
#define PILLAR_PLAN_FILE_H

#include "access/access.h"
#include "base/common.h"
#include "stencils/stencil.h"

#define PLAN_FORMAT 1            /* the "format" a plan file states */
#define PLAN_MAX_BYTES 65536     /* a larger file is not a plan */
#define PLAN_MAX_LEVELS 65536
#define PLAN_MAX_KSTEPS 16       /* pillar run --kernel-steps' range */
#define PLAN_MAX_MS 1e7          /* a measured time beyond this (ms) is absurd */

/* What a plan is for: the fields of its cache key (src/tune/plan_cache.h). */
typedef struct {
    char mesh[80];    /* "sha256:<64 hex>": the mesh file's bytes; "size:NXxNY": an emulated grid
                       * (pillar run --size NXxNYxNZ) */
    char stencil[80]; /* a built-in stencil's name, or "sha256:<64 hex>": a stencil file's bytes */
    precision_t prec;
    int levels;
    char device[128]; /* the device's name (gpu_describe) */
    char version[48]; /* the pillar version that measured it */
} plan_problem;

/* The configuration a plan chooses. */
typedef struct {
    int order;        /* cell order: mesh_order_t of a mesh file, layout_t of an emulated grid
                       * (zcurve-w runs of 32 cells) */
    int chasing, compressed; /* the storage (storage/nbtable.h, storage/gtable.h) */
    access_t access;  /* the strategy */
    int bx, by, bz;   /* its block shape on the unstructured grid */
    int zslice;       /* levels per thread (block) of a strategy that walks a slice (LEVELS_SLICE);
                       * 0 for the others */
    int kernel_steps; /* steps per kernel launch of iterated runs; 1: one */
} plan_config;

typedef struct {
    char key[65];     /* its cache key (plan_key), 64 hex digits */
    plan_problem pr;
    plan_config c;
    double ms;        /* the measured median of one application (ms) */
    double default_ms;/* the untuned default's median (ms); 0: not measured */
    char measured[24];/* when, in UTC: YYYY-MM-DDTHH:MM:SSZ */
} plan;

/* 1 when the plan's problem is an emulated grid ("size:"): its orders are layout_t. */
int plan_emulated(const plan_problem *pr);

/* The name of cell order `order` for pr's kind of grid ("?" for none). */
const char *plan_order_name(const plan_problem *pr, int order);

/* The built-in stencil pr names, or -1 (a stencil file's hash, or no stencil). */
int plan_stencil(const plan_problem *pr);

/* The configuration of a run without a plan (the run's own defaults, src/exec/run_options.c):
 * file order (a mesh file) or z-curve (an emulated grid), chasing uncompressed storage, idxvar
 * with its default block shape, one step per launch. */
void plan_config_default(const plan_problem *pr, plan_config *c);

/* Whether c suits the problem pr and stencil s (s < 0: not known, a stencil file's plan read
 * before its stencil is loaded; the checks that need it are left to the caller): a cell order of
 * pr's kind of grid, a strategy that has kernels for s (access_supports), a block shape its rule
 * allows (access_shape_ok), zslice and kernel_steps in range. 1, or 0 with `field "NAME": why` in
 * why. */
int plan_config_ok(const plan_problem *pr, int s, const plan_config *c, char *why, size_t n);

/* p as its JSON text into buf (n bytes). The length, or -1 when n is too small. */
int plan_format(const plan *p, char *buf, size_t n);

/* Parses and checks a plan file's text (len bytes; `name` names it in messages). 0, or -1 after
 * a message "plan NAME: ..." naming the field and what is wrong with it. */
int plan_parse(const char *text, size_t len, const char *name, plan *out);

/* Reads and checks the plan file at path. trusted: a file of the plan cache, opened as
 * cache_open_trusted opens it (never through a link, only the user's own); else any regular
 * file (a plan the user names; links followed). Never blocks (a FIFO is refused, not waited
 * on), never reads more than PLAN_MAX_BYTES. 0; -2 when there is no such file (no message);
 * -1 after a message naming the file and what is wrong. */
int plan_read(const char *path, int trusted, plan *out);

/* Writes p to path whole (a temporary file renamed when complete, mode 0600). 0 or -1 with a
 * message. */
int plan_write(const char *path, const plan *p);

/* The current time in UTC as YYYY-MM-DDTHH:MM:SSZ into out (24 bytes). */
void plan_now(char out[24]);

#endif
