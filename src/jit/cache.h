/* cache.h — the on-disk cache of compiled user stencils and the compilers' surroundings: the
 * cache folder, hashing, the engine headers a composition includes (embedded in libpillar at
 * build time, written once per version into the cache), and running the C compiler. */
#ifndef PILLAR_JIT_CACHE_H
#define PILLAR_JIT_CACHE_H

#include <stddef.h>

/* The cache folder (src/io/cache_dir.h: cache_dir, "stencil cache"), created if missing and
 * checked as ssh checks ~/.ssh, since pillar runs code from it. 0, or -1 with a message. */
int jit_cache_dir(char *out, size_t n);

/* cache_open_trusted (src/io/cache_dir.h) for the stencil cache: the descriptor; -2 when there
 * is no such file; -1 after a message. */
int jit_open_trusted(const char *path);

/* The folder holding the engine headers a composition includes (DIR/include-SHA256, the
 * SHA-256 of their contents into digest) into out. Every file in it is compared with the
 * embedded bytes on each use and written again where it differs. 0 or -1 with a message. */
int jit_headers_dir(const char *dir, char *out, size_t n, unsigned char digest[32]);

/* Runs argv (argv[0] looked up on PATH) with stdout and stderr into file `log` (created, never
 * through a link or over an existing file), for at most `seconds`: past that it is killed with
 * its process group. Returns its exit status, -1 when it could not be started (errno kept), or
 * JIT_TIMED_OUT. */
#define JIT_TIMED_OUT (-3)
int jit_spawn(char *const argv[], const char *log, double seconds);

/* The seconds a compile may take: $PILLAR_COMPILE_TIMEOUT, else 300. */
double jit_compile_timeout(void);

/* The first `max` bytes of file path into a new string (xalloc). */
char *jit_slurp(const char *path, size_t max);

/* Cuts a compiler's log (size bytes of room) in place before its second "error:" line and says
 * so: the body is compiled once per loop and precision, so the same error repeats. */
void jit_first_error(char *log, size_t size);

/* Writes text to path whole (cache_write). 0 or -1 with a message. */
int jit_write(const char *path, const char *text);

/* cache_file_trusted: 1 if path is a regular file (not a link), the user's, writable by no one
 * else. */
int jit_exists(const char *path);

#endif
