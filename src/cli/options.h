/* options.h — command-line flags shared by pillar's subcommands (the settings of a run they
 * fill: src/exec/run_options.h). */
#ifndef PILLAR_OPTIONS_H
#define PILLAR_OPTIONS_H

#include "include/pillar_tools.h"

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
    CMD_TUNE = 1 << 8,
};

/* The settings the commands fill: include/pillar_tools.h's. */
typedef pillar_run_settings options;
typedef pillar_bench_settings bench_opts;
typedef pillar_mesh_settings mesh_args;

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
    double budget;            /* tune: --budget SECONDS */
    int show;                 /* tune: --show, the cached plans listed */
    const char *plan_out;     /* tune: --out PATH, the plan written there too */
    int top;                  /* tune: --top N rows of what was measured */
} cli_args;

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

#endif
