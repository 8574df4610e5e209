/* common.c — allocation and error reporting shared by all of pillar. */
#include "common.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *prec_name(precision_t p) { return p == PREC_FLOAT ? "float" : "double"; }

static _Thread_local long fail_countdown = -1;

void xalloc_fail_after(long n) { fail_countdown = n; }

/* Each block starts with a header of PILLAR_ALIGN bytes (the caller's part stays aligned): its
 * arena, if one was current, and its neighbours in that arena's list. */
typedef struct xnode {
    struct xnode *prev, *next;
    xarena *arena;
} xnode;
static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local xarena *current_arena;

xarena *xarena_use(xarena *a)
{
    xarena *old = current_arena;
    current_arena = a;
    return old;
}

/* Takes n out of its arena's list (nothing when it has none). */
static void detach(xnode *n)
{
    if (!n->arena) /* a block of no arena stays so: only its owner frees it */
        return;
    pthread_mutex_lock(&arena_lock);
    if (n->arena) { /* again under the lock: xarena_free/forget may have taken it meanwhile */
        if (n->prev)
            n->prev->next = n->next;
        else
            n->arena->head = n->next;
        if (n->next)
            n->next->prev = n->prev;
        n->arena = NULL;
        n->prev = n->next = NULL;
    }
    pthread_mutex_unlock(&arena_lock);
}

/* Empties a's list; returns its blocks, linked by next. */
static xnode *take_all(xarena *a)
{
    pthread_mutex_lock(&arena_lock);
    xnode *all = a->head;
    a->head = NULL;
    for (xnode *n = all; n; n = n->next)
        n->arena = NULL;
    pthread_mutex_unlock(&arena_lock);
    return all;
}

void xarena_free(xarena *a)
{
    for (xnode *n = take_all(a), *next; n; n = next) {
        next = n->next;
        free(n);
    }
}

void xarena_forget(xarena *a)
{
    for (xnode *n = take_all(a), *next; n; n = next) {
        next = n->next;
        n->prev = n->next = NULL;
    }
}

void xkeep(void *p)
{
    if (p)
        detach((xnode *)((char *)p - PILLAR_ALIGN));
}

void *xalloc(size_t bytes)
{
    void *p = NULL;
    size_t rounded = (bytes + PILLAR_ALIGN - 1) / PILLAR_ALIGN * PILLAR_ALIGN;
    if (rounded == 0)
        rounded = PILLAR_ALIGN;
    int injected = fail_countdown == 0;
    if (fail_countdown >= 0)
        fail_countdown--;
    if (injected || rounded > SIZE_MAX - PILLAR_ALIGN ||
        posix_memalign(&p, PILLAR_ALIGN, rounded + PILLAR_ALIGN) != 0)
        fault_raise(FAULT_MEMORY, "out of host memory allocating %zu bytes", bytes);
    memset(p, 0, rounded + PILLAR_ALIGN);
    xnode *n = p;
    xarena *a = current_arena;
    if (a) {
        pthread_mutex_lock(&arena_lock);
        n->arena = a;
        n->next = a->head;
        if (n->next)
            n->next->prev = n;
        a->head = n;
        pthread_mutex_unlock(&arena_lock);
    }
    return (char *)p + PILLAR_ALIGN;
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

void xfree(void *p)
{
    if (!p)
        return;
    xnode *n = (xnode *)((char *)p - PILLAR_ALIGN);
    detach(n);
    free(n);
}

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

perr_saved perr_capture_save(void)
{
    perr_saved s = {capture_buf, capture_len};
    return s;
}

void perr_capture_restore(perr_saved saved)
{
    capture_buf = saved.buf;
    capture_len = saved.n;
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
