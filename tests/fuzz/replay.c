/* replay.c — runs the fuzz target on every file of a corpus directory, in name order (ctest
 * fuzz_replay; no libFuzzer needed). A crash or a violated property aborts. Besides, every input
 * must either load silently or be refused with exactly one message that names the file, without
 * HDF5's own error stack; the corpus must hold inputs of both kinds.
 *
 * usage: replay [-v] DIR      -v: print each input's outcome and message */
#include "fuzz_mesh.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    unsigned char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    *size = n;
    return buf;
}

/* Runs one input with stderr captured into msg. */
static fz_outcome run_captured(const unsigned char *data, size_t size, char *msg, size_t cap)
{
    FILE *log = tmpfile();
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(log), 2);
    fz_outcome out = fuzz_mesh_input(data, size);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(log);
    size_t len = fread(msg, 1, cap - 1, log);
    msg[len] = 0;
    fclose(log);
    return out;
}

/* Why a refusal message is not one line naming the file, or NULL when it is. */
static const char *bad_message(const char *msg)
{
    if (!msg[0])
        return "refused without a message";
    if (strstr(msg, "HDF5-DIAG"))
        return "HDF5's error stack was printed";
    if (strncmp(msg, "pillar: " FZ_FILE_NAME ": ", strlen("pillar: " FZ_FILE_NAME ": ")))
        return "the message does not name the file";
    const char *nl = strchr(msg, '\n');
    if (!nl || nl[1])
        return "not exactly one line";
    return NULL;
}

static int only_files(const struct dirent *e) { return e->d_name[0] != '.'; }

int main(int argc, char **argv)
{
    int verbose = argc == 3 && !strcmp(argv[1], "-v");
    if (argc != 2 + verbose) {
        fprintf(stderr, "usage: replay [-v] DIR\n");
        return 2;
    }
    const char *dir = argv[1 + verbose];
    struct dirent **names;
    int n = scandir(dir, &names, only_files, alphasort);
    if (n < 0) {
        perror(dir);
        return 1;
    }
    int count[3] = {0, 0, 0}, failed = 0;
    for (int i = 0; i < n; i++) {
        char path[4096], msg[2048];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        size_t size = 0;
        unsigned char *data = read_all(path, &size);
        if (!data) {
            fprintf(stderr, "FAIL %s: cannot read\n", path);
            return 1;
        }
        fz_outcome out = run_captured(data, size, msg, sizeof msg);
        count[out]++;
        const char *why = out == FZ_LOADED && msg[0] ? "loaded, but printed a message"
                          : out == FZ_REFUSED         ? bad_message(msg)
                                                      : NULL;
        if (verbose)
            printf("%s: %s%s%s", names[i]->d_name,
                   out == FZ_LOADED ? "loaded" : out == FZ_REFUSED ? "refused: " : "not buildable",
                   msg, out == FZ_REFUSED ? "" : "\n");
        if (why) {
            fprintf(stderr, "FAIL %s: %s:\n%s", path, why, msg);
            failed++;
        }
        free(data);
        free(names[i]);
    }
    free(names);
    printf("replayed %d inputs: %d loaded, %d refused, %d not buildable\n", n, count[FZ_LOADED],
           count[FZ_REFUSED], count[FZ_SKIPPED]);
    if (!count[FZ_LOADED] || !count[FZ_REFUSED]) {
        fprintf(stderr, "FAIL: the corpus must hold inputs that load and inputs that are refused\n");
        failed++;
    }
    return failed ? 1 : 0;
}
