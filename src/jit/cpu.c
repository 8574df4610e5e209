/* cpu.c — the CPU side of a user stencil: composed, compiled by cc into a shared object in the
 * cache (keyed by the SHA-256 of everything compiled: the composition, every file it includes, the
 * compiler and its flags), checked to be the user's and to name its key, loaded. */
#include "cpu.h"

#include "base/sha256.h"
#include "cache.h"
#include "compose.h"
#include "src/io/files.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The flags of the built-in CPU path that decide the arithmetic (CMakeLists.txt:
 * -ffp-contract=off), and what a shared object with OpenMP loops needs. */
static const char *const cflags[] = {"-std=c11", "-O3", "-fPIC", "-shared", "-fopenmp",
                                     "-ffp-contract=off", "-D_POSIX_C_SOURCE=200809L", NULL};

/* Whether the shared object at path (opened by jit_open_trusted: the user's, writable by no one
 * else, not a link) holds the text mark, its key. 1 yes; 0 no such file, or one of the user's
 * that does not hold it (stale, or cut short: compiled again); -1 after a message (refused). */
static int holds_key(const char *path, const char *mark)
{
    int fd = jit_open_trusted(path);
    if (fd < 0)
        return fd == -2 ? 0 : -1;
    struct stat st;
    int found = 0;
    if (fstat(fd, &st) == 0 && st.st_size > 0 && st.st_size < (1 << 30)) {
        size_t n = (size_t)st.st_size, m = strlen(mark);
        char *b = xalloc(n);
        if (read(fd, b, n) == (ssize_t)n)
            for (size_t i = 0; i + m <= n && !found; i++)
                found = b[i] == mark[0] && !memcmp(b + i, mark, m);
        xfree(b);
    }
    close(fd);
    return found;
}

/* The compiler: $CC (one word) or cc; its full path on PATH into out. 0, or -1 with a message. */
static int find_cc(char *out, size_t n, const char **name)
{
    const char *cc = getenv("CC");
    *name = cc && *cc ? cc : "cc";
    if (strchr(*name, '/')) {
        if (access(*name, X_OK) == 0) {
            snprintf(out, n, "%s", *name);
            return 0;
        }
    } else {
        const char *path = getenv("PATH");
        while (path && *path) {
            const char *e = strchr(path, ':');
            size_t len = e ? (size_t)(e - path) : strlen(path);
            if ((size_t)snprintf(out, n, "%.*s/%s", (int)len, path, *name) < n &&
                access(out, X_OK) == 0)
                return 0;
            path = e ? e + 1 : NULL;
        }
    }
    perr("no C compiler found to build stencil files: '%s' is not %s (install one, e.g. "
         "apt-get install gcc, or set CC to its path)", *name,
         strchr(*name, '/') ? "executable" : "on PATH");
    return -1;
}

/* Runs the compiler argv (argv[0] = ccpath; the log of its output at log, removed after),
 * bounded in time (jit_compile_timeout). 0, or -1 after a message naming sp's file and what the
 * compiler said. When keep is given, the log's text is handed back in *keep (xfree) on success. */
static int run_cc(const jit_spec *sp, const char *ccname, char **argv, const char *log,
                  char **keep)
{
    double limit = jit_compile_timeout();
    unlink(log); /* whatever is at the name (jit_spawn creates the log anew, never through a link) */
    int rc = jit_spawn(argv, log, limit);
    char *msg = jit_slurp(log, rc == 0 && keep ? 1u << 20 : 6000);
    unlink(log);
    if (rc == 0 && keep) {
        *keep = msg;
        return 0;
    }
    if (rc == JIT_TIMED_OUT)
        perr("%s: the C compiler (%s) did not finish within %g s and was stopped (a hanging "
             "compiler? PILLAR_COMPILE_TIMEOUT sets the limit)", sp->path, ccname, limit);
    else if (rc < 0)
        perr("%s: could not run the C compiler %s: %s", sp->path, argv[0], strerror(errno));
    else if (rc != 0) {
        jit_first_error(msg, 6000 + 1);
        perr("%s: the C compiler (%s) refused the stencil:\n%s", sp->path, ccname, msg);
    }
    xfree(msg);
    return rc == 0 ? 0 : -1;
}

/* Adds the bytes of the file at path to c (none when it cannot be read: the compile then fails
 * and says why). */
static void hash_file(sha256_ctx *c, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    unsigned char buf[1 << 15];
    for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;)
        sha256_update(c, buf, n);
    fclose(f);
}

/* Adds to c every file the composition src includes, path and bytes, as the compiler finds them
 * (cc -M with the flags of the compile, on a temporary copy of src in the cache folder): the
 * stencil file's own headers, the engine's, the system's. 0, or -1 after a message. */
static int hash_includes(const jit_spec *sp, const char *ccname, char **argv0, const char *dir,
                         const char *src, sha256_ctx *c)
{
    char path[1100], log[1200];
    snprintf(path, sizeof path, "%s/cpu-includes.c", dir);
    file_out o;
    if (file_out_begin(&o, path) != 0)
        return -1;
    int fd = open(o.tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    size_t len = strlen(src);
    int ok = fd >= 0 && write(fd, src, len) == (ssize_t)len;
    if (fd >= 0)
        close(fd);
    if (!ok) {
        perr("stencil cache %s: %s", o.tmp, strerror(errno));
        file_out_abort(&o);
        return -1;
    }
    char *argv[32];
    int a = 0;
    for (; argv0[a]; a++)
        argv[a] = argv0[a];
    argv[a++] = "-M";
    argv[a++] = "-x";
    argv[a++] = "c";
    argv[a++] = o.tmp;
    argv[a] = NULL;
    snprintf(log, sizeof log, "%s.log", o.tmp);
    char *deps = NULL, scratch[1200];
    snprintf(scratch, sizeof scratch, "%s", o.tmp);
    int rc = run_cc(sp, ccname, argv, log, &deps);
    file_out_abort(&o);
    if (rc != 0)
        return -1;
    /* "target: dep dep \<newline> dep ...", a blank in a name written "\ " */
    char *p = strchr(deps, ':'), name[4096];
    for (p = p ? p + 1 : deps + strlen(deps); *p;) {
        size_t n = 0;
        while (*p == ' ' || *p == '\n' || *p == '\t' || (*p == '\\' && p[1] == '\n'))
            p += *p == '\\' ? 2 : 1;
        while (*p && *p != ' ' && *p != '\n' && *p != '\t' && n + 1 < sizeof name) {
            if (*p == '\\' && p[1] == ' ')
                p++;
            if (!(*p == '\\' && p[1] == '\n'))
                name[n++] = *p;
            p++;
        }
        name[n] = 0;
        if (!n || !strcmp(name, scratch))
            continue;
        size_t dl = strlen(dir); /* a file of the cache by its name in it: a cache moved keeps */
        sha256_update_str(c, !strncmp(name, dir, dl) && name[dl] == '/' ? name + dl : name);
        hash_file(c, name);
    }
    xfree(deps);
    return 0;
}

int jit_cpu_load(const jit_spec *sp, int checked, jit_cpu *out, loaded_code *lc)
{
    memset(out, 0, sizeof *out);
    char dir[1024], inc[1100], ccpath[1024], incflag[1200], quote[1100];
    const char *ccname;
    unsigned char hh[32];
    if (find_cc(ccpath, sizeof ccpath, &ccname) != 0 || jit_cache_dir(dir, sizeof dir) != 0 ||
        jit_headers_dir(dir, inc, sizeof inc, hh) != 0)
        return -1;
    /* the compiler and its flags: the engine headers, then the stencil file's folder for its
     * own headers (#include "mine.h") */
    snprintf(incflag, sizeof incflag, "-I%s", inc);
    snprintf(quote, sizeof quote, "%s", sp->path);
    char *slash = strrchr(quote, '/');
    if (!slash)
        strcpy(quote, ".");
    else
        slash[slash == quote] = 0; /* "/x.c": "/" */
    char *argv[32];
    int a = 0;
    argv[a++] = ccpath;
    for (int i = 0; cflags[i]; i++)
        argv[a++] = (char *)cflags[i];
    argv[a++] = incflag;
    if (sp->path[0] != '<') {
        argv[a++] = "-iquote";
        argv[a++] = quote;
    }
    argv[a] = NULL;
    jit_text src = {0};
    jit_compose_cpu(sp, checked, &src);
    /* the key: SHA-256 of everything compiled: the composition, every file it includes, the
     * compiler (path, size, time) and its flags */
    sha256_ctx kc;
    sha256_init(&kc);
    sha256_update_str(&kc, src.s);
    sha256_update(&kc, hh, sizeof hh);
    for (int i = 0; i < a; i++) /* the engine headers by their name in the cache */
        sha256_update_str(&kc, argv[i] == incflag ? inc + strlen(dir) : argv[i]);
    struct stat st;
    if (stat(ccpath, &st) == 0) {
        long long v[2] = {(long long)st.st_size, (long long)st.st_mtime};
        sha256_update(&kc, v, sizeof v);
    }
    if (hash_includes(sp, ccname, argv, dir, src.s, &kc) != 0) {
        xfree(src.s);
        return -1;
    }
    unsigned char kd[32];
    char key[65], so[1100], c[1100], log[1200], mark[100];
    sha256_final(&kc, kd);
    sha256_hex(kd, key);
    memcpy(&out->key, kd, sizeof out->key);
    snprintf(so, sizeof so, "%s/cpu-%s.so", dir, key);
    snprintf(c, sizeof c, "%s/cpu-%s.c", dir, key);
    /* the shared object names its key, and what is loaded is checked to name it */
    snprintf(mark, sizeof mark, "pillar-jit-key:%s", key);
    jit_text_add(&src, "\nconst char pillar_jit_key[] = \"%s\";\n", mark);
    int found = holds_key(so, mark);
    if (found < 0) {
        xfree(src.s);
        return -1;
    }
    out->cached = found;
    if (!out->cached) {
        file_out o;
        if (jit_write(c, src.s) != 0 || file_out_begin(&o, so) != 0) {
            xfree(src.s);
            return -1;
        }
        snprintf(log, sizeof log, "%s.log", o.tmp);
        argv[a++] = "-o";
        argv[a++] = o.tmp;
        argv[a++] = c;
        argv[a] = NULL;
        int rc = run_cc(sp, ccname, argv, log, NULL);
        if (rc == 0 && holds_key(o.tmp, mark) != 1) {
            perr("%s: the C compiler (%s) exited 0 but wrote no shared object holding the "
                 "stencil: is %s a C compiler?", sp->path, ccname, ccpath);
            rc = -1;
        }
        if (rc != 0) {
            file_out_abort(&o);
            xfree(src.s);
            return -1;
        }
        if (file_out_commit(&o) != 0) {
            xfree(src.s);
            return -1;
        }
    }
    xfree(src.s);
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        perr("%s: loading its compiled code %s: %s", sp->path, so, dlerror());
        return -1;
    }
    out->handle = h;
    out->fold_d = (stencil_fold_d)dlsym(h, "pillar_fold_double");
    out->fold_f = (stencil_fold_f)dlsym(h, "pillar_fold_float");
    out->violations = (int *)dlsym(h, "pillar_violations");
    out->violation = (long *)dlsym(h, "pillar_violation");
    static const char *const ty[2] = {"double", "float"};
    int missing = !out->fold_d || !out->fold_f || !out->violations || !out->violation;
    for (int p = 0; p < 2; p++) {
        char name[64];
        if (sp->graph) {
            snprintf(name, sizeof name, "cpu_graph_USER_%s", ty[p]);
            *(void **)&lc->graph[p] = dlsym(h, name);
            missing |= !lc->graph[p];
            snprintf(name, sizeof name, "cpu_lattice_USER_%s", ty[p]);
            *(void **)&lc->lattice[p] = dlsym(h, name);
            missing |= !lc->lattice[p];
            for (int s = 0; s < 4 && !checked; s++) { /* the checked mode runs the lists */
                snprintf(name, sizeof name, "cpu_gtable_USER_%s_%d%d", ty[p], s >> 1, s & 1);
                *(void **)&lc->gtable[p][s] = dlsym(h, name);
                missing |= !lc->gtable[p][s];
            }
            continue;
        }
        snprintf(name, sizeof name, "cpu_reg_USER_%s", ty[p]);
        *(void **)&lc->reg[p] = dlsym(h, name);
        missing |= !lc->reg[p];
        for (int s = 0; s < 4; s++) {
            snprintf(name, sizeof name, "cpu_uns_USER_%s_%d%d", ty[p], s >> 1, s & 1);
            *(void **)&lc->uns[p][s] = dlsym(h, name);
            missing |= !lc->uns[p][s];
        }
    }
    if (missing) {
        perr("%s: its compiled code %s lacks the composed loops (a stale cache? remove it)",
             sp->path, so);
        dlclose(h);
        return -1;
    }
    return 0;
}
