/* pillar_tools.h — what tools built on libpillar need beyond include/pillar.h: the settings of a
 * run, a benchmark or a mesh command as plain structs, the names the engine knows, the jobs
 * themselves (run, bench, mesh, info) with their reports, and the progress hook. The `pillar`
 * command is such a tool: it parses its flags into these structs and calls these functions
 * (src/cli/), and includes no other header of the engine.
 *
 * Contracts:
 * - Every job returns an exit status in the `pillar` command's sense: 0 done (and verified),
 *   1 a failed run, verification or file, 2 settings that do not fit (docs/cli.md). Messages
 *   go through the engine's one message channel (stderr, or a capture), each naming the bad
 *   value; nothing exits.
 * - What a job finds goes into the current report (pillar_report_begin): a table on the
 *   report's stream, or one JSON object at pillar_report_end. Benchmark files are written whole
 *   (through a temporary name) or not at all.
 * - The integer fields that name a thing (stencil, strategy, layout, ...) hold an index into the
 *   list pillar_names gives for its kind.
 *
 * Unlike include/pillar.h, this header follows the engine as it grows: it is versioned with
 * pillar (PILLAR_TOOLS_VERSION), not frozen. */
#ifndef PILLAR_TOOLS_H
#define PILLAR_TOOLS_H

#include "pillar.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PILLAR_TOOLS_VERSION 1

/* ---- the names the engine knows ---- */

typedef enum {
    PILLAR_NAMES_STENCIL,   /* laplap, hdiff, ..., then stencil files loaded so far */
    PILLAR_NAMES_STRATEGY,  /* naive, idxvar, ..., graph-twopass (docs/access.md) */
    PILLAR_NAMES_LAYOUT,    /* rowmajor, zcurve, zcurve-w, random: emulated grids */
    PILLAR_NAMES_ORDER,     /* file, metis, zcurve: cells of a mesh file */
    PILLAR_NAMES_PRECISION, /* double, float */
    PILLAR_NAMES_FORMAT,    /* mesh file formats (docs/mesh-formats-in.md) */
    PILLAR_NAMES_MESH_KIND, /* generated meshes: regular, cubed-sphere, ... */
    PILLAR_NAMES_COUNT
} pillar_names_kind;

/* The names of a kind, in index order; *n gets their number. */
const char *const *pillar_names(pillar_names_kind kind, int *n);
/* The index of `name` in its kind, or -1. */
int pillar_name_index(pillar_names_kind kind, const char *name);
/* One line on name i of strategies and formats ("" for the other kinds). */
const char *pillar_name_summary(pillar_names_kind kind, int i);

/* ---- the settings of a run (pillar run, the default job, pillar info) ---- */

enum { PILLAR_BACKEND_AUTO, PILLAR_BACKEND_CPU, PILLAR_BACKEND_GPU };
/* How a distributed GPU run's halos travel: NCCL GPU to GPU where built in and every rank has
 * its own GPU (auto), NCCL or fail, staged through the host to MPI, or device to device through
 * CUDA IPC (ranks of one host). */
enum { PILLAR_HALO_AUTO, PILLAR_HALO_NCCL, PILLAR_HALO_STAGED, PILLAR_HALO_IPC };
enum { PILLAR_MODE_AUTO, PILLAR_MODE_ON, PILLAR_MODE_OFF }; /* out_of_core, persistent */

/* The grid and stencil: an emulated grid of nx x ny x nz (halo included), or with `mesh` set a
 * mesh file's cells (nx, ny, halo then come from the file). */
typedef struct {
    int stencil;      /* PILLAR_NAMES_STENCIL */
    int prec;         /* PILLAR_NAMES_PRECISION */
    int nx, ny, nz;   /* full grid, halo included */
    int halo;
    int layout;       /* PILLAR_NAMES_LAYOUT */
    int w;            /* zcurve-w run width; METIS part size */
    uint64_t seed;    /* the inputs' random values */
    int chasing, compressed; /* neighbour-table storage */
} pillar_grid_spec;

typedef struct {
    pillar_grid_spec spec;
    int stencil_set;
    int regular;         /* --grid regular: run the regular-grid twin */
    int access;          /* PILLAR_NAMES_STRATEGY */
    int access_set;
    int bx, by, bz;      /* threads per block, 0 = the strategy's default */
    int runs;            /* timed runs of one application */
    int zslice;          /* levels per thread of zloop-sliced */
    int constant_tables; /* compressed tables in __constant__ memory */
    int packed_rows;     /* compressed tables as one row of offsets per pattern */
    int aos;             /* fastwaves fields as array of structs */
    int backend;         /* PILLAR_BACKEND_* */
    const char *mesh;    /* a mesh file, or NULL */
    int mesh_order;      /* PILLAR_NAMES_ORDER */
    int mesh_layout_set; /* an order of the mesh's cells was given */
    int grid_layout_set; /* a layout of an emulated grid was given */
    int size_set;        /* the grid's size was given */
    int steps;           /* time steps of an iterated run, 0 = one application */
    int fuse;            /* steps per transfer out of core, 0 = chosen by the model */
    int kernel_steps;    /* steps per kernel launch, 0 = 1 */
    size_t device_mem;   /* device bytes an iterated run may use, 0 = free memory */
    int ooc;             /* PILLAR_MODE_*: out of core */
    int share;           /* consecutive chunks share their overlap on the device */
    int persistent;      /* PILLAR_MODE_*: in core, all steps in one cooperative launch */
    int persist_levels;  /* levels kept on chip: -1 the model's choice, 0 none */
    int ranks;           /* a distributed run expects this many MPI ranks (0: as started) */
    int halo;            /* a distributed GPU run's halos: PILLAR_HALO_* */
    int plan_only;       /* the distributed model's table, nothing run */
    const char *input;   /* initial values of the input fields, or NULL */
    const char *output;  /* where the results go, or NULL */
    int output_inputs;   /* the input fields go into the output file too */
    int output_every;    /* with steps: the state every N steps into the output's time axis */
    int no_verify;       /* no CPU reference, nothing compared; no output */
    /* the plan (docs/tune.md): NULL or "auto" the plan cache's (unless $PILLAR_PLAN says "off" or
     * names a file), "off" none (the untuned defaults), else a plan file; it chooses what the
     * flags leave free, field by field (the marks below, access_set, the layout marks, a block
     * shape of 0) */
    const char *plan;
    int storage_set, compress_set, zslice_set; /* --storage, --compress, --zslice were given */
    int threads_planned; /* bx, by, bz came from the plan (the host loop's shape), not --threads */
    int auto_picked;     /* --persistent auto's choice, once the first pass made it: 1 + on */
} pillar_run_settings;

/* The defaults of run and info. */
void pillar_run_defaults(pillar_run_settings *o);


/* ---- messages ---- */

/* One line on the engine's message channel ("pillar: " and the text, on stderr; on a rank of an
 * MPI job with its rank), the way every message of the engine goes. */
void pillar_perr(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* What `pillar run` takes besides the settings. */
struct pillar_mesh_settings;
typedef struct {
    const char *stencil_file; /* a stencil file (docs/own-stencil.md), or NULL: loaded and made
                               * the run's stencil, a line in the report saying whether it was
                               * compiled or found in the cache */
    int check_reads;          /* the checked mode of a stencil file: a run that read outside the
                               * stencil's declared extent fails (1) */
    int argc;                 /* the command line, recorded in output files */
    char **argv;
    const struct pillar_mesh_settings *grid; /* how `mesh` is read: format, gen.nlevels,
                                              * merge_tol (NULL: from the file alone) */
} pillar_run_extra;

/* `pillar run`: one application, T steps, out of core, or over MPI ranks, chosen from the
 * settings by the engine's one decision tree; timed, verified, reported. */
int pillar_tool_run(const pillar_run_settings *o, const pillar_run_extra *x);
/* Refuses an output path that names one of the inputs (the same file, also through links):
 * `what` names the output in the message ("--output"), paths[k] the input labelled labels[k]
 * (NULL entries skipped). 0, or -1 after a message. */
int pillar_tool_outputs_distinct(const char *out, const char *what, const char *const *paths,
                                 const char *const *labels, int n);
/* Whether stencil k (PILLAR_NAMES_STENCIL) is a graph stencil (it needs a mesh file's
 * neighbour lists), and the number of the registry's stencils for quad meshes (the first ones). */
int pillar_stencil_is_graph(int k);
int pillar_stencil_quad_count(void);
/* `pillar info`: the grid, its tables' statistics, the model's figures, the device. */
int pillar_tool_info(const pillar_run_settings *o);
/* `pillar` without a command: every stencil of the registry on the settings' grid, verified. */
int pillar_tool_default(const pillar_run_settings *o);
/* The backend a run gets (PILLAR_BACKEND_CPU or _GPU): auto picks the GPU when there is one,
 * with one line on stderr when it falls back. -1 after a message. */
int pillar_tool_backend(const pillar_run_settings *o);
/* The number of MPI ranks the process was started with by a launcher (1 if none). */
int pillar_tool_launcher_ranks(void);

/* ---- pillar tune (docs/tune.md) ---- */

/* The search's budget in seconds unless told otherwise (`pillar tune`, the library's option tune):
 * reading the grid and verifying the winner add about 7 s on a million cells, so the whole
 * command stays within a minute there. */
#define PILLAR_TUNE_BUDGET_S 45

typedef struct {
    pillar_run_settings run; /* the problem: spec (stencil, precision, NXxNYxNZ) or mesh; runs:
                              * timed launches of each candidate (their median) */
    double budget_s;         /* no candidate starts once the search would pass it */
    const char *out;         /* also write the plan there (NULL: the cache only) */
    int top;                 /* rows of the table of what was measured */
} pillar_tune_settings;

/* `pillar tune`: measures the problem's candidates on the GPU within the budget (progress
 * through the progress hook), verifies the winner bit for bit, stores the plan in the plan cache
 * (and at `out`), reports a table of the fastest `top` measured and the plan's path. Without a
 * CUDA device: a message and 1. */
int pillar_tool_tune(const pillar_tune_settings *t, const pillar_run_extra *x);
/* `pillar tune --show`: the plans of the plan cache, one row each (a bad file with its reason). */
int pillar_tool_tune_show(void);

/* ---- pillar bench ---- */

#define PILLAR_BENCH_MAX_SIZES 32
#define PILLAR_BENCH_MAX_LAYOUTS 8

typedef struct {
    int quick, runs, stencil, access, storage, compress, nsizes, nlayouts;
    int sweep;         /* the domain sweep */
    int precs[2], nprecs;
    int sizes[PILLAR_BENCH_MAX_SIZES][3];
    int layouts[PILLAR_BENCH_MAX_LAYOUTS]; /* PILLAR_NAMES_LAYOUT */
    const char *mesh;  /* the graph stencils on this mesh file's cells */
    int iterated;      /* host loop, K-step kernels and persistent launches of iterated runs */
    int steps;         /* iterated: time steps per timed run (0: the mode's default) */
    int levels[8], nlevels; /* iterated: level counts of the grids */
    const char *variants; /* iterated: only these rows (names, commas), NULL every one */
    int backend;       /* iterated: PILLAR_BACKEND_* */
    const char *out;   /* directory of the CSV/JSON files */
    char command[1024]; /* the command line, recorded in the JSON */
} pillar_bench_settings;

/* `pillar bench`: the matrix (or with iterated the iterated modes), timed, verified, written. */
int pillar_tool_bench(pillar_bench_settings *b, const char *stencil_file);

/* ---- pillar mesh ---- */

typedef struct {
    int kind;       /* PILLAR_NAMES_MESH_KIND */
    int nx, ny;     /* regular, shuffled, rotated, refined; triangles, hexagons */
    int n;          /* cubed-sphere panel edge */
    int nlevels;
    int window;     /* shuffled: cells permuted within windows of this many; rotated: square */
    uint64_t seed;
    int periodic;   /* triangles, hexagons: a torus */
    int refine;     /* refined: edge of the centred square split 2x2; 0 = a third */
} pillar_mesh_gen;

typedef struct pillar_mesh_settings {
    const char *file;   /* FILE, or IN of import */
    const char *out;    /* import: OUT */
    pillar_mesh_gen gen; /* generate; import, info take gen.nlevels (0 unless given) */
    int radius, part_size, parts;
    int order;          /* info: PILLAR_NAMES_ORDER */
    int format;         /* PILLAR_NAMES_FORMAT, or -1: from the content */
    int json;           /* info: one JSON object */
    double merge_tol;   /* import: merge nodes closer than this (0: no merging) */
} pillar_mesh_settings;

typedef enum {
    PILLAR_MESH_GENERATE,
    PILLAR_MESH_INFO,
    PILLAR_MESH_IMPORT,
    PILLAR_MESH_PARTITION
} pillar_mesh_job;

/* `pillar mesh generate | info | import | partition`. */
int pillar_tool_mesh(pillar_mesh_job job, const pillar_mesh_settings *m);

/* ---- reports ---- */

/* Starts a command's report on `out` (NULL: stdout): a table (json 0) or one JSON object (json
 * 1) naming `command`, whose key lines are indented by `indent` blanks (docs/cli.md). */
void pillar_report_begin(const char *command, int json, int indent, FILE *out);
/* From now on this process writes nothing of the report (a distributed run's ranks but 0). */
void pillar_report_silence(void);
/* Ends the report: in JSON mode writes the object (with "ok": ok). */
void pillar_report_end(int ok);

/* ---- progress ---- */

/* The engine's long loops (the steps of an iterated run, the chunks of a pass, the timed runs of
 * a benchmark) report how far they are: update gets `done` of `total` units named by `what`
 * ("steps", "chunks", "runs"), the last call of a loop with done == total; phase names what the
 * next updates measure ("run", "verify"). Called from the thread that runs the loop. */
typedef struct {
    void (*update)(void *user, const char *what, double done, double total);
    void (*phase)(void *user, const char *label); /* may be NULL */
    void *user;
} pillar_progress;
/* Installs p (copied) as this process's progress hook, or with NULL removes it. */
void pillar_set_progress(const pillar_progress *p);

/* ---- the version ---- */

/* "pillar 1.2.0 (commit abc123)" and what was built in: the version lines. */
void pillar_tool_version(FILE *out);

#ifdef __cplusplus
}
#endif

#endif
