/* iterate.c — time steps on the CPU: the stencil body on a block, then the fold into the state. */
#include "iterate.h"
#include "base/progress.h"

#include <string.h>

const iter_carry *iter_carried(stencil_t s) { return &stencil_table[s].carry; }

/* state <- the stencil's fold of (state, out) at the points of b (stencils/registry.h). */
#define FOLD(ST, TY)                                                                              \
    static void fold_##ST##_##TY(cpu_block b, void *state_, const void *out_)                     \
    {                                                                                             \
        TY *state = state_;                                                                       \
        const TY *out = out_;                                                                     \
        _Pragma("omp parallel for schedule(static) if(cpu_block_points(b) > 4096)")               \
        for (int k = b.k0; k < b.k1; k++) {                                                       \
            long l = (long)(k - b.kbase) * b.zs;                                                  \
            for (long i = l + b.c0; i < l + b.c1; i++)                                            \
                state[i] = stencil_fold_##ST##_##TY(state[i], out[i]);                            \
        }                                                                                         \
    }
#define FOLD_BOTH(ST, _) FOLD(ST, double) FOLD(ST, float)
FOR_EACH_ANY_STENCIL(FOLD_BOTH, _)

typedef void (*fold_fn)(cpu_block, void *, const void *);
#define FOLD_ROW(ST, _) {fold_##ST##_double, fold_##ST##_float},
static const fold_fn fold_table[ST_COUNT][2] = {FOR_EACH_ANY_STENCIL(FOLD_ROW, _)};

/* The same for a stencil loaded at run time: its fold through stencil_fold_double/float, which
 * call the function compiled from its file (stencils/stencil.h). */
static void fold_loaded(stencil_t s, precision_t p, cpu_block b, void *state_, const void *out_)
{
    _Pragma("omp parallel for schedule(static) if(cpu_block_points(b) > 4096)")
    for (int k = b.k0; k < b.k1; k++) {
        long l = (long)(k - b.kbase) * b.zs;
        for (long i = l + b.c0; i < l + b.c1; i++) {
            if (p == PREC_FLOAT)
                ((float *)state_)[i] = stencil_fold_float(s, ((float *)state_)[i], ((const float *)out_)[i]);
            else
                ((double *)state_)[i] = stencil_fold_double(s, ((double *)state_)[i], ((const double *)out_)[i]);
        }
    }
}

/* graphlap's damping bounds L² on every mesh pillar reads (stencils/graphlap.h). */
_Static_assert(GRAPHLAP_DAMPING == 4 * MESH_MAXDEG * MESH_MAXDEG,
               "GRAPHLAP_DAMPING must be 4 * MESH_MAXDEG^2");

void iter_fold(stencil_t s, precision_t p, cpu_block b, fieldset f)
{
    if (b.c0 >= b.c1 || b.k0 >= b.k1)
        return;
    const iter_carry *c = iter_carried(s);
    for (int j = 0; j < c->n; j++)
        if (stencil_is_user(s))
            fold_loaded(s, p, b, f.p[c->in[j]], f.p[c->out[j]]);
        else
            fold_table[s][p](b, f.p[c->in[j]], f.p[c->out[j]]);
}

void iter_step(stencil_t s, precision_t p, const nbtable *nt, const ell_table *ell, cpu_block b,
               fieldset f)
{
    if (b.c0 >= b.c1 || b.k0 >= b.k1)
        return;
    cpu_run_block(s, p, nt, ell, b, f);
    iter_fold(s, p, b, f);
}

long iter_state_differ(const problem *pb, fieldset a, fieldset b, long *points)
{
    const iter_carry *c = iter_carried(pb->s.stencil);
    long bad = 0;
    for (int j = 0; j < c->n; j++)
        for (int z = 0; z < pb->ug.nz; z++)
            for (int cell = 0; cell < pb->ug.nxy; cell++) {
                size_t i = (size_t)cell + (size_t)z * pb->ug.zstride;
                bad += !field_same_bits(pb->s.prec, a.p[c->in[j]], i, b.p[c->in[j]], i);
            }
    if (points)
        *points = (long)c->n * pb->ug.nz * pb->ug.nxy;
    return bad;
}

uint64_t iter_hash_values(uint64_t h, precision_t p, const void *values, size_t n)
{
    const char *v = values;
    for (size_t i = 0; i < n; i++) {
        uint64_t w = 0;
        if (p == PREC_FLOAT) {
            uint32_t x;
            memcpy(&x, v + i * 4, 4);
            w = x;
        } else {
            memcpy(&w, v + i * 8, 8);
        }
        h = (h ^ w) * 1099511628211ull;
    }
    return h;
}

uint64_t iter_state_hash(const problem *pb, fieldset f)
{
    const iter_carry *c = iter_carried(pb->s.stencil);
    uint64_t h = ITER_HASH_START;
    for (int j = 0; j < c->n; j++)
        for (int z = 0; z < pb->ug.nz; z++)
            h = iter_hash_values(h, pb->s.prec,
                                 (const char *)f.p[c->in[j]] +
                                     (size_t)z * (size_t)pb->ug.zstride * prec_size(pb->s.prec),
                                 (size_t)pb->ug.nxy);
    return h;
}

void iter_run_incore(const problem *pb, fieldset f, int steps)
{
    cpu_block b = cpu_block_inner(pb);
    b.coef = &pb->coef; /* the stencil's coefficients (empty for most) */
    for (int t = 0; t < steps; t++) {
        iter_step(pb->s.stencil, pb->s.prec, &pb->nt, &pb->ell, b, f);
        progress_update("steps", t + 1, steps);
    }
}

fieldset iter_fields_copy(const problem *pb)
{
    fieldset f = {{0}};
    int nin = stencil_table[pb->s.stencil].nin;
    size_t es = prec_size(pb->s.prec);
    for (int i = 0; i < pb->nf; i++) {
        f.p[i] = field_alloc(pb->s.prec, pb->ug.len);
        if (i < nin)
            memcpy(f.p[i], pb->uf.p[i], es * pb->ug.len);
        else
            field_poison(pb->s.prec, f.p[i], pb->ug.len);
    }
    return f;
}

void iter_fields_free(const problem *pb, fieldset *f)
{
    for (int i = 0; i < pb->nf; i++)
        xfree(f->p[i]);
    memset(f, 0, sizeof *f);
}
