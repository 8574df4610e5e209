/* spec.c — reading a user stencil file: the header block, the preamble, the body, and the checks
 * that need no compiler (docs/own-stencil.md). */
#include "spec.h"

#include "src/io/files.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Files larger than this are not stencils. */
#define JIT_SOURCE_MAX (1 << 20)

/* Names the composition uses around a body: a field may not take them. */
static const char *const reserved[] = {
    "T", "K", "ZS", "C", "i", "p", "k", "x", "y", "b", "g", "F", "P", "nbv", "ev", "lev", "zs",
    "ys", "o", "c", "base", "cell", "k0", "k1", "zend", "CHASING", "COMPRESSED",
    "int", "long", "double", "float", "char", "void", "const", "return", "if", "else", "for",
    "while", "do", "static", "struct", "sizeof", NULL};

static int is_ident(const char *s)
{
    if (!(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (s++; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}

/* Line (1-based) of offset `at` in text. */
static int line_of(const char *text, const char *at)
{
    int n = 1;
    for (const char *q = text; q < at; q++)
        n += *q == '\n';
    return n;
}

/* A copy of src with comments replaced by spaces (newlines kept), string and character
 * literals left alone; *open_line: the line of a comment that is never closed (0: none), which
 * the compiler would take as the rest of the file (a body of nothing). */
static char *blank_comments(const char *src, int *open_line)
{
    *open_line = 0;
    size_t n = strlen(src);
    char *t = xalloc(n + 1);
    memcpy(t, src, n + 1);
    for (size_t i = 0; i < n; i++) {
        if (t[i] == '"' || t[i] == '\'') {
            char q = t[i];
            for (i++; i < n && t[i] != q && t[i] != '\n'; i++)
                if (t[i] == '\\' && i + 1 < n)
                    i++;
        } else if (t[i] == '/' && i + 1 < n && t[i + 1] == '/') {
            for (; i < n && t[i] != '\n'; i++)
                t[i] = ' ';
        } else if (t[i] == '/' && i + 1 < n && t[i + 1] == '*') {
            size_t at = i;
            for (i += 2; i < n && !(t[i] == '*' && i + 1 < n && t[i + 1] == '/'); i++)
                if (t[i] != '\n')
                    t[i] = ' ';
            if (i < n) {
                t[at] = t[at + 1] = ' ';
                t[i] = t[i + 1] = ' ', i++;
            } else if (!*open_line) { /* never closed: left as it is, and refused */
                *open_line = 1;
                for (size_t k = 0; k < at; k++)
                    *open_line += src[k] == '\n';
            }
        }
    }
    return t;
}

/* ---- the header block ---- */

typedef struct {
    jit_spec *sp;
    int line;
    int have_name, have_in, have_out, have_body;
} reader;

static int bad(const reader *r, const char *fmt, const char *a, const char *b)
{
    char what[512];
    snprintf(what, sizeof what, fmt, a, b);
    perr("%s:%d: %s", r->sp->path, r->line, what);
    return -1;
}

/* Splits a clause's argument at top-level commas into at most `max` trimmed pieces; returns how
 * many, or -1 when there are more. */
static int split(char *arg, char **out, int max)
{
    int n = 0, depth = 0;
    char *start = arg;
    for (char *q = arg;; q++) {
        if (*q == '(')
            depth++;
        else if (*q == ')')
            depth--;
        if (*q == 0 || (*q == ',' && depth == 0)) {
            int end = *q == 0;
            *q = 0;
            while (isspace((unsigned char)*start))
                start++;
            char *e = start + strlen(start);
            while (e > start && isspace((unsigned char)e[-1]))
                *--e = 0;
            if (*start || n > 0 || !end) {
                if (n == max)
                    return -1;
                out[n++] = start;
            }
            if (end)
                break;
            start = q + 1;
        }
    }
    return n;
}

static int field_index(const jit_spec *sp, const char *name)
{
    for (int f = 0; f < sp->nin + sp->nout; f++)
        if (!strcmp(sp->field[f], name))
            return f;
    return -1;
}

static int small_int(const char *s, int lo, int hi, int *out)
{
    char *e;
    errno = 0;
    long v = strtol(s, &e, 10);
    if (e == s || *e || errno || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static int add_fields(reader *r, char *arg, int out)
{
    jit_spec *sp = r->sp;
    char *parts[PILLAR_MAXF + 1];
    int n = split(arg, parts, PILLAR_MAXF);
    if (n <= 0)
        return bad(r, "%s(...): name at least one field", out ? "out" : "in", "");
    if (n < 0 || sp->nin + sp->nout + n > PILLAR_MAXF)
        return bad(r, "more than %s fields in all", "11", "");
    for (int j = 0; j < n; j++) {
        if (!is_ident(parts[j]) || strlen(parts[j]) >= JIT_NAME_MAX)
            return bad(r, "field '%s' is not a C identifier", parts[j], "");
        for (int q = 0; reserved[q]; q++)
            if (!strcmp(parts[j], reserved[q]))
                return bad(r, "field '%s': the composition uses that name; choose another",
                           parts[j], "");
        if (field_index(sp, parts[j]) >= 0)
            return bad(r, "field '%s' named twice", parts[j], "");
        if (out)
            strcpy(sp->field[sp->nin + sp->nout++], parts[j]);
        else {
            if (sp->nout)
                return bad(r, "in(...) must come before out(...)", "", "");
            strcpy(sp->field[sp->nin++], parts[j]);
        }
    }
    return 0;
}

static int clause_carry(reader *r, char *arg)
{
    jit_spec *sp = r->sp;
    char *parts[3];
    int n = split(arg, parts, 2);
    if (n <= 0)
        return bad(r, "carry(...): pairs 'input <- output', at most 2", "", "");
    for (int j = 0; j < n; j++) {
        char *arrow = strstr(parts[j], "<-");
        if (!arrow)
            return bad(r, "carry(%s): expected 'input <- output'", parts[j], "");
        *arrow = 0;
        char *a = parts[j], *b = arrow + 2;
        while (isspace((unsigned char)*b))
            b++;
        char *e = a + strlen(a);
        while (e > a && isspace((unsigned char)e[-1]))
            *--e = 0;
        int fi = field_index(sp, a), fo = field_index(sp, b);
        if (fi < 0 || fi >= sp->nin)
            return bad(r, "carry: '%s' is not an input field (declare in(...) first)", a, "");
        if (fo < sp->nin)
            return bad(r, "carry: '%s' is not an output field (declare out(...) first)", b, "");
        sp->carry.in[j] = fi;
        sp->carry.out[j] = fo;
    }
    sp->carry.n = n;
    return 0;
}

static int clause_range(reader *r, char *arg)
{
    jit_spec *sp = r->sp;
    char *colon = strchr(arg, ':');
    if (!colon)
        return bad(r, "range(%s): expected 'field: base, scale, dz'", arg, "");
    *colon = 0;
    char *parts[4];
    char *name = arg;
    while (isspace((unsigned char)*name))
        name++;
    char *e = name + strlen(name);
    while (e > name && isspace((unsigned char)e[-1]))
        *--e = 0;
    int f = field_index(sp, name);
    if (f < 0 || f >= sp->nin)
        return bad(r, "range: '%s' is not an input field", name, "");
    if (split(colon + 1, parts, 3) != 3)
        return bad(r, "range(%s: ...): expected three numbers base, scale, dz", name, "");
    double v[3];
    for (int j = 0; j < 3; j++) {
        char *end;
        v[j] = strtod(parts[j], &end);
        if (end == parts[j] || *end)
            return bad(r, "range(%s: ...): '%s' is not a number", name, parts[j]);
    }
    sp->input[f] = (stencil_range){1, v[0], v[1], v[2]};
    return 0;
}

static int clause(reader *r, const char *key, char *arg)
{
    jit_spec *sp = r->sp;
    int has = arg != NULL;
    if (!strcmp(key, "body"))
        return has ? bad(r, "body takes no value", "", "") : (r->have_body = 1, 0);
    if (!strcmp(key, "framed"))
        return has ? bad(r, "framed takes no value", "", "") : (sp->framed = 1, 0);
    if (!strcmp(key, "geometry")) { /* coeffs(fluxdiff), and the names GAREA, GKAPPA */
        if (has)
            return bad(r, "geometry takes no value", "", "");
        sp->geometry = sp->coeffs = 1;
        sp->coeffs_of = ST_FLUXDIFF;
        return 0;
    }
    if (!has)
        return bad(r, "%s needs a value in parentheses", key, "");
    if (!strcmp(key, "stencil")) {
        char *parts[2];
        if (split(arg, parts, 1) != 1 || strlen(parts[0]) >= JIT_NAME_MAX || !*parts[0])
            return bad(r, "stencil(NAME): one name", "", "");
        for (const char *q = parts[0]; *q; q++)
            if (!(isalnum((unsigned char)*q) || *q == '_' || *q == '-'))
                return bad(r, "stencil(%s): a name of letters, digits, '_' and '-'", parts[0], "");
        stencil_t s;
        if (stencil_parse(parts[0], &s) == 0 && !stencil_is_user(s))
            return bad(r, "stencil(%s): a built-in stencil has that name; choose another",
                       parts[0], "");
        strcpy(sp->name, parts[0]);
        r->have_name = 1;
        return 0;
    }
    if (!strcmp(key, "coeffs")) {
        stencil_t s;
        if (stencil_parse(arg, &s) != 0 || stencil_is_user(s) || !stencil_table[s].coeffs.n)
            return bad(r, "coeffs(%s): the name of a built-in stencil that has coefficients "
                          "(stencils/coeffs.h: fluxdiff)", arg, "");
        sp->coeffs = 1;
        sp->coeffs_of = s;
        return 0;
    }
    if (!strcmp(key, "kind")) {
        if (!strcmp(arg, "quad") || !strcmp(arg, "graph")) {
            sp->graph = arg[0] == 'g';
            return 0;
        }
        return bad(r, "kind(%s): quad (W/E/S/N relations) or graph (neighbour lists)", arg, "");
    }
    if (!strcmp(key, "in"))
        return r->have_in = 1, add_fields(r, arg, 0);
    if (!strcmp(key, "out"))
        return r->have_out = 1, add_fields(r, arg, 1);
    if (!strcmp(key, "radius"))
        return small_int(arg, 0, 8, &sp->radius) ? bad(r, "radius(%s): 0 to 8", arg, "") : 0;
    if (!strcmp(key, "ztop"))
        return small_int(arg, 0, 64, &sp->ztop) ? bad(r, "ztop(%s): 0 to 64", arg, "") : 0;
    if (!strcmp(key, "zradius"))
        return small_int(arg, 0, 64, &sp->zradius) ? bad(r, "zradius(%s): 0 to 64", arg, "") : 0;
    if (!strcmp(key, "carry"))
        return clause_carry(r, arg);
    if (!strcmp(key, "fold")) {
        if (strlen(arg) >= sizeof sp->fold || !*arg)
            return bad(r, "fold(...): an expression in s, v and T of at most 511 characters", "", "");
        strcpy(sp->fold, arg);
        return 0;
    }
    if (!strcmp(key, "range"))
        return clause_range(r, arg);
    if (!strcmp(key, "summary")) {
        size_t n = strlen(arg);
        if (n < 2 || arg[0] != '"' || arg[n - 1] != '"' || n - 2 >= sizeof sp->summary)
            return bad(r, "summary(\"...\"): a string of at most 255 characters", "", "");
        memcpy(sp->summary, arg + 1, n - 2);
        sp->summary[n - 2] = 0;
        return 0;
    }
    return bad(r, "unknown clause '%s' (stencil, kind, in, out, radius, ztop, zradius, carry, "
                  "fold, range, framed, geometry, coeffs, summary, body)", key, "");
}

/* Parses the clauses of one `#pragma pillar` line (line points past "pillar"). */
static int pragma_line(reader *r, char *line)
{
    char *q = line;
    for (;;) {
        while (isspace((unsigned char)*q))
            q++;
        if (!*q)
            return 0;
        char key[32];
        int n = 0;
        while ((isalnum((unsigned char)*q) || *q == '_') && n < 31)
            key[n++] = *q++;
        key[n] = 0;
        if (!n)
            return bad(r, "unexpected '%s' in '#pragma pillar' (clauses look like name(value))",
                       (char[]){*q, 0}, "");
        while (isspace((unsigned char)*q))
            q++;
        char *arg = NULL;
        if (*q == '(') {
            int depth = 0, instr = 0;
            char *start = q + 1;
            for (; *q; q++) {
                if (*q == '"' && q[-1] != '\\')
                    instr = !instr;
                if (instr)
                    continue;
                if (*q == '(')
                    depth++;
                else if (*q == ')' && --depth == 0)
                    break;
            }
            if (!*q)
                return bad(r, "%s(...: no closing parenthesis on this line", key, "");
            *q++ = 0;
            arg = start;
            while (isspace((unsigned char)*arg))
                arg++;
            char *e = arg + strlen(arg);
            while (e > arg && isspace((unsigned char)e[-1]))
                *--e = 0;
        }
        if (clause(r, key, arg) != 0)
            return -1;
    }
}

/* ---- checks of the body's reads and writes ---- */

/* Distance of a relation name (C 0, W E S N 1, XY 2), -1 if s names none. */
static int rel_distance(const char *s)
{
    if (!strcmp(s, "C"))
        return 0;
    size_t n = strlen(s);
    if (n < 1 || n > 2)
        return -1;
    for (size_t j = 0; j < n; j++)
        if (!strchr("WESN", s[j]))
            return -1;
    return (int)n;
}

/* Checks every LD(f, R), LDZ(f, R, dz), ST(f, v) and NB(R) written in region [from, to) of the
 * blanked text. */
static int check_uses(const jit_spec *sp, const char *from, const char *to)
{
    static const char *const names[] = {"LD", "LDZ", "ST", "NB"};
    for (const char *q = from; q < to; q++) {
        if (!(isalpha((unsigned char)*q) || *q == '_') ||
            (q > sp->text && (isalnum((unsigned char)q[-1]) || q[-1] == '_')))
            continue;
        const char *e = q;
        while (e < to && (isalnum((unsigned char)*e) || *e == '_'))
            e++;
        int which = -1;
        for (int j = 0; j < 4; j++)
            if ((size_t)(e - q) == strlen(names[j]) && !strncmp(q, names[j], (size_t)(e - q)))
                which = j;
        const char *open = e;
        while (open < to && (*open == ' ' || *open == '\t'))
            open++;
        if (which < 0 || open >= to || *open != '(') {
            q = e - 1;
            continue;
        }
        /* the arguments, up to the matching parenthesis */
        const char *close = open;
        int depth = 0;
        for (; close < to; close++) {
            if (*close == '(')
                depth++;
            else if (*close == ')' && --depth == 0)
                break;
        }
        if (close >= to) {
            q = e - 1;
            continue;
        }
        char args[512];
        size_t len = (size_t)(close - open - 1);
        if (len >= sizeof args) {
            q = close;
            continue;
        }
        memcpy(args, open + 1, len);
        args[len] = 0;
        char *a[4];
        int n = split(args, a, 3);
        /* (the body pragma's newline was cut: count the body's lines from its own start) */
        int line = sp->body && q >= sp->body ? sp->body_line + line_of(sp->body, q) - 1
                                             : line_of(sp->text, q);
        const char *rel = which == 3 ? (n >= 1 ? a[0] : "") : (n >= 2 ? a[1] : "");
        int d = rel_distance(rel);
        if (which != 2 && d >= 0 && sp->graph) {
            perr("%s:%d: %s(...): a graph stencil reads neighbours through GNB and GAT, not "
                 "W/E/S/N relations", sp->path, line, names[which]);
            return -1;
        }
        if (which != 2 && d > sp->radius) {
            perr("%s:%d: %s(..., %s) reads relation %s at distance %d, beyond the declared "
                 "radius(%d)", sp->path, line, names[which], rel, rel, d, sp->radius);
            return -1;
        }
        if (n >= 1 && which < 3) {
            int f = field_index(sp, a[0]);
            if (which < 2 && f >= sp->nin) {
                perr("%s:%d: %s(%s, ...) reads output field '%s' (outputs are written only)",
                     sp->path, line, names[which], a[0], a[0]);
                return -1;
            }
            if (which == 2 && f >= 0 && f < sp->nin) {
                perr("%s:%d: ST(%s, ...) stores into input field '%s' (inputs are read only)",
                     sp->path, line, a[0], a[0]);
                return -1;
            }
        }
        if (which == 1 && n == 3) {
            int dz;
            if (small_int(a[2][0] == '(' ? a[2] + 1 : a[2], -1000, 1000, &dz) == 0 &&
                (dz < 0 ? -dz : dz) > sp->zradius) {
                perr("%s:%d: LDZ(%s, %s, %s) reads %d levels away, beyond the declared "
                     "zradius(%d)", sp->path, line, a[0], a[1], a[2], dz < 0 ? -dz : dz, sp->zradius);
                return -1;
            }
        }
        q = e - 1;
    }
    return 0;
}

/* ---- the file ---- */

int jit_spec_parse(jit_spec *sp, const char *name, const char *source)
{
    memset(sp, 0, sizeof *sp);
    snprintf(sp->path, sizeof sp->path, "%s", name);
    strcpy(sp->fold, "v");
    sp->radius = 1;
    size_t n = strlen(source);
    if (n > JIT_SOURCE_MAX) {
        perr("%s: %zu bytes; a stencil file has at most %d", name, n, JIT_SOURCE_MAX);
        return -1;
    }
    sp->raw = xalloc(n + 1);
    memcpy(sp->raw, source, n + 1);
    unsigned long long h = 1469598103934665603ull;
    for (size_t j = 0; j < n; j++)
        h = (h ^ (unsigned char)source[j]) * 1099511628211ull;
    sp->source_hash = h;
    int open_line;
    sp->text = blank_comments(source, &open_line);
    if (open_line) {
        perr("%s:%d: a comment opened here ('/*') is never closed", name, open_line);
        jit_spec_free(sp);
        return -1;
    }
    reader r = {sp, 0, 0, 0, 0, 0};
    char *t = sp->text, *body = NULL;
    for (char *line = t; *line && !body;) {
        char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        r.line++;
        const char *q = line;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q == '#') {
            q++;
            while (*q == ' ' || *q == '\t')
                q++;
            if (!strncmp(q, "pragma", 6) && isspace((unsigned char)q[6])) {
                q += 6;
                while (*q == ' ' || *q == '\t')
                    q++;
                if (!strncmp(q, "pillar", 6) && (isspace((unsigned char)q[6]) || !q[6])) {
                    char buf[2048];
                    size_t rest = len - (size_t)(q + 6 - line);
                    if (rest >= sizeof buf) {
                        bad(&r, "a '#pragma pillar' line of more than %s characters", "2047", "");
                        jit_spec_free(sp);
                        return -1;
                    }
                    memcpy(buf, q + 6, rest);
                    buf[rest] = 0;
                    if (pragma_line(&r, buf) != 0) {
                        jit_spec_free(sp);
                        return -1;
                    }
                    memset(line, ' ', len); /* the compiler does not see the header block */
                    if (r.have_body) {
                        body = end ? end + 1 : line + len;
                        if (end)
                            *end = 0; /* the preamble ends here */
                        sp->body_line = r.line + 1;
                    }
                }
            }
        }
        line = end ? end + 1 : line + len;
    }
    const char *missing = !r.have_name ? "stencil(NAME)" : !r.have_in ? "in(...)"
                          : !r.have_out ? "out(...)" : !body ? "body (the line before the body)" : NULL;
    if (missing) {
        perr("%s: no '#pragma pillar %s' (docs/own-stencil.md)", name, missing);
        jit_spec_free(sp);
        return -1;
    }
    if (!sp->graph && sp->radius > 2) {
        perr("%s: radius(%d): a W/E/S/N stencil reads relations up to distance 2", name, sp->radius);
        jit_spec_free(sp);
        return -1;
    }
    if (sp->coeffs && (!sp->graph || sp->carry.n)) {
        perr("%s: %s: %s", name, sp->geometry ? "geometry" : "coeffs",
             !sp->graph ? "mesh coefficients are read by graph stencils only (kind(graph))"
                        : "a stencil file reading mesh coefficients has no iterated runs yet "
                          "(the built-in fluxdiff has): no carry(...)");
        jit_spec_free(sp);
        return -1;
    }
    if (sp->graph && sp->zradius) {
        perr("%s: zradius(%d): a graph stencil reads its own level only", name, sp->zradius);
        jit_spec_free(sp);
        return -1;
    }
    sp->preamble = t;
    sp->preamble_line = 1;
    sp->body = body;
    if (check_uses(sp, sp->preamble, sp->preamble + strlen(sp->preamble)) != 0 ||
        check_uses(sp, sp->body, sp->body + strlen(sp->body)) != 0) {
        jit_spec_free(sp);
        return -1;
    }
    return 0;
}

int jit_spec_read(jit_spec *sp, const char *path)
{
    memset(sp, 0, sizeof *sp);
    if (file_input_check(path, "stencil file") != 0)
        return -1;
    FILE *f = fopen(path, "rb");
    if (!f) {
        perr("%s: %s", path, strerror(errno));
        return -1;
    }
    char *buf = xalloc(JIT_SOURCE_MAX + 2);
    size_t n = fread(buf, 1, JIT_SOURCE_MAX + 1, f);
    fclose(f);
    if (n > JIT_SOURCE_MAX || memchr(buf, 0, n)) {
        perr("%s: %s", path, n > JIT_SOURCE_MAX ? "larger than 1 MB: not a stencil file"
                                                : "holds a NUL byte: not a C source file");
        xfree(buf);
        return -1;
    }
    buf[n] = 0;
    int rc = jit_spec_parse(sp, path, buf);
    xfree(buf);
    return rc;
}

void jit_spec_free(jit_spec *sp)
{
    xfree(sp->text);
    xfree(sp->raw);
    sp->text = sp->raw = NULL;
    sp->preamble = sp->body = NULL;
}

unsigned jit_spec_rels(const jit_spec *sp)
{
    return sp->graph || sp->radius == 0 ? 0u : sp->radius == 1 ? 0xfu : REL_ALL;
}

static char *keep(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n); /* lives as long as the process, like the built-in names */
    if (!c)
        return (char *)"?";
    memcpy(c, s, n);
    return c;
}

void jit_spec_info(const jit_spec *sp, stencil_info *info)
{
    memset(info, 0, sizeof *info);
    info->name = keep(sp->name);
    info->nin = sp->nin;
    info->nout = sp->nout;
    for (int f = 0; f < sp->nin + sp->nout; f++)
        info->field[f] = keep(sp->field[f]);
    info->radius = sp->radius;
    info->ztop = sp->ztop;
    info->zradius = sp->zradius;
    info->summary = keep(sp->summary[0] ? sp->summary : sp->path);
    info->graph = sp->graph;
    info->rels = jit_spec_rels(sp);
    info->carry = sp->carry;
    memcpy(info->input, sp->input, sizeof info->input);
    info->framed = sp->framed;
    if (sp->coeffs) /* a built-in stencil's coefficients, built by its hook */
        info->coeffs = stencil_table[sp->coeffs_of].coeffs;
}
