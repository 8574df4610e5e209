/* plan_cache.c — the plan cache: keys, lookups (found, none, stale, bad), storing, listing. */
#include "plan_cache.h"

#include "base/sha256.h"
#include "src/io/cache_dir.h"
#include "src/io/files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The problem's fields (all but device and version) into c, after a tag naming the hash. */
static void hash_problem(sha256_ctx *c, const char *tag, const plan_problem *pr)
{
    char levels[16];
    snprintf(levels, sizeof levels, "%d", pr->levels);
    sha256_init(c);
    sha256_update_str(c, tag);
    sha256_update_str(c, pr->mesh);
    sha256_update_str(c, pr->stencil);
    sha256_update_str(c, prec_name(pr->prec));
    sha256_update_str(c, levels);
}

void plan_key(const plan_problem *pr, char hex[65])
{
    sha256_ctx c;
    unsigned char d[32];
    hash_problem(&c, "pillar plan key 1", pr);
    sha256_update_str(&c, pr->device);
    sha256_update_str(&c, pr->version);
    sha256_final(&c, d);
    sha256_hex(d, hex);
}

/* The first 16 hex digits of the problem's own hash (no device, no version). */
static void problem_prefix(const plan_problem *pr, char out[17])
{
    sha256_ctx c;
    unsigned char d[32];
    char hex[65];
    hash_problem(&c, "pillar plan problem 1", pr);
    sha256_final(&c, d);
    sha256_hex(d, hex);
    memcpy(out, hex, 16);
    out[16] = 0;
}

void plan_file_name(const plan_problem *pr, char *out, size_t n)
{
    char pre[17], key[65];
    problem_prefix(pr, pre);
    plan_key(pr, key);
    snprintf(out, n, "%s-%s.json", pre, key);
}

int plan_content_id(const char *path, const char *what, char *out, size_t n)
{
    if (file_input_check(path, what) != 0)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        perr("%s %s: %s", what, path, fd < 0 ? strerror(errno) : "is not a regular file");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    sha256_ctx c;
    sha256_init(&c);
    enum { CHUNK = 1 << 20 };
    unsigned char *buf = xalloc(CHUNK);
    for (;;) {
        ssize_t k = read(fd, buf, CHUNK);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            perr("%s %s: %s", what, path, strerror(errno));
            xfree(buf);
            close(fd);
            return -1;
        }
        if (k == 0)
            break;
        sha256_update(&c, buf, (size_t)k);
    }
    xfree(buf);
    close(fd);
    unsigned char d[32];
    char hex[65];
    sha256_final(&c, d);
    sha256_hex(d, hex);
    snprintf(out, n, "sha256:%s", hex);
    return 0;
}

void plan_size_id(int nx, int ny, char *out, size_t n) { snprintf(out, n, "size:%dx%d", nx, ny); }

int plan_cache_dir(char *out, size_t n) { return cache_dir(out, n, "plans", "plan cache"); }

/* Same problem (mesh, stencil, precision, levels)? */
static int same_problem(const plan_problem *a, const plan_problem *b)
{
    return !strcmp(a->mesh, b->mesh) && !strcmp(a->stencil, b->stencil) && a->prec == b->prec &&
           a->levels == b->levels;
}

/* Same device and version? */
static int same_place(const plan_problem *a, const plan_problem *b)
{
    return !strcmp(a->device, b->device) && !strcmp(a->version, b->version);
}

/* *out: want's problem with the defaults. */
static void defaults(const plan_problem *want, plan *out)
{
    memset(out, 0, sizeof *out);
    out->pr = *want;
    plan_key(want, out->key);
    plan_config_default(want, &out->c);
}

/* Reads a plan under capture: the message (if any) into msg. */
static int read_captured(const char *path, int trusted, plan *p, char *msg, size_t n)
{
    perr_saved saved = perr_capture_save();
    perr_capture(msg, n);
    int rc = plan_read(path, trusted, p);
    perr_capture(NULL, 0);
    perr_capture_restore(saved);
    return rc;
}

/* A plan of the cache whose key is not the one its fields make was copied or edited: the why. */
static int key_mismatch(const plan *p, const char *name, char *why, size_t n)
{
    char key[65], want[120];
    plan_key(&p->pr, key);
    plan_file_name(&p->pr, want, sizeof want);
    if (strcmp(key, p->key) != 0) {
        snprintf(why, n, "plan %s: field \"key\": not the key of its own fields (edited or copied "
                 "by hand? pillar tune writes it again)", name);
        return 1;
    }
    if (strcmp(want, name) != 0) {
        snprintf(why, n, "plan %s: its fields belong under the name %s (renamed by hand?)", name, want);
        return 1;
    }
    return 0;
}

static plan_status stale_note(const plan *p, const plan_problem *want, const char *path, char *note,
                              size_t n, plan *out)
{
    snprintf(note, n, "plan %s was made by pillar %s on %s, not pillar %s on %s: ignored (pillar "
             "tune makes one for this)", path, p->pr.version, p->pr.device, want->version, want->device);
    defaults(want, out);
    return PLAN_STALE;
}

static plan_status bad_note(const char *msg, const plan_problem *want, char *note, size_t n, plan *out)
{
    snprintf(note, n, "%s; running with the defaults", msg);
    defaults(want, out);
    return PLAN_BAD;
}

plan_status plan_cache_lookup(const plan_problem *want, int s, plan *out, char *note, size_t n)
{
    char dir[1024], name[120], path[1200], msg[1600] = "";
    note[0] = 0;
    perr_saved saved = perr_capture_save();
    perr_capture(msg, sizeof msg);
    int rc = plan_cache_dir(dir, sizeof dir);
    perr_capture(NULL, 0);
    perr_capture_restore(saved);
    if (rc != 0)
        return bad_note(msg, want, note, n, out);
    plan_file_name(want, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    plan p;
    rc = read_captured(path, 1, &p, msg, sizeof msg);
    if (rc == -1)
        return bad_note(msg, want, note, n, out);
    if (rc == 0) {
        char why[1400];
        if (key_mismatch(&p, name, why, sizeof why))
            return bad_note(why, want, note, n, out);
        if (!same_problem(&p.pr, want) || !same_place(&p.pr, want)) { /* a SHA-256 collision */
            snprintf(why, sizeof why, "plan %s: for another problem", path);
            return bad_note(why, want, note, n, out);
        }
        char cw[300];
        if (!plan_config_ok(want, s, &p.c, cw, sizeof cw)) {
            snprintf(msg, sizeof msg, "plan %s: %s", path, cw);
            return bad_note(msg, want, note, n, out);
        }
        *out = p;
        return PLAN_FOUND;
    }
    /* none for this key: one of another version or device for the same problem is stale */
    char pre[17];
    problem_prefix(want, pre);
    DIR *d = opendir(dir);
    plan_status st = PLAN_NONE;
    struct dirent *e;
    while (d && st == PLAN_NONE && (e = readdir(d))) {
        if (strncmp(e->d_name, pre, 16) != 0 || e->d_name[16] != '-' || !strcmp(e->d_name, name))
            continue;
        char other[1300];
        snprintf(other, sizeof other, "%s/%s", dir, e->d_name);
        if (read_captured(other, 1, &p, msg, sizeof msg) == 0 && same_problem(&p.pr, want))
            st = stale_note(&p, want, other, note, n, out);
    }
    if (d)
        closedir(d);
    if (st == PLAN_NONE)
        defaults(want, out);
    return st;
}

plan_status plan_file_lookup(const char *path, const plan_problem *want, int s, plan *out,
                             char *note, size_t n)
{
    char msg[1600] = "", why[600];
    note[0] = 0;
    plan p;
    int rc = read_captured(path, 0, &p, msg, sizeof msg);
    if (rc == -2) {
        snprintf(msg, sizeof msg, "plan %s: no such file", path);
        return bad_note(msg, want, note, n, out);
    }
    if (rc != 0)
        return bad_note(msg, want, note, n, out);
    if (!same_problem(&p.pr, want)) {
        snprintf(msg, sizeof msg, "plan %s is for another problem (%s, %s, %s, %d levels), not this "
                 "one (%s, %s, %s, %d levels)", path, p.pr.mesh, p.pr.stencil, prec_name(p.pr.prec),
                 p.pr.levels, want->mesh, want->stencil, prec_name(want->prec), want->levels);
        return bad_note(msg, want, note, n, out);
    }
    if (!same_place(&p.pr, want))
        return stale_note(&p, want, path, note, n, out);
    if (!plan_config_ok(want, s, &p.c, why, sizeof why)) {
        snprintf(msg, sizeof msg, "plan %s: %s", path, why);
        return bad_note(msg, want, note, n, out);
    }
    *out = p;
    return PLAN_FOUND;
}

int plan_cache_store(plan *p, char *path, size_t n)
{
    char dir[1024], name[120], full[1200];
    if (plan_cache_dir(dir, sizeof dir) != 0)
        return -1;
    plan_key(&p->pr, p->key);
    plan_file_name(&p->pr, name, sizeof name);
    snprintf(full, sizeof full, "%s/%s", dir, name);
    if (path)
        snprintf(path, n, "%s", full);
    return plan_write(full, p);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const plan_listed *)a)->name, ((const plan_listed *)b)->name);
}

int plan_cache_list(plan_listed **out, int *count, char *dirout, size_t n)
{
    char dir[1024];
    *out = NULL;
    *count = 0;
    if (plan_cache_dir(dir, sizeof dir) != 0)
        return -1;
    if (dirout)
        snprintf(dirout, n, "%s", dir);
    DIR *d = opendir(dir);
    if (!d) {
        perr("plan cache %s: %s", dir, strerror(errno));
        return -1;
    }
    int cap = 0;
    plan_listed *L = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || l < 6 || l >= sizeof L->name || strcmp(e->d_name + l - 5, ".json"))
            continue;
        if (*count == cap) {
            int nc = cap ? 2 * cap : 16;
            L = xgrow(L, sizeof *L * (size_t)cap, sizeof *L * (size_t)nc);
            cap = nc;
        }
        plan_listed *it = &L[(*count)++];
        memset(it, 0, sizeof *it);
        snprintf(it->name, sizeof it->name, "%s", e->d_name);
        char path[1300];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        it->ok = read_captured(path, 1, &it->p, it->why, sizeof it->why) == 0 &&
                 !key_mismatch(&it->p, e->d_name, it->why, sizeof it->why);
    }
    closedir(d);
    if (*count)
        qsort(L, (size_t)*count, sizeof *L, by_name);
    *out = L;
    return 0;
}
