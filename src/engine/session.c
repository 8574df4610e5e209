/* session.c — the library's engine: where the fields live and the one decision tree of a run
 * (session.h). */
#include "session.h"
#include "route.h"
#include "run_plan.h"

#include "src/dist/dist_mpi.h"
#include "src/exec/cpu_exec.h"
#include "src/exec/iterate.h"
#include "src/exec/runner.h"
#ifdef PILLAR_HAVE_CUDA
#include "src/engine/renumber.h"
#include "src/engine/resident.h"
#include "src/exec/gpu.h"
#include "src/exec/gpu_launch.h"
#include "src/plan/ooc_gpu.h"
#include "src/plan/persist_onchip.h"
#include "src/plan/persist_run.h"
#endif

#include <string.h>

void session_init(session *s, problem *pb, const user_order *u, int gpu, access_t access,
                  persist_mode persistent)
{
    memset(s, 0, sizeof *s);
    s->pb = pb;
    s->u = u;
    s->gpu = gpu;
    s->access = access;
    s->persistent = persistent;
}

void session_shape(session *s, int bx, int by, int bz, int zslice)
{
    s->bx = bx;
    s->by = by;
    s->bz = bz;
    s->zslice = zslice;
}

void session_close(session *s)
{
#ifdef PILLAR_HAVE_CUDA
    if (s->res)
        resident_close(s->res);
    if (s->dcell)
        CK(cudaFree(s->dcell));
    if (s->dbad)
        CK(cudaFree(s->dbad));
    if (s->dstage)
        CK(cudaFree(s->dstage));
    share_cells_free(&s->cells);
#endif
    dist_part_close(s->ranks);
    s->ranks = NULL;
#ifdef PILLAR_HAVE_CUDA
    onchip_close(s->onchip);
#endif
    s->onchip = NULL;
    s->res = NULL;
    s->dcell = NULL;
    s->dbad = NULL;
    s->dstage = NULL;
}

/* The stencil's inputs, then outputs: [0, nin) and [nin, nf). */
static int nin_of(const session *s) { return stencil_table[s->pb->s.stencil].nin; }

void session_host_wrote(session *s, int k)
{
    s->host_ok[k] = 1;
    s->dev_ok[k] = 0;
    s->away[k] = 0;
    s->ranks_stale |= k < nin_of(s);
}

#ifdef PILLAR_HAVE_CUDA
/* Field k was just written on the device (its host copy stale). */
static void device_wrote(session *s, int k)
{
    s->dev_ok[k] = 1;
    s->host_ok[k] = 0;
    s->away[k] = 0;
    s->ranks_stale |= k < nin_of(s);
}
#endif

void session_away(session *s, int k, void (*fetch)(void *user, int k), void *user)
{
    s->host_ok[k] = s->dev_ok[k] = 0;
    s->away[k] = 1;
    s->fetch = fetch;
    s->fetch_user = user;
}

void session_host_read(session *s, int k)
{
    if (s->away[k]) { /* current only where the caller keeps it */
        s->away[k] = 0;
        s->fetch(s->fetch_user, k);
        s->host_ok[k] = 1;
        return;
    }
#ifdef PILLAR_HAVE_CUDA
    if (!s->host_ok[k] && s->dev_ok[k]) {
        resident_get(s->res, k, s->pb->uf.p[k]);
        s->host_ok[k] = 1;
    }
#endif
    (void)s;
    (void)k;
}

#ifdef PILLAR_HAVE_CUDA
/* session_cells on the device copy of field k (resident): only the listed cells' values cross
 * the link. */
static void device_cells(session *s, int k, const int *cell, int n, void *buf, int pack)
{
    const problem *pb = s->pb;
    void *at[2] = {resident_field(s->res, k), NULL};
    share_cells_move(&s->cells, at, pb->ug.zstride, pb->ug.nz, pb->s.prec == PREC_FLOAT, cell, n,
                     buf, pack, resident_stream(s->res));
    if (!pack) /* a carried field: what no step writes into its other array too */
        resident_wrote(s->res, k);
}
#endif

void session_cells(session *s, int k, const int *cell, int n, void *buf, int pack)
{
    if (n <= 0)
        return;
    if (s->away[k])
        session_host_read(s, k);
#ifdef PILLAR_HAVE_CUDA
    if (s->dev_ok[k] && s->res && (!pack || !s->host_ok[k]))
        device_cells(s, k, cell, n, buf, pack);
    if (!s->host_ok[k] && s->dev_ok[k] && s->res)
        return; /* the device's copy was the one current */
#endif
    if (!s->host_ok[k]) /* current nowhere else: the host copy is what every run reads */
        session_host_read(s, k);
    field_cells(s->pb->uf.p[k], s->pb->ug.nz, s->pb->ug.zstride, prec_size(s->pb->s.prec), cell,
                n, buf, pack);
}

/* Inputs bound in place: the caller may have written into them since the last call, so the
 * device copy is current (unless the host copy was set since: it is uploaded into the caller's
 * array at the next run); what no step writes goes to the other array of a carried pair. */
static void refresh_in_place(session *s)
{
#ifdef PILLAR_HAVE_CUDA
    for (int k = 0; k < s->pb->nf; k++)
        if (s->in_place[k] && s->dev_ok[k]) {
            s->host_ok[k] = 0;
            resident_wrote(s->res, k);
        }
#else
    (void)s;
#endif
}

#ifdef PILLAR_HAVE_CUDA
/* After a resident run: where a caller's array is bound in place, the device's stream (not the
 * caller's) reads and writes it, so the call returns once that work is done and the array holds
 * the new values (the caller may then copy from it or write into it on any stream). rc, or -1
 * with a message. */
static int in_place_done(session *s, int rc)
{
    for (int k = 0; k < s->pb->nf; k++)
        if (s->in_place[k])
            return resident_sync(s->res) != 0 ? -1 : rc;
    return rc;
}
#endif

/* Every field brought to the host, for a run on the host fields. */
static void host_all(session *s)
{
    for (int k = 0; k < s->pb->nf; k++)
        session_host_read(s, k);
}

/* After a run on the host fields: fields [k0, k1) changed there. */
static void host_ran(session *s, int k0, int k1)
{
    for (int k = k0; k < k1; k++)
        session_host_wrote(s, k);
}

/* The state fields (carried inputs) changed where a run left them: on the host or device. */
static void state_ran(session *s, int on_device)
{
    const iter_carry *c = iter_carried(s->pb->s.stencil);
    for (int j = 0; j < c->n; j++) {
        s->host_ok[c->in[j]] = !on_device;
        s->dev_ok[c->in[j]] = (unsigned char)on_device;
        s->away[c->in[j]] = 0;
    }
}

#ifdef PILLAR_HAVE_CUDA
/* Bytes the resident fields and tables take on the device. */
static double resident_bytes(const problem *pb)
{
    const problem_spec *sp = &pb->s;
    return (double)(pb->nf + 1) * (double)prec_size(sp->prec) * (double)pb->ug.len +
           (double)sizeof(double) * (double)pb->ug.nxy * (double)pb->ug.nz + /* stage_of */
           (double)(stencil_table[sp->stencil].graph ? ell_bytes(&pb->ell) : nbtable_bytes(&pb->nt)) +
           (double)prec_size(sp->prec) * (double)coef_set_cell_values(&pb->coef) * pb->coef.n;
}

/* The resident fields, opened at the first need. Returns 1 when they are there; 0 when the grid
 * is larger than the device's free memory or the strategy has no iterated kernels for the
 * stencil (the host paths then run, and refuse steps with the reason; nothing said here); -1
 * after a message (resident_open's refusal). */
static int resident_ready(session *s)
{
    if (s->res)
        return 1;
    if (s->res_refused || !ooc_iterated_ok(s->access, s->pb->s.stencil) ||
        resident_bytes(s->pb) > (double)(gpu_free_bytes() / 100 * 95)) {
        s->res_refused = 1;
        return 0;
    }
    resident_kernel k = {s->access, s->bx, s->by, s->bz, s->zslice ? s->zslice : 8};
    s->res = resident_open(s->pb, &k);
    if (!s->res) {
        s->res_refused = 1;
        return -1;
    }
    return 1;
}

/* Inputs [0, nin) current on the device (uploaded where only the host copy is). */
static void device_inputs(session *s)
{
    for (int k = 0; k < nin_of(s); k++)
        if (!s->dev_ok[k]) {
            session_host_read(s, k);
            resident_put(s->res, k, s->pb->uf.p[k]);
            s->dev_ok[k] = 1;
        }
}

/* T steps streamed: the grid in chunks under the budget, one step per transfer (persistent
 * on: each chunk's steps in one cooperative launch), from the host fields. */
static int streamed_steps(session *s, int steps, size_t budget)
{
    problem *pb = s->pb;
    const problem_spec *sp = &pb->s;
    int persistent = s->persistent == PERSIST_ON;
    /* a persistent launch has its own block shape (src/plan/persist_ooc.h) */
    int bx = persistent ? 0 : s->bx, by = persistent ? 0 : s->by, bz = persistent ? 0 : s->bz;
    plan_request rq = {1, 1, persistent, s->access, bx, 1, 1, 0, steps, budget, NULL};
    ooc_plan pl;
    if (engine_plan(&pl, pb, &rq) != 0)
        return -1;
    const iter_carry *c = iter_carried(sp->stencil);
    fieldset spare = {{0}};
    for (int j = 0; j < c->n; j++)
        spare.p[c->in[j]] = field_alloc(sp->prec, pb->ug.len);
    ooc_kernel k = {s->access, bx, by, bz, s->zslice ? s->zslice : 8, persistent};
    ooc_timing t;
    int rc = ooc_gpu_run(&pl, &pb->ug, &pb->uf, &spare, steps, &k, &t);
    for (int j = 0; j < c->n; j++)
        xfree(spare.p[c->in[j]]);
    ooc_plan_free(&pl);
    return rc;
}

/* Whether the on-chip launch runs on the resident fields (laplap, hdiff and lap, where the
 * fields stay on the device and the launch fits): its tables are opened at the first call and
 * kept. Where it does not, the reason stays in s->onchip_why (pillar_step's note) and 0. */
static int onchip_ready(session *s)
{
    problem *pb = s->pb;
    stencil_t st = pb->s.stencil;
    if (s->onchip_refused)
        return 0;
    if (st != ST_LAPLAP && st != ST_HDIFF && st != ST_LAP) {
        s->onchip_refused = 1;
        snprintf(s->onchip_why, sizeof s->onchip_why, "%s has no on-chip kernel on the device's "
                 "fields (laplap, hdiff and lap have)", stencil_table[st].name);
        return 0;
    }
    int r = resident_ready(s);
    if (r <= 0) {
        s->onchip_refused = 1;
        snprintf(s->onchip_why, sizeof s->onchip_why, "the fields do not stay on the device (%s)",
                 r < 0 ? "they could not be allocated there"
                       : "too large, or a strategy without resident kernels");
        return 0;
    }
    if (!s->onchip) {
        persist_request dflt = {0, 0, PERSIST_LEVELS_MODEL, 0, PERSIST_LISTS_AUTO};
        onchip_request oq = persist_onchip_request(&dflt); /* as persist_run's */
        char msg[300] = "";
        perr_saved saved = perr_capture_save();
        perr_capture(msg, sizeof msg);
        s->onchip = onchip_open(pb, &oq);
        perr_capture_restore(saved);
        if (!s->onchip) {
            s->onchip_refused = 1;
            snprintf(s->onchip_why, sizeof s->onchip_why, "%s", msg[0] ? msg : "refused");
            return 0;
        }
    }
    return 1;
}

/* Persistent steps on chip on the resident fields (onchip_ready): each call one cooperative
 * launch on the device's arrays, nothing across the link, done on the device on return. Returns
 * 1 after the steps (*rc their status), 0 where it does not run. */
static int onchip_resident_steps(session *s, int steps, int *rc)
{
    if (!onchip_ready(s))
        return 0;
    stencil_t st = s->pb->s.stencil;
    device_inputs(s);
    if (resident_sync(s->res) != 0) {
        *rc = -1;
        return 1;
    }
    int k = iter_carried(st)->in[0];
    void *cur, *other;
    resident_pair(s->res, k, &cur, &other);
    onchip_timing t;
    *rc = onchip_steps(s->onchip, cur, other,
                       st == ST_HDIFF ? resident_field(s->res, 1) : NULL, steps, &t);
    if (*rc == 0 && steps % 2)
        resident_swap(s->res, k);
    resident_settle(s->res); /* inputs bound in place hold the new state */
    state_ran(s, 1);
    *rc = in_place_done(s, *rc);
    return 1;
}

/* The in-core steps on the resident fields; with wait set, done on the device on return. */
static int in_core_steps(session *s, int steps, int wait)
{
    device_inputs(s);
    int rc = resident_steps(s->res, steps);
    if (wait && rc == 0)
        rc = resident_sync(s->res);
    resident_settle(s->res); /* inputs bound in place hold the new state */
    state_ran(s, 1);
    return in_place_done(s, rc);
}

/* Persistent auto (laplap, hdiff, lap in core on the device), for each step count a call asks
 * for (session.h's probe slots): the first call of that count runs on chip on the resident
 * fields, the next in core, each timed as the caller waits for it (done on the device), and from
 * then on every call of that count takes the one that ran the faster step (both give the same
 * bits; the user's own calls are the probe, nothing runs twice). Returns 1 after the steps (*rc their status), 0 where the host
 * loop's path runs (on chip refused, or the in-core path won). */
static int auto_on_chip(session *s, int steps, int *rc)
{
    stencil_t st = s->pb->s.stencil;
    if (s->probe_off || s->onchip_refused || (st != ST_LAPLAP && st != ST_HDIFF && st != ST_LAP))
        return 0;
    int k = 0; /* this step count's slot, or a new one in place of the oldest */
    while (k < SESSION_PROBES && !(s->probe[k].state && s->probe[k].steps == steps))
        k++;
    if (k == SESSION_PROBES) {
        k = s->probe_next;
        s->probe_next = (k + 1) % SESSION_PROBES;
        s->probe[k].steps = steps;
        s->probe[k].state = 0;
    }
    if (s->probe[k].state == 3)
        return 0;
    if (s->probe[k].state == 2) /* decided: on chip */
        return onchip_resident_steps(s, steps, rc);
    if (s->probe[k].state == 0) {
        if (!onchip_ready(s)) { /* its tables made before the clock starts */
            s->probe_off = 1;
            return 0;
        }
        double t0 = now_ms(); /* the call as the caller waits for it, done on the device */
        onchip_resident_steps(s, steps, rc);
        s->probe[k].onchip_s = (now_ms() - t0) * 1e-3 / steps;
        s->probe[k].state = 1;
        return 1;
    }
    if (resident_ready(s) != 1)
        return 0;
    double t0 = now_ms();
    *rc = in_core_steps(s, steps, 1); /* probe 1: the in-core path's turn */
    s->probe[k].core_s = (now_ms() - t0) * 1e-3 / steps;
    s->probe[k].state = s->probe[k].onchip_s < s->probe[k].core_s ? 2 : 3;
    snprintf(s->probe_note, sizeof s->probe_note, "persistent auto, calls of %d step%s: on chip "
             "%.4f ms a step, in core %.4f: %s from now on", steps, steps == 1 ? "" : "s",
             s->probe[k].onchip_s * 1e3, s->probe[k].core_s * 1e3,
             s->probe[k].state == 2 ? "on chip" : "in core");
    return 1;
}

/* The GPU's leaves of the decision tree. */
static int gpu_steps(session *s, route_t route, int steps, size_t budget)
{
    problem *pb = s->pb;
    int rc = 0;
    if (route == ROUTE_PERSISTENT && onchip_resident_steps(s, steps, &rc))
        return rc;
    if (route == ROUTE_IN_CORE && s->persistent == PERSIST_AUTO && auto_on_chip(s, steps, &rc))
        return rc;
    /* laplap, hdiff or lap not on chip on the device's fields: where those can stay on the
     * device, the host loop's kernels run there (a model's loop of pillar_step(1) never crosses
     * the link); else, and for graphlap, the persistent kernels on the host copies */
    stencil_t st = pb->s.stencil;
    if (route == ROUTE_PERSISTENT && (st == ST_LAPLAP || st == ST_HDIFF || st == ST_LAP) &&
        resident_ready(s) == 1) {
        s->onchip_in_core = 1;
        route = ROUTE_IN_CORE;
    }
    if (route == ROUTE_PERSISTENT) { /* one cooperative launch (docs/persistent.md) */
        s->onchip_in_core = 0;
        host_all(s);
        persist_run_timing pt; /* on chip where the stencil has such kernels */
        rc = persist_run(pb, pb->uf, steps, &(persist_request){0, 0, 0, 0, PERSIST_LISTS_AUTO},
                         &pt);
        state_ran(s, 0);
        return rc;
    }
    if (route == ROUTE_IN_CORE) {
        int r = resident_ready(s);
        if (r < 0)
            return -1;
        if (r == 1)
            return in_core_steps(s, steps, 0);
    }
    host_all(s); /* streamed, or in core where the strategy has no resident kernels */
    rc = streamed_steps(s, steps, budget);
    state_ran(s, 0);
    return rc;
}
#endif

/* `steps` steps over the MPI ranks of s->comm: the rank's part (opened at the first call,
 * partitioned once; its inputs loaded again after the caller set one: local), its passes, then
 * every rank's own cells gathered into every rank's host copy (the whole state on every rank,
 * as docs/api.md's pillar_set_comm promises). Collective. */
static int ranks_steps(session *s, int steps)
{
    problem *pb = s->pb;
    host_all(s);
    if (!s->ranks) {
        dist_exec e = {s->gpu, s->access, 0, 0, 0, 8, 0, NULL, s->halo, NULL, NULL, 0, NULL, 0,
                       s->res != NULL};
        char what[160];
        s->ranks = dist_part_open_grid(s->comm, &pb->ug, &pb->coef, pb->s.stencil, pb->s.prec,
                                       pb->s.chasing, pb->s.compressed, s->fuse ? s->fuse : 1,
                                       pb->uf, &e, what, sizeof what);
        if (!s->ranks)
            return -1;
    } else if (s->ranks_stale) {
        dist_part_load(s->ranks, &pb->ug, pb->uf);
    }
    s->ranks_stale = 0;
    dist_part_steps(s->ranks, steps);
    dist_part_gather(s->ranks, &pb->ug, pb->uf);
    state_ran(s, 0);
    return 0;
}

int session_steps(session *s, int steps)
{
    problem *pb = s->pb;
    refresh_in_place(s);
    size_t budget = 0;
    double need = 0; /* what the resident fields need, 0 once they are on the device */
#ifdef PILLAR_HAVE_CUDA
    if (s->gpu) {
        budget = gpu_free_bytes() / 100 * 95;
        need = s->res ? 0 : resident_bytes(pb);
    }
#endif
    /* the engine's one decision (route.h); the library runs out of core only when it must */
    route_in ri = {s->comm_set, s->gpu, OOC_AUTO, s->persistent, 0, 1, need, budget};
    route_t route = engine_route(&ri, NULL);
    if (route == ROUTE_RANKS)
        return ranks_steps(s, steps);
    if (route == ROUTE_CPU) {
        host_all(s);
        iter_run_incore(pb, pb->uf, steps);
        state_ran(s, 0);
        return 0;
    }
#ifdef PILLAR_HAVE_CUDA
    return gpu_steps(s, route, steps, budget);
#else
    perr("pillar_step: this build has no GPU backend");
    return -1;
#endif
}

int session_apply(session *s)
{
    problem *pb = s->pb;
    refresh_in_place(s);
    int nin = nin_of(s);
    if (!s->gpu) {
        host_all(s);
        cpu_run_unstructured(pb, pb->uf);
        host_ran(s, nin, pb->nf);
        return 0;
    }
#ifdef PILLAR_HAVE_CUDA
    int r = resident_ready(s);
    if (r < 0)
        return -1;
    if (r == 1) {
        device_inputs(s);
        int rc = resident_apply(s->res);
        for (int k = nin; k < pb->nf; k++) {
            device_wrote(s, k);
        }
        return in_place_done(s, rc);
    }
    /* a strategy without iterated kernels (staged, twopass), or a grid larger than the device:
     * the benchmark runner, on the host fields */
    host_all(s);
    options o;
    options_defaults(&o);
    o.spec = pb->s;
    o.access = s->access;
    o.bx = s->bx;
    o.by = s->by;
    o.bz = s->bz;
    o.zslice = s->zslice ? s->zslice : o.zslice;
    o.runs = 1;
    o.backend = BACKEND_GPU;
    timing t;
    int rc = gpu_execute(pb, &o, 1, pb->uf, &t);
    host_ran(s, nin, pb->nf);
    return rc;
#else
    perr("pillar_apply: this build has no GPU backend");
    return -1;
#endif
}

#ifdef PILLAR_HAVE_CUDA
static renumber_args renumber_of(session *s)
{
    const problem *pb = s->pb;
    if (!s->dcell) {
        size_t n = sizeof(int) * (size_t)s->u->ncells;
        CK(cudaMalloc((void **)&s->dcell, n));
        gpu_copy(s->dcell, s->u->cell, n, 1);
        CK(cudaMalloc((void **)&s->dbad, sizeof *s->dbad));
    }
    return (renumber_args){s->dcell, pb->ug.nxy, pb->ug.nz, pb->ug.zstride, pb->ug.nhalo,
                           stencil_zend(pb->s.stencil, pb->ug.nz), pb->s.prec == PREC_FLOAT};
}
#endif

#ifdef PILLAR_HAVE_CUDA
/* Field k from the caller's values in device memory (dvalues): renumbered into the resident
 * scratch array, checked, and swapped in only when every value is good. */
static void set_from_device(session *s, int k, const void *dvalues, int is_float, long *bad_at)
{
    renumber_args a = renumber_of(s);
    void *stream = resident_stream(s->res);
    unsigned long long bad = ~0ULL;
    CK(cudaMemcpyAsync(s->dbad, &bad, sizeof bad, cudaMemcpyHostToDevice, stream));
    CK((cudaError_t)renumber_in(&a, resident_scratch(s->res), dvalues, is_float, s->dbad, stream));
    CK(cudaMemcpyAsync(&bad, s->dbad, sizeof bad, cudaMemcpyDeviceToHost, stream));
    CK(cudaStreamSynchronize(stream));
    if (bad != ~0ULL) { /* the field unchanged */
        *bad_at = (long)bad;
        return;
    }
    resident_swap_in(s->res, k);
    device_wrote(s, k);
}

/* Bytes of a caller's array of one field (nlevels * ncells values, float or double). */
static size_t caller_bytes(const session *s, int is_float)
{
    return (is_float ? sizeof(float) : sizeof(double)) * (size_t)s->pb->ug.nxy *
           (size_t)s->pb->ug.nz;
}

/* A device array of the caller's size (nlevels * ncells doubles), for host arrays crossing. */
static void *stage_of(session *s)
{
    if (!s->dstage)
        CK(cudaMalloc(&s->dstage, sizeof(double) * (size_t)s->pb->ug.nxy * (size_t)s->pb->ug.nz));
    return s->dstage;
}
#endif

int session_set(session *s, int k, const void *values, int is_float, int on_device, long *bad_at)
{
    *bad_at = -1;
    refresh_in_place(s);
#ifdef PILLAR_HAVE_CUDA
    if (!on_device && (!s->gpu || s->comm_set || s->persistent == PERSIST_ON))
        return 1; /* the runs take the host copies: renumbered there */
    int r = resident_ready(s);
    if (r <= 0)
        return r < 0 ? -1 : 1;
    const void *dvalues = values;
    if (!on_device) { /* across the link once, into the stage */
        dvalues = stage_of(s);
        CK(cudaMemcpyAsync((void *)dvalues, values, caller_bytes(s, is_float),
                           cudaMemcpyHostToDevice, resident_stream(s->res)));
    }
    set_from_device(s, k, dvalues, is_float, bad_at);
    resident_settle(s->res); /* a field bound in place holds the values set */
    return 0;
#else
    (void)s, (void)k, (void)values, (void)is_float, (void)on_device;
    return 1;
#endif
}

int session_get(session *s, int k, void *values, int is_float, int on_device)
{
    refresh_in_place(s);
#ifdef PILLAR_HAVE_CUDA
    if (!on_device && (s->host_ok[k] || !s->dev_ok[k]))
        return 1; /* the host copy is current: renumbered there */
    if (!s->dev_ok[k]) { /* a device array asked for a field current on the host only */
        int r = resident_ready(s);
        if (r <= 0)
            return r < 0 ? -1 : 1;
        session_host_read(s, k);
        resident_put(s->res, k, s->pb->uf.p[k]);
        s->dev_ok[k] = 1;
    }
    renumber_args a = renumber_of(s);
    void *stream = resident_stream(s->res), *to = on_device ? values : stage_of(s);
    CK((cudaError_t)renumber_out(&a, to, is_float, resident_field(s->res, k), k >= nin_of(s),
                                 stream));
    if (!on_device) /* back across the link once */
        CK(cudaMemcpyAsync(values, to, caller_bytes(s, is_float), cudaMemcpyDeviceToHost, stream));
    return resident_sync(s->res);
#else
    (void)s, (void)k, (void)values, (void)is_float, (void)on_device;
    return 1;
#endif
}

int session_bind(session *s, int k, void *dvalues, int is_float)
{
#ifdef PILLAR_HAVE_CUDA
    const problem *pb = s->pb;
    if (!s->gpu || s->comm_set || s->persistent == PERSIST_ON || k >= nin_of(s) ||
        is_float != (pb->s.prec == PREC_FLOAT) || pb->ug.zstride != pb->ug.nxy ||
        s->u->ncells != pb->ug.nxy)
        return 0;
    for (int i = 0; i < s->u->ncells; i++)
        if (s->u->cell[i] != i)
            return 0;
    int r = resident_ready(s);
    if (r <= 0)
        return r;
    resident_adopt(s->res, k, dvalues);
    s->in_place[k] = 1;
    device_wrote(s, k);
    return 1;
#else
    (void)s, (void)k, (void)dvalues, (void)is_float;
    return 0;
#endif
}

void session_unbind(session *s, int k)
{
#ifdef PILLAR_HAVE_CUDA
    if (s->in_place[k] && s->res)
        resident_release(s->res, k);
#endif
    s->in_place[k] = 0;
}
