/* jit.c — loading a user stencil: read and check the file, compile and load its CPU code,
 * take a slot of the stencil table, attach its GPU kernels (compiled on first use). */
#include "jit.h"

#include "cpu.h"
#include "spec.h"
#ifdef PILLAR_HAVE_NVRTC
#include "gpu.h"
#endif

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* What the process has loaded: per slot its spec (the GPU compiles from it later) and CPU code. */
typedef struct {
    jit_spec spec;
    jit_cpu cpu;
    int checked;
} jit_slot;
static jit_slot slots[ST_USER_SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local jit_report last;

const jit_report *jit_last(void) { return &last; }

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int load(jit_spec *sp, const jit_options *o, stencil_t *out)
{
    double t0 = now();
    int checked = o && o->checked;
    pthread_mutex_lock(&lock);
    /* the same source in the same mode: the slot it already has */
    for (int s = ST_COUNT; s < stencil_count(); s++) {
        jit_slot *k = &slots[s - ST_COUNT];
        if (k->spec.raw && k->checked == checked && k->spec.source_hash == sp->source_hash &&
            !strcmp(k->spec.raw, sp->raw) && !strcmp(k->spec.path, sp->path)) {
            pthread_mutex_unlock(&lock);
            jit_spec_free(sp);
            last.cached = 1;
            last.seconds = now() - t0;
            *out = (stencil_t)s;
            return 0;
        }
    }
    loaded_code lc;
    memset(&lc, 0, sizeof lc);
    jit_cpu cpu;
    if (jit_cpu_load(sp, checked, &cpu, &lc) != 0) {
        pthread_mutex_unlock(&lock);
        jit_spec_free(sp);
        return -1;
    }
    stencil_info info;
    jit_spec_info(sp, &info);
    stencil_t s;
    if (stencil_user_add(&info, cpu.fold_d, cpu.fold_f, &s) != 0) {
        pthread_mutex_unlock(&lock);
        jit_spec_free(sp);
        return -1;
    }
    jit_slot *k = &slots[s - ST_COUNT];
    k->spec = *sp; /* the slot keeps the texts, for the process (not a handle's arena) */
    xkeep(k->spec.text);
    xkeep(k->spec.raw);
    k->cpu = cpu;
    k->checked = checked;
#ifdef PILLAR_HAVE_NVRTC
    jit_gpu_attach(s, &k->spec, &lc);
#endif
    loaded_set(s, &lc);
    pthread_mutex_unlock(&lock);
    last.cached = cpu.cached;
    last.seconds = now() - t0;
    *out = s;
    return 0;
}

int jit_load_file(const char *path, const jit_options *o, stencil_t *out)
{
    jit_spec sp;
    if (jit_spec_read(&sp, path) != 0)
        return -1;
    return load(&sp, o, out);
}

int jit_load_source(const char *name, const char *source, const jit_options *o, stencil_t *out)
{
    jit_spec sp;
    char label[JIT_NAME_MAX + 16];
    snprintf(label, sizeof label, "<string %s>", name ? name : "");
    if (jit_spec_parse(&sp, label, source) != 0)
        return -1;
    return load(&sp, o, out);
}

long jit_violations(stencil_t s, char *msg, size_t n)
{
    if (!stencil_is_user(s) || (int)s >= stencil_count() || !slots[s - ST_COUNT].cpu.violations) {
        if (n)
            msg[0] = 0;
        return 0;
    }
    jit_slot *k = &slots[s - ST_COUNT];
    long count = __atomic_exchange_n(k->cpu.violations, 0, __ATOMIC_ACQ_REL);
    const long *v = k->cpu.violation;
    if (!count)
        snprintf(msg, n, "no read outside the declared extent");
    else if (v[0] == 1)
        snprintf(msg, n, "%s: LDZ reads %ld levels away at level %ld, beyond zradius(%d)",
                 k->spec.path, v[2] < 0 ? -v[2] : v[2], v[1], k->spec.radius >= 0 ? k->spec.zradius : 0);
    else if (v[0] == 2)
        snprintf(msg, n, "%s: at cell %ld, level %ld the body reads cell %ld, farther than "
                 "radius(%d) in the neighbour graph (cells in pillar's internal order)",
                 k->spec.path, v[2], v[1], v[3], k->spec.radius);
    else
        snprintf(msg, n, "%s: at level %ld, GNB(%ld, %ld) names no neighbour (GDEG is smaller)",
                 k->spec.path, v[1], v[2], v[3]);
    return count;
}

int jit_have_nvrtc(void)
{
#ifdef PILLAR_HAVE_NVRTC
    return 1;
#else
    return 0;
#endif
}

int jit_gpu_compile_all(stencil_t s, const char *arch)
{
    if (!stencil_is_user(s) || (int)s >= stencil_count()) {
        perr("not a loaded stencil");
        return -1;
    }
#ifdef PILLAR_HAVE_NVRTC
    const jit_spec *sp = &slots[s - ST_COUNT].spec;
    const char *names[16];
    int n = jit_gpu_strategies(sp, names, 16);
    for (int i = 0; i < n; i++) {
        char path[1200];
        if (jit_gpu_compile(sp, names[i], arch, path, sizeof path) != 0)
            return -1;
    }
    return 0;
#else
    (void)arch;
    perr("%s: this pillar was built without NVRTC (libnvrtc of the CUDA toolkit): stencil files "
         "run on the CPU only", stencil_table[s].name);
    return -1;
#endif
}
