/* own_load.h — loading a stencil file of the repository for the own-stencil tests (test_own.c,
 * test_own_gpu.c): PILLAR_SOURCE_DIR/rel through src/jit/jit.h, a failed CHECK with the
 * message when it does not load. */
#ifndef PILLAR_OWN_LOAD_H
#define PILLAR_OWN_LOAD_H

#include "check.h"
#include "base/common.h"
#include "src/jit/jit.h"

#include <stdio.h>

static char own_msg[8192];

/* The loaded stencil, or -1 (after a failed CHECK). */
static stencil_t own_load(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", PILLAR_SOURCE_DIR, rel);
    stencil_t s = ST_COUNT;
    perr_capture(own_msg, sizeof own_msg);
    int rc = jit_load_file(path, NULL, &s);
    perr_capture(NULL, 0);
    CHECK(rc == 0, "%s: %s", rel, own_msg);
    return rc == 0 ? s : (stencil_t)-1;
}

#endif
