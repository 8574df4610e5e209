/* common.h — small things every part of pillar uses (the lowest layer: grids/, storage/,
 * stencils/, access/ and src/ include it): the host/device inline marker,
 * precision tags, aligned allocation and error reporting. */
#ifndef PILLAR_COMMON_H
#define PILLAR_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define PILLAR_HD __host__ __device__ __forceinline__
#else
#define PILLAR_HD static inline
#endif

/* Every field array starts on this boundary (bytes). */
#define PILLAR_ALIGN 256

typedef enum { PREC_DOUBLE = 0, PREC_FLOAT = 1 } precision_t;

static inline size_t prec_size(precision_t p) { return p == PREC_FLOAT ? 4 : 8; }
const char *prec_name(precision_t p);

/* Aligned, zero-initialised allocation. When the host has no memory left it raises
 * FAULT_MEMORY (below): it never returns NULL. */
void *xalloc(size_t bytes);
void xfree(void *p);
/* A larger copy of block p, of which the first `used` bytes count, in a new zeroed block of
 * `bytes` (xalloc); p is freed. */
void *xgrow(void *p, size_t used, size_t bytes);

/* Arenas: the blocks xalloc gives while an arena is the calling thread's current one are listed
 * in it until xfree, so that the owner of everything a sequence of calls built can free it all
 * when those calls were interrupted half-way (a fault, below) and their structures cannot be
 * trusted: the library API makes each handle's arena current during its calls. The list is
 * shared by threads under a lock (a block may be freed by another thread). */
typedef struct xarena {
    void *head; /* the newest block's header */
} xarena;
/* Makes a (NULL: none) the calling thread's current arena; returns the one it replaces. */
xarena *xarena_use(xarena *a);
/* Frees every block still listed in a. */
void xarena_free(xarena *a);
/* Forgets every block listed in a (they stay allocated, owned by whatever holds them). */
void xarena_forget(xarena *a);
/* Takes block p (xalloc) out of its arena: it outlives its owner (process-wide tables). */
void xkeep(void *p);

/* Prints "pillar: <message>" to stderr, or, while the calling thread captures messages, keeps
 * the first one (without the prefix) in its buffer. */
void perr(const char *fmt, ...);
/* Captures the calling thread's messages in buf (n bytes; emptied now) instead of printing them;
 * n = 0 prints them again. The library API (src/api/) reports errors this way; xalloc's
 * out-of-memory exit still prints. */
void perr_capture(char *buf, size_t n);
/* The calling thread's capture as it stands, so that code capturing for a while inside a captured
 * call (perr_capture with its own buffer) can give it back: perr_capture_restore(saved) makes
 * `saved` the capture again without emptying its buffer. */
typedef struct {
    char *buf;
    size_t n;
} perr_saved;
perr_saved perr_capture_save(void);
void perr_capture_restore(perr_saved saved);

/* ---- faults: failures the engine cannot return from ----
 * Host memory exhausted (xalloc) and a failed CUDA call (the GPU runners' CK) happen deep in code
 * that has no way to return an error. They unwind, as Lua's errors do, to the innermost guard the
 * calling thread has entered: the library API enters one around each call into the engine and
 * turns the fault into a status; the `pillar` command enters one in main. The handle is then only
 * good for destroying, which frees what its calls allocated through its arena (above). Without a guard
 * (a test calling the engine directly) a fault prints its message and aborts. */
#include <setjmp.h>

enum { FAULT_MEMORY = 1, FAULT_DEVICE = 2, FAULT_INTERNAL = 3 };

typedef struct guard {
    jmp_buf at;
    struct guard *outer;
    int fault;     /* after the unwind: which FAULT_ */
    char msg[256]; /* after the unwind: what happened */
} guard;

/* Makes g the calling thread's innermost guard; call setjmp(g->at) right after it, in the
 * function that stays on the stack. guard_leave(g) on the way out when nothing was raised (the
 * unwind has already left it). */
void guard_enter(guard *g);
void guard_leave(guard *g);

/* Unwinds to the innermost guard with fault f and a message; never returns. */
#if defined(__cplusplus) || defined(__CUDACC__)
[[noreturn]]
#else
_Noreturn
#endif
void fault_raise(int f, const char *fmt, ...);

/* Tests: the n-th xalloc from now (0: the next) fails as if the host had no memory left;
 * n < 0 turns it off. Per thread. */
void xalloc_fail_after(long n);

#endif
