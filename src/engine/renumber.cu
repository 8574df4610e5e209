/* renumber.cu — a field between the caller's cell order and pillar's, on the device
 * (src/engine/renumber.h): one pass over the field, each value read once and written once. */
#include "renumber.h"

#include <float.h>

/* level z, caller's cell i: element j = z * n + i of the caller's array, z * zs + cell[i] of
 * pillar's. Blocks run along i within one level (gridDim.y levels at a time). */
template <typename TU, typename TP>
static __global__ void renumber_in_kernel(TP *to, const TU *from, const int *cell, int n, int nz,
                                          long zs, int check_float, unsigned long long *bad)
{
    for (int z = blockIdx.y; z < nz; z += gridDim.y)
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
            size_t j = (size_t)z * (size_t)n + (size_t)i;
            double v = (double)from[j];
            if (!isfinite(v) || (check_float && fabs(v) > FLT_MAX))
                atomicMin(bad, (unsigned long long)j);
            to[(size_t)z * (size_t)zs + (size_t)cell[i]] = (TP)v;
        }
}

template <typename TP, typename TU>
static __global__ void renumber_out_kernel(TU *to, const TP *from, const int *cell, int n, int nz,
                                           long zs, int nhalo, int zend)
{
    for (int z = blockIdx.y; z < nz; z += gridDim.y)
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
            int c = cell[i];
            TU v = c < nhalo || z >= zend ? (TU)NAN : (TU)from[(size_t)z * (size_t)zs + (size_t)c];
            to[(size_t)z * (size_t)n + (size_t)i] = v;
        }
}

static dim3 renumber_grid(int n, int nz)
{
    unsigned x = (unsigned)((n + 255) / 256);
    return dim3(x > 65535u ? 65535u : x, nz > 65535 ? 65535u : (unsigned)nz, 1);
}

extern "C" int renumber_in(const renumber_args *a, void *to, const void *from, int from_float,
                           unsigned long long *bad, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    dim3 g = renumber_grid(a->n, a->nz);
    if (a->is_float && from_float)
        renumber_in_kernel<<<g, 256, 0, s>>>((float *)to, (const float *)from, a->cell, a->n, a->nz, a->zs, 1, bad);
    else if (a->is_float)
        renumber_in_kernel<<<g, 256, 0, s>>>((float *)to, (const double *)from, a->cell, a->n, a->nz, a->zs, 1, bad);
    else if (from_float)
        renumber_in_kernel<<<g, 256, 0, s>>>((double *)to, (const float *)from, a->cell, a->n, a->nz, a->zs, 0, bad);
    else
        renumber_in_kernel<<<g, 256, 0, s>>>((double *)to, (const double *)from, a->cell, a->n, a->nz, a->zs, 0, bad);
    return (int)cudaGetLastError();
}

extern "C" int renumber_out(const renumber_args *a, void *to, int to_float, const void *from,
                            int nan_uncomputed, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    dim3 g = renumber_grid(a->n, a->nz);
    int nhalo = nan_uncomputed ? a->nhalo : 0, zend = nan_uncomputed ? a->zend : a->nz;
    if (a->is_float && to_float)
        renumber_out_kernel<<<g, 256, 0, s>>>((float *)to, (const float *)from, a->cell, a->n, a->nz, a->zs, nhalo, zend);
    else if (a->is_float)
        renumber_out_kernel<<<g, 256, 0, s>>>((double *)to, (const float *)from, a->cell, a->n, a->nz, a->zs, nhalo, zend);
    else if (to_float)
        renumber_out_kernel<<<g, 256, 0, s>>>((float *)to, (const double *)from, a->cell, a->n, a->nz, a->zs, nhalo, zend);
    else
        renumber_out_kernel<<<g, 256, 0, s>>>((double *)to, (const double *)from, a->cell, a->n, a->nz, a->zs, nhalo, zend);
    return (int)cudaGetLastError();
}
