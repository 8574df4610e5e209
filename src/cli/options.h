/* options.h — command-line flags shared by pillar's subcommands (the settings of a run they
 * fill: src/exec/run_options.h). */
#ifndef PILLAR_OPTIONS_H
#define PILLAR_OPTIONS_H

#include "src/exec/run_options.h"
#include "src/io/mesh_io.h"

/* ---- pillar's command line: one table of flags (options.c) for every command ----
 *
 * Each flag is declared once in that table: its name, its value (or none), the commands that
 * accept it, its help line and the function that parses and applies it. Every command parses its
 * argv with cli_parse and prints its --help with cli_print_help, which lists the command's flags
 * from the table. "--flag value" and "--flag=value" both work for every flag that takes a value;
 * --help (-h) and --version work in every command. */

/* The commands, as the table names them. */
enum {
    CMD_DEFAULT = 1 << 0, /* pillar without a command: the default job */
    CMD_RUN = 1 << 1,
    CMD_INFO = 1 << 2,
    CMD_BENCH = 1 << 3,
    CMD_MESH_GENERATE = 1 << 4,
    CMD_MESH_INFO = 1 << 5,
    CMD_MESH_IMPORT = 1 << 6,
    CMD_MESH_PARTITION = 1 << 7,
};

/* `pillar bench` (cmd_bench.c completes sizes, layouts and runs after parsing). */
typedef struct {
    int quick, runs, stencil, access, storage, compress, nsizes, nlayouts;
    int sweep;         /* --sweep domain */
    int precs[2], nprecs;
    int sizes[32][3];
    layout_t layouts[LAYOUT_COUNT];
    const char *mesh;  /* --mesh FILE: the graph stencils on its cells (cmd_bench.c) */
    int iterated;      /* --iterated: host loop, K-step kernels and persistent launches of
                        * in-core iterated runs (cmd_bench_iterated.c) */
    int steps;         /* --iterated: time steps per timed run (0: the mode's default) */
    int levels[8], nlevels; /* --iterated --levels L,L,...: level counts of the grids */
    int backend;       /* --iterated --backend: backend_t (auto: the GPU when there is one) */
    const char *out;
    char command[1024];
} bench_opts;

/* `pillar mesh SUBCOMMAND`. */
typedef struct {
    const char *file;   /* FILE, or IN of import */
    const char *out;    /* import: OUT */
    mesh_gen_spec gen;  /* generate; import, info take gen.nlevels (info: 0 unless --levels) */
    int radius, part_size, parts;
    mesh_order_t order; /* info --layout */
    int format;         /* import, info --format: an index of mesh_importers, or -1: from the
                         * content */
    int json;           /* info --json */
    double merge_tol;   /* import --merge-nodes: mesh_import_opts.merge_tol (0 without it) */
} mesh_args;

/* Everything a command line can set; cli_parse fills the part of its command. */
typedef struct {
    unsigned cmd;     /* CMD_* */
    const char *name; /* "run", "mesh info", ...; "" for the default job */
    options o;        /* default job, run, info */
    bench_opts b;     /* bench */
    mesh_args m;      /* mesh subcommands */
    int help, version;
    const char *stencil_file; /* run, bench: --stencil-file FILE (docs/own-stencil.md) */
    int check_reads;          /* run: --check-reads, the checked mode of a stencil file */
    int progress;             /* run: --progress, the meter on stderr also when it is no terminal */
    int json;                 /* run: --json, one JSON object instead of the table (mesh info:
                               * m.json) */
} cli_args;

/* Loads a->stencil_file (when given) and makes it the stencil of the run or the bench, with a
 * line on stdout saying whether it was compiled or found in the cache and how long that took.
 * 0, or -1 after a message (the caller exits 1: a bad input file). */
int cli_stencil_file(cli_args *a);

/* After a run of a stencil file in checked mode: rc, or 1 with a message when the run read
 * outside the stencil's declared extent. */
int cli_check_reads(const cli_args *a, int rc);

/* How run --mesh and mesh info read a grid file: --format (NULL unless given) and --levels (0
 * unless given). */
mesh_load_opts cli_grid_opts(const mesh_args *m);

/* Defaults of every field of command `cmd`. */
void cli_defaults(cli_args *a, unsigned cmd);

/* Which flags of the table a part of a help text lists. */
enum {
    HELP_MAIN = 1 << 0, /* a command's flags */
    HELP_ITER = 1 << 1, /* run: iterated and out-of-core runs */
    HELP_ALWAYS = 1 << 2, /* --help, --version */
};

/* A command's --help: prose (text), or when text is NULL the command's flags of the given
 * sections, from the table; ended by {NULL, 0}. */
typedef struct {
    const char *text;
    unsigned sections;
} help_part;

void cli_print_help(unsigned cmd, const help_part *help);

/* Sets a's defaults for `cmd` and parses argv[0..argc). Returns 0, 1 after printing the help
 * (--help, -h) or the version (--version), or -1 after a message that names the bad flag or
 * value (the caller exits 2: a bad command line). */
int cli_parse(cli_args *a, unsigned cmd, const help_part *help, int argc, char **argv);

/* The exit status for cli_parse's result rc when it is not 0: 0 after help, 2 after an error. */
#define CLI_EXIT(rc) ((rc) == 1 ? 0 : 2)

/* The version line (pillar --version). */
void print_version(void);

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

/* The backend of a run (runner_pick_backend), with the one-line notice on stderr when --backend
 * auto falls back to the CPU. BACKEND_CPU, BACKEND_GPU, or -1 after a message. */
int cli_backend(const options *o);

#endif
