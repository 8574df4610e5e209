/* test_progress.c — the engine's progress hook (base/progress.h) and the pillar command's meter
 * (src/cli/meter.c): an iterated run reports each of its steps, a chunked one each chunk of each
 * pass, up to the total; the meter's line says the share done and the time left at the rate so
 * far (issue 31). */
#include "check.h"
#include "base/progress.h"
#include "src/cli/meter.h"
#include "src/exec/iterate.h"
#include "src/exec/problem.h"

#include <string.h>

static struct {
    int calls, bad;
    double last_done, last_total;
    char what[32];
} seen;

/* Records the calls; counts those that do not advance by one within one total. */
static void record(void *arg, const char *what, double done, double total)
{
    (void)arg;
    if (seen.calls && (strcmp(what, seen.what) || total != seen.last_total ||
                       done != seen.last_done + 1))
        seen.bad++;
    snprintf(seen.what, sizeof seen.what, "%s", what);
    seen.calls++;
    seen.last_done = done;
    seen.last_total = total;
}

static void test_engine_reports(void)
{
    problem_spec s = {ST_LAPLAP, PREC_DOUBLE, 24, 20, 6, 2, LAYOUT_ZCURVE, 8, 11, 1, 0};
    problem pb;
    CHECK(problem_make(&pb, &s) == 0, "problem_make");
    progress_hook h = {record, NULL, NULL};
    progress_set(&h);
    memset(&seen, 0, sizeof seen);
    iter_run_incore(&pb, pb.uf, 7);
    CHECK(seen.calls == 7 && !seen.bad && seen.last_done == 7 && seen.last_total == 7 &&
              !strcmp(seen.what, "steps"),
          "iter_run_incore: %d calls, %d out of order, last %g of %g %s", seen.calls, seen.bad,
          seen.last_done, seen.last_total, seen.what);
    progress_set(NULL);
    memset(&seen, 0, sizeof seen);
    iter_run_incore(&pb, pb.uf, 3);
    CHECK(seen.calls == 0, "without a hook nothing is called (%d calls)", seen.calls);
    problem_free(&pb);
}

static void test_meter_line(void)
{
    char buf[256];
    meter_line(buf, sizeof buf, "run", "steps", 9, 20, 9.0);
    CHECK(!strcmp(buf, "pillar: run  45% (9 of 20 steps), 11 s left"), "'%s'", buf);
    meter_line(buf, sizeof buf, "verify", "chunks", 1, 100, 2.0);
    CHECK(!strcmp(buf, "pillar: verify   1% (1 of 100 chunks), 3 min 18 s left"), "'%s'", buf);
    meter_line(buf, sizeof buf, "run", "runs", 10, 10, 5.0);
    CHECK(!strcmp(buf, "pillar: run 100% (10 of 10 runs)"), "'%s'", buf);
}

int main(void)
{
    test_engine_reports();
    test_meter_line();
    return check_done("test_progress");
}
