/* options.h — command-line flags shared by pillar's subcommands. */
#ifndef PILLAR_OPTIONS_H
#define PILLAR_OPTIONS_H

#include "../access/access.h"
#include "problem.h"

typedef enum { BACKEND_AUTO, BACKEND_CPU, BACKEND_GPU } backend_t;

/* Flag groups; a command accepts the union of the groups it names. */
enum {
    OPT_GRID = 1 << 0,    /* --size --layout --zcurve-w --storage --compress --seed */
    OPT_STENCIL = 1 << 1, /* --stencil --precision */
    OPT_EXEC = 1 << 2,    /* --access --grid --threads --runs --zslice --constant-tables --aos --backend */
    OPT_MESH = 1 << 3,    /* --mesh; --layout then takes file | metis | zcurve */
    OPT_ITER = 1 << 4,    /* --steps --fuse --kernel-steps --device-mem --out-of-core --share */
    OPT_FIELDS = 1 << 5,  /* --input --output --output-inputs (field files) */
};

typedef enum { OOC_AUTO, OOC_ON, OOC_OFF } ooc_mode;

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
    const char *input;   /* --input FILE: initial values of the input fields, or NULL */
    const char *output;  /* --output FILE: where the results go, or NULL */
    int output_inputs;   /* --output-inputs: the input fields go into the output file too */
} options;

void options_defaults(options *o);

/* Parses argv[0..argc) for command `cmd`. Returns 0, 1 when --help was asked for, or -1 after
 * printing a message that names the bad flag or value. */
int options_parse(options *o, int argc, char **argv, const char *cmd, unsigned groups);

/* The number parsers every command uses: plain decimal digits only (no blanks, '+', exponents,
 * hex, inf or nan), range-checked before anything is converted or multiplied. Each returns 0, or
 * -1 leaving *out unchanged. */

/* An integer in [lo, hi]; a leading '-' only when lo < 0. */
int parse_long(const char *s, long lo, long hi, long *out);

/* An unsigned 64-bit integer (e.g. a seed). */
int parse_u64(const char *s, uint64_t *out);

/* A byte count: an integer or decimal with an optional K, M, G or T (powers of 1024), e.g.
 * 512M, 1.5G; below 10^18. */
int parse_bytes(const char *s, size_t *out);

/* "AxBxC": three integers from 1 to INT_MAX/4 (their product may still overflow int: callers
 * bound it). */
int parse_triple(const char *s, int *a, int *b, int *c);

#endif
