/* meter.c — the progress meter of the pillar command (meter.h). */
#include "meter.h"

#include "include/pillar_tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct {
    int tty;           /* stderr is a terminal: redraw in place */
    double after;      /* seconds of work before the meter shows */
    const char *label; /* the phase */
    const char *what;  /* the units of the work now measured */
    double total, last_done;
    double start, drawn; /* when the work began, when the line was last written (s) */
    int shown;           /* a line is on the terminal */
} mt;

void meter_line(char *buf, size_t n, const char *label, const char *what, double done,
                double total, double elapsed)
{
    double pct = total > 0 ? 100.0 * done / total : 0;
    int len = snprintf(buf, n, "pillar: %s %3.0f%% (%.0f of %.0f %s)", label, pct, done, total,
                       what);
    if (len < 0 || (size_t)len >= n)
        return;
    if (done <= 0 || done >= total)
        return;
    double left = elapsed * (total - done) / done;
    if (left < 100)
        snprintf(buf + len, n - (size_t)len, ", %.0f s left", left);
    else
        snprintf(buf + len, n - (size_t)len, ", %.0f min %02.0f s left", (double)(long)(left / 60),
                 left - 60.0 * (double)(long)(left / 60));
}

/* Seconds on a monotonic clock. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The engine's hook: a new count (other units or total, or counting again from below) starts a
 * new piece of work. */
static void update(void *arg, const char *what, double done, double total)
{
    (void)arg;
    double now = now_s();
    if (what != mt.what || total != mt.total || done < mt.last_done) {
        mt.what = what;
        mt.total = total;
        mt.start = now;
        mt.drawn = 0;
    }
    mt.last_done = done;
    double elapsed = now - mt.start;
    int end = done >= total;
    if (elapsed < mt.after || (!end && now - mt.drawn < (mt.tty ? 0.25 : 1.0)))
        return;
    char line[256];
    meter_line(line, sizeof line, mt.label, what, done, total, elapsed);
    if (mt.tty && end)
        fprintf(stderr, "\r\033[K");
    else if (mt.tty)
        fprintf(stderr, "\r%s\033[K", line);
    else
        fprintf(stderr, "%s\n", line);
    fflush(stderr);
    mt.shown = mt.tty && !end;
    mt.drawn = now;
}

/* The engine's hook: a new phase. */
static void phase(void *arg, const char *label)
{
    (void)arg;
    mt.label = label; /* the work goes on: a new count starts anew (update) */
}

void meter_start(int force)
{
    memset(&mt, 0, sizeof mt);
    mt.tty = isatty(2);
    if (!mt.tty && !force)
        return;
    const char *after = getenv("PILLAR_PROGRESS_AFTER");
    mt.after = after && *after ? atof(after) : 2.0;
    mt.label = "run";
    pillar_progress h = {update, phase, NULL};
    pillar_set_progress(&h);
}

void meter_stop(void)
{
    if (mt.shown)
        fprintf(stderr, "\r\033[K");
    mt.shown = 0;
    pillar_set_progress(NULL);
}
