/* common.c — allocation and error reporting shared by all of pillar. */
#include "common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *prec_name(precision_t p) { return p == PREC_FLOAT ? "float" : "double"; }

void *xalloc(size_t bytes)
{
    void *p = NULL;
    size_t rounded = (bytes + PILLAR_ALIGN - 1) / PILLAR_ALIGN * PILLAR_ALIGN;
    if (rounded == 0)
        rounded = PILLAR_ALIGN;
    if (posix_memalign(&p, PILLAR_ALIGN, rounded) != 0) {
        perr("out of host memory allocating %zu bytes", bytes);
        exit(1);
    }
    memset(p, 0, rounded);
    return p;
}

void xfree(void *p) { free(p); }

void *xgrow(void *p, size_t used, size_t bytes)
{
    void *q = xalloc(bytes);
    if (used)
        memcpy(q, p, used);
    xfree(p);
    return q;
}

void perr(const char *fmt, ...)
{
    va_list ap;
    fputs("pillar: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
