/* headers.h — the engine headers a user stencil's composition includes, embedded into
 * libpillar at build time (cmake/embed_headers.cmake writes jit_headers.c), so that an installed
 * pillar compiles stencil files without its source tree. */
#ifndef PILLAR_JIT_HEADERS_H
#define PILLAR_JIT_HEADERS_H

#include <stddef.h>

typedef struct {
    const char *path;          /* from the repository root: "stencils/body.h" */
    const unsigned char *data; /* its bytes */
    size_t len;
} jit_header;

extern const jit_header jit_headers[];
extern const int jit_nheaders;

#endif
