/* report.h — what `pillar run` and `pillar mesh info` print: their table on stdout, or with
 * --json one JSON object on stdout holding the same facts.
 *
 * The commands print their table through report_printf. In JSON mode nothing reaches stdout
 * until report_end, which turns the table's lines into members. A line indented by exactly the
 * report's key column ("  key   text" for run, "key   text" for mesh info) becomes
 * "key": "text": the key is what comes before the first two blanks when that is one or two
 * words ("link use" becomes "link_use"), else the first word. A more indented line continues
 * the member before it (a blank line ends that); a less indented one is a "summary". A key seen again makes its member
 * an array of the texts.
 * Rows of a table of columns (report_row) become objects of an array, and report_number /
 * report_bool add typed values, in JSON only, to the member "values". */
#ifndef PILLAR_REPORT_H
#define PILLAR_REPORT_H

#include <stdio.h>

/* Starts a command's report on stream f (NULL: stdout): a table (json 0) or one JSON object
 * (json 1) naming `command`, whose key lines are indented by `indent` blanks (pillar_report_begin
 * of include/pillar_tools.h). Until a report begins, report_printf writes to stdout. */
void report_begin(const char *command, int json, int indent, FILE *f);

/* Whether the report is JSON. */
int report_json(void);

/* printf into the table. Returns what printf returns (or the bytes kept). */
int report_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A row of a table of columns: in the table the line `line` ("\n" added); in JSON an object of
 * the n columns names[k]: values[k] (a number where the text is one, else a string) in the
 * array member `table`. */
void report_row(const char *table, const char *line, int n, const char *const *names,
                const char *const *values);

/* JSON only: typed values ("values": {"key": v, ...}). */
void report_number(const char *key, double v);
void report_bool(const char *key, int v);
/* JSON only: an array of n numbers ("key": [v0, v1, ...]); null when it does not fit. */
void report_numbers(const char *key, const double *v, int n);

/* From now on this process prints nothing of the report (a distributed run's ranks but 0). */
void report_silence(void);

/* Ends the report: in JSON mode prints the object (with "ok": ok) on stdout and frees what was
 * kept; in table mode nothing. */
void report_end(int ok);

#endif
