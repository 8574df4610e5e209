/* run_options.h — the settings of one run (the problem, backend, strategy, iterated and
 * out-of-core steps, input and output files): filled by the command line (src/cli/options.c) or
 * the library API (src/api/pillar.c), read by the runners. */
#ifndef PILLAR_RUN_OPTIONS_H
#define PILLAR_RUN_OPTIONS_H

#include "access/access.h"
#include "problem.h"
#include "include/pillar_tools.h"

/* The settings are the public struct of include/pillar_tools.h, whose integer fields hold these
 * enums' values (a tool names them through pillar_names). */
typedef enum {
    BACKEND_AUTO = PILLAR_BACKEND_AUTO,
    BACKEND_CPU = PILLAR_BACKEND_CPU,
    BACKEND_GPU = PILLAR_BACKEND_GPU
} backend_t;

typedef enum { OOC_AUTO = PILLAR_MODE_AUTO, OOC_ON = PILLAR_MODE_ON, OOC_OFF = PILLAR_MODE_OFF } ooc_mode;

/* --persistent: auto runs the persistent launch where its model predicts a gain
 * (docs/persistent.md) */
typedef enum {
    PERSIST_AUTO = PILLAR_MODE_AUTO,
    PERSIST_ON = PILLAR_MODE_ON,
    PERSIST_OFF = PILLAR_MODE_OFF
} persist_mode;

typedef pillar_run_settings options;

/* The defaults of run and info (the default job changes some: cli_defaults). */
void options_defaults(options *o);

#endif
