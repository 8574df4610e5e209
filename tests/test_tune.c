/* test_tune.c — plans (src/tune/): the library taking a plan that reorders the cells (the same
 * bits in the caller's order), the cache key (a known answer from an independent SHA-256,
 * each component changing it), plan files written and read back, stale plans ignored with their
 * note, corrupt and hostile plan files (each its message and the defaults, never a block or a
 * crash), the cache's listing, and the search with a deterministic fake measurer (the budget,
 * the pruning, the true minimum). */
#include "base/json.h"
#include "base/progress.h"
#include "grids/grid.h"
#include "grids/mesh.h"
#include "src/tune/plan_cache.h"
#include "src/tune/plan_defaults.h"
#include "src/tune/tune.h"
#include "src/tune/plan_use.h"
#include "include/pillar.h"
#ifdef PILLAR_HAVE_CUDA
#include "src/exec/gpu.h"
#endif

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fails;
#define CHECK(cond, ...)                                                                          \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                           \
            printf(__VA_ARGS__);                                                                  \
            printf("\n");                                                                         \
            fails++;                                                                              \
        }                                                                                         \
    } while (0)

static char tmp[256];

static plan_problem base_problem(void)
{
    plan_problem p;
    memset(&p, 0, sizeof p);
    strcpy(p.mesh, "size:512x512");
    strcpy(p.stencil, "laplap");
    p.prec = PREC_DOUBLE;
    p.levels = 64;
    strcpy(p.device, "NVIDIA H100 80GB HBM3");
    strcpy(p.version, "0.1.0");
    return p;
}

/* ---- the key ---- */
static void test_key(void)
{
    plan_problem p = base_problem();
    char k0[65], k1[65];
    plan_key(&p, k0);
    /* Python's hashlib over "pillar plan key 1\0size:512x512\0laplap\0double\064\0NVIDIA H100
     * 80GB HBM3\00.1.0\0" (docs/tune.md gives the byte string) */
    CHECK(!strcmp(k0, "c7981cfe6da44dc5766e8a4bfcaf1f77626358d6e1a81050fc59e405d42bcfda"),
          "known-answer key: %s", k0);
    plan_problem q = p;
    memset(q.device + strlen(q.device) + 1, 'x', 10); /* bytes past the string do not count */
    plan_key(&q, k1);
    CHECK(!strcmp(k0, k1), "key not stable");
    char keys[7][65];
    memcpy(keys[0], k0, 65);
    for (int c = 1; c <= 6; c++) {
        q = p;
        switch (c) {
        case 1: strcpy(q.mesh, "sha256:0000000000000000000000000000000000000000000000000000000000000000"); break;
        case 2: strcpy(q.stencil, "hdiff"); break;
        case 3: q.prec = PREC_FLOAT; break;
        case 4: q.levels = 65; break;
        case 5: strcpy(q.device, "NVIDIA H200"); break;
        case 6: strcpy(q.version, "0.1.1"); break;
        }
        plan_key(&q, keys[c]);
        for (int d = 0; d < c; d++)
            CHECK(strcmp(keys[c], keys[d]), "component %d does not change the key (== %d)", c, d);
    }
    /* file names: the problem's prefix is shared across devices and versions only */
    char n0[120], n1[120];
    plan_file_name(&p, n0, sizeof n0);
    q = p;
    strcpy(q.device, "other");
    plan_file_name(&q, n1, sizeof n1);
    CHECK(!strncmp(n0, n1, 17) && strcmp(n0, n1), "names %s %s", n0, n1);
    q = p;
    q.levels = 32;
    plan_file_name(&q, n1, sizeof n1);
    CHECK(strncmp(n0, n1, 16), "another problem shares the prefix: %s %s", n0, n1);
    /* the content id: the file's bytes (sha256 of "abc", FIPS 180-2) */
    char path[300], id[80];
    snprintf(path, sizeof path, "%s/abc.bin", tmp);
    FILE *f = fopen(path, "wb");
    fputs("abc", f);
    fclose(f);
    CHECK(plan_content_id(path, "mesh file", id, sizeof id) == 0 &&
              !strcmp(id, "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
          "content id %s", id);
    plan_size_id(514, 516, id, sizeof id);
    CHECK(!strcmp(id, "size:514x516"), "size id %s", id);
}

/* ---- plan files ---- */
static plan good_plan(void)
{
    plan p;
    memset(&p, 0, sizeof p);
    p.pr = base_problem();
    strcpy(p.pr.mesh, "sha256:1111111111111111111111111111111111111111111111111111111111111111");
    strcpy(p.pr.stencil, "graphlap");
    strcpy(p.pr.device, "NVIDIA \"H100\" \\ 80GB");
    plan_key(&p.pr, p.key);
    p.c.order = MESH_ORDER_ZCURVE;
    p.c.chasing = 0;
    p.c.compressed = 1;
    p.c.access = ACC_GRAPH_TWOPASS;
    p.c.bx = 256;
    p.c.by = 1;
    p.c.bz = 1;
    p.c.zslice = 32;
    p.c.kernel_steps = 1;
    p.ms = 0.99612345678901234;
    p.default_ms = 4.695;
    strcpy(p.measured, "2026-11-23T10:00:00Z");
    return p;
}

static int same_plan(const plan *a, const plan *b)
{
    return !strcmp(a->key, b->key) && !strcmp(a->pr.mesh, b->pr.mesh) &&
           !strcmp(a->pr.stencil, b->pr.stencil) && a->pr.prec == b->pr.prec &&
           a->pr.levels == b->pr.levels && !strcmp(a->pr.device, b->pr.device) &&
           !strcmp(a->pr.version, b->pr.version) && !memcmp(&a->c, &b->c, sizeof a->c) &&
           a->ms == b->ms && a->default_ms == b->default_ms && !strcmp(a->measured, b->measured);
}

static void test_round_trip(void)
{
    plan p = good_plan(), q;
    char text[4096], path[300];
    CHECK(plan_format(&p, text, sizeof text) > 0, "format");
    CHECK(plan_parse(text, strlen(text), "text", &q) == 0 && same_plan(&p, &q), "parse(format)");
    snprintf(path, sizeof path, "%s/rt.json", tmp);
    CHECK(plan_write(path, &p) == 0, "write");
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "mode %o", st.st_mode & 0777);
    CHECK(plan_read(path, 0, &q) == 0 && same_plan(&p, &q), "read(write)");
    CHECK(plan_read(path, 1, &q) == 0 && same_plan(&p, &q), "read trusted");
    /* an emulated grid's plan with a W/E/S/N stencil */
    p.pr = base_problem();
    p.c = (plan_config){LAYOUT_ZCURVE_W, 1, 1, ACC_ZLOOP_SLICED, 128, 1, 2, 16, 1};
    CHECK(plan_format(&p, text, sizeof text) > 0 && plan_parse(text, strlen(text), "t", &q) == 0 &&
              same_plan(&p, &q), "emulated round trip");
}

/* ---- the cache ---- */
static int contains(const char *s, const char *needle) { return strstr(s, needle) != NULL; }

static int is_default(const plan *p, const plan_problem *want)
{
    plan_config d;
    plan_config_default(want, &d);
    return !memcmp(&p->c, &d, sizeof d) && !strcmp(p->pr.mesh, want->mesh) && p->pr.levels == want->levels;
}

/* Replaces the text of the good plan's field `field` (its whole line) by `line`. */
static void edited(const plan *p, const char *field, const char *line, char *out, size_t n)
{
    char text[4096], key[64];
    plan_format(p, text, sizeof text);
    snprintf(key, sizeof key, "  \"%s\":", field);
    char *at = strstr(text, key), *end = at ? strchr(at, '\n') : NULL;
    if (!at || !end) {
        snprintf(out, n, "%s", text);
        return;
    }
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, line, end);
}

static void put(const char *path, const char *text)
{
    unlink(path);
    FILE *f = fopen(path, "wb");
    fputs(text, f);
    fclose(f);
    chmod(path, 0600);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char m[] = "FAIL: a plan lookup blocked\n";
    (void)!write(1, m, sizeof m - 1);
    _exit(1);
}

static void test_cache(void)
{
    plan p = good_plan(), q;
    int s = ST_GRAPHLAP;
    char path[1300], note[1200], dir[1024];
    CHECK(plan_cache_lookup(&p.pr, s, &q, note, sizeof note) == PLAN_NONE && !note[0] &&
              is_default(&q, &p.pr), "empty cache: none, defaults");
    CHECK(plan_cache_store(&p, path, sizeof path) == 0, "store");
    CHECK(plan_cache_dir(dir, sizeof dir) == 0 && contains(dir, "/plans"), "dir %s", dir);
    CHECK(plan_cache_lookup(&p.pr, s, &q, note, sizeof note) == PLAN_FOUND && same_plan(&p, &q),
          "found: %s", note);
    /* another version, another device: stale, with the note */
    plan_problem w = p.pr;
    strcpy(w.version, "0.2.0");
    CHECK(plan_cache_lookup(&w, s, &q, note, sizeof note) == PLAN_STALE &&
              contains(note, "made by pillar 0.1.0") && contains(note, "ignored") && is_default(&q, &w),
          "stale version: %s", note);
    w = p.pr;
    strcpy(w.device, "NVIDIA H200");
    CHECK(plan_cache_lookup(&w, s, &q, note, sizeof note) == PLAN_STALE && contains(note, "H100") &&
              is_default(&q, &w), "stale device: %s", note);
    w = p.pr;
    w.levels = 32;
    CHECK(plan_cache_lookup(&w, s, &q, note, sizeof note) == PLAN_NONE && is_default(&q, &w),
          "another problem: none");
    /* a plan that suits the stencil the caller has loaded, not another */
    CHECK(plan_cache_lookup(&p.pr, ST_LAPLAP, &q, note, sizeof note) == PLAN_BAD &&
              contains(note, "\"access\"") && is_default(&q, &p.pr), "unsuited stencil: %s", note);

    /* corrupt and hostile files at the plan's own name: each its message, the defaults */
    char text[8192];
    static const struct {
        const char *field, *line, *needle;
    } edits[] = {
        {"access", "  \"access\": \"warp-drive\",", "unknown strategy \"warp-drive\""},
        {"access", "  \"access\": \"twopass\",", "has no kernels for graphlap"},
        {"block", "  \"block\": [0, 0, 0],", "\"block\""},
        {"block", "  \"block\": [100000, 1, 1],", "100000x1x1 is 100000 threads"},
        {"block", "  \"block\": [64, 1, 1],", "B >= 32"}, /* fine: 64 >= 32, replaced below */
        {"block", "  \"block\": [16, 1, 1],", "B >= 32"},
        {"block", "  \"block\": [256, 1],", "not 3 numbers"},
        {"block", "  \"block\": [256.5, 1, 1],", "not a whole number"},
        {"levels", "  \"levels\": -64,", "\"levels\": -64 is not a whole number"},
        {"zslice", "  \"zslice\": -1,", "\"zslice\""},
        {"zslice", "  \"zslice\": 0,", "\"zslice\""},
        {"zslice", "  \"zslice\": 1000,", "\"zslice\""},
        {"kernel_steps", "  \"kernel_steps\": 17,", "\"kernel_steps\": 17 is not a whole number from 1 to 16"},
        {"ms", "  \"ms\": -1,", "\"ms\""},
        {"ms", "  \"ms\": 1e308,", "\"ms\""},
        {"ms", "  \"ms\": \"fast\",", "a string, not a number"},
        {"order", "  \"order\": \"zcurve-w\",", "no cell order of a mesh file"},
        {"precision", "  \"precision\": \"half\",", "neither double nor float"},
        {"measured", "  \"measured\": \"yesterday\"", "\"measured\""},
        {"mesh", "  \"mesh\": \"../../etc/passwd\",", "\"mesh\""},
        {"device", "  \"device\": \"\",", "\"device\""},
        {"format", "  \"format\": 2,", "\"format\""},
        {"chasing", "  \"chasing\": 0,", "a number, not a boolean"},
        {"chasing", "  \"chasing\": null,", "null"},
        {"compressed", "", "\"compressed\": missing"},
        {"compressed", "  \"compressed\": true,\n  \"compressed\": true,", "given twice"},
        {"compressed", "  \"compressed\": true,\n  \"speed\": 11,", "\"speed\": unknown"},
        {"levels", "  \"levels\": 32,", "field \"key\""}, /* the key no longer its fields' */
    };
    char own[1300], name[120];
    plan_file_name(&p.pr, name, sizeof name);
    snprintf(own, sizeof own, "%s/%s", dir, name);
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        if (i == 4)
            continue; /* a shape graph-twopass allows: not a hostile case */
        edited(&p, edits[i].field, edits[i].line, text, sizeof text);
        put(own, text);
        plan_status st = plan_cache_lookup(&p.pr, s, &q, note, sizeof note);
        CHECK(st == PLAN_BAD && contains(note, edits[i].needle) && contains(note, name) &&
                  contains(note, "defaults") && is_default(&q, &p.pr),
              "edit %zu (%s): status %d, note: %s", i, edits[i].line, (int)st, note);
    }
    /* not JSON, truncated, deeply nested, the wrong value, a NUL, text after the object */
    plan_format(&p, text, sizeof text);
    char half[4096];
    snprintf(half, sizeof half, "%.*s", (int)(strlen(text) / 2), text);
    char *deep = malloc(200001);
    for (int i = 0; i < 100000; i++) {
        deep[i] = '[';
        deep[199999 - i] = ']';
    }
    deep[200000] = 0;
    char deepobj[4096] = "";
    for (int i = 0; i < 300; i++)
        strcat(deepobj, "{\"a\":");
    static const struct {
        const char *text, *needle;
    } raws[] = {
        {"this is not json", "bad JSON at line 1, column 1"},
        {NULL, "bad JSON"}, /* half */
        {NULL, "nested too deeply"}, /* deepobj */
        {"[1, 2, 3]", "a JSON array, not an object"},
        {"{\"format\": 1,}", "bad JSON"},
        {"{\"format\": 01}", "bad JSON"},
        {"{\"format\": 1} {}", "text after the value"},
        {"{\"key\": \"a\001b\"}", "control character"},
        {"{\"format\": 1}", "\"key\": missing"},
    };
    for (size_t i = 0; i < sizeof raws / sizeof raws[0]; i++) {
        put(own, raws[i].text ? raws[i].text : i == 1 ? half : deepobj);
        plan_status st = plan_cache_lookup(&p.pr, s, &q, note, sizeof note);
        CHECK(st == PLAN_BAD && contains(note, raws[i].needle) && is_default(&q, &p.pr),
              "raw %zu: status %d, note: %s", i, (int)st, note);
    }
    /* nesting far past the limit in a file below the size limit: refused at depth 4 */
    deep[60000] = 0; /* 60000 '[' (below the size limit) */
    put(own, deep);
    CHECK(plan_cache_lookup(&p.pr, s, &q, note, sizeof note) == PLAN_BAD &&
              contains(note, "nested too deeply"), "deep arrays: %s", note);
    free(deep);
    {
        char nul[] = "{\"format\": 1}\0garbage";
        unlink(own);
        FILE *f = fopen(own, "wb");
        fwrite(nul, 1, sizeof nul - 1, f);
        fclose(f);
        CHECK(plan_cache_lookup(&p.pr, s, &q, note, sizeof note) == PLAN_BAD && contains(note, "NUL"),
              "NUL: %s", note);
    }
    /* what the path is: a FIFO (never waited on), a folder, a link, a 100 MB file, empty, a file
     * others can write */
    signal(SIGALRM, on_alarm);
    alarm(20);
    unlink(own);
    CHECK(mkfifo(own, 0600) == 0, "mkfifo");
    CHECK(plan_cache_lookup(&p.pr, s, &q, note, sizeof note) == PLAN_BAD &&
              contains(note, "not a regular file") && is_default(&q, &p.pr), "FIFO: %s", note);
    char outside[300];
    snprintf(outside, sizeof outside, "%s/fifo", tmp);
    mkfifo(outside, 0600);
    CHECK(plan_file_lookup(outside, &p.pr, s, &q, note, sizeof note) == PLAN_BAD &&
              contains(note, "is a FIFO"), "named FIFO: %s", note);
    unlink(own);
    mkdir(own, 0700);
    CHECK(plan_cache_lookup(&p.pr, s, &q, note, sizeof note) == PLAN_BAD &&
              contains(note, "not a regular file"), "folder: %s", note);
    CHECK(plan_file_lookup(dir, &p.pr, s, &q, note, sizeof note) == PLAN_BAD &&
              contains(note, "is a folder"), "named folder: %s", note);
    rmdir(own);
    char elsewhere[300];
    snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere.json", tmp);
    plan_write(elsewhere, &p);
    CHECK(symlink(elsewhere, own) == 0, "symlink");
    CHECK(plan_cache_lookup(&p.pr, s, &q, note, sizeof note) == PLAN_BAD &&
              contains(note, "symbolic link"), "link in the cache: %s", note);
    CHECK(plan_file_lookup(own, &p.pr, s, &q, note, sizeof note) == PLAN_FOUND && same_plan(&p, &q),
          "a plan the user names through a link: %s", note);
    unlink(own);
    int fd = open(own, O_WRONLY | O_CREAT | O_EXCL, 0600);
    CHECK(fd >= 0 && ftruncate(fd, 100L << 20) == 0, "100 MB");
    close(fd);
    CHECK(plan_cache_lookup(&p.pr, s, &q, note, sizeof note) == PLAN_BAD &&
              contains(note, "larger than a plan file"), "100 MB: %s", note);
    unlink(own);
    put(own, "");
    CHECK(plan_cache_lookup(&p.pr, s, &q, note, sizeof note) == PLAN_BAD && contains(note, "empty"),
          "empty: %s", note);
    plan_write(own, &p);
    chmod(own, 0622);
    CHECK(plan_cache_lookup(&p.pr, s, &q, note, sizeof note) == PLAN_BAD &&
              contains(note, "writable by others"), "writable: %s", note);
    chmod(own, 0600);
    alarm(0);
    snprintf(path, sizeof path, "%s/none.json", tmp);
    CHECK(plan_file_lookup(path, &p.pr, s, &q, note, sizeof note) == PLAN_BAD &&
              contains(note, "no such file") && is_default(&q, &p.pr), "missing: %s", note);
    w = p.pr;
    w.levels = 7;
    CHECK(plan_file_lookup(elsewhere, &w, s, &q, note, sizeof note) == PLAN_BAD &&
              contains(note, "another problem"), "other problem: %s", note);
    w = p.pr;
    strcpy(w.version, "9.9");
    CHECK(plan_file_lookup(elsewhere, &w, s, &q, note, sizeof note) == PLAN_STALE, "named stale: %s", note);

    /* the listing: good plans, a bad one with its reason, by name */
    plan p2 = p;
    strcpy(p2.pr.version, "0.2.0");
    plan_cache_store(&p2, NULL, 0);
    char bad[1300];
    snprintf(bad, sizeof bad, "%s/zz-bad.json", dir);
    put(bad, "{");
    plan_listed *L;
    int n;
    CHECK(plan_cache_list(&L, &n, NULL, 0) == 0 && n == 3, "listed %d", n);
    int good = 0, badn = 0;
    for (int i = 0; i < n; i++) {
        good += L[i].ok;
        badn += !L[i].ok && contains(L[i].why, "bad JSON") && !strcmp(L[i].name, "zz-bad.json");
        CHECK(i == 0 || strcmp(L[i - 1].name, L[i].name) < 0, "not sorted");
    }
    CHECK(good == 2 && badn == 1, "listing: %d good, %d bad", good, badn);
    xfree(L);
}

/* ---- the registries' support rule == the kernel tables (CUDA builds: no device needed) ---- */
static void test_supports(void)
{
    int n = 0;
    for (int a = 0; a < ACC_COUNT; a++)
        for (int st = 0; st < ST_COUNT; st++) {
            n += access_supports((access_t)a, (stencil_t)st);
#ifdef PILLAR_HAVE_CUDA
            CHECK(access_supports((access_t)a, (stencil_t)st) == gpu_supports((access_t)a, (stencil_t)st),
                  "%s on %s: access_supports %d, the kernel tables %d", access_name[a],
                  stencil_table[st].name, access_supports((access_t)a, (stencil_t)st),
                  gpu_supports((access_t)a, (stencil_t)st));
#endif
        }
    CHECK(!access_supports(ACC_GRAPH_TWOPASS, ST_LAPLAP) && access_supports(ACC_GRAPH_TWOPASS, ST_GRAPHLAP) &&
              !access_supports(ACC_TWOPASS, ST_FASTWAVES) && access_supports(ACC_TWOPASS, ST_HDIFF) &&
              !access_supports(ACC_PAIRS, ST_GRAPHLAP) && access_supports(ACC_PAIRS, ST_FASTWAVES),
          "support rule");
    CHECK(n > 0, "no support at all");
}

/* ---- the built-in plan's strategy per stencil (src/tune/plan_defaults.c) ---- */
static void test_builtin(void)
{
    /* written out here, not derived from the registry's masks: laplap and hdiff read the second
     * ring (on this emulated lattice pairs, H200 quick matrix), lap and fastwaves do not, the
     * graph stencils run graph-twopass */
    static const struct {
        stencil_t st;
        access_t a;
        int bx, zslice, chasing, compressed;
    } want[] = {{ST_LAPLAP, ACC_PAIRS, 256, 8, 0, 1},
                {ST_HDIFF, ACC_PAIRS, 128, 8, 0, 1},
                {ST_LAP, ACC_ZLOOP_SLICED, 256, 16, 1, 0},
                {ST_FASTWAVES, ACC_ZLOOP_SLICED, 256, 16, 1, 0},
                {ST_GRAPHLAP, ACC_GRAPH_TWOPASS, 256, 64, 1, 0}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        plan_problem pr;
        memset(&pr, 0, sizeof pr);
        snprintf(pr.mesh, sizeof pr.mesh, "size:512x512");
        snprintf(pr.stencil, sizeof pr.stencil, "%s", stencil_table[want[i].st].name);
        snprintf(pr.device, sizeof pr.device, "NVIDIA H100 80GB HBM3");
        pr.prec = PREC_DOUBLE;
        pr.levels = 64;
        plan_config c;
        plan_config_builtin(&pr, (int)want[i].st, 1, 1L << 20, &c);
        CHECK(c.access == want[i].a && c.bx == want[i].bx && c.zslice == want[i].zslice,
              "built-in plan of %s: %s %d x %d, expected %s %d x %d", pr.stencil,
              access_name[c.access], c.bx, c.zslice, access_name[want[i].a], want[i].bx,
              want[i].zslice);
        CHECK(c.chasing == want[i].chasing && c.compressed == want[i].compressed,
              "built-in plan of %s: tables %s %s, expected %s %s", pr.stencil,
              c.chasing ? "chasing" : "nonchasing", c.compressed ? "compressed" : "uncompressed",
              want[i].chasing ? "chasing" : "nonchasing",
              want[i].compressed ? "compressed" : "uncompressed");
        /* pillar run --steps, out of core, each rank and the library run it */
        CHECK(access_table[c.access].iterated, "built-in plan of %s: %s has no iterated runs",
              pr.stencil, access_name[c.access]);
    }
}

/* ---- the JSON reader's own corners ---- */
static void test_json(void)
{
    json_value v;
    char err[200];
    const char *txt = "{\"a\": [1, -2.5e3, true], \"b\": \"\\u00e9\\ud83d\\ude00\"}";
    CHECK(json_parse(txt, strlen(txt), 4, &v, err, sizeof err) == 0, "parse: %s", err);
    const json_value *a = json_member(&v, "a"), *b = json_member(&v, "b");
    CHECK(a && a->n == 3 && a->items[1].number == -2500 && a->items[2].boolean == 1, "array");
    CHECK(b && !strcmp(b->string, "\xc3\xa9\xf0\x9f\x98\x80"), "escapes");
    json_free(&v);
    static const char *const bad[] = {"", "{", "[1,]", "{\"a\":1,}", "\"\\ud800\"", "\"\\x\"", "-",
                                      "1.", "1e", "tru", "{\"a\" 1}", "[1 2]", "\"\\u0000\"", "1e999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(json_parse(bad[i], strlen(bad[i]), 4, &v, err, sizeof err) != 0, "accepted %s", bad[i]);
    char q[64];
    json_quote("a\"b\\c\n", q, sizeof q);
    CHECK(!strcmp(q, "\"a\\\"b\\\\c\\u000a\""), "quote %s", q);
}

/* ---- the search ---- */

/* A fake GPU: a time for every configuration, the planted one fastest; each measurement takes
 * one second of a fake clock; every candidate checked against what the registries allow. */
typedef struct {
    double clock;
    int calls, bad_calls, refuse_every;
    const tune_problem *p;
    plan_config planted;
    int graph;
    double move_cost; /* seconds more for a measurement in another order or storage than the
                       * last one's (a relayout), and for the first */
    double metis_cost; /* seconds more again to enter a METIS cell order (computing it) */
    int flat;          /* the built-in plan's group 0.7 ms x its shape's factor (many shapes
                        * near the best), every other configuration 1 ms but the planted one */
    plan_config builtin;
    double clock_at[4096]; /* the clock before each call (the first 4096) */
    plan_config last;
} fake;

static int same_storage(const plan_config *a, const plan_config *b)
{
    return a->order == b->order && a->chasing == b->chasing && a->compressed == b->compressed;
}

static double fake_now(void *ctx) { return ((fake *)ctx)->clock; }

/* The strategies with kernels for each kind of stencil, as docs/access.md lists them. */
static int allowed(const fake *f, access_t a)
{
    if (f->graph) /* graph = 1 in access.h */
        return a == ACC_NAIVE || a == ACC_IDXVAR || a == ACC_SHARED || a == ACC_SHARED_WARP ||
               a == ACC_ZLOOP || a == ACC_ZLOOP_SLICED || a == ACC_STAGED || a == ACC_GRAPH_TWOPASS;
    if (a == ACC_GRAPH_TWOPASS)
        return 0;
    if (a == ACC_STAGED || a == ACC_TWOPASS) /* laplap, hdiff, lap only */
        return f->p->stencil == ST_LAPLAP || f->p->stencil == ST_HDIFF || f->p->stencil == ST_LAP;
    return 1;
}

static double fake_ms(const fake *f, const plan_config *c)
{
    if (!memcmp(c, &f->planted, sizeof *c))
        return 0.5;
    /* 1 to 3 ms by order, storage and strategy, 0.6 for the planted one's; shapes within
     * 1.0-1.39x of that (within TUNE_SHAPE_SPREAD, as the search assumes) */
    const plan_config *w = &f->planted;
    if (f->flat)
        return same_storage(c, &f->builtin) ? 0.7 * (1 + 0.01 * ((c->bx * 7 + c->bz * 13 +
                                                                 c->zslice * 3) % 40))
                                            : 1.0;
    double base = c->order == w->order && c->chasing == w->chasing && c->compressed == w->compressed &&
                          c->access == w->access
                      ? 0.6
                      : 1 + 0.1 * c->order + 0.2 * c->chasing + 0.05 * c->compressed + 0.13 * (int)c->access;
    double shape = 1 + 0.01 * ((c->bx * 7 + c->bz * 13 + c->zslice * 3) % 40);
    return base * shape;
}

static int fake_measure(const plan_config *c, void *ctx, double *ms)
{
    fake *f = ctx;
    if (f->calls < 4096)
        f->clock_at[f->calls] = f->clock;
    if (f->move_cost > 0 && (f->calls == 0 || !same_storage(c, &f->last)))
        f->clock += f->move_cost;
    if (f->metis_cost > 0 && !plan_emulated(&f->p->pr) && c->order == MESH_ORDER_METIS &&
        (f->calls == 0 || f->last.order != c->order))
        f->clock += f->metis_cost;
    f->last = *c;
    f->calls++;
    f->clock += 1.0;
    char why[300];
    if (!allowed(f, c->access) || !plan_config_ok(&f->p->pr, f->p->stencil, c, why, sizeof why) ||
        (f->p->iterated && !access_table[c->access].iterated) || c->by * c->bx * c->bz > 512 ||
        (!f->p->has_coords && !plan_emulated(&f->p->pr) && c->order == MESH_ORDER_ZCURVE) ||
        (plan_emulated(&f->p->pr) && c->order == LAYOUT_RANDOM))
        f->bad_calls++;
    if (f->refuse_every && f->calls % f->refuse_every == 0)
        return -1;
    *ms = fake_ms(f, c);
    return 0;
}

/* The tier of configuration c among the candidates (tune.h), -1: none. */
static int tier_of(const tune_candidate *cand, int n, const plan_config *c)
{
    for (int i = 0; i < n; i++)
        if (!memcmp(&cand[i].c, c, sizeof *c))
            return cand[i].tier;
    return -1;
}

/* A search from a fresh fake clock under budget seconds (0: none). */
static int search_fresh(fake *f, const tune_problem *p, tune_opts *o, double budget, tune_result *r)
{
    f->calls = 0;
    f->clock = 0;
    o->budget_s = budget;
    return tune_search(p, o, fake_measure, f, r);
}

static int progress_calls;
static double progress_last_done, progress_last_total;
static void on_progress(void *arg, const char *what, double done, double total)
{
    (void)arg;
    (void)what;
    progress_calls++;
    progress_last_done = done;
    progress_last_total = total;
}

static void test_search(void)
{
    progress_hook h = {on_progress, NULL, NULL};
    progress_set(&h);
    struct {
        const char *mesh, *stencil;
        int st, coords, iterated;
        plan_config planted;
    } cases[] = {
        {"size:514x514", "laplap", ST_LAPLAP, 0, 0, {LAYOUT_ZCURVE_W, 0, 1, ACC_ZLOOP_SLICED, 64, 1, 2, 16, 1}},
        {"size:514x514", "fastwaves", ST_FASTWAVES, 0, 1, {LAYOUT_ROWMAJOR, 1, 0, ACC_IDXVAR, 256, 1, 2, 0, 1}},
        {"sha256:2222222222222222222222222222222222222222222222222222222222222222", "graphlap",
         ST_GRAPHLAP, 1, 0, {MESH_ORDER_ZCURVE, 0, 1, ACC_GRAPH_TWOPASS, 128, 1, 1, 64, 1}},
        {"sha256:2222222222222222222222222222222222222222222222222222222222222222", "fluxdiff",
         ST_FLUXDIFF, 0, 0, {MESH_ORDER_METIS, 1, 1, ACC_ZLOOP, 256, 1, 1, 0, 1}},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        tune_problem p;
        memset(&p, 0, sizeof p);
        p.pr = base_problem();
        strcpy(p.pr.mesh, cases[ci].mesh);
        strcpy(p.pr.stencil, cases[ci].stencil);
        p.stencil = cases[ci].st;
        p.has_coords = cases[ci].coords;
        p.iterated = cases[ci].iterated;
        static fake f;
        memset(&f, 0, sizeof f);
        f.p = &p;
        f.planted = cases[ci].planted;
        f.graph = stencil_table[p.stencil].graph;
        plan_config d;
        plan_config_builtin(&p.pr, p.stencil, p.has_coords, p.ncells, &d);
        if (f.graph) { /* its kernels read lists, not the table: only the built-in storage */
            f.planted.chasing = d.chasing;
            f.planted.compressed = d.compressed;
        }
        /* the candidates: the planted one among them, the default first */
        tune_candidate *cand;
        int n, pruned, found = 0;
        CHECK(tune_candidates(&p, &cand, &n, &pruned) == 0 && n > 1 && pruned > 0, "candidates");
        for (int i = 0; i < n && f.graph; i++)
            CHECK(cand[i].c.chasing == d.chasing && cand[i].c.compressed == d.compressed,
                  "case %zu: a graph stencil's candidate %d in another table storage", ci, i);
        CHECK(!memcmp(&cand[0].c, &d, sizeof d), "case %zu: the built-in plan is not first", ci);
        double truemin = 1e30;
        for (int i = 0; i < n; i++) {
            found += !memcmp(&cand[i].c, &f.planted, sizeof f.planted);
            double ms = fake_ms(&f, &cand[i].c);
            truemin = ms < truemin ? ms : truemin;
            for (int j = 0; j < i && n < 3000; j++)
                CHECK(memcmp(&cand[i].c, &cand[j].c, sizeof cand[i].c), "duplicate candidate %d %d", i, j);
        }
        CHECK(found == 1, "case %zu: the planted configuration is a candidate %d times", ci, found);
        /* no budget: the true minimum, nothing unsupported measured */
        tune_opts o = {0, 0, fake_now, &f};
        tune_result r;
        progress_calls = 0;
        CHECK(tune_search(&p, &o, fake_measure, &f, &r) == 0, "search");
        CHECK(f.bad_calls == 0, "case %zu: %d unsupported candidates measured", ci, f.bad_calls);
        CHECK(r.best >= 0 && !memcmp(&r.rows[r.best].c, &f.planted, sizeof f.planted) &&
                  r.rows[r.best].ms == truemin,
              "case %zu: best %s %dx%dx%d (%g ms), not the planted one", ci,
              access_name[r.rows[r.best].c.access], r.rows[r.best].c.bx, r.rows[r.best].c.by,
              r.rows[r.best].c.bz, r.rows[r.best].ms);
        CHECK(r.baseline == 0 && !memcmp(&r.rows[0].c, &d, sizeof d), "baseline");
        /* every group (order and storage) measured once before any shape is refined, but the
         * further storages of an order whose first probe ran slower than TUNE_ORDER_SPREAD x
         * the best so far (a slow order) */
        int first_variant = r.nrows;
        for (int k = 0; k < r.nrows && first_variant == r.nrows; k++)
            if (tier_of(cand, n, &r.rows[k].c) == 2)
                first_variant = k;
        for (int i = 0; i < n; i++) {
            int seen = -1, order_at = -1;
            for (int k = 0; k < r.nrows && seen < 0; k++)
                if (same_storage(&r.rows[k].c, &cand[i].c))
                    seen = k;
            for (int k = 0; k < r.nrows && order_at < 0; k++)
                if (r.rows[k].c.order == cand[i].c.order)
                    order_at = k;
            double before = 1e30;
            for (int k = 0; k < order_at; k++)
                before = r.rows[k].ok && r.rows[k].ms < before ? r.rows[k].ms : before;
            int slow = cand[i].c.order != d.order && order_at >= 0 && order_at < first_variant &&
                       r.rows[order_at].ms > TUNE_ORDER_SPREAD * before;
            CHECK(seen >= 0 && (seen < first_variant || slow),
                  "case %zu: candidate %d's group first measured at row %d, a shape refined at "
                  "row %d (order %d first at %d, %g against %g)", ci, i, seen, first_variant, cand[i].c.order, order_at, order_at >= 0 ? r.rows[order_at].ms : 0, before);
        }
        CHECK(r.pruned > pruned, "case %zu: nothing pruned by measurement", ci);
        CHECK(r.out_of_budget == 0 && r.nrows < n && r.nrows == f.calls &&
                  r.nrows + (r.pruned - pruned) == n,
              "case %zu: %d rows of %d candidates, %d calls", ci, r.nrows, n, f.calls);
        CHECK(progress_calls >= r.nrows && progress_last_done == progress_last_total &&
                  progress_last_done == r.nrows, "progress %d calls, %g of %g", progress_calls,
              progress_last_done, progress_last_total);
        plan pl;
        tune_make_plan(&p, &r, &pl);
        char text[4096];
        plan q;
        CHECK(plan_format(&pl, text, sizeof text) > 0 && plan_parse(text, strlen(text), "made", &q) == 0 &&
                  q.ms == 0.5 && q.default_ms == fake_ms(&f, &d), "the plan made: %s", text);
        tune_result_free(&r);
        /* many shapes near the best in the built-in plan's group, and in another group a
         * strategy's first other shape the fastest: found after at most TUNE_FIRST_VARIANTS
         * shapes of each built-in group's strategy (the rounds: one group's many shapes do not
         * all come first) */
        {
            plan_config keep = f.planted;
            int pick = -1;
            for (int i = 0; i < n && pick < 0; i++)
                if (cand[i].tier == 2 && !same_storage(&cand[i].c, &d))
                    pick = i;
            CHECK(pick >= 0, "case %zu: no shape outside the built-in group", ci);
            f.planted = cand[pick < 0 ? 0 : pick].c;
            f.flat = 1;
            f.builtin = d;
            CHECK(tune_search(&p, &o, fake_measure, &f, &r) == 0, "flat search");
            int planted_at = -1, before = 0, strategies = 0;
            for (int k = 0; k < r.nrows && planted_at < 0; k++) {
                if (!memcmp(&r.rows[k].c, &f.planted, sizeof f.planted))
                    planted_at = k;
                before += same_storage(&r.rows[k].c, &d) && tier_of(cand, n, &r.rows[k].c) == 2;
            }
            for (int i = 0; i < n; i++)
                strategies += cand[i].tier < 2 && same_storage(&cand[i].c, &d);
            CHECK(planted_at >= 0 && before <= TUNE_FIRST_VARIANTS * strategies,
                  "case %zu: the planted one at row %d, after %d shapes of the built-in group "
                  "(%d strategies)", ci, planted_at, before, strategies);
            tune_result_free(&r);
            f.flat = 0;
            f.planted = keep;
        }
        /* a budget of 10.5 s of measurements of 1 s: ten, then it stops */
        f.calls = f.bad_calls = 0;
        f.clock = 0;
        o.budget_s = 10.5;
        CHECK(tune_search(&p, &o, fake_measure, &f, &r) == 0, "budget search");
        CHECK(r.nrows == 10 && f.clock <= 10.5 && r.elapsed_s <= 10.5 &&
                  r.out_of_budget == n - 10 - (r.pruned - pruned) && r.out_of_budget > 0,
              "case %zu: budget: %d rows, clock %g, %d left out, %d pruned by measurement (of %d)",
              ci, r.nrows, f.clock, r.out_of_budget, r.pruned - pruned, n);
        /* the built-in plan's group first: it is left only after its strategies' first
         * shapes (the order of groups and shapes beyond: the search without a budget above) */
        for (int i = 1; i < r.nrows; i++)
            CHECK(same_storage(&r.rows[i].c, &d) || !same_storage(&r.rows[i - 1].c, &d) ||
                      tier_of(cand, n, &r.rows[i - 1].c) < 2,
                  "case %zu: row %d left the default's group too early", ci, i);
        tune_result_free(&r);
        /* a measurer refusing every third: skipped, the search goes on */
        f.calls = f.clock = 0;
        f.refuse_every = 3;
        o.budget_s = 0;
        o.max_measure = 15;
        CHECK(tune_search(&p, &o, fake_measure, &f, &r) == 0 && r.nrows == 15 && !r.rows[2].ok &&
                  r.rows[r.best].ok, "refusals: case %zu, %d rows", ci, r.nrows);
        tune_result_free(&r);
        /* a relayout costs 6 s more than a timing: the first group's first shapes run, and a
         * budget that ends 3 s after them starts no move (7 s), where the mean of all
         * measurements (about 1 s by then) would have started one and overrun it by 4 s; the
         * search goes on with timings in its group */
        f.bad_calls = 0;
        f.refuse_every = 0;
        f.move_cost = 6;
        o.max_measure = 0;
        CHECK(search_fresh(&f, &p, &o, 0, &r) == 0, "search with moves");
        int first = 0;
        while (first < r.nrows && same_storage(&r.rows[first].c, &r.rows[0].c))
            first++;
        double group_s = 7 + (first - 1); /* the first measurement moves */
        CHECK(first > 1 && first < r.nrows, "case %zu: %d of %d rows in the first group", ci, first,
              r.nrows);
        tune_result_free(&r);
        CHECK(search_fresh(&f, &p, &o, group_s + 3, &r) == 0, "budget search with moves");
        int moved = 0;
        for (int i = 1; i < r.nrows; i++)
            moved += !same_storage(&r.rows[i].c, &r.rows[0].c);
        CHECK(f.clock <= o.budget_s && r.nrows >= first && !moved,
              "case %zu: moves: the clock at %g s of a %g s budget, %d rows (the first group's "
              "first shapes: %d), %d moves", ci, f.clock, o.budget_s, r.nrows, first, moved);
        tune_result_free(&r);
        /* a METIS order costs 12 s more to enter: a search with a budget 10 s past the moment
         * it would enter one skips it (the estimate for a million cells is 13 s), where the
         * longest move so far (7 s) would have started it and overrun the budget by 9 s */
        if (!plan_emulated(&p.pr)) {
            f.metis_cost = 12;
            p.ncells = 1000000;
            CHECK(search_fresh(&f, &p, &o, 0, &r) == 0, "search with METIS");
            int at = 0;
            while (at < r.nrows && r.rows[at].c.order != MESH_ORDER_METIS)
                at++;
            CHECK(at > 1 && at < r.nrows && at < 4096, "case %zu: METIS first at row %d of %d", ci,
                  at, r.nrows);
            /* every other order entered before METIS, the costliest to enter */
            for (int i = 0; i < n; i++) {
                int seen = 0;
                for (int k = 0; k < at && !seen; k++)
                    seen = r.rows[k].c.order == cand[i].c.order;
                CHECK(seen || cand[i].c.order == MESH_ORDER_METIS,
                      "case %zu: order %d first entered after METIS (row %d)", ci,
                      cand[i].c.order, at);
            }
            double before = at < 4096 ? f.clock_at[at] : 0;
            tune_result_free(&r);
            CHECK(search_fresh(&f, &p, &o, before + 10, &r) == 0, "budget search with METIS");
            int metis = 0;
            for (int i = 0; i < r.nrows; i++)
                metis += r.rows[i].c.order == MESH_ORDER_METIS;
            CHECK(f.clock <= o.budget_s && r.nrows >= at && !metis,
                  "case %zu: METIS: the clock at %g s of a %g s budget, %d rows (METIS at %d), %d "
                  "in METIS order", ci, f.clock, o.budget_s, r.nrows, at, metis);
            tune_result_free(&r);
            f.metis_cost = 0;
            p.ncells = 0;
        }
        f.move_cost = 0;
        xfree(cand);
    }
    progress_set(NULL);
}

/* The library (src/api/pillar.c) with a plan of another cell order and storage, on the CPU: the
 * plan is taken (named with option "plan", and from the cache under option order auto), the cells
 * are reordered (another permutation than without the plan), and the outputs the caller gets, in
 * its own cell order, are the same bits as without the plan; an explicit order wins. */
#define LN 20
#define LZ 6
typedef struct {
    int perm[LN * LN];
    double out[LZ * LN * LN];
} lib_result;

static int lib_run(const char *plan_opt, const char *order, const int *nbr, const double *xy,
                   lib_result *r)
{
    pillar_ctx *ctx;
    int n = LN * LN, ok = pillar_create(&ctx) == PILLAR_OK;
    static double in[LZ * LN * LN];
    for (int i = 0; i < LZ * n; i++)
        in[i] = (double)((i * 7919) % 1013) / 97.0 - 5.0;
    int *perm = r->perm;
    ok = ok && pillar_set_option(ctx, "backend", "cpu") == PILLAR_OK &&
         (!plan_opt || pillar_set_option(ctx, "plan", plan_opt) == PILLAR_OK) &&
         (!order || pillar_set_option(ctx, "order", order) == PILLAR_OK) &&
         pillar_grid_quad(ctx, n, LZ, nbr) == PILLAR_OK &&
         pillar_set_coordinates(ctx, n, 2, xy) == PILLAR_OK && pillar_setup(ctx) == PILLAR_OK &&
         pillar_get_permutation(ctx, perm, n) == PILLAR_OK &&
         pillar_set_field(ctx, "in", in, (size_t)(LZ * n)) == PILLAR_OK &&
         pillar_apply(ctx) == PILLAR_OK &&
         pillar_get_field(ctx, "out", r->out, (size_t)(LZ * n)) == PILLAR_OK;
    if (!ok)
        printf("library: %s\n", pillar_last_error(ctx));
    pillar_destroy(ctx);
    return ok ? 0 : -1;
}

static void test_library_order(void)
{
    static int nbr[LN * LN * 4];
    static double xy[LN * LN * 2];
    for (int y = 0; y < LN; y++)
        for (int x = 0; x < LN; x++) {
            int c = y * LN + x;
            nbr[4 * c + 0] = x > 0 ? c - 1 : -1;
            nbr[4 * c + 1] = x + 1 < LN ? c + 1 : -1;
            nbr[4 * c + 2] = y > 0 ? c - LN : -1;
            nbr[4 * c + 3] = y + 1 < LN ? c + LN : -1;
            xy[2 * c] = x;
            xy[2 * c + 1] = y;
        }
    mesh m;
    memset(&m, 0, sizeof m);
    m.ncells = LN * LN;
    m.nlevels = LZ;
    m.nbr = nbr;
    m.ncoord = 2;
    m.coord = xy;
    char id[80];
    plan_tables_id(&m, id, sizeof id);
    plan p;
    memset(&p, 0, sizeof p);
    plan_problem_set(&p.pr, id, ST_LAPLAP, NULL, PREC_DOUBLE, LZ, 0);
    plan_config_default(&p.pr, &p.c);
    p.c.order = MESH_ORDER_ZCURVE;
    p.c.chasing = 0;
    p.c.compressed = 1;
    p.ms = 1;
    plan_now(p.measured);
    plan_key(&p.pr, p.key);
    char path[400];
    snprintf(path, sizeof path, "%s/lib-plan.json", tmp);
    CHECK(plan_write(path, &p) == 0, "plan_write %s", path);

    static lib_result none, named, cached, expl;
    CHECK(lib_run("off", NULL, nbr, xy, &none) == 0, "library without a plan");
    CHECK(lib_run(path, NULL, nbr, xy, &named) == 0, "library with plan %s", path);
    CHECK(memcmp(none.perm, named.perm, sizeof none.perm) != 0, "the named plan's z-curve order reorders the cells");
    CHECK(memcmp(none.out, named.out, sizeof none.out) == 0,
          "a plan of another order: the same bits in the caller's order");
    CHECK(plan_cache_store(&p, NULL, 0) == 0, "plan_cache_store");
    CHECK(lib_run(NULL, "auto", nbr, xy, &cached) == 0, "library with the cached plan");
    CHECK(memcmp(named.perm, cached.perm, sizeof none.perm) == 0, "the cached plan is taken under order auto");
    CHECK(memcmp(none.out, cached.out, sizeof none.out) == 0, "cached plan: the same bits");
    CHECK(lib_run(NULL, "file", nbr, xy, &expl) == 0, "library, order file, with the plan");
    CHECK(memcmp(none.perm, expl.perm, sizeof none.perm) == 0, "an explicit order wins over the plan");
    CHECK(memcmp(none.out, expl.out, sizeof none.out) == 0, "explicit order: the same bits");
}

int main(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/pillar-test-tune-XXXXXX");
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 1;
    }
    char cache[300];
    snprintf(cache, sizeof cache, "%s/cache", tmp);
    setenv("PILLAR_CACHE_DIR", cache, 1);
    test_key();
    test_round_trip();
    test_json();
    test_supports();
    test_builtin();
    test_cache();
    test_search();
    test_library_order();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", tmp);
    if (fails) {
        printf("%d checks failed\n", fails);
        return 1;
    }
    printf("ok: plan keys, plan files, the cache, the search\n");
    return 0;
}
