/* cache.c — the cache folder, hashing, the embedded headers on disk, running the compiler. */
#define _XOPEN_SOURCE 700 /* realpath, S_ISVTX */
#include "cache.h"

#include "base/common.h"
#include "base/sha256.h"
#include "headers.h"
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

/* mkdir -p of path (a copy is cut at each '/'); folders it creates are the user's alone. */
static int make_dirs(const char *path)
{
    char buf[1024];
    if (strlen(path) >= sizeof buf) {
        perr("%s: path too long", path);
        return -1;
    }
    strcpy(buf, path);
    for (char *q = buf + 1;; q++) {
        if (*q == '/' || !*q) {
            char c = *q;
            *q = 0;
            if (mkdir(buf, 0700) != 0 && errno != EEXIST) {
                perr("stencil cache %s: %s", buf, strerror(errno));
                return -1;
            }
            *q = c;
            if (!c)
                break;
        }
    }
    return 0;
}

/* What makes st unfit to hold code this process runs, or NULL: it must be the user's (owner =
 * effective uid) and writable by no one else. `ancestor`: a folder above the cache, which may
 * also be root's, and writable by others when sticky (/tmp), as ssh allows. */
static const char *unfit(const struct stat *st, int ancestor, char *why, size_t n)
{
    uid_t me = geteuid();
    if (st->st_uid != me && !(ancestor && st->st_uid == 0)) {
        snprintf(why, n, "is owned by uid %ld, not by you (uid %ld)", (long)st->st_uid, (long)me);
        return why;
    }
    if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(ancestor && (st->st_mode & S_ISVTX))) {
        snprintf(why, n, "is writable by %s (mode %04o)",
                 (st->st_mode & S_IWOTH) ? "others" : "its group", (unsigned)(st->st_mode & 07777));
        return why;
    }
    return NULL;
}

/* Whether the cache folder dir, and every folder above it, are safe to load code from (unfit).
 * 0, or -1 after a message naming the folder and what is wrong. */
static int dir_chain_safe(const char *dir)
{
    char *real = realpath(dir, NULL), why[160];
    if (!real) {
        perr("stencil cache %s: %s", dir, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (int leaf = 1; rc == 0; leaf = 0) {
        struct stat st;
        const char *bad = NULL;
        if (stat(real, &st) != 0 || !S_ISDIR(st.st_mode))
            bad = "is not a folder";
        else
            bad = unfit(&st, !leaf, why, sizeof why);
        if (bad) {
            perr("stencil cache %s: %s%s%s; pillar runs code from its cache and refuses it (as ssh "
                 "does): use a folder of your own that only you can write (chmod go-w, or set "
                 "PILLAR_CACHE_DIR)", dir, leaf ? "" : real, leaf ? "" : " ", bad);
            rc = -1;
        }
        char *slash = strrchr(real, '/');
        if (!slash || slash == real) {
            if (rc == 0 && slash && real[1]) { /* the root folder */
                real[1] = 0;
                continue;
            }
            break;
        }
        *slash = 0;
    }
    free(real);
    return rc;
}

int jit_cache_dir(char *out, size_t n)
{
    const char *d = getenv("PILLAR_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
    int w;
    if (d && *d)
        w = snprintf(out, n, "%s", d);
    else if (x && *x)
        w = snprintf(out, n, "%s/pillar", x);
    else if (h && *h)
        w = snprintf(out, n, "%s/.cache/pillar", h);
    else {
        perr("stencil cache: set PILLAR_CACHE_DIR (no XDG_CACHE_HOME or HOME to put it under)");
        return -1;
    }
    if (w < 0 || (size_t)w >= n) {
        perr("stencil cache: its path is too long");
        return -1;
    }
    if (make_dirs(out) != 0 || dir_chain_safe(out) != 0)
        return -1;
    file_sweep_stale(out);
    return 0;
}

int jit_open_trusted(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT)
            return -2;
        perr("stencil cache %s: %s%s", path, errno == ELOOP ? "a symbolic link" : strerror(errno),
             errno == ELOOP ? ", refused (pillar never follows links in its cache)" : "");
        return -1;
    }
    struct stat st;
    char why[160];
    const char *bad = fstat(fd, &st) != 0 ? strerror(errno)
                      : !S_ISREG(st.st_mode) ? "is not a regular file"
                                             : unfit(&st, 0, why, sizeof why);
    if (bad) {
        perr("stencil cache %s: %s; pillar runs code from its cache and refuses it (remove the "
             "file)", path, bad);
        close(fd);
        return -1;
    }
    return fd;
}

int jit_exists(const char *path)
{
    struct stat st;
    char why[160];
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && !unfit(&st, 0, why, sizeof why);
}

int jit_write(const char *path, const char *text)
{
    file_out o;
    if (file_out_begin(&o, path) != 0)
        return -1;
    int fd = open(o.tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (fd >= 0 && !f)
        close(fd);
    size_t n = strlen(text);
    int ok = f && fwrite(text, 1, n, f) == n;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok) {
        perr("%s: %s", path, strerror(errno));
        file_out_abort(&o);
        return -1;
    }
    return file_out_commit(&o);
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
    if (make_dirs(sub) != 0)
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
