/* json.h — a small strict JSON reader (RFC 8259) for the few files pillar reads back as text
 * (plans: src/tune/plan_file.h), and string quoting for writing them.
 *
 * Strict: one value, whitespace around it only; no comments, no trailing commas, no duplicate
 * member names, no control characters or NUL inside strings, no lone surrogates; numbers in the
 * JSON grammar only and finite. Bounded: the text at most JSON_MAX_BYTES, nesting at most
 * max_depth levels; everything it allocates is freed by json_free. Errors say the line and column
 * and what was wrong. No null (no plan field is ever null). */
#ifndef PILLAR_JSON_H
#define PILLAR_JSON_H

#include <stddef.h>

#define JSON_MAX_BYTES (1 << 20)

typedef enum { JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json_value {
    json_type type;
    int boolean;               /* JSON_BOOL */
    double number;             /* JSON_NUMBER */
    char *string;              /* JSON_STRING: UTF-8, 0-terminated (no NUL inside) */
    int n;                     /* JSON_ARRAY: items; JSON_OBJECT: members */
    struct json_value *items;  /* array items, or member values */
    char **keys;               /* JSON_OBJECT: member names, in the text's order */
} json_value;

extern const char *const json_type_name[5]; /* "boolean", "number", "string", "array", "object" */

/* Parses len bytes of text into *out. 0, or -1 with "line L, column C: what" in err (n bytes);
 * *out then holds nothing to free. */
int json_parse(const char *text, size_t len, int max_depth, json_value *out, char *err, size_t n);

/* Frees what json_parse allocated into v (v itself is the caller's). */
void json_free(json_value *v);

/* The member of object o named key, or NULL (also when o is not an object). */
const json_value *json_member(const json_value *o, const char *key);

/* s as a JSON string with its quotes into out (n bytes), control characters, quotes and
 * backslashes escaped. The length it needs (as snprintf: out holds it when < n). */
size_t json_quote(const char *s, char *out, size_t n);

#endif
