/* cache_dir.c — the cache folder and its files, checked as ssh checks ~/.ssh. */
#define _XOPEN_SOURCE 700 /* realpath, S_ISVTX */
#include "cache_dir.h"

#include "base/common.h"
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Why the cache is checked, for the messages that refuse it. */
#define TRUSTS "pillar trusts what its cache holds (code it runs, settings it takes)"

int cache_make_dirs(const char *path, const char *what)
{
    char buf[1024];
    if (strlen(path) >= sizeof buf) {
        perr("%s %s: path too long", what, path);
        return -1;
    }
    strcpy(buf, path);
    for (char *q = buf + 1;; q++) {
        if (*q == '/' || !*q) {
            char c = *q;
            *q = 0;
            if (mkdir(buf, 0700) != 0 && errno != EEXIST) {
                perr("%s %s: %s", what, buf, strerror(errno));
                return -1;
            }
            *q = c;
            if (!c)
                break;
        }
    }
    return 0;
}

/* What makes st unfit to hold what pillar trusts, or NULL: it must be the user's (owner =
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

/* Whether the folder dir, and every folder above it, are fit (unfit). 0, or -1 after a message
 * naming the folder and what is wrong. */
static int dir_chain_safe(const char *dir, const char *what)
{
    char *real = realpath(dir, NULL), why[160];
    if (!real) {
        perr("%s %s: %s", what, dir, strerror(errno));
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
            perr("%s %s: %s%s%s; " TRUSTS " and refuses it (as ssh does): use a folder of your "
                 "own that only you can write (chmod go-w, or set PILLAR_CACHE_DIR)", what, dir,
                 leaf ? "" : real, leaf ? "" : " ", bad);
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

int cache_dir(char *out, size_t n, const char *sub, const char *what)
{
    const char *d = getenv("PILLAR_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
    const char *s = sub && *sub ? "/" : "", *ss = sub && *sub ? sub : "";
    int w;
    if (d && *d)
        w = snprintf(out, n, "%s%s%s", d, s, ss);
    else if (x && *x)
        w = snprintf(out, n, "%s/pillar%s%s", x, s, ss);
    else if (h && *h)
        w = snprintf(out, n, "%s/.cache/pillar%s%s", h, s, ss);
    else {
        perr("%s: set PILLAR_CACHE_DIR (no XDG_CACHE_HOME or HOME to put it under)", what);
        return -1;
    }
    if (w < 0 || (size_t)w >= n) {
        perr("%s: its path is too long", what);
        return -1;
    }
    if (cache_make_dirs(out, what) != 0 || dir_chain_safe(out, what) != 0)
        return -1;
    file_sweep_stale(out);
    return 0;
}

int cache_open_trusted(const char *path, const char *what)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT)
            return -2;
        perr("%s %s: %s%s", what, path, errno == ELOOP ? "a symbolic link" : strerror(errno),
             errno == ELOOP ? ", refused (pillar never follows links in its cache)" : "");
        return -1;
    }
    struct stat st;
    char why[160];
    const char *bad = fstat(fd, &st) != 0 ? strerror(errno)
                      : !S_ISREG(st.st_mode) ? "is not a regular file"
                                             : unfit(&st, 0, why, sizeof why);
    if (bad) {
        perr("%s %s: %s; " TRUSTS " and refuses it (remove the file)", what, path, bad);
        close(fd);
        return -1;
    }
    return fd;
}

int cache_file_trusted(const char *path)
{
    struct stat st;
    char why[160];
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && !unfit(&st, 0, why, sizeof why);
}

int cache_write(const char *path, const char *text)
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
