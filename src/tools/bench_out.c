/* bench_out.c — files of the benchmark modes (bench_out.h). */
#include "bench_out.h"
#include "base/common.h"
#include "report.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

FILE *bench_open(const char *path, file_out *o)
{
    if (file_out_begin(o, path) != 0)
        return NULL;
    FILE *f = fopen(o->tmp, "w");
    if (!f) {
        perr("bench: cannot write %s: %s", path, strerror(errno));
        file_out_abort(o);
    }
    return f;
}

FILE *bench_open_in(const char *dir, const char *kind, const char *stamp, const char *ext,
                    file_out *o)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s-%s.%s", dir, kind, stamp, ext);
    return bench_open(path, o);
}

int bench_close(FILE *f, file_out *o)
{
    int bad = ferror(f) | (fclose(f) != 0);
    if (bad) {
        perr("bench: cannot write %s (disk full?); nothing was written", o->path);
        file_out_abort(o);
        return -1;
    }
    char *path = xalloc(strlen(o->path) + 1);
    strcpy(path, o->path);
    int rc = file_out_commit(o);
    if (rc == 0)
        report_printf("wrote %s\n", path);
    xfree(path);
    return rc;
}

void bench_json_text(FILE *f, const char *v)
{
    fputc('"', f);
    for (const char *p = v; *p; p++)
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if ((unsigned char)*p >= 32)
            fputc(*p, f);
    fputc('"', f);
}

void bench_json_str(FILE *f, const char *k, const char *v, int comma)
{
    fprintf(f, "\"%s\": ", k);
    bench_json_text(f, v);
    fputs(comma ? ", " : "", f);
}

int bench_stamp(const char *dir, char *stamp, char *iso)
{
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(stamp, 32, "%Y%m%d-%H%M%S", &tmv);
    strftime(iso, 32, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        perr("bench: cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

void bench_json_build(FILE *f, const char *iso, const char *command)
{
    fprintf(f, "\"pillar\": {");
    bench_json_str(f, "version", PILLAR_VERSION, 1);
    bench_json_str(f, "commit", PILLAR_COMMIT, 1);
    bench_json_str(f, "date", iso, 1);
    bench_json_str(f, "command", command, 0);
    fprintf(f, "}");
}

#ifdef PILLAR_HAVE_CUDA
void bench_json_device(FILE *f, const gpu_info *gi)
{
    fprintf(f, "\"device\": {");
    bench_json_str(f, "name", gi->name, 1);
    fprintf(f, "\"cc\": \"%d.%d\", \"sms\": %d, \"l2_bytes\": %zu, \"memory_bytes\": %zu, \"driver\": %d, "
               "\"runtime\": %d, \"sm_clock_mhz\": %d, \"mem_clock_mhz\": %d, \"bus_bits\": %d}",
            gi->cc_major, gi->cc_minor, gi->sms, gi->l2_bytes, gi->memory_bytes, gi->driver, gi->runtime,
            gi->sm_clock_mhz, gi->mem_clock_mhz, gi->bus_bits);
}
#endif
