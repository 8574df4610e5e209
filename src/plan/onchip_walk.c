/* onchip_walk.c — laplap's on-chip walk over a flat chart (src/plan/onchip_walk.h). */
#include "onchip_walk.h"

#include "onchip_chart.h"

#include "access/onchip_regular.h"
#include "src/exec/gpu_launch.h"

#include <string.h>

struct onchip_walk {
    onchip_chart chart;
    rgrid lat;          /* the chart as a regular grid (halo ONCHIP_CHART_HALO) */
    regular_onchip *launch;
    regular_timing shape; /* the launch's blocks, threads and levels (onchip_walk_shape) */
    precision_t prec;
    long fzs;           /* the grid's level stride */
    int nz;             /* the grid's levels, all copied */
    int32_t *d_cells;   /* on the device from the first onchip_walk_steps */
    void *lat_state, *lat_other;
};

onchip_walk *onchip_walk_open(const problem *pb, int levels, int blocks)
{
    if (pb->s.stencil != ST_LAPLAP) {
        perr("on-chip run, walk: laplap only (%s)", stencil_table[pb->s.stencil].name);
        return NULL;
    }
    onchip_walk *w = xalloc(sizeof *w);
    memset(w, 0, sizeof *w);
    char why[200];
    if (onchip_chart_build(&pb->ug, &w->chart, why, sizeof why) != 0) {
        perr("on-chip run, walk: the grid's inner cells are not one flat chart: %s", why);
        xfree(w);
        return NULL;
    }
    w->prec = pb->s.prec;
    w->nz = pb->ug.nz;
    w->fzs = pb->ug.zstride;
    w->lat = rgrid_make(w->chart.nx, w->chart.ny, w->nz, ONCHIP_CHART_HALO, prec_size(w->prec));
    regular_request rq = {.levels = levels, .blocks = blocks, .prefetch = 1, .walk = 1};
    w->launch = regular_onchip_open(ST_LAPLAP, w->prec, &w->lat, &rq);
    if (!w->launch) {
        onchip_walk_close(w);
        return NULL;
    }
    regular_onchip_shape(w->launch, &w->shape);
    /* the two copies in the chart's order, the export buffers and the chart's map, within 95%
     * of what the device has free */
    size_t es = prec_size(w->prec), places = (size_t)w->chart.nx * (size_t)w->chart.ny;
    double need = (2.0 * (double)w->lat.len +
                   2.0 * (double)w->lat.zstride * (w->shape.levels ? w->shape.levels : 1)) *
                      (double)es +
                  4.0 * (double)places;
    size_t avail = gpu_free_bytes() / 100 * 95;
    if (need > (double)avail) {
        perr("on-chip run, walk: the state's copies in the chart's order need %.0f MB on the "
             "device, %.0f MB are free", need / 1e6, (double)avail / 1e6);
        onchip_walk_close(w);
        return NULL;
    }
    return w;
}

void onchip_walk_shape(const onchip_walk *w, int *blocks, int *threads, int *levels)
{
    *blocks = w->shape.blocks;
    *threads = w->shape.threads;
    *levels = w->shape.levels;
}

/* One copy between the grid's array f and the lattice's lat (onchip_chart_copy). */
static void chart_copy(onchip_walk *w, void *lat, void *f, int to_lattice)
{
    CK((cudaError_t)onchip_chart_copy(w->prec, lat, f, w->d_cells, w->chart.nx, w->chart.ny,
                                      ONCHIP_CHART_HALO, w->lat.a, w->lat.ystride,
                                      w->lat.zstride, w->fzs, w->nz, to_lattice));
}

int onchip_walk_steps(onchip_walk *w, void *state, void *other, int steps, regular_timing *t)
{
    memset(t, 0, sizeof *t);
    if (steps < 1) {
        perr("on-chip run, walk: at least one step (%d)", steps);
        return -1;
    }
    size_t bytes = prec_size(w->prec) * w->lat.len;
    if (!w->d_cells) {
        w->d_cells = gpu_upload(w->chart.cells,
                                sizeof(int32_t) * (size_t)w->chart.nx * (size_t)w->chart.ny);
        CK(cudaMalloc(&w->lat_state, bytes));
        CK(cudaMalloc(&w->lat_other, bytes));
    }
    gpu_span sp;
    gpu_span_begin(&sp);
    chart_copy(w, w->lat_state, state, 1);
    CK(cudaMemcpy(w->lat_other, w->lat_state, bytes, cudaMemcpyDeviceToDevice));
    int rc = regular_onchip_steps(w->launch, w->lat_state, w->lat_other, NULL, steps, t);
    if (rc == 0) /* after an odd number of steps the state is in `other` */
        chart_copy(w, steps % 2 ? w->lat_other : w->lat_state, steps % 2 ? other : state, 0);
    double secs = gpu_span_end(&sp);
    if (rc == 0)
        t->kernel_s = secs;
    return rc;
}

void onchip_walk_close(onchip_walk *w)
{
    if (!w)
        return;
    regular_onchip_close(w->launch);
    CK(cudaFree(w->d_cells));
    CK(cudaFree(w->lat_state));
    CK(cudaFree(w->lat_other));
    onchip_chart_free(&w->chart);
    xfree(w);
}
