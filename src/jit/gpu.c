/* gpu.c — a user stencil's GPU kernels: composed per strategy, compiled by NVRTC into a cubin
 * for the device's architecture (cached on disk by the composition, the strategy, the
 * architecture and NVRTC's version), loaded and launched through the driver API. */
#include "gpu.h"

#include "access/hooks.h"
#include "base/sha256.h"
#include "cache.h"
#include "compose.h"
#include "src/io/files.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* ---- the driver API, opened at run time (no link against libcuda) ---- */
typedef CUresult (*fn_load)(CUmodule *, const void *);
typedef CUresult (*fn_getf)(CUfunction *, CUmodule, const char *);
typedef CUresult (*fn_launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*fn_global)(CUdeviceptr *, size_t *, CUmodule, const char *);
typedef CUresult (*fn_htod)(CUdeviceptr, const void *, size_t);
typedef CUresult (*fn_errstr)(CUresult, const char **);
static struct {
    int tried, ok;
    fn_load load;
    fn_getf getf;
    fn_launch launch;
    fn_global global;
    fn_htod htod;
    fn_errstr errstr;
} drv;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int driver_open(void)
{
    if (!drv.tried) {
        drv.tried = 1;
        void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (h) {
            drv.load = (fn_load)dlsym(h, "cuModuleLoadData");
            drv.getf = (fn_getf)dlsym(h, "cuModuleGetFunction");
            drv.launch = (fn_launch)dlsym(h, "cuLaunchKernel");
            drv.global = (fn_global)dlsym(h, "cuModuleGetGlobal_v2");
            drv.htod = (fn_htod)dlsym(h, "cuMemcpyHtoD_v2");
            drv.errstr = (fn_errstr)dlsym(h, "cuGetErrorString");
            drv.ok = drv.load && drv.getf && drv.launch && drv.global && drv.htod && drv.errstr;
        }
    }
    if (!drv.ok)
        perr("stencil files on the GPU need the CUDA driver (libcuda.so.1), which is not loadable");
    return drv.ok ? 0 : -1;
}

static const char *drv_error(CUresult r)
{
    const char *s = NULL;
    if (drv.errstr)
        drv.errstr(r, &s);
    return s ? s : "unknown driver error";
}

/* ---- strategies ---- */

/* The strategy file of access strategy a: the name of the first strategy sharing its kernel
 * table ('-' as '_'): zloop-sliced runs zloop's kernels. */
static void strategy_file(access_t a, char *out, size_t n)
{
    int first = (int)a;
    for (int b = 0; b < (int)a; b++)
        if (access_table[b].kernels == access_table[a].kernels) {
            first = b;
            break;
        }
    snprintf(out, n, "%s", access_table[first].name);
    for (char *q = out; *q; q++)
        if (*q == '-')
            *q = '_';
}

int jit_gpu_strategies(const jit_spec *sp, const char *names[], int max)
{
    static char files[ACC_COUNT][32];
    int n = 0;
    if (sp->graph && n < max)
        names[n++] = "graph"; /* the lists: iterated and out-of-core runs */
    for (int a = 0; a < ACC_COUNT && n < max; a++) {
        if (access_table[a].prep->prepare || (sp->graph && !access_table[a].graph))
            continue;
        strategy_file((access_t)a, files[a], sizeof files[a]);
        int seen = 0;
        for (int j = 0; j < n; j++)
            seen |= !strcmp(names[j], files[a]);
        if (!seen)
            names[n++] = files[a];
    }
    return n;
}

/* ---- NVRTC ---- */

int jit_gpu_compile(const jit_spec *sp, const char *strategy, const char *arch, char *path,
                    size_t n)
{
    char dir[1024], inc[1100];
    unsigned char hh[32];
    if (jit_cache_dir(dir, sizeof dir) != 0 || jit_headers_dir(dir, inc, sizeof inc, hh) != 0)
        return -1;
    jit_text src = {0};
    jit_compose_gpu(sp, strategy, &src);
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    char incflag[1200], sysflag[1200], archflag[64];
    snprintf(incflag, sizeof incflag, "-I%s", inc);
    snprintf(sysflag, sizeof sysflag, "-I%s/nvrtc-sys", inc);
    snprintf(archflag, sizeof archflag, "-arch=%s", arch);
    const char *opts[] = {archflag, "--fmad=false", "-std=c++17", "-default-device", incflag,
                          sysflag, "-DPILLAR_HAVE_CUDA"};
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    sha256_ctx kc;
    sha256_init(&kc);
    sha256_update_str(&kc, src.s);
    sha256_update(&kc, hh, sizeof hh);
    sha256_update_str(&kc, strategy);
    sha256_update_str(&kc, arch);
    int ver[2] = {major, minor};
    sha256_update(&kc, ver, sizeof ver);
    for (int i = 0; i < nopts - 2; i++)
        sha256_update_str(&kc, opts[i]);
    unsigned char kd[32];
    char key[65];
    sha256_final(&kc, kd);
    sha256_hex(kd, key);
    if ((size_t)snprintf(path, n, "%s/gpu-%s-%s-%s.cubin", dir, strategy, arch, key) >= n) {
        xfree(src.s);
        perr("stencil cache: path too long");
        return -1;
    }
    if (jit_exists(path)) {
        xfree(src.s);
        return 0;
    }
    nvrtcProgram prog;
    char name[160];
    snprintf(name, sizeof name, "%s-%s.cu", sp->name, strategy);
    if (nvrtcCreateProgram(&prog, src.s, name, 0, NULL, NULL) != NVRTC_SUCCESS) {
        xfree(src.s);
        perr("%s: NVRTC could not take the program", sp->path);
        return -1;
    }
    xfree(src.s);
    nvrtcResult r = nvrtcCompileProgram(prog, nopts, opts);
    if (r != NVRTC_SUCCESS) {
        size_t len = 0;
        nvrtcGetProgramLogSize(prog, &len);
        char *log = xalloc(len + 1);
        nvrtcGetProgramLog(prog, log);
        if (len > 6000)
            log[6000] = 0;
        perr("%s: NVRTC refused the %s kernels (%s) for %s:\n%s", sp->path, strategy,
             nvrtcGetErrorString(r), arch, log);
        xfree(log);
        nvrtcDestroyProgram(&prog);
        return -1;
    }
    size_t size = 0;
    nvrtcGetCUBINSize(prog, &size);
    char *bin = xalloc(size + 1);
    nvrtcGetCUBIN(prog, bin);
    nvrtcDestroyProgram(&prog);
    file_out o;
    int ok = 0;
    if (file_out_begin(&o, path) == 0) {
        FILE *f = fopen(o.tmp, "wb");
        ok = f && fwrite(bin, 1, size, f) == size;
        if (f && fclose(f) != 0)
            ok = 0;
        if (ok)
            ok = file_out_commit(&o) == 0;
        else {
            perr("%s: could not be written", path);
            file_out_abort(&o);
        }
    }
    xfree(bin);
    return ok ? 0 : -1;
}

/* ---- modules on the device ---- */

typedef struct {
    const jit_spec *sp;
    CUmodule mod[ACC_COUNT + 1]; /* by strategy, then a graph stencil's list kernel (graph.cu);
                                  * NULL until first use */
    int arch;                /* 10 * major + minor it was loaded for */
} gpu_slot;
static gpu_slot gslots[ST_USER_SLOTS];

/* The module of strategy a for slot s (lists: a graph stencil's list kernel of access/graph.cu
 * instead), compiled and loaded on first use. */
static CUmodule module_of(stencil_t s, access_t a, int lists)
{
    gpu_slot *g = &gslots[s - ST_COUNT];
    int m_at = lists ? ACC_COUNT : (int)a;
    if (g->mod[m_at])
        return g->mod[m_at];
    if (driver_open() != 0)
        return NULL;
    int dev = 0, major = 0, minor = 0;
    if (cudaFree(0) != cudaSuccess || cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
        perr("%s: no CUDA device to load its kernels on", stencil_table[s].name);
        return NULL;
    }
    char arch[32], file[32], path[1200];
    snprintf(arch, sizeof arch, "sm_%d%d", major, minor);
    if (lists)
        snprintf(file, sizeof file, "graph");
    else
        strategy_file(a, file, sizeof file);
    if (jit_gpu_compile(g->sp, file, arch, path, sizeof path) != 0)
        return NULL;
    char *bin = jit_slurp(path, 64u << 20);
    CUmodule m;
    CUresult r = drv.load(&m, bin);
    xfree(bin);
    if (r != CUDA_SUCCESS) {
        perr("%s: loading its %s kernels: %s", stencil_table[s].name, file, drv_error(r));
        return NULL;
    }
    g->mod[m_at] = m;
    g->arch = 10 * major + minor;
    return m;
}

static const void *gpu_kernel(stencil_t s, access_t a, precision_t p, int column)
{
    static const char *const suffix[STORAGE_COUNT] = {"00", "01", "10", "11", "reg",
                                                      "02", "12", "03", "13"};
    static const char *const gsuffix[GSTORAGE_COUNT] = {"00", "01", "10", "11", "hex", "tri"};
    int graph = stencil_table[s].graph, lists = graph && column == GSTORAGE_ELL;
    pthread_mutex_lock(&lock);
    CUmodule m = module_of(s, a, lists);
    CUfunction f = NULL;
    if (m) {
        char name[64];
        const char *ty = p == PREC_FLOAT ? "float" : "double";
        if (lists)
            snprintf(name, sizeof name, "k_graph_USER_%s", ty);
        else if (graph)
            snprintf(name, sizeof name, "kg_USER_%s_%s", ty,
                     column >= 0 && column < GSTORAGE_COUNT ? gsuffix[column] : "?");
        else
            snprintf(name, sizeof name, "k_USER_%s_%s", ty,
                     column >= 0 && column < STORAGE_COUNT ? suffix[column] : "?");
        CUresult r = drv.getf(&f, m, name);
        if (r != CUDA_SUCCESS) {
            perr("%s: kernel %s: %s", stencil_table[s].name, name, drv_error(r));
            f = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
    return (const void *)f;
}

static int gpu_launch(const void *fn, const unsigned grid[3], const unsigned block[3], size_t smem,
                      void *stream, void *arg)
{
    void *args[] = {arg};
    CUresult r = drv.launch((CUfunction)fn, grid[0], grid[1], grid[2], block[0], block[1],
                            block[2], (unsigned)smem, (CUstream)stream, args, NULL);
    if (r != CUDA_SUCCESS) {
        perr("launch of a stencil file's kernel: %s", drv_error(r));
        return -1;
    }
    return 0;
}

static int gpu_upload(stencil_t s, access_t a, const void *rows, size_t bytes)
{
    pthread_mutex_lock(&lock);
    CUmodule m = module_of(s, a, 0);
    int rc = -1;
    if (m) {
        CUdeviceptr d;
        size_t size = 0;
        CUresult r = drv.global(&d, &size, m, "c_nbtab");
        if (r == CUDA_SUCCESS && bytes <= size)
            r = drv.htod(d, rows, bytes);
        if (r != CUDA_SUCCESS)
            perr("%s: constant-memory rows: %s", stencil_table[s].name, drv_error(r));
        rc = r == CUDA_SUCCESS ? 0 : -1;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

void jit_gpu_attach(stencil_t s, const jit_spec *sp, loaded_code *lc)
{
    gslots[s - ST_COUNT].sp = sp;
    lc->gpu_kernel = gpu_kernel;
    lc->gpu_launch = gpu_launch;
    lc->gpu_upload = gpu_upload;
}
