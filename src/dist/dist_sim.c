/* dist_sim.c — P ranks in one process (src/dist/dist_sim.h). */
#include "dist_sim.h"

#include "dist_cpu.h"
#include "grids/mesh.h"

#ifdef PILLAR_HAVE_CUDA
#include "dist_gpu.h"
#include "src/exec/gpu_launch.h"
#endif

#include <string.h>

/* Every rank's send lists from the others' receive lists, as the MPI run exchanges them. */
static int connect(dist_rank *d, int n)
{
    int *want = xalloc(sizeof(int) * (size_t)n), rc = 0;
    for (int r = 0; r < n && rc == 0; r++) {
        int total = 0;
        memset(want, 0, sizeof(int) * (size_t)n);
        for (int q = 0; q < n; q++)
            for (int j = 0; j < d[q].nrecv; j++)
                if (d[q].rpeer[j] == r) {
                    want[q] = d[q].rstart[j + 1] - d[q].rstart[j];
                    total += want[q];
                }
        int *gcells = xalloc(sizeof(int) * (size_t)(total > 0 ? total : 1)), at = 0;
        for (int q = 0; q < n; q++)
            for (int j = 0; j < d[q].nrecv; j++)
                if (d[q].rpeer[j] == r) {
                    int *all = xalloc(sizeof(int) * (size_t)(d[q].rstart[d[q].nrecv] + 1));
                    dist_rank_wants(&d[q], all);
                    memcpy(gcells + at, all + d[q].rstart[j], sizeof(int) * (size_t)want[q]);
                    at += want[q];
                    xfree(all);
                }
        rc = dist_rank_sends(&d[r], want, gcells);
        xfree(gcells);
    }
    xfree(want);
    return rc;
}

/* Index of peer q among rank d's send peers, -1 if none. */
static int send_index(const dist_rank *d, int q)
{
    for (int j = 0; j < d->nsend; j++)
        if (d->speer[j] == q)
            return j;
    return -1;
}

int dist_sim_open(dist_sim *sm, const ugrid *g, const coef_set *coef, stencil_t s, precision_t p,
                  int chasing, int compressed, const int *part, int nranks, int F)
{
    int *made = NULL, rc = 0;
    memset(sm, 0, sizeof *sm);
    if (!part) {
        made = xalloc(sizeof(int) * (size_t)g->nxy);
        if (ugrid_partition(g, stencil_table[s].graph, nranks, made) != 0) {
            xfree(made);
            return -1;
        }
        part = made;
    }
    sm->g = g;
    sm->nranks = nranks;
    sm->F = F;
    sm->d = xalloc(sizeof(dist_rank) * (size_t)nranks);
    memset(sm->d, 0, sizeof(dist_rank) * (size_t)nranks);
    for (int r = 0; r < nranks && rc == 0; r++)
        rc = dist_rank_make(&sm->d[r], g, coef, part, nranks, r, s, p, chasing, compressed, F);
    if (rc == 0)
        rc = connect(sm->d, nranks);
    xfree(made);
    if (rc != 0)
        dist_sim_close(sm);
    return rc;
}

void dist_sim_close(dist_sim *sm)
{
    for (int r = 0; r < sm->nranks; r++)
        dist_rank_free(&sm->d[r]);
    xfree(sm->d);
    memset(sm, 0, sizeof *sm);
}

void dist_sim_steps(const dist_sim *sm, fieldset f, int steps)
{
    int n = sm->nranks;
    const dist_rank *d = sm->d;
    size_t es = prec_size(d[0].prec);
    fieldset *loc = xalloc(sizeof(fieldset) * (size_t)n);
    void **out = xalloc(sizeof(void *) * (size_t)n); /* every rank's messages, by peer */
    size_t *at = xalloc(sizeof(size_t) * (size_t)n * ((size_t)n + 1));
    for (int r = 0; r < n; r++) {
        loc[r] = dist_fields_alloc(&d[r]);
        dist_fields_load(&d[r], sm->g, f, loc[r]);
        size_t total = 0;
        for (int j = 0; j < d[r].nsend; j++) {
            at[(size_t)r * (size_t)(n + 1) + (size_t)j] = total;
            total += dist_msg_values(&d[r], d[r].sstart[j + 1] - d[r].sstart[j]);
        }
        out[r] = xalloc(es * (total > 0 ? total : 1));
    }
    for (int done = 0; done < steps;) {
        int t = steps - done < sm->F ? steps - done : sm->F;
        for (int r = 0; r < n; r++)
            for (int j = 0; j < d[r].nsend; j++)
                dist_pack(&d[r], j, loc[r], (char *)out[r] + at[(size_t)r * (size_t)(n + 1) + (size_t)j] * es);
        for (int r = 0; r < n; r++) {
            dist_poison_ring(&d[r], loc[r]);
            dist_first_interior(&d[r], loc[r], t);
            for (int j = 0; j < d[r].nrecv; j++) {
                int q = d[r].rpeer[j], k = send_index(&d[q], r);
                dist_unpack(&d[r], j, loc[r], (char *)out[q] + at[(size_t)q * (size_t)(n + 1) + (size_t)k] * es);
            }
        }
        for (int r = 0; r < n; r++)
            dist_finish_steps(&d[r], loc[r], t);
        done += t;
    }
    for (int r = 0; r < n; r++) {
        dist_fields_store(&d[r], sm->g, loc[r], f);
        dist_fields_free(&d[r], &loc[r]);
        xfree(out[r]);
    }
    xfree(loc);
    xfree(out);
    xfree(at);
}

#ifdef PILLAR_HAVE_CUDA
/* Byte offset of message j among rank d's messages (start: sstart or rstart). */
static size_t msg_offset(const dist_rank *d, const int *start, int j)
{
    return dist_msg_values(d, start[j] - start[0]) * prec_size(d->prec);
}
#endif

int dist_sim_steps_gpu(const dist_sim *sm, fieldset f, int steps, access_t a, dist_pieces *times)
{
#ifdef PILLAR_HAVE_CUDA
    int n = sm->nranks, rc = 0;
    dist_rank *d = sm->d; /* dist_gpu_open builds graph-twopass lists into the ranks */
    fieldset *loc = xalloc(sizeof(fieldset) * (size_t)n);
    dist_gpu **g = xalloc(sizeof(dist_gpu *) * (size_t)n);
    for (int r = 0; r < n; r++) {
        loc[r] = dist_fields_alloc(&d[r]);
        dist_fields_load(&d[r], sm->g, f, loc[r]);
        g[r] = rc == 0 ? dist_gpu_open(&d[r], loc[r], a, 0, 0, 0, 8, 1) : NULL;
        rc = g[r] ? rc : -1;
    }
    for (int done = 0; rc == 0 && done < steps;) {
        int t = steps - done < sm->F ? steps - done : sm->F;
        for (int r = 0; r < n; r++)
            dist_gpu_pack(g[r]);
        for (int r = 0; r < n; r++) {
            dist_gpu_first_interior(g[r], t);
            if (times) /* timed: each rank's interior alone on the device, not beside the next's */
                CK(cudaDeviceSynchronize());
            for (int j = 0; j < d[r].nrecv; j++) {
                int q = d[r].rpeer[j], k = send_index(&d[q], r);
                size_t bytes = msg_offset(&d[r], d[r].rstart, j + 1) - msg_offset(&d[r], d[r].rstart, j);
                CK(cudaMemcpy((char *)dist_gpu_recv_buffer(g[r]) + msg_offset(&d[r], d[r].rstart, j),
                              (char *)dist_gpu_send_buffer(g[q]) + msg_offset(&d[q], d[q].sstart, k),
                              bytes, cudaMemcpyDefault));
            }
            /* a copy between device buffers (PILLAR_CUDA_AWARE_MPI) may return before it is
             * done; the unpacking runs on the part's own stream */
            CK(cudaStreamSynchronize(cudaStreamLegacy));
        }
        for (int r = 0; r < n; r++)
            dist_gpu_finish(g[r], t);
        done += t;
    }
    if (times)
        memset(times, 0, sizeof *times);
    for (int r = 0; r < n; r++) {
        if (g[r] && rc == 0) {
            if (times) {
                dist_pieces t = dist_gpu_timing(g[r]);
                dist_pieces_add(times, &t);
            }
            dist_gpu_store(g[r], loc[r]);
            dist_fields_store(&d[r], sm->g, loc[r], f);
        }
        dist_gpu_close(g[r]);
        dist_fields_free(&d[r], &loc[r]);
    }
    xfree(loc);
    xfree(g);
    return rc;
#else
    (void)sm, (void)f, (void)steps, (void)a, (void)times;
    perr("distributed run: pillar was built without CUDA");
    return -1;
#endif
}

int dist_sim_run(const ugrid *g, const coef_set *coef, stencil_t s, precision_t p, int chasing,
                 int compressed, const int *part, int nranks, int F, fieldset f, int steps)
{
    dist_sim sm;
    if (dist_sim_open(&sm, g, coef, s, p, chasing, compressed, part, nranks, F) != 0)
        return -1;
    dist_sim_steps(&sm, f, steps);
    dist_sim_close(&sm);
    return 0;
}

dist_rates dist_pieces_rates(const dist_pieces *m)
{
    dist_rates r = {0, 0, 0, 0, 0};
    if (m->interior_median > 0 && m->passes > 0)
        r.pts = m->interior_pts / m->passes / m->interior_median;
    else
        r.pts = m->interior > 0 ? m->interior_pts / m->interior : 0;
    r.wire_bps = m->wire > 0 ? m->sent / m->wire : 0;
    r.pack_bps = m->pack > 0 ? m->sent / m->pack : 0;
    r.unpack_bps = m->unpack > 0 ? m->received / m->unpack : 0;
    if (m->d2h > 0 && m->h2d > 0) {
        double d2h = m->sent / m->d2h, h2d = m->received / m->h2d;
        r.host_bps = d2h < h2d ? d2h : h2d;
    }
    return r;
}

void dist_pieces_add(dist_pieces *a, const dist_pieces *b)
{
    a->pack += b->pack;
    a->d2h += b->d2h;
    a->wire += b->wire;
    a->interior += b->interior;
    a->h2d += b->h2d;
    a->unpack += b->unpack;
    a->boundary += b->boundary;
    a->rest += b->rest;
    a->sent += b->sent;
    a->received += b->received;
    a->interior_pts += b->interior_pts;
    /* medians do not add: the sum keeps the slower (the CPU simulation keeps none) */
    if (b->interior_median > a->interior_median)
        a->interior_median = b->interior_median;
    a->passes += b->passes;
}
