/* renumber.h — a field between the caller's cell order and pillar's, on the device: the device
 * twin of user_order_element (src/exec/field_io.h), for the library's device-array calls.
 * Built only with CUDA (PILLAR_HAVE_CUDA). */
#ifndef PILLAR_RENUMBER_H
#define PILLAR_RENUMBER_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const int *cell; /* device: caller's cell i -> pillar's cell (user_order.cell) */
    int n, nz;       /* cells per level, levels */
    long zs;         /* pillar's level stride */
    int nhalo, zend; /* pillar's halo cells come first; levels computed: [0, zend) */
    int is_float;    /* pillar's precision */
} renumber_args;

/* pillar's field `to` from the caller's array `from` (z * n + i; float when from_float), each
 * value converted to pillar's precision. *bad (device, set to ~0 by the caller) receives the
 * smallest index j of a value that is not finite or (float) does not fit. Launched on stream;
 * returns a cudaError_t as int. */
int renumber_in(const renumber_args *a, void *to, const void *from, int from_float,
                unsigned long long *bad, void *stream);
/* The caller's array `to` from pillar's field `from`; with nan_uncomputed, NaN at halo cells and
 * levels from zend up (an output where the stencil computes nothing). Launched on stream. */
int renumber_out(const renumber_args *a, void *to, int to_float, const void *from,
                 int nan_uncomputed, void *stream);

#ifdef __cplusplus
}
#endif

#endif
