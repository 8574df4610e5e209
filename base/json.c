/* json.c — the strict JSON reader and string quoting of json.h. */
#include "json.h"

#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const json_type_name[5] = {"boolean", "number", "string", "array", "object"};

typedef struct {
    const char *s;
    size_t len, at;
    int max_depth;
    char *err;
    size_t nerr;
} parser;

/* Records the first error at the current position (line and column counted from the text). */
static int fail(parser *p, const char *what)
{
    int line = 1, col = 1;
    for (size_t i = 0; i < p->at && i < p->len; i++) {
        if (p->s[i] == '\n') {
            line++;
            col = 1;
        } else
            col++;
    }
    snprintf(p->err, p->nerr, "line %d, column %d: %s", line, col, what);
    return -1;
}

static void skip_ws(parser *p)
{
    while (p->at < p->len &&
           (p->s[p->at] == ' ' || p->s[p->at] == '\t' || p->s[p->at] == '\n' || p->s[p->at] == '\r'))
        p->at++;
}

static int hex4(parser *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        if (p->at >= p->len)
            return fail(p, "the text ends inside a \\u escape");
        char c = p->s[p->at++];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return fail(p, "a \\u escape needs 4 hexadecimal digits");
        v = v * 16 + (unsigned)d;
    }
    *out = v;
    return 0;
}

/* A string (the opening quote at p->at) into a new 0-terminated buffer. */
static int parse_string(parser *p, char **out)
{
    p->at++; /* the quote */
    size_t cap = 16, n = 0;
    char *b = xalloc(cap);
    for (;;) {
        if (p->at >= p->len) {
            xfree(b);
            return fail(p, "the text ends inside a string");
        }
        unsigned char c = (unsigned char)p->s[p->at];
        unsigned cp = 0;
        int raw = 1;
        if (c == '"') {
            p->at++;
            break;
        }
        if (c < 0x20) {
            xfree(b);
            return fail(p, "a control character inside a string (escape it)");
        }
        if (c == '\\') {
            raw = 0;
            if (++p->at >= p->len) {
                xfree(b);
                return fail(p, "the text ends inside a string");
            }
            char e = p->s[p->at++];
            switch (e) {
            case '"': cp = '"'; break;
            case '\\': cp = '\\'; break;
            case '/': cp = '/'; break;
            case 'b': cp = '\b'; break;
            case 'f': cp = '\f'; break;
            case 'n': cp = '\n'; break;
            case 'r': cp = '\r'; break;
            case 't': cp = '\t'; break;
            case 'u':
                if (hex4(p, &cp) != 0) {
                    xfree(b);
                    return -1;
                }
                if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    xfree(b);
                    return fail(p, "a lone low surrogate in a \\u escape");
                }
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    unsigned lo;
                    if (p->at + 2 > p->len || p->s[p->at] != '\\' || p->s[p->at + 1] != 'u') {
                        xfree(b);
                        return fail(p, "a high surrogate not followed by a low one");
                    }
                    p->at += 2;
                    if (hex4(p, &lo) != 0) {
                        xfree(b);
                        return -1;
                    }
                    if (lo < 0xDC00 || lo > 0xDFFF) {
                        xfree(b);
                        return fail(p, "a high surrogate not followed by a low one");
                    }
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                }
                if (cp == 0) {
                    xfree(b);
                    return fail(p, "\\u0000 inside a string");
                }
                break;
            default:
                xfree(b);
                return fail(p, "an unknown escape in a string");
            }
        } else
            p->at++;
        if (n + 5 > cap) {
            b = xgrow(b, n, cap * 2);
            cap *= 2;
        }
        if (raw) /* UTF-8 bytes pass through as they are */
            b[n++] = (char)c;
        else if (cp < 0x80)
            b[n++] = (char)cp;
        else if (cp < 0x800) {
            b[n++] = (char)(0xC0 | (cp >> 6));
            b[n++] = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            b[n++] = (char)(0xE0 | (cp >> 12));
            b[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            b[n++] = (char)(0x80 | (cp & 0x3F));
        } else {
            b[n++] = (char)(0xF0 | (cp >> 18));
            b[n++] = (char)(0x80 | ((cp >> 12) & 0x3F));
            b[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            b[n++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    b[n] = 0;
    *out = b;
    return 0;
}

/* A number in the JSON grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int parse_number(parser *p, double *out)
{
    size_t i = p->at;
    const char *s = p->s;
#define DIGIT(k) ((k) < p->len && s[k] >= '0' && s[k] <= '9')
    if (i < p->len && s[i] == '-')
        i++;
    if (!DIGIT(i))
        return fail(p, "a number needs a digit here");
    if (s[i] == '0')
        i++;
    else
        while (DIGIT(i))
            i++;
    if (i < p->len && s[i] == '.') {
        i++;
        if (!DIGIT(i))
            return fail(p, "a number needs digits after its decimal point");
        while (DIGIT(i))
            i++;
    }
    if (i < p->len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < p->len && (s[i] == '+' || s[i] == '-'))
            i++;
        if (!DIGIT(i))
            return fail(p, "a number needs digits in its exponent");
        while (DIGIT(i))
            i++;
    }
#undef DIGIT
    char buf[64];
    if (i - p->at >= sizeof buf)
        return fail(p, "a number longer than 63 characters");
    memcpy(buf, s + p->at, i - p->at);
    buf[i - p->at] = 0;
    double v = strtod(buf, NULL);
    if (!isfinite(v))
        return fail(p, "a number out of range");
    *out = v;
    p->at = i;
    return 0;
}

static int parse_value(parser *p, json_value *v, int depth);

/* Appends one zeroed item to v's items (and a key slot for an object). */
static json_value *push(json_value *v, int *cap)
{
    if (v->n == *cap) {
        int nc = *cap ? *cap * 2 : 4;
        v->items = xgrow(v->items, sizeof *v->items * (size_t)*cap, sizeof *v->items * (size_t)nc);
        if (v->type == JSON_OBJECT)
            v->keys = xgrow(v->keys, sizeof *v->keys * (size_t)*cap, sizeof *v->keys * (size_t)nc);
        *cap = nc;
    }
    return &v->items[v->n++];
}

static int parse_container(parser *p, json_value *v, int depth)
{
    const int obj = p->s[p->at] == '{';
    const char close = obj ? '}' : ']';
    v->type = obj ? JSON_OBJECT : JSON_ARRAY;
    if (depth >= p->max_depth)
        return fail(p, "nested too deeply");
    p->at++;
    skip_ws(p);
    if (p->at < p->len && p->s[p->at] == close) {
        p->at++;
        return 0;
    }
    int cap = 0;
    for (;;) {
        skip_ws(p);
        char *key = NULL;
        if (obj) {
            if (p->at >= p->len || p->s[p->at] != '"')
                return fail(p, "expected a member name in quotes");
            if (parse_string(p, &key) != 0)
                return -1;
            for (int i = 0; i < v->n; i++)
                if (strcmp(v->keys[i], key) == 0) {
                    char what[160];
                    snprintf(what, sizeof what, "member \"%.100s\" given twice", key);
                    xfree(key);
                    return fail(p, what);
                }
            skip_ws(p);
            if (p->at >= p->len || p->s[p->at] != ':') {
                xfree(key);
                return fail(p, "expected ':' after a member name");
            }
            p->at++;
        }
        json_value *item = push(v, &cap);
        if (obj)
            v->keys[v->n - 1] = key;
        if (parse_value(p, item, depth + 1) != 0)
            return -1;
        skip_ws(p);
        if (p->at < p->len && p->s[p->at] == ',') {
            p->at++;
            continue;
        }
        if (p->at < p->len && p->s[p->at] == close) {
            p->at++;
            return 0;
        }
        return fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static int parse_value(parser *p, json_value *v, int depth)
{
    memset(v, 0, sizeof *v);
    v->type = JSON_BOOL; /* nothing to free until set */
    skip_ws(p);
    if (p->at >= p->len)
        return fail(p, "expected a value, the text ends");
    char c = p->s[p->at];
    if (c == '{' || c == '[')
        return parse_container(p, v, depth);
    if (c == '"') {
        v->type = JSON_STRING;
        return parse_string(p, &v->string);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        v->type = JSON_NUMBER;
        return parse_number(p, &v->number);
    }
    static const char *const words[2] = {"false", "true"};
    for (int b = 0; b < 2; b++) {
        size_t l = strlen(words[b]);
        if (p->len - p->at >= l && memcmp(p->s + p->at, words[b], l) == 0) {
            p->at += l;
            v->boolean = b;
            return 0;
        }
    }
    return fail(p, c == 'n' ? "null is not accepted here" : "expected a value");
}

int json_parse(const char *text, size_t len, int max_depth, json_value *out, char *err, size_t n)
{
    parser p = {text, len, 0, max_depth, err, n};
    memset(out, 0, sizeof *out);
    if (len > JSON_MAX_BYTES) {
        snprintf(err, n, "%zu bytes, more than the %d a JSON text may have here", len, JSON_MAX_BYTES);
        return -1;
    }
    int rc = parse_value(&p, out, 0);
    if (rc == 0) {
        skip_ws(&p);
        if (p.at < p.len)
            rc = fail(&p, p.s[p.at] ? "text after the value" : "a NUL byte after the value");
    }
    if (rc != 0) {
        json_free(out);
        memset(out, 0, sizeof *out);
    }
    return rc;
}

void json_free(json_value *v)
{
    if (v->type == JSON_STRING)
        xfree(v->string);
    if (v->type == JSON_ARRAY || v->type == JSON_OBJECT) {
        for (int i = 0; i < v->n; i++) {
            json_free(&v->items[i]);
            if (v->keys)
                xfree(v->keys[i]);
        }
        xfree(v->items);
        xfree(v->keys);
    }
    memset(v, 0, sizeof *v);
}

const json_value *json_member(const json_value *o, const char *key)
{
    if (!o || o->type != JSON_OBJECT)
        return NULL;
    for (int i = 0; i < o->n; i++)
        if (strcmp(o->keys[i], key) == 0)
            return &o->items[i];
    return NULL;
}

size_t json_quote(const char *s, char *out, size_t n)
{
    size_t k = 0;
#define PUT(ch) do { if (k + 1 < n) out[k] = (ch); k++; } while (0)
    PUT('"');
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\') {
            PUT('\\');
            PUT((char)*c);
        } else if (*c < 0x20) {
            char e[8];
            snprintf(e, sizeof e, "\\u%04x", *c);
            for (int i = 0; e[i]; i++)
                PUT(e[i]);
        } else
            PUT((char)*c);
    }
    PUT('"');
#undef PUT
    if (n)
        out[k < n ? k : n - 1] = 0;
    return k;
}
