/* sha256.h — SHA-256 (FIPS 180-4), for keys that must not collide: the stencil cache names each
 * compiled shared object by the SHA-256 of everything compiled into it (src/jit/cpu.c). */
#ifndef PILLAR_SHA256_H
#define PILLAR_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t h[8];
    uint64_t len;             /* bytes hashed so far */
    unsigned char block[64];  /* the partial block */
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *data, size_t n);
/* A string with its terminating 0, so that "ab","c" and "a","bc" hash differently. */
void sha256_update_str(sha256_ctx *c, const char *s);
/* The digest (32 bytes) into out; c is spent. */
void sha256_final(sha256_ctx *c, unsigned char out[32]);
/* The digest as 64 lowercase hex digits and a 0 into hex. */
void sha256_hex(const unsigned char digest[32], char hex[65]);

#endif
