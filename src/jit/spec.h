/* spec.h — a user stencil file read into its parts (docs/own-stencil.md): the header block of
 * `#pragma pillar` clauses, the preamble (file-scope C: includes, helper macros) and the body.
 * Static checks that need no compiler happen here: names, roles, the relation names the body
 * uses against its declared radius, LDZ level offsets against its vertical extent, stores into
 * inputs and reads of outputs. */
#ifndef PILLAR_JIT_SPEC_H
#define PILLAR_JIT_SPEC_H

#include "base/common.h"
#include "stencils/stencil.h"

#define JIT_NAME_MAX 64

typedef struct {
    char path[1024];          /* where it came from (the file, or "<string NAME>") */
    char name[JIT_NAME_MAX];  /* stencil(NAME) */
    int graph;                /* kind(graph) */
    int nin, nout;
    char field[PILLAR_MAXF][JIT_NAME_MAX]; /* inputs, then outputs */
    int radius, ztop, zradius;
    iter_carry carry;
    char fold[512];           /* fold(EXPR) in s, v, T; "v" by default */
    stencil_range input[PILLAR_MAXF];
    int framed;
    int geometry;             /* graph: `geometry`, coeffs(fluxdiff) with fluxdiff's names of
                               * its arrays, GAREA and GKAPPA */
    int coeffs;               /* graph: reads the coefficients of the built-in stencil coeffs_of
                               * (coeffs(NAME), or geometry): its descriptor and build hook
                               * (stencils/coeffs.h), read through GCOEF, GCOEFJ */
    stencil_t coeffs_of;
    char summary[256];
    char *text;               /* the whole file, comments blanked (xalloc; jit_spec_free) */
    char *raw;                /* the whole file as read */
    int preamble_line;        /* first line of the preamble (1-based) */
    int body_line;            /* first line of the body */
    const char *preamble;     /* pointers into text: preamble (pragma lines blanked), body */
    const char *body;
    unsigned long long source_hash; /* of raw */
} jit_spec;

/* Reads the stencil file at path (checked with file_input_check). 0, or -1 with a message naming
 * the file, the line and what is wrong. */
int jit_spec_read(jit_spec *sp, const char *path);
/* The same from a string; `name` stands for it in messages ("<string NAME>"). */
int jit_spec_parse(jit_spec *sp, const char *name, const char *source);
void jit_spec_free(jit_spec *sp);

/* The stencil_info of a spec (strings copied to storage that lives as long as the process). */
void jit_spec_info(const jit_spec *sp, stencil_info *info);

/* Relations within the radius, as the mask W/E/S/N executors gather (bit r: relation r). */
unsigned jit_spec_rels(const jit_spec *sp);

#endif
