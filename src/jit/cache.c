/* cache.c — the cache folder, hashing, the embedded headers on disk, running the compiler. */
#include "cache.h"

#include "base/common.h"
#include "base/sha256.h"
#include "headers.h"
#include "src/io/cache_dir.h"
#include "src/io/files.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int jit_cache_dir(char *out, size_t n)
{
    return cache_dir(out, n, NULL, "stencil cache");
}

int jit_open_trusted(const char *path)
{
    return cache_open_trusted(path, "stencil cache");
}

int jit_exists(const char *path)
{
    return cache_file_trusted(path);
}

int jit_write(const char *path, const char *text)
{
    return cache_write(path, text);
}

/* Whether the file at path holds exactly len bytes `data` (and is the user's: jit_open_trusted). */
static int holds(const char *path, const void *data, size_t len)
{
    int fd = jit_open_trusted(path);
    if (fd < 0)
        return 0;
    char *got = xalloc(len + 1);
    ssize_t r = read(fd, got, len + 1);
    int same = r == (ssize_t)len && !memcmp(got, data, len);
    xfree(got);
    close(fd);
    return same;
}

/* Writes text (len bytes) at DIR/rel unless that file already holds exactly it. 0 or -1. */
static int put_header(const char *dir, const char *rel, const void *text, size_t len)
{
    char path[1200], sub[1200];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, rel) >= sizeof path) {
        perr("stencil cache: path too long");
        return -1;
    }
    if (holds(path, text, len))
        return 0;
    snprintf(sub, sizeof sub, "%s", path);
    *strrchr(sub, '/') = 0;
    if (cache_make_dirs(sub, "stencil cache") != 0)
        return -1;
    char *copy = xalloc(len + 1);
    memcpy(copy, text, len);
    copy[len] = 0;
    int rc = jit_write(path, copy);
    xfree(copy);
    return rc;
}

int jit_headers_dir(const char *dir, char *out, size_t n, unsigned char digest[32])
{
    /* NVRTC has no C library: stand-ins for the few system headers the engine headers name */
    static const char *const sys[][2] = {
        {"nvrtc-sys/stdint.h", "#pragma once\ntypedef signed char int8_t; typedef short int16_t;"
                               " typedef int int32_t; typedef long long int64_t;\ntypedef unsigned char"
                               " uint8_t; typedef unsigned short uint16_t; typedef unsigned int uint32_t;"
                               " typedef unsigned long long uint64_t;\n"},
        {"nvrtc-sys/stddef.h", "#pragma once\ntypedef unsigned long size_t; typedef long ptrdiff_t;\n"
                               "#ifndef NULL\n#define NULL 0\n#endif\n"},
        {"nvrtc-sys/setjmp.h", "#pragma once\ntypedef long jmp_buf[32];\n"}};
    const int nsys = (int)(sizeof sys / sizeof sys[0]);
    sha256_ctx c;
    sha256_init(&c);
    for (int i = 0; i < jit_nheaders; i++) {
        sha256_update_str(&c, jit_headers[i].path);
        sha256_update(&c, &jit_headers[i].len, sizeof jit_headers[i].len);
        sha256_update(&c, jit_headers[i].data, jit_headers[i].len);
    }
    for (int i = 0; i < nsys; i++) {
        sha256_update_str(&c, sys[i][0]);
        sha256_update_str(&c, sys[i][1]);
    }
    sha256_final(&c, digest);
    char hex[65];
    sha256_hex(digest, hex);
    if ((size_t)snprintf(out, n, "%s/include-%s", dir, hex) >= n) {
        perr("stencil cache: path too long");
        return -1;
    }
    /* every file is compared with the embedded bytes on each use (a stamp file would be trusted
     * blindly), and written again where it differs */
    for (int i = 0; i < jit_nheaders; i++)
        if (put_header(out, jit_headers[i].path, jit_headers[i].data, jit_headers[i].len) != 0)
            return -1;
    for (int i = 0; i < nsys; i++)
        if (put_header(out, sys[i][0], sys[i][1], strlen(sys[i][1])) != 0)
            return -1;
    return 0;
}

double jit_compile_timeout(void)
{
    const char *v = getenv("PILLAR_COMPILE_TIMEOUT");
    char *end;
    double t = v && *v ? strtod(v, &end) : 0;
    return v && *v && !*end && t > 0 && t < 1e6 ? t : 300;
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int jit_spawn(char *const argv[], const char *log, double seconds)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawnattr_t at; /* a process group of its own, to end it with what it started */
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    int status, timed_out = 0;
    double end = seconds_now() + seconds;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            return -1;
        if (!timed_out && seconds_now() > end) {
            kill(-pid, SIGKILL);
            timed_out = 1;
        }
        struct timespec nap = {0, 5000000};
        nanosleep(&nap, NULL);
    }
    if (timed_out)
        return JIT_TIMED_OUT;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        errno = ENOENT; /* the shell's "not found" (posix_spawnp through a fallback) */
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

char *jit_slurp(const char *path, size_t max)
{
    char *s = xalloc(max + 1);
    FILE *f = fopen(path, "rb");
    if (f) {
        size_t n = fread(s, 1, max, f);
        s[n] = 0;
        fclose(f);
    }
    return s;
}

void jit_first_error(char *log, size_t size)
{
    char *first = strstr(log, "error:");
    char *cut = first ? strstr(first + 6, "error:") : NULL;
    if (!cut)
        return;
    while (cut > log && cut[-1] != '\n') /* back to the start of that line */
        cut--;
    snprintf(cut, size - (size_t)(cut - log), "(further errors left out: the body is compiled "
             "into every loop and precision, so the same error repeats)\n");
}
