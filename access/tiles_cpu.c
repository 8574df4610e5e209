/* tiles_cpu.c — the K-step schedule of access/tiles.cu on the CPU, block by block (tiles_run.h). */
#include "tiles_run.h"

#include <omp.h>

#include "tile_step.h"

#include <string.h>

/* One block at one level: stage the ball, k steps on shrinking layers (in one pass each, or in
 * two with sb holding the Laplacians: tiles_two_pass), own cells out. sa and sb hold t->maxball
 * values each. */
#define TILES_BLOCK(TY)                                                                           \
    static void tiles_block_##TY(const tiles *t, const tiles_step_args *a, int b, long zo,        \
                                 TY *sa, TY *sb)                                                  \
    {                                                                                             \
        typedef TY T;                                                                             \
        const int32_t *cell = t->cell + t->start[b];                                              \
        const uint16_t *nbw = t->nb + (size_t)t->width * (size_t)t->start[b];                    \
        const tile_nb4 *nb4 = (const tile_nb4 *)nbw; /* W/E/S/N: width 4 */                     \
        const int W_ = t->width;                                                                  \
        const int32_t *layer = t->layer + (size_t)b * (size_t)(t->depth + 1);                     \
        const TY *src = (const TY *)a->src + zo;                                                  \
        const TY *coeff = a->coeff ? (const TY *)a->coeff + zo : NULL;                            \
        const int n = t->start[b + 1] - t->start[b], radius = t->depth / t->K;                    \
        (void)coeff, (void)nb4, (void)nbw, (void)W_;                                              \
        for (int e = 0; e < n; e++)                                                               \
            sa[e] = sb[e] = src[cell[e]];                                                         \
        if (tiles_two_pass(t, a->stencil)) {                                                      \
            TY *lap = sb;                                                                         \
            for (int i = 1; i <= a->k; i++) {                                                     \
                for (int e = 0; e < layer[radius * (a->k - i) + 1]; e++)                          \
                    TILE_LAP(e);                                                                  \
                for (int e = 0; e < layer[radius * (a->k - i)]; e++)                              \
                    if (cell[e] >= t->base)                                                       \
                        TILE_LAPLAP_FROM_LAP(e);                                                  \
            }                                                                                     \
        } else /* one pass a step: TILE_UPDATE, or GTILE_UPDATE on rows of list slots */        \
            for (int i = 1; i <= a->k; i++) {                                                     \
                for (int e = 0; e < layer[radius * (a->k - i)]; e++)                              \
                    if (cell[e] >= t->base)                                                       \
                        switch (a->stencil) {                                                     \
                            FOR_EACH_KSTEPS_STENCIL(TILE_CASE, e)                                 \
                            FOR_EACH_GRAPH_KSTEPS_STENCIL(GTILE_CASE, e)                          \
                        default: break;                                                           \
                        }                                                                         \
                TY *swap = sa;                                                                    \
                sa = sb;                                                                          \
                sb = swap;                                                                        \
            }                                                                                     \
        TY *dst = (TY *)a->dst + zo;                                                              \
        for (int e = 0; e < layer[0]; e++)                                                        \
            if (cell[e] >= a->valid)                                                              \
                dst[cell[e]] = sa[e];                                                             \
    }
#define TILE_CASE(ST, e)                                                                          \
    case ST_##ST: TILE_UPDATE(ST, e); break;
#define GTILE_CASE(ST, e)                                                                         \
    case ST_##ST: GTILE_UPDATE(ST, e); break;
#define TILE_COEFF(e) coeff[cell[e]]
TILES_BLOCK(double)
TILES_BLOCK(float)

void tiles_steps_cpu(const tiles *t, const tiles_step_args *a)
{
    int b0 = tiles_block_of(t, a->valid);
    long work = (long)(t->nblocks - b0) * a->nlev;
    /* each thread's two balls, allocated before the parallel region: an allocation that fails
     * raises a fault (base/common.h), which must not leave a parallel region */
    int nt = work > 64 ? omp_get_max_threads() : 1;
    size_t ball = prec_size(a->prec) * (size_t)(t->maxball ? t->maxball : 1);
    char *scratch = xalloc(2 * ball * (size_t)nt);
#pragma omp parallel if(work > 64) num_threads(nt)
    {
        char *sa = scratch + 2 * ball * (size_t)omp_get_thread_num(), *sb = sa + ball;
#pragma omp for collapse(2) schedule(static)
        for (int z = 0; z < a->nlev; z++)
            for (int b = b0; b < t->nblocks; b++) {
                if (a->prec == PREC_FLOAT)
                    tiles_block_float(t, a, b, (long)z * a->zs, (float *)sa, (float *)sb);
                else
                    tiles_block_double(t, a, b, (long)z * a->zs, (double *)sa, (double *)sb);
            }
    }
    xfree(scratch);
}
