/* files.c — checked input paths and output files that appear only when complete (files.h). */
#include "files.h"

#include "base/common.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* What a file of mode m is, for messages. */
static const char *kind_of(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO (named pipe)";
    if (S_ISCHR(m) || S_ISBLK(m))
        return "a device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

int file_input_check(const char *path, const char *what)
{
    struct stat st;
    if (!path || !*path) {
        perr("the %s path is empty", what);
        return -1;
    }
    if (stat(path, &st) != 0) {
        perr("%s: cannot read the %s: %s", path, what,
             errno == ENOENT ? "no such file" : strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        perr("%s: %s, not a %s: pillar reads inputs from regular files only", path,
             kind_of(st.st_mode), what);
        return -1;
    }
    if (st.st_size == 0) {
        perr("%s: the %s is empty", path, what);
        return -1;
    }
    if (access(path, R_OK) != 0) {
        perr("%s: cannot read the %s: %s", path, what, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- output ---- */

int file_output_distinct(const char *path, const char *what, const file_named *in, int n)
{
    struct stat out, st;
    if (!path || stat(path, &out) != 0)
        return 0;
    for (int k = 0; k < n; k++)
        if (in[k].path && stat(in[k].path, &st) == 0 && st.st_dev == out.st_dev &&
            st.st_ino == out.st_ino) {
            perr("%s %s names the %s %s%s; pillar never writes over an input: name another "
                 "output", what, path, in[k].what, in[k].path,
                 strcmp(path, in[k].path) ? " (the same file, through a link)" : "");
            return -1;
        }
    return 0;
}

/* A copy of the directory part of path ("." when it has none) and its last component. */
static char *dir_of(const char *path, const char **base)
{
    size_t len = strlen(path) + 2;
    char *dir = xalloc(len);
    const char *slash = strrchr(path, '/');
    if (!slash) {
        strcpy(dir, ".");
        *base = path;
    } else {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        memcpy(dir, path, n);
        dir[n] = 0;
        *base = slash + 1;
    }
    return dir;
}

/* Whether the process pid (digits at s, up to end or a '.') no longer exists; *end is set past
 * the digits. */
static int dead_pid(const char *s, const char **end)
{
    char *e;
    errno = 0;
    long pid = strtol(s, &e, 10);
    *end = e;
    if (e == s || errno || pid <= 0 || *s == '+' || *s == ' ' || *s == '-')
        return 0;
    return pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Whether name is BASE.tmp-PID or .BASE.tmp-PID (this and earlier versions' temporary names),
 * or without base any .NAME.tmp-PID or .NAME.tmp-PID.SUFFIX, for a process PID that no longer
 * exists. */
static int stale_tmp(const char *name, const char *base)
{
    const char *end;
    if (!base) {
        const char *t = name[0] == '.' ? strstr(name, ".tmp-") : NULL;
        return t && t != name && dead_pid(t + 5, &end) && (!*end || *end == '.');
    }
    if (name[0] == '.' && strncmp(name, base, strlen(base)) != 0)
        name++;
    size_t n = strlen(base);
    if (strncmp(name, base, n) != 0 || strncmp(name + n, ".tmp-", 5) != 0)
        return 0;
    return dead_pid(name + n + 5, &end) && !*end;
}

/* Removes the temporary files of base (NULL: of any name) in dir that dead processes left
 * behind. */
static void remove_stale(const char *dir, const char *base)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    size_t dl = strlen(dir);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (!stale_tmp(e->d_name, base))
            continue;
        size_t len = dl + strlen(e->d_name) + 2;
        char *p = xalloc(len);
        snprintf(p, len, "%s/%s", dir, e->d_name);
        unlink(p);
        xfree(p);
    }
    closedir(d);
}

void file_sweep_stale(const char *dir) { remove_stale(dir, NULL); }

/* The named temporary DIR/.BASE.tmp-PID. */
static char *named_tmp(const char *dir, const char *base)
{
    size_t len = strlen(dir) + strlen(base) + 40;
    char *t = xalloc(len);
    snprintf(t, len, "%s/.%s.tmp-%ld", dir, base, (long)getpid());
    return t;
}

static char *copy(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = xalloc(n);
    memcpy(c, s, n);
    return c;
}

int file_out_begin(file_out *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (!path || !*path) {
        perr("the path of the file to write is empty");
        return -1;
    }
    const char *base;
    char *dir = dir_of(path, &base);
    if (!*base) {
        perr("%s: names a directory, not a file to write", path);
        xfree(dir);
        return -1;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0) {
        perr("%s: cannot create a file in %s (does the directory exist and is it writable?)",
             path, dir);
        xfree(dir);
        return -1;
    }
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        perr("%s: exists and is %s; pillar replaces regular files only", path,
             kind_of(st.st_mode));
        xfree(dir);
        return -1;
    }
    remove_stale(dir, base);
    o->path = copy(path);
    o->tmp = named_tmp(dir, base);
    unlink(o->tmp); /* a file of this process's own earlier, unfinished write */
    xfree(dir);
    return 0;
}

static void release(file_out *o)
{
    xfree(o->path);
    xfree(o->tmp);
    memset(o, 0, sizeof *o);
}

int file_out_commit(file_out *o)
{
    int rc = 0;
    if (rename(o->tmp, o->path) != 0) {
        perr("%s: cannot rename %s into place: %s", o->path, o->tmp, strerror(errno));
        unlink(o->tmp);
        rc = -1;
    }
    release(o);
    return rc;
}

const char *file_out_full(const file_out *o, int err)
{
    static char why[512];
    if (err == EDQUOT)
        return "disk quota exceeded";
    const char *base;
    char *dir = dir_of(o->tmp, &base);
    struct statvfs fs;
    int full = err == ENOSPC || (statvfs(dir, &fs) == 0 && (fs.f_bavail == 0 || fs.f_bfree == 0));
    snprintf(why, sizeof why, "no space left on device (%s is full)", dir);
    xfree(dir);
    return full ? why : NULL;
}

void file_out_abort(file_out *o)
{
    if (o->tmp)
        unlink(o->tmp);
    release(o);
}
