/* compose.c — a user stencil's body composed with the CPU loops or a GPU strategy's kernels. */
#include "compose.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void jit_text_add(jit_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0)
        return;
    if (t->n + (size_t)need + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->n + (size_t)need + 1)
            cap *= 2;
        t->s = xgrow(t->s, t->n, cap);
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
    va_end(ap);
    t->n += (size_t)need;
}

/* The path as a C string literal's contents (backslashes and quotes escaped). */
static void add_path(jit_text *t, const char *path)
{
    for (const char *q = path; *q; q++) {
        if (*q == '\\' || *q == '"')
            jit_text_add(t, "\\");
        jit_text_add(t, "%c", (unsigned char)*q >= 32 ? *q : '?');
    }
}

static void line_directive(jit_text *t, int line, const char *path)
{
    jit_text_add(t, "#line %d \"", line);
    add_path(t, path);
    jit_text_add(t, "\"\n");
}

/* USER_BIND(F): the field pointers, inputs const. */
static void bind(const jit_spec *sp, jit_text *t)
{
    jit_text_add(t, "#define USER_BIND(F)");
    for (int f = 0; f < sp->nin + sp->nout; f++)
        jit_text_add(t, " %sT *RESTRICT %s = (%sT *)(F).p[%d]; (void)%s;", f < sp->nin ? "const " : "",
                     sp->field[f], f < sp->nin ? "const " : "", f, sp->field[f]);
    jit_text_add(t, "\n#define USER_RELS %uu\nenum { PILLAR_NIN_USER = %d };\n", jit_spec_rels(sp), sp->nin);
}

/* The preamble at file scope and the body as the macro USER_BODY() (graph: USER_BODY(c)), each
 * line of the user's file on its own line after a #line directive, so that a diagnostic names
 * the user's file and line. Comments are already blanked (a // comment would swallow the
 * continuation). */
static void user_code(const jit_spec *sp, jit_text *t, const char *path_for_lines)
{
    line_directive(t, sp->preamble_line, path_for_lines);
    jit_text_add(t, "%s\n", sp->preamble);
    line_directive(t, sp->body_line - 1, path_for_lines);
    if (sp->graph)
        jit_text_add(t, "#define USER_BODY(pillar_c_) do { const int c = (pillar_c_); (void)c; \\\n");
    else
        jit_text_add(t, "#define USER_BODY() do { \\\n");
    for (const char *q = sp->body; *q;) {
        const char *e = strchr(q, '\n');
        size_t len = e ? (size_t)(e - q) : strlen(q);
        while (len && (q[len - 1] == '\\' || q[len - 1] == ' ' || q[len - 1] == '\t' ||
                       q[len - 1] == '\r'))
            len--;
        jit_text_add(t, "%.*s \\\n", (int)len, q);
        q = e ? e + 1 : q + len;
        if (!e)
            break;
    }
    jit_text_add(t, "} while (0)\n");
}

/* Relation distances for the compile-time radius check of NB(R) (every relation a body reads,
 * also through macros of headers it includes, passes through NB). */
static void distances(jit_text *t)
{
    static const char *const d1 = "WESN";
    jit_text_add(t, "#define PILLAR_RDIST_C 0\n");
    for (int a = 0; a < 4; a++) {
        jit_text_add(t, "#define PILLAR_RDIST_%c 1\n", d1[a]);
        for (int b = 0; b < 4; b++)
            jit_text_add(t, "#define PILLAR_RDIST_%c%c 2\n", d1[a], d1[b]);
    }
}

/* The fold of sp (in s, v and T) as one function per precision, headed by `head`, a format
 * taking the type's name four times (result, name suffix, the two arguments). */
static void folds(const jit_spec *sp, jit_text *t, const char *head)
{
    static const char *const ty[2] = {"double", "float"};
    for (int i = 0; i < 2; i++) {
        jit_text_add(t, head, ty[i], ty[i], ty[i], ty[i]);
        jit_text_add(t, " { typedef %s T; (void)s; (void)v; (void)(T)0; return (%s); }\n", ty[i],
                     sp->fold);
    }
}

/* The user's part of a composition: the fields bound, the user's code under its own file's line
 * numbers, the generated text's line numbers again, then the fold headed by fold_head (folds). */
static void user_part(const jit_spec *sp, jit_text *t, const char *gen, const char *fold_head)
{
    bind(sp, t);
    user_code(sp, t, sp->path);
    line_directive(t, 1000, gen);
    folds(sp, t, fold_head);
}

/* After the list loops of a graph stencil: the same body on the offset tables (storage/gtable.h,
 * every storage; not in the checked mode, which checks on the lists: cpu_run_gtable runs those
 * when these are missing) and on the lattice twin (grids/lattice.h). The lattice's GNB(q, j)
 * takes q's own parity (the built-in bodies' form assumes the computed cell's), folded to the
 * computed cell's `par` where q is c, so nested GNB reach the right cells. */
static void graph_tables_and_lattice(jit_text *t, int checked)
{
    static const char *const names = "#undef GDEG\n#undef GNB\n#undef GDEG2\n#undef GNB2\n"
                                     "#undef GAT\n#undef PILLAR_GCELL\n#undef PILLAR_GEDGE\n"
                                     "#define GAT(q) CPU_GAT(q)\n#define PILLAR_GCELL(q) (q)\n"
                                     "#define PILLAR_GEDGE(q, j) (j)\n";
    if (!checked) {
        jit_text_add(t, "%s#define GDEG(q) CPU_GT_DEG(q)\n#define GNB(q, j) CPU_GT_NB(q, j)\n"
                        "#define GDEG2(c, k) CPU_GT_DEG2(c, k)\n#define GNB2(c, k, j) CPU_GT_NB2(c, k, j)\n",
                     names);
        for (int ty = 0; ty < 2; ty++)
            for (int st = 0; st < 4; st++)
                jit_text_add(t, "CPU_GTABLE_LOOP(USER, %s, %d, %d)\n", ty ? "float" : "double",
                             st >> 1, st & 1);
    }
    jit_text_add(t, "%s#define PILLAR_LPAR(q) ((q) == c ? par : lattice_cell_par(LK, LW, (q)))\n"
                    "#define GDEG(q) CPU_LAT_DEG(q)\n"
                    "#define GNB(q, j) ((q) + lattice_off(LK, LW, PILLAR_LPAR(q), (j)))\n"
                    "#define GDEG2(q, k) CPU_LAT_DEG(q)\n"
                    "#define GNB2(q, k, j) (GNB(q, k) + lattice_off(LK, LW, lattice_npar(LK, PILLAR_LPAR(q), (k)), (j)))\n"
                    "CPU_LATTICE_LOOP(USER, double)\nCPU_LATTICE_LOOP(USER, float)\n",
                 names);
}

/* The names a graph file reads its coefficients by: the executor's accessors GCOEF, GCOEFJ
 * (stencils/coeffs.h) with coeffs(NAME) or geometry, and with geometry also fluxdiff's names of
 * its arrays (stencils/fluxdiff.h), GAREA and GKAPPA. Without the clause a use fails to compile
 * with a name that says what is missing (cpu: the accessors too; the GPU kernels define them,
 * and the CPU composition is compiled first). */
static void coef_names(const jit_spec *sp, int cpu, jit_text *t)
{
    if (sp->geometry)
        jit_text_add(t, "#define GAREA(q) GCOEF(0, q)\n#define GKAPPA(q, j) GCOEFJ(1, q, j)\n");
    else
        jit_text_add(t, "#define GAREA(q) pillar_GAREA_needs_pragma_pillar_geometry\n"
                        "#define GKAPPA(q, j) pillar_GKAPPA_needs_pragma_pillar_geometry\n");
    if (!sp->coeffs && cpu)
        jit_text_add(t, "#define GCOEF(i, q) pillar_GCOEF_needs_pragma_pillar_coeffs\n"
                        "#define GCOEFJ(i, q, j) pillar_GCOEFJ_needs_pragma_pillar_coeffs\n");
}

void jit_compose_cpu(const jit_spec *sp, int checked, jit_text *t)
{
    const char *gen = "<pillar composition>";
    line_directive(t, 1, gen);
    jit_text_add(t,
                 "/* generated by pillar from %s: its body in the CPU executor's loops */\n"
                 "#include \"src/exec/cpu_loops.h\"\n"
                 "#include <stdlib.h>\n"
                 "#define ZS zs\n#define K k\n#define PILLAR_FN static inline\n"
                 "#define PILLAR_RADIUS %d\n#define PILLAR_ZRADIUS %d\n",
                 "the user's file", sp->radius, sp->zradius);
    distances(t);
    /* the fold: the CPU stores v and folds in a second pass (src/exec/iterate.c) */
    jit_text_add(t, "#define FOLD(state, v) FOLDED(USER, state, v)\n"
                    "#define GST(f, q, v) ((f)[GAT(q)] = (v))\n");
    /* checked mode: reads outside the declared extent are recorded (the first one) */
    jit_text_add(t,
                 "int pillar_violations; long pillar_violation[4];\n"
                 "static inline void pillar_violate(long a, long b, long c, long d) {\n"
                 "  if (__atomic_fetch_add(&pillar_violations, 1, __ATOMIC_RELAXED) == 0) {\n"
                 "    pillar_violation[0] = a; pillar_violation[1] = b; pillar_violation[2] = c;"
                 " pillar_violation[3] = d; } }\n");
    if (checked && !sp->graph) {
        jit_text_add(t, "static inline int pillar_dz(int dz, int k) {\n"
                        "  if (dz > PILLAR_ZRADIUS || -dz > PILLAR_ZRADIUS) { pillar_violate(1, k, dz, 0);"
                        " return 0; } return dz; }\n"
                        "#undef LDZ\n#define LDZ(f, R, dz) ((f)[NB(R) + pillar_dz((dz), K) * ZS])\n");
    }
    if (checked && sp->graph) {
        /* whether plane cell q lies within graph distance r of c */
        jit_text_add(t,
                     "static int pillar_near(ellview ev, int c, int q, int r) {\n"
                     "  if (c == q) return 1; if (r == 0) return 0;\n"
                     "  for (int j = 0; j < ev.deg[c]; j++)\n"
                     "    if (pillar_near(ev, ev.nb[(long)j * ev.stride + c], q, r - 1)) return 1;\n"
                     "  return 0; }\n"
                     "static inline int pillar_at(ellview ev, int c, int q, int k) {\n"
                     "  if (q < 0 || q >= ev.stride || !pillar_near(ev, c, q, PILLAR_RADIUS)) {\n"
                     "    pillar_violate(2, k, c, q); return c; } return q; }\n"
                     "static inline int pillar_nb(ellview ev, int q, int j, int k) {\n"
                     "  if (j < 0 || j >= ev.deg[q]) { pillar_violate(3, k, q, j); return q; }\n"
                     "  return ev.nb[(long)j * ev.stride + q]; }\n"
                     "static inline int pillar_edge(ellview ev, int q, int j, int k) {\n"
                     "  if (j < 0 || j >= ev.deg[q]) { pillar_violate(3, k, q, j); return 0; }\n"
                     "  return j; }\n");
    }
    /* the fold after the preamble: it may use the preamble's macros */
    user_part(sp, t, gen, "%s pillar_fold_%s(%s s, %s v)");
    jit_text_add(t, "static inline int user_zend(int nz) { return nz - %d; }\n", sp->ztop);
    if (sp->graph) {
        /* the graph body interface (stencils/graphlap.h) as cpu_exec.c defines it for the lists:
         * chasing forms, plain loops; checked mode routes every cell through pillar_at */
        if (checked)
            jit_text_add(t, "#define GDEG(q) CPU_GDEG(pillar_at(ev, p, (q), k))\n"
                            "#define GNB(q, j) pillar_nb(ev, pillar_at(ev, p, (q), k), (j), k)\n"
                            "#define GAT(q) (pillar_at(ev, p, (q), k) + lev)\n"
                            "#define PILLAR_GCELL(q) pillar_at(ev, p, (q), k)\n"
                            "#define PILLAR_GEDGE(q, j) pillar_edge(ev, (q), (j), k)\n");
        else
            jit_text_add(t, "#define GDEG(q) CPU_GDEG(q)\n#define GNB(q, j) CPU_GNB(q, j)\n"
                            "#define GAT(q) CPU_GAT(q)\n#define PILLAR_GCELL(q) (q)\n"
                            "#define PILLAR_GEDGE(q, j) (j)\n");
        jit_text_add(t, "#define GDEG2(c, k) CPU_GDEG2(c, k)\n#define GNB2(c, k, j) CPU_GNB2(c, k, j)\n"
                        "#define GFOR(k, lo, d) CPU_GFOR(k, lo, d)\n"
                        "#define GFOR2(k, lo, d) CPU_GFOR(k, lo, d)\n#define GOUT(q) CPU_GOUT(q)\n");
        /* the coefficient accessors (stencils/coeffs.h) of the lists, through the checked
         * mode's cell and slot where it routes them */
        if (sp->coeffs)
            jit_text_add(t, "#define GCOEF(i, q) CPU_GCOEF(i, PILLAR_GCELL(q))\n"
                            "#define GCOEFJ(i, q, j) CPU_GCOEFJ(i, PILLAR_GCELL(q), PILLAR_GEDGE(PILLAR_GCELL(q), j))\n");
        coef_names(sp, 1, t);
        jit_text_add(t, "CPU_GRAPH_LOOP(USER, double)\nCPU_GRAPH_LOOP(USER, float)\n");
        graph_tables_and_lattice(t, checked);
        return;
    }
    jit_text_add(t,
                 "#define READS_BEYOND_THE_DECLARED_RADIUS(R) ((void)sizeof(char[(PILLAR_RDIST_##R <= PILLAR_RADIUS) ? 1 : -1]))\n"
                 "#define NB(R) (READS_BEYOND_THE_DECLARED_RADIUS(R), REG_NB(R))\n"
                 "CPU_REGULAR_LOOP(USER, double, user_zend)\nCPU_REGULAR_LOOP(USER, float, user_zend)\n"
                 "#undef NB\n#define NB(R) (READS_BEYOND_THE_DECLARED_RADIUS(R), UNS_NB(R))\n");
    for (int ty = 0; ty < 2; ty++)
        for (int st = 0; st < 4; st++)
            jit_text_add(t, "CPU_UNSTRUCTURED_LOOP(USER, %s, %d, %d)\n", ty ? "float" : "double",
                         st >> 1, st & 1);
}

void jit_compose_gpu(const jit_spec *sp, const char *strategy, jit_text *t)
{
    const char *gen = "<pillar composition>";
    line_directive(t, 1, gen);
    jit_text_add(t, "/* generated by pillar: a user stencil in the kernels of access/%s.cu */\n"
                    "#define PILLAR_JIT 1\n#define PILLAR_FN static __device__ inline\n",
                    strategy);
    if (sp->graph) { /* the strategy files instantiate their graph kernels for it, no others */
        jit_text_add(t, "#define PILLAR_JIT_GRAPH 1\n");
        coef_names(sp, 0, t);
    }
    jit_text_add(t, "#include \"stencils/body.h\"\n"
                    "#define FOLD(state, v) FOLDED(USER, state, v)\n"
                    "#define GST(f, q, v) ((f)[GAT(q)] = (v))\n");
    /* the fold (after the preamble, whose macros it may use), fused by the kernels of iterated
     * runs through FOLDED -> STENCIL_FOLD(USER, s, v) (access/kernels.cuh) */
    user_part(sp, t, gen, "static __device__ __forceinline__ %s stencil_fold_USER%.0s(%s s, %s v)");
    jit_text_add(t, "#include \"access/%s.cu\"\n", strategy);
}
