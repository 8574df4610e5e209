/* plan_cache.h — the plan cache: one plan file per problem and device, found by its key.
 *
 * The folder: $PILLAR_CACHE_DIR/plans, else $XDG_CACHE_HOME/pillar/plans, else
 * ~/.cache/pillar/plans (src/io/cache_dir.h: made the user's alone, and refused, as ssh refuses
 * ~/.ssh, when another user could write it). The key: the SHA-256 of the mesh's content hash
 * (or an emulated grid's generator spec), the stencil (its name, or a stencil file's content
 * hash), the precision, the levels, the device's name and the pillar version. A plan's file is
 * PROBLEM-KEY.json: PROBLEM, 16 hex digits of the SHA-256 of the first four alone, finds the
 * plans other versions or devices made for the same problem, which a lookup reports as stale
 * (docs/tune.md). */
#ifndef PILLAR_PLAN_CACHE_H
#define PILLAR_PLAN_CACHE_H

#include "plan_file.h"

#include <stddef.h>

/* The key of pr: 64 hex digits and a 0. */
void plan_key(const plan_problem *pr, char hex[65]);

/* The plan file's name for pr in the cache: PROBLEM-KEY.json (above), into out (n >= 90). */
void plan_file_name(const plan_problem *pr, char *out, size_t n);

/* "sha256:<64 hex>" of the bytes of the file at path (a mesh or stencil file) into out (n >= 72).
 * The path must name a regular file (file_input_check). 0, or -1 with a message. */
int plan_content_id(const char *path, const char *what, char *out, size_t n);

/* The generator spec of an emulated grid of nx x ny cells (halo included): "size:NXxNY". */
void plan_size_id(int nx, int ny, char *out, size_t n);

/* The plan cache's folder into out (made and checked: cache_dir). 0, or -1 with a message. */
int plan_cache_dir(char *out, size_t n);

typedef enum {
    PLAN_FOUND, /* *out is the plan for the problem */
    PLAN_NONE,  /* none cached: *out's configuration is the defaults */
    PLAN_STALE, /* only plans of another pillar version or device: ignored, a note says so;
                 * *out's configuration is the defaults */
    PLAN_BAD    /* the plan file (or the cache) is unusable: a note says why; the defaults */
} plan_status;

/* Looks up the plan for want (stencil s: the stencil it names, built-in or loaded from a file;
 * the plan must suit it, plan_config_ok). Fills *out: the plan, or else want's problem with the
 * default configuration (plan_config_default). A one-line note for the caller to show into note
 * (n bytes; empty when found or none). Never prints; never blocks on a FIFO; never follows a
 * link out of the cache. */
plan_status plan_cache_lookup(const plan_problem *want, int s, plan *out, char *note, size_t n);

/* The same for a plan file the user names (path; links followed): PLAN_FOUND, or PLAN_BAD (also
 * a missing file), PLAN_STALE (another version or device, or a plan for another problem) with
 * the note and the defaults. */
plan_status plan_file_lookup(const char *path, const plan_problem *want, int s, plan *out,
                             char *note, size_t n);

/* Stores p under its problem's name in the cache (p->key set from its problem), replacing an
 * earlier plan for the same key; its path into path (n bytes; may be NULL). 0 or -1 with a
 * message. */
int plan_cache_store(plan *p, char *path, size_t n);

/* One file of the cache, as `pillar tune --show` lists it. */
typedef struct {
    char name[256]; /* the file's name in the folder */
    int ok;         /* 1: p holds it; 0: why says what is wrong with it */
    plan p;
    char why[300];
} plan_listed;

/* Every *.json file of the cache folder, by name, into a new array (*out, xfree; *n of them);
 * a file that is not a good plan is listed with its reason (its key not its problem's is one).
 * The folder into dir (n bytes) when not NULL. 0, or -1 with a message (the folder unusable). */
int plan_cache_list(plan_listed **out, int *count, char *dir, size_t n);

#endif
