/* progress.c — the engine's progress hook (progress.h). */
#include "progress.h"

#include <stddef.h>

static progress_hook hook; /* update NULL: none */

void progress_set(const progress_hook *h)
{
    hook = h ? *h : (progress_hook){NULL, NULL, NULL};
}

void progress_update(const char *what, double done, double total)
{
    if (hook.update)
        hook.update(hook.arg, what, done, total);
}

int progress_wanted(void) { return hook.update != NULL; }

void progress_phase(const char *label)
{
    if (hook.phase)
        hook.phase(hook.arg, label);
}
