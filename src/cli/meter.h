/* meter.h — the pillar command's progress meter: the engine's progress (pillar_set_progress of include/pillar_tools.h) as a
 * line on stderr, "pillar: run 45% (9 of 20 steps), 12 s left".
 *
 * Shown for work that has gone on for PILLAR_PROGRESS_AFTER seconds (default 2), when stderr is a
 * terminal or --progress asks for it. On a terminal the line is redrawn in place (at most 4 times
 * a second) and erased when the work ends; otherwise a line is written at most once a second and
 * a last one at 100%. */
#ifndef PILLAR_METER_H
#define PILLAR_METER_H

#include <stddef.h>

/* Installs the meter as the engine's progress hook when stderr is a terminal or `force`. */
void meter_start(int force);


/* Erases a line still shown and removes the hook. */
void meter_stop(void);

/* The meter's text for `label`: done of total units `what` after `elapsed` seconds, with the time
 * left at the rate so far, into buf (n bytes). */
void meter_line(char *buf, size_t n, const char *label, const char *what, double done,
                double total, double elapsed);

#endif
