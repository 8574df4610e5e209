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

/* Aligned, zero-initialised allocation; exits with a message on failure. */
void *xalloc(size_t bytes);
void xfree(void *p);
/* A larger copy of block p, of which the first `used` bytes count, in a new zeroed block of
 * `bytes` (xalloc); p is freed. */
void *xgrow(void *p, size_t used, size_t bytes);

/* Prints "pillar: <message>" to stderr, or, while the calling thread captures messages, keeps
 * the first one (without the prefix) in its buffer. */
void perr(const char *fmt, ...);
/* Captures the calling thread's messages in buf (n bytes; emptied now) instead of printing them;
 * n = 0 prints them again. The library API (src/api/) reports errors this way; xalloc's
 * out-of-memory exit still prints. */
void perr_capture(char *buf, size_t n);

#endif
