/* common.c — allocation and error reporting shared by all of pillar. */
#include "common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *prec_name(precision_t p) { return p == PREC_FLOAT ? "float" : "double"; }

static _Thread_local long fail_countdown = -1;

void xalloc_fail_after(long n) { fail_countdown = n; }

void *xalloc(size_t bytes)
{
    void *p = NULL;
    size_t rounded = (bytes + PILLAR_ALIGN - 1) / PILLAR_ALIGN * PILLAR_ALIGN;
    if (rounded == 0)
        rounded = PILLAR_ALIGN;
    int injected = fail_countdown == 0;
    if (fail_countdown >= 0)
        fail_countdown--;
    if (injected || posix_memalign(&p, PILLAR_ALIGN, rounded) != 0)
        fault_raise(FAULT_MEMORY, "out of host memory allocating %zu bytes", bytes);
    memset(p, 0, rounded);
    return p;
}

/* ---- faults ---- */

static _Thread_local guard *innermost;

void guard_enter(guard *g)
{
    g->outer = innermost;
    g->fault = 0;
    g->msg[0] = 0;
    innermost = g;
}

void guard_leave(guard *g) { innermost = g->outer; }

void fault_raise(int f, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    guard *g = innermost;
    if (!g) {
        fprintf(stderr, "pillar: %s\n", msg);
        abort();
    }
    innermost = g->outer;
    g->fault = f;
    memcpy(g->msg, msg, sizeof msg);
    longjmp(g->at, 1);
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

/* The calling thread's capture buffer (perr_capture), or NULL: messages go to stderr. */
static _Thread_local char *capture_buf;
static _Thread_local size_t capture_len;

void perr_capture(char *buf, size_t n)
{
    capture_buf = n ? buf : NULL;
    capture_len = n;
    if (capture_buf)
        capture_buf[0] = 0;
}

void perr(const char *fmt, ...)
{
    va_list ap;
    if (capture_buf) {
        if (capture_buf[0] == 0) { /* the first message is kept: it names the cause */
            va_start(ap, fmt);
            vsnprintf(capture_buf, capture_len, fmt, ap);
            va_end(ap);
        }
        return;
    }
    /* one write of the whole line: the ranks of an MPI job share stderr, and a line written in
     * pieces interleaves with theirs ("pillar: pillar: ...") */
    char small[2048], *line = small;
    va_start(ap, fmt);
    int n = vsnprintf(small + 8, sizeof small - 9, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n + 10 > sizeof small) {
        line = malloc((size_t)n + 10);
        if (!line) { /* no memory for a long message: its start */
            line = small;
            n = (int)sizeof small - 10;
        } else {
            va_start(ap, fmt);
            vsnprintf(line + 8, (size_t)n + 1, fmt, ap);
            va_end(ap);
        }
    }
    memcpy(line, "pillar: ", 8);
    line[8 + n] = '\n';
    fwrite(line, 1, (size_t)n + 9, stderr);
    if (line != small)
        free(line);
}
