/* scratch.h — a test's scratch directory: made once, files named in it, removed at the end. */
#ifndef PILLAR_SCRATCH_H
#define PILLAR_SCRATCH_H

#include <stdio.h>
#include <stdlib.h>

static char dir[256];

/* dir = a new /tmp/pillar-test-NAME-XXXXXX, or the given one (at) when not NULL; 0 or -1. */
static inline int scratch_open(const char *name, const char *at)
{
    if (at) {
        snprintf(dir, sizeof dir, "%s", at);
        return 0;
    }
    snprintf(dir, sizeof dir, "/tmp/pillar-test-%s-XXXXXX", name);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return -1;
    }
    return 0;
}

/* DIR/name, in a buffer the next call reuses. */
static inline const char *tmpname(const char *name)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

static inline void scratch_remove(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

#endif
