/* run_options.h — the settings of one run (the problem, backend, strategy, iterated and
 * out-of-core steps, input and output files): filled by the command line (src/cli/options.c) or
 * the library API (src/api/pillar.c), read by the runners. */
#ifndef PILLAR_RUN_OPTIONS_H
#define PILLAR_RUN_OPTIONS_H

#include "access/access.h"
#include "problem.h"

typedef enum { BACKEND_AUTO, BACKEND_CPU, BACKEND_GPU } backend_t;

typedef enum { OOC_AUTO, OOC_ON, OOC_OFF } ooc_mode;

/* --persistent: auto runs the persistent launch where its model predicts a gain
 * (docs/persistent.md) */
typedef enum { PERSIST_AUTO, PERSIST_ON, PERSIST_OFF } persist_mode;

typedef struct {
    problem_spec spec;
    int stencil_set;
    int regular;         /* --grid regular: run the regular-grid twin */
    access_t access;
    int access_set;
    int bx, by, bz;      /* --threads, 0 = the strategy's default */
    int runs;
    int zslice;
    int constant_tables; /* compressed tables in __constant__ memory */
    int packed_rows;     /* compressed tables as one row of offsets per pattern */
    int aos;             /* fastwaves fields as array of structs */
    backend_t backend;
    const char *mesh;    /* --mesh FILE, or NULL */
    mesh_order_t mesh_order; /* --layout file | metis | zcurve (with --mesh) */
    int mesh_layout_set; /* --layout file | metis given (zcurve counts once --mesh is seen) */
    int grid_layout_set; /* --layout of an emulated grid given */
    int size_set;        /* --size given */
    int steps;           /* --steps T: time steps of an iterated run, 0 = one application */
    int fuse;            /* --fuse F: steps per transfer, 0 = chosen by the model */
    int kernel_steps;    /* --kernel-steps K: steps per kernel launch, 0 = 1 */
    size_t device_mem;   /* --device-mem: device bytes an iterated run may use, 0 = free memory */
    ooc_mode ooc;        /* --out-of-core */
    int share;           /* --share: consecutive chunks share their overlap on the device */
    persist_mode persistent; /* --persistent: in core, all steps in one cooperative launch */
    int persist_levels;  /* --persistent-levels N: levels kept on chip; -1 (default): the
                          * model's choice; 0: none */
    int ranks;           /* --ranks P: a distributed run expects P MPI ranks (0: as started) */
    int plan_only;       /* --plan-only: the distributed model's table, nothing run */
    const char *input;   /* --input FILE: initial values of the input fields, or NULL */
    const char *output;  /* --output FILE: where the results go, or NULL */
    int output_inputs;   /* --output-inputs: the input fields go into the output file too */
    int output_every;    /* --output-every N: with --steps, the state every N steps into the
                          * --output file's time axis; 0: the last state only */
    int no_verify;       /* --verify off: no CPU reference is computed, nothing is compared (a
                          * distributed run still prints its state's checksum); no --output */
} options;

/* The defaults of run and info (the default job changes some: cli_defaults). */
void options_defaults(options *o);

#endif
