/* check.h — a minimal test harness: CHECK records a failure with its location and goes on. */
#ifndef PILLAR_CHECK_H
#define PILLAR_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failures;

#define CHECK(cond, ...)                                                                          \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            check_failures++;                                                                     \
            fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond);                     \
            fprintf(stderr, __VA_ARGS__);                                                         \
            fputc('\n', stderr);                                                                  \
        }                                                                                         \
    } while (0)

static inline int check_done(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    else
        printf("%s: all checks passed\n", name);
    return check_failures ? 1 : 0;
}

/* A scratch directory /tmp/pillar-NAME-XXXXXX for a test's files, its path in dir (n bytes).
 * Returns 0, or -1 after a message. */
static inline int check_scratch(char *dir, size_t n, const char *name)
{
    snprintf(dir, n, "/tmp/pillar-%s-XXXXXX", name);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return -1;
    }
    return 0;
}

/* Removes the scratch directory and everything in it. */
static inline void check_scratch_remove(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

#endif
