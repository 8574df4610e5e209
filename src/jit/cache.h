/* cache.h — the on-disk cache of compiled user stencils and the compilers' surroundings: the
 * cache folder, hashing, the engine headers a composition includes (embedded in libpillar at
 * build time, written once per version into the cache), and running the C compiler. */
#ifndef PILLAR_JIT_CACHE_H
#define PILLAR_JIT_CACHE_H

#include <stddef.h>

/* 64-bit FNV-1a of n bytes, continuing from h (start: JIT_HASH0). */
#define JIT_HASH0 1469598103934665603ull
unsigned long long jit_hash(unsigned long long h, const void *p, size_t n);
unsigned long long jit_hash_str(unsigned long long h, const char *s);

/* The cache folder, created if missing: $PILLAR_CACHE_DIR, else $XDG_CACHE_HOME/pillar, else
 * $HOME/.cache/pillar. 0, or -1 with a message. */
int jit_cache_dir(char *out, size_t n);

/* The folder holding the engine headers a composition includes (DIR/include-HASH, written on
 * first use) into out; *hash gets the hash of their contents. 0 or -1 with a message. */
int jit_headers_dir(const char *dir, char *out, size_t n, unsigned long long *hash);

/* Runs argv (argv[0] looked up on PATH) with stdout and stderr into file `log`; returns its exit
 * status, or -1 when it could not be started (errno kept). */
int jit_spawn(char *const argv[], const char *log);

/* The first `max` bytes of file path into a new string (xalloc). */
char *jit_slurp(const char *path, size_t max);

/* Cuts a compiler's log (size bytes of room) in place before its second "error:" line and says
 * so: the body is compiled once per loop and precision, so the same error repeats. */
void jit_first_error(char *log, size_t size);

/* Writes text to path whole (src/io/files.h). 0 or -1 with a message. */
int jit_write(const char *path, const char *text);

/* 1 if path is an existing regular file. */
int jit_exists(const char *path);

#endif
