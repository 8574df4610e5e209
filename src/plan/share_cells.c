/* share_cells.c — listed cells between device arrays and a host buffer (src/plan/share.h). */
#include "share.h"
#include "base/common.h"
#include "src/exec/gpu.h"
#include "src/exec/gpu_launch.h"

#include <cuda_runtime.h>

void share_cells_move(share_cells *c, void *const at[2], long zstride, int nz, int is_float,
                      const int *cell, int n, void *buf, int pack, void *stream)
{
    size_t bytes = (is_float ? 4u : 8u) * (size_t)n * (size_t)nz;
    if (n <= 0)
        return;
    if (n > c->cap || bytes > c->bytes) { /* grown, never shrunk */
        share_cells_free(c);
        int *ident = xalloc(sizeof(int) * (size_t)n);
        for (int j = 0; j < n; j++)
            ident[j] = j;
        CK(cudaMalloc((void **)&c->cell, sizeof(int) * (size_t)n));
        CK(cudaMalloc((void **)&c->ident, sizeof(int) * (size_t)n));
        CK(cudaMalloc(&c->buf, bytes));
        gpu_copy(c->ident, ident, sizeof(int) * (size_t)n, 1);
        xfree(ident);
        c->cap = n;
        c->bytes = bytes;
    }
    cudaStream_t st = (cudaStream_t)stream;
    CK(cudaMemcpyAsync(c->cell, cell, sizeof(int) * (size_t)n, cudaMemcpyHostToDevice, st));
    if (pack) {
        CK((cudaError_t)share_launch(c->buf, at[0], c->ident, c->cell, n, nz, n, zstride,
                                     is_float, st));
        CK(cudaMemcpyAsync(buf, c->buf, bytes, cudaMemcpyDeviceToHost, st));
    } else {
        CK(cudaMemcpyAsync(c->buf, buf, bytes, cudaMemcpyHostToDevice, st));
        for (int k = 0; k < 2 && at[k]; k++)
            CK((cudaError_t)share_launch(at[k], c->buf, c->cell, c->ident, n, nz, zstride, n,
                                         is_float, st));
    }
    CK(cudaStreamSynchronize(st));
}

void share_cells_free(share_cells *c)
{
    if (c->cap) {
        CK(cudaFree(c->cell));
        CK(cudaFree(c->ident));
        CK(cudaFree(c->buf));
    }
    c->cell = c->ident = NULL;
    c->buf = NULL;
    c->cap = 0;
    c->bytes = 0;
}
