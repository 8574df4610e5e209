/* problem.c — building, filling and freeing a problem. */
#include "problem.h"

#include <string.h>

int problem_check(const problem_spec *s)
{
    int h = s->halo, need = 2 * h + 1;
    if (s->nx < need || s->ny < need) {
        perr("--size %dx%dx%d: the grid is smaller than its halo (a halo of %d on each side "
             "needs at least %dx%d cells)", s->nx, s->ny, s->nz, h, need, need);
        return -1;
    }
    int minz = stencil_table[s->stencil].ztop + 1;
    if (s->nz < minz) {
        perr("--size %dx%dx%d: %s needs at least %d levels", s->nx, s->ny, s->nz,
             stencil_table[s->stencil].name, minz);
        return -1;
    }
    if ((double)s->nx * s->ny > 1.5e9 || (double)s->nx * s->ny * s->nz > 4e10) {
        perr("--size %dx%dx%d: too large", s->nx, s->ny, s->nz);
        return -1;
    }
    return 0;
}

/* Fills the unstructured inputs from the regular ones, cell by cell. */
static void fill_unstructured(problem *pb)
{
    const problem_spec *s = &pb->s;
    int nin = stencil_table[s->stencil].nin;
    size_t es = prec_size(s->prec);
    for (int f = 0; f < nin; f++) {
        char *u = pb->uf.p[f];
        const char *r = pb->rf.p[f];
#pragma omp parallel for schedule(static)
        for (int z = 0; z < s->nz; z++)
            for (int c = 0; c < pb->ug.nxy; c++)
                memcpy(u + ((size_t)c + (size_t)z * pb->ug.zstride) * es,
                       r + (size_t)rgrid_index(&pb->rg, pb->ug.cx[c], pb->ug.cy[c], z) * es, es);
    }
}

static int build_unstructured(problem *pb)
{
    const problem_spec *s = &pb->s;
    if (ugrid_emulate(&pb->ug, s->nx, s->ny, s->nz, s->halo, s->layout, s->w, s->seed) != 0)
        return -1;
    nbtable_build(&pb->nt, &pb->ug, s->chasing, s->compressed);
    for (int f = 0; f < pb->nf; f++)
        pb->uf.p[f] = field_alloc(s->prec, pb->ug.len);
    fill_unstructured(pb);
    return 0;
}

int problem_make(problem *pb, const problem_spec *s)
{
    memset(pb, 0, sizeof *pb);
    if (problem_check(s) != 0)
        return -1;
    pb->s = *s;
    pb->rg = rgrid_make(s->nx, s->ny, s->nz, s->halo, prec_size(s->prec));
    const stencil_info *si = &stencil_table[s->stencil];
    pb->nf = si->nin + si->nout;
    for (int f = 0; f < pb->nf; f++)
        pb->rf.p[f] = field_alloc(s->prec, pb->rg.len);
    for (int f = 0; f < si->nin; f++) {
        void *r = pb->rf.p[f];
#pragma omp parallel for schedule(static)
        for (int z = 0; z < s->nz; z++)
            for (int y = 0; y < s->ny; y++)
                for (int x = 0; x < s->nx; x++)
                    field_set(s->prec, r, (size_t)rgrid_index(&pb->rg, x, y, z),
                              stencil_input(s->stencil, f, x, y, z, s->seed));
    }
    if (build_unstructured(pb) != 0) {
        problem_free(pb);
        return -1;
    }
    problem_poison(pb);
    return 0;
}

int problem_relayout(problem *pb, layout_t layout, int w, int chasing, int compressed)
{
    for (int f = 0; f < pb->nf; f++)
        xfree(pb->uf.p[f]);
    nbtable_free(&pb->nt);
    ugrid_free(&pb->ug);
    pb->s.layout = layout;
    pb->s.w = w;
    pb->s.chasing = chasing;
    pb->s.compressed = compressed;
    if (build_unstructured(pb) != 0)
        return -1;
    problem_poison(pb);
    return 0;
}

void problem_poison(problem *pb)
{
    const stencil_info *si = &stencil_table[pb->s.stencil];
    for (int f = si->nin; f < pb->nf; f++) {
        field_poison(pb->s.prec, pb->rf.p[f], pb->rg.len);
        field_poison(pb->s.prec, pb->uf.p[f], pb->ug.len);
    }
}

void problem_free(problem *pb)
{
    for (int f = 0; f < pb->nf; f++) {
        xfree(pb->rf.p[f]);
        xfree(pb->uf.p[f]);
    }

    nbtable_free(&pb->nt);
    ugrid_free(&pb->ug);
    memset(pb, 0, sizeof *pb);
}

long problem_points(const problem *pb)
{
    long inner = (long)(pb->s.nx - 2 * pb->s.halo) * (pb->s.ny - 2 * pb->s.halo);
    return inner * stencil_zend(pb->s.stencil, pb->s.nz);
}

double problem_min_bytes(const problem *pb)
{
    return (double)problem_points(pb) * pb->nf * (double)prec_size(pb->s.prec);
}
