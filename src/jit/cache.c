/* cache.c — the cache folder, hashing, the embedded headers on disk, running the compiler. */
#include "cache.h"

#include "base/common.h"
#include "headers.h"
#include "src/io/files.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

unsigned long long jit_hash(unsigned long long h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

unsigned long long jit_hash_str(unsigned long long h, const char *s)
{
    return jit_hash(h, s, strlen(s) + 1);
}

/* mkdir -p of path (a copy is cut at each '/'). */
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
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
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
    return make_dirs(out);
}

int jit_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int jit_write(const char *path, const char *text)
{
    file_out o;
    if (file_out_begin(&o, path) != 0)
        return -1;
    FILE *f = fopen(o.tmp, "wb");
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

int jit_headers_dir(const char *dir, char *out, size_t n, unsigned long long *hash)
{
    unsigned long long h = JIT_HASH0;
    for (int i = 0; i < jit_nheaders; i++) {
        h = jit_hash_str(h, jit_headers[i].path);
        h = jit_hash(h, jit_headers[i].data, jit_headers[i].len);
    }
    *hash = h;
    if ((size_t)snprintf(out, n, "%s/include-%016llx", dir, h) >= n) {
        perr("stencil cache: path too long");
        return -1;
    }
    char stamp[1200];
    snprintf(stamp, sizeof stamp, "%s/.complete", out);
    if (jit_exists(stamp))
        return 0;
    for (int i = 0; i < jit_nheaders; i++) {
        char path[1200], sub[1200];
        snprintf(path, sizeof path, "%s/%s", out, jit_headers[i].path);
        snprintf(sub, sizeof sub, "%s", path);
        char *slash = strrchr(sub, '/');
        *slash = 0;
        if (make_dirs(sub) != 0)
            return -1;
        char *text = xalloc(jit_headers[i].len + 1);
        memcpy(text, jit_headers[i].data, jit_headers[i].len);
        int rc = jit_write(path, text);
        xfree(text);
        if (rc != 0)
            return -1;
    }
    /* NVRTC has no C library: stand-ins for the few system headers the engine headers name */
    static const char *const sys[][2] = {
        {"nvrtc-sys/stdint.h", "#pragma once\ntypedef signed char int8_t; typedef short int16_t;"
                               " typedef int int32_t; typedef long long int64_t;\ntypedef unsigned char"
                               " uint8_t; typedef unsigned short uint16_t; typedef unsigned int uint32_t;"
                               " typedef unsigned long long uint64_t;\n"},
        {"nvrtc-sys/stddef.h", "#pragma once\ntypedef unsigned long size_t; typedef long ptrdiff_t;\n"
                               "#ifndef NULL\n#define NULL 0\n#endif\n"},
        {"nvrtc-sys/setjmp.h", "#pragma once\ntypedef long jmp_buf[32];\n"}};
    char sysdir[1200];
    snprintf(sysdir, sizeof sysdir, "%s/nvrtc-sys", out);
    if (make_dirs(sysdir) != 0)
        return -1;
    for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", out, sys[i][0]);
        if (jit_write(path, sys[i][1]) != 0)
            return -1;
    }
    return jit_write(stamp, "");
}

int jit_spawn(char *const argv[], const char *log)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
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
