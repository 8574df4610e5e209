/* bench_out.h — what the benchmark modes of `pillar bench` share for their files: files written
 * whole through a temporary name (src/io/files.h), JSON strings, the date stamp of a run, and the
 * device block of the JSON. */
#ifndef PILLAR_BENCH_OUT_H
#define PILLAR_BENCH_OUT_H

#include "src/io/files.h"

#include <stdio.h>

/* Opens a temporary file that becomes `path` at bench_close; NULL after a message. */
FILE *bench_open(const char *path, file_out *o);

/* bench_open of DIR/KIND-STAMP.EXT ("bench-20261122-101500.csv"). */
FILE *bench_open_in(const char *dir, const char *kind, const char *stamp, const char *ext,
                    file_out *o);

/* Closes f and gives it its name ("wrote PATH" on stdout), or removes it after a message when
 * writing failed. Returns 0 or -1. */
int bench_close(FILE *f, file_out *o);

/* "v" with quotes and backslashes escaped, control characters dropped. */
void bench_json_text(FILE *f, const char *v);

/* "k": "v" with quotes and backslashes escaped, control characters dropped; ", " after it when
 * comma is set. */
void bench_json_str(FILE *f, const char *k, const char *v, int comma);

/* Creates directory dir (when missing) and fills stamp with the UTC time as YYYYMMDD-HHMMSS and
 * iso as YYYY-MM-DDTHH:MM:SSZ (32 bytes each). Returns 0, or -1 after a message. */
int bench_stamp(const char *dir, char *stamp, char *iso);

/* The "pillar" object of a result's JSON: version, commit, date and command line. */
void bench_json_build(FILE *f, const char *iso, const char *command);

#ifdef PILLAR_HAVE_CUDA
#include "src/exec/gpu.h"
/* The "device" object of a result's JSON: name, compute capability, SMs, L2, memory, driver,
 * runtime, clocks, bus width. */
void bench_json_device(FILE *f, const gpu_info *gi);
#endif

#endif
