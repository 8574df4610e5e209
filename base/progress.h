/* progress.h — how far the engine's long loops are, for a client that shows it.
 *
 * The engine never prints: its long loops (the steps of an iterated run, the chunks of an
 * out-of-core pass, the timed runs of an application) call progress_update, which passes the
 * count on to the hook a client installed (the pillar command's meter, src/cli/meter.c, through pillar_set_progress), or
 * does nothing without one. Called from the thread that runs the loop, outside parallel regions. */
#ifndef PILLAR_PROGRESS_H
#define PILLAR_PROGRESS_H

typedef struct {
    /* `done` of `total` units of work named by `what` ("steps", "chunks", "runs"); the last call
     * of a loop has done == total */
    void (*update)(void *arg, const char *what, double done, double total);
    void (*phase)(void *arg, const char *label); /* may be NULL */
    void *arg;
} progress_hook;

/* Installs h (copied), or with NULL removes the hook. */
void progress_set(const progress_hook *h);

/* Whether a hook is installed: a loop may then pay a little (a wait for the device) to report. */
int progress_wanted(void);

/* Reports to the hook, if any. */
void progress_update(const char *what, double done, double total);

/* Names what the next updates measure ("run", "verify"), to the hook if any. */
void progress_phase(const char *label);

#endif
