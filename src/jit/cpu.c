/* cpu.c — the CPU side of a user stencil: composed, compiled by cc into a shared object in the
 * cache (keyed by the composition, the embedded headers, the compiler and its flags), loaded. */
#include "cpu.h"

#include "cache.h"
#include "compose.h"
#include "src/io/files.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The flags of the built-in CPU path that decide the arithmetic (CMakeLists.txt:
 * -ffp-contract=off), and what a shared object with OpenMP loops needs. */
static const char *const cflags[] = {"-std=c11", "-O3", "-fPIC", "-shared", "-fopenmp",
                                     "-ffp-contract=off", "-D_POSIX_C_SOURCE=200809L", NULL};

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

int jit_cpu_load(const jit_spec *sp, int checked, jit_cpu *out, loaded_code *lc)
{
    memset(out, 0, sizeof *out);
    char dir[1024], inc[1100], ccpath[1024];
    const char *ccname;
    unsigned long long hh;
    if (find_cc(ccpath, sizeof ccpath, &ccname) != 0 || jit_cache_dir(dir, sizeof dir) != 0 ||
        jit_headers_dir(dir, inc, sizeof inc, &hh) != 0)
        return -1;
    jit_text src = {0};
    jit_compose_cpu(sp, checked, &src);
    /* the key: composition, headers, compiler (path, size, time) and flags */
    struct stat st;
    unsigned long long key = jit_hash_str(JIT_HASH0, src.s);
    key = jit_hash(key, &hh, sizeof hh);
    key = jit_hash_str(key, ccpath);
    if (stat(ccpath, &st) == 0) {
        long long v[2] = {(long long)st.st_size, (long long)st.st_mtime};
        key = jit_hash(key, v, sizeof v);
    }
    for (int i = 0; cflags[i]; i++)
        key = jit_hash_str(key, cflags[i]);
    out->key = key;
    char so[1100], c[1100], log[1100], incflag[1200];
    snprintf(so, sizeof so, "%s/cpu-%016llx.so", dir, key);
    snprintf(c, sizeof c, "%s/cpu-%016llx.c", dir, key);
    snprintf(incflag, sizeof incflag, "-I%s", inc);
    out->cached = jit_exists(so);
    if (!out->cached) {
        if (jit_write(c, src.s) != 0) {
            xfree(src.s);
            return -1;
        }
        file_out o;
        if (file_out_begin(&o, so) != 0) {
            xfree(src.s);
            return -1;
        }
        snprintf(log, sizeof log, "%s.log", o.tmp);
        char *argv[24];
        int a = 0;
        argv[a++] = ccpath;
        for (int i = 0; cflags[i]; i++)
            argv[a++] = (char *)cflags[i];
        argv[a++] = incflag;
        argv[a++] = "-o";
        argv[a++] = o.tmp;
        argv[a++] = c;
        argv[a] = NULL;
        int rc = jit_spawn(argv, log);
        if (rc != 0) {
            char *msg = jit_slurp(log, 6000);
            jit_first_error(msg, 6000 + 1);
            if (rc < 0)
                perr("%s: could not run the C compiler %s: %s", sp->path, ccpath, strerror(errno));
            else
                perr("%s: the C compiler (%s) refused the stencil:\n%s", sp->path, ccname, msg);
            xfree(msg);
            unlink(log);
            file_out_abort(&o);
            xfree(src.s);
            return -1;
        }
        unlink(log);
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
