/* report.c — a command's table, or the same facts as one JSON object (report.h). */
#include "report.h"
#include "bench_out.h"
#include "base/common.h"
#include "include/pillar_tools.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A member of the object: its key and its text, or (table != NULL) a row of a table. */
typedef struct {
    char key[40];
    char *text;
} member;

static struct {
    int json, indent, silent;
    int cont;            /* a more indented line continues the last member (no blank line since) */
    const char *command;
    char *out;           /* JSON: what the table would have printed */
    size_t len, cap;
    member *m;           /* members in the order seen; rows' keys are their table's name */
    int n, cap_m;
    int *is_row;         /* m[k] is a row object (raw JSON), not a text */
    char values[4096];   /* "k": v, ... */
    FILE *f;             /* where the report goes */
} rep = {.f = NULL};

/* The report's stream: stdout until a report names another. */
static FILE *out_stream(void) { return rep.f ? rep.f : stdout; }

void report_begin(const char *command, int json, int indent, FILE *f)
{
    memset(&rep, 0, sizeof rep);
    rep.f = f;
    rep.command = command;
    rep.json = json;
    rep.indent = indent;
}

int report_json(void)
{
    return rep.json;
}

/* Appends n bytes of s to the kept output. */
static void keep(const char *s, size_t n)
{
    if (rep.len + n + 1 > rep.cap) {
        rep.cap = 2 * (rep.len + n + 1);
        rep.out = xgrow(rep.out, rep.len, rep.cap);
    }
    memcpy(rep.out + rep.len, s, n);
    rep.len += n;
    rep.out[rep.len] = 0;
}

void report_silence(void)
{
    rep.silent = 1;
}

int report_printf(const char *fmt, ...)
{
    if (rep.silent)
        return 0;
    va_list ap;
    va_start(ap, fmt);
    if (!rep.json) {
        int r = vfprintf(out_stream(), fmt, ap);
        va_end(ap);
        return r;
    }
    char buf[4096];
    int r = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (r > 0)
        keep(buf, (size_t)r < sizeof buf ? (size_t)r : sizeof buf - 1);
    return r;
}

/* Adds a member (key, a copy of text); is_row: text is a JSON object. */
static void add_member(const char *key, const char *text, int is_row)
{
    if (rep.n == rep.cap_m) {
        int cap = rep.cap_m ? 2 * rep.cap_m : 32;
        rep.m = xgrow(rep.m, sizeof *rep.m * (size_t)rep.n, sizeof *rep.m * (size_t)cap);
        rep.is_row = xgrow(rep.is_row, sizeof *rep.is_row * (size_t)rep.n,
                           sizeof *rep.is_row * (size_t)cap);
        rep.cap_m = cap;
    }
    member *m = &rep.m[rep.n];
    snprintf(m->key, sizeof m->key, "%s", key);
    m->text = xalloc(strlen(text) + 1);
    strcpy(m->text, text);
    rep.is_row[rep.n++] = is_row;
}

/* Whether s is all of a finite number. */
static int is_number(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    return *s && !isspace((unsigned char)*s) && !*end && isfinite(v);
}

static void flush_text(void);

void report_row(const char *table, const char *line, int n, const char *const *names,
                const char *const *values)
{
    if (rep.silent)
        return;
    if (!rep.json) {
        fprintf(out_stream(), "%s\n", line);
        return;
    }
    flush_text(); /* the lines before the row come before it */
    char obj[2048] = "{";
    for (int k = 0; k < n; k++) {
        size_t at = strlen(obj);
        if (is_number(values[k]))
            snprintf(obj + at, sizeof obj - at, "%s\"%s\": %s", k ? ", " : "", names[k], values[k]);
        else /* the texts of rows are names and percentages: no quotes to escape */
            snprintf(obj + at, sizeof obj - at, "%s\"%s\": \"%s\"", k ? ", " : "", names[k],
                     values[k]);
    }
    strncat(obj, "}", sizeof obj - strlen(obj) - 1);
    add_member(table, obj, 1);
}

static void add_value(const char *key, const char *v)
{
    size_t at = strlen(rep.values);
    snprintf(rep.values + at, sizeof rep.values - at, "%s\"%s\": %s", at ? ", " : "", key, v);
}

void report_number(const char *key, double v)
{
    char buf[64];
    if (isfinite(v))
        snprintf(buf, sizeof buf, "%.17g", v);
    else
        snprintf(buf, sizeof buf, "null");
    if (rep.json)
        add_value(key, buf);
}

void report_numbers(const char *key, const double *v, int n)
{
    char buf[2048] = "[";
    size_t at = 1;
    for (int i = 0; i < n && at < sizeof buf; i++) {
        if (isfinite(v[i]))
            at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%.17g", i ? ", " : "", v[i]);
        else
            at += (size_t)snprintf(buf + at, sizeof buf - at, "%snull", i ? ", " : "");
    }
    /* what does not fit here or in the values is null, never a cut array */
    if (at + 2 > sizeof buf || strlen(rep.values) + strlen(key) + at + 8 > sizeof rep.values)
        snprintf(buf, sizeof buf, "null");
    else
        strcat(buf, "]");
    if (rep.json)
        add_value(key, buf);
}

void report_bool(const char *key, int v)
{
    if (rep.json)
        add_value(key, v ? "true" : "false");
}

/* One line of the table (no newline, trailing blanks removed) into a member. */
static void parse_line(char *line)
{
    int ind = (int)strspn(line, " ");
    char *body = line + ind;
    int cont = rep.cont;
    rep.cont = *body != 0;
    if (!*body)
        return;
    if (ind > rep.indent && cont && rep.n && !rep.is_row[rep.n - 1]) { /* continues the member */
        member *m = &rep.m[rep.n - 1];
        size_t used = strlen(m->text) + 1;
        m->text = xgrow(m->text, used, used + strlen(body) + 1);
        strcat(strcat(m->text, " "), body);
        return;
    }
    if (ind != rep.indent || !strchr(body, ' ')) {
        add_member("summary", body, 0);
        return;
    }
    char *gap = strstr(body, "  "), *sp = strchr(body, ' ');
    char *end = sp; /* the key: up to the first two blanks when that is one or two words */
    if (gap && (gap == sp || !memchr(sp + 1, ' ', (size_t)(gap - sp - 1))))
        end = gap;
    char key[40];
    size_t n = (size_t)(end - body) < sizeof key - 1 ? (size_t)(end - body) : sizeof key - 1;
    for (size_t i = 0; i < n; i++)
        key[i] = isalnum((unsigned char)body[i]) ? body[i] : '_';
    key[n] = 0;
    add_member(key, end + strspn(end, " "), 0);
}

/* Turns the lines kept so far into members, and forgets them. */
static void flush_text(void)
{
    for (char *p = rep.out, *nl; p && *p; p = nl ? nl + 1 : NULL) {
        nl = strchr(p, '\n');
        if (nl)
            *nl = 0;
        for (size_t e = strlen(p); e && isspace((unsigned char)p[e - 1]); e--)
            p[e - 1] = 0;
        parse_line(p);
    }
    rep.len = 0;
    if (rep.out)
        rep.out[0] = 0;
}

/* The members called key from index first on, as "key": text or "key": [texts]. */
static void print_member(int first)
{
    const char *key = rep.m[first].key;
    int count = 0;
    for (int k = first; k < rep.n; k++)
        count += !strcmp(rep.m[k].key, key);
    int array = count > 1 || rep.is_row[first];
    fprintf(out_stream(), ",\n  \"%s\": %s", key, array ? "[" : "");
    int seen = 0;
    for (int k = first; k < rep.n; k++) {
        if (strcmp(rep.m[k].key, key))
            continue;
        fputs(seen++ ? ", " : "", out_stream());
        if (rep.is_row[k])
            fputs(rep.m[k].text, out_stream());
        else
            bench_json_text(out_stream(), rep.m[k].text);
    }
    fputs(array ? "]" : "", out_stream());
}

void report_end(int ok)
{
    if (!rep.json || rep.silent) {
        memset(&rep, 0, sizeof rep);
        return;
    }
    flush_text();
    fprintf(out_stream(), "{\n  ");
    bench_json_str(out_stream(), "command", rep.command, 0);
    fprintf(out_stream(), ",\n  \"ok\": %s", ok ? "true" : "false");
    for (int k = 0; k < rep.n; k++) {
        int first = 1;
        for (int j = 0; j < k; j++)
            first &= strcmp(rep.m[j].key, rep.m[k].key) != 0;
        if (first)
            print_member(k);
    }
    fprintf(out_stream(), ",\n  \"values\": {%s}\n}\n", rep.values);
    for (int k = 0; k < rep.n; k++)
        xfree(rep.m[k].text);
    xfree(rep.m);
    xfree(rep.is_row);
    xfree(rep.out);
    memset(&rep, 0, sizeof rep);
}

/* ---- the public face (include/pillar_tools.h) ---- */

void pillar_report_begin(const char *command, int json, int indent, FILE *out)
{
    report_begin(command, json, indent, out);
}

void pillar_report_silence(void) { report_silence(); }

void pillar_report_end(int ok) { report_end(ok); }
