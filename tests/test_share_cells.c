/* test_share_cells.c — listed cells between device arrays and a host buffer (src/plan/share.h):
 * share_cells_move against field_cells (storage/field.h) on the host copy, bit for bit, for
 * 4- and 8-byte values, lists in any order with repeats on reads, a level stride wider than the
 * cells, scatters into one array and into two, lists that grow and shrink between calls (the
 * device buffers are kept). Exits 77 (skipped) without a device. */
#include "check.h"
#include "src/exec/gpu.h"
#include "src/plan/share.h"
#include "storage/field.h"

#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static int draw(int n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int)(rng % (uint64_t)n);
}

/* One case: a field of ncells x nz (stride zs >= ncells) of es-byte values, n listed cells
 * (distinct when scattering). */
static void one(share_cells *c, size_t es, int ncells, int nz, long zs, int n, int pack, int two)
{
    size_t len = (size_t)zs * (size_t)nz, bytes = es * len, mb = es * (size_t)n * (size_t)nz;
    unsigned char *host = malloc(bytes), *want = malloc(bytes), *buf = malloc(mb + 1);
    unsigned char *got = malloc(bytes), *got2 = malloc(bytes);
    int *cell = malloc(sizeof(int) * (size_t)n), *perm = malloc(sizeof(int) * (size_t)ncells);
    for (size_t i = 0; i < bytes; i++)
        host[i] = (unsigned char)draw(256);
    for (int i = 0; i < ncells; i++)
        perm[i] = i;
    for (int i = ncells - 1; i > 0; i--) { /* distinct cells for a scatter */
        int j = draw(i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int j = 0; j < n; j++)
        cell[j] = pack ? draw(ncells) : perm[j];
    void *dev[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        cudaMalloc(&dev[k], bytes);
        cudaMemcpy(dev[k], host, bytes, cudaMemcpyHostToDevice);
    }
    memcpy(want, host, bytes);
    if (pack) {
        unsigned char *ref = malloc(mb + 1);
        field_cells(want, nz, zs, es, cell, n, ref, 1);
        void *at[2] = {dev[0], NULL};
        share_cells_move(c, at, zs, nz, es == 4, cell, n, buf, 1, NULL);
        CHECK(memcmp(buf, ref, mb) == 0, "gather of %d cells, %zu-byte values, %d levels", n, es,
              nz);
        free(ref);
    } else {
        for (size_t i = 0; i < mb; i++)
            buf[i] = (unsigned char)draw(256);
        field_cells(want, nz, zs, es, cell, n, buf, 0);
        void *at[2] = {dev[0], two ? dev[1] : NULL};
        share_cells_move(c, at, zs, nz, es == 4, cell, n, buf, 0, NULL);
        cudaMemcpy(got, dev[0], bytes, cudaMemcpyDeviceToHost);
        cudaMemcpy(got2, dev[1], bytes, cudaMemcpyDeviceToHost);
        CHECK(memcmp(got, want, bytes) == 0, "scatter of %d cells, %zu-byte values, %d levels",
              n, es, nz);
        CHECK(memcmp(got2, two ? want : host, bytes) == 0,
              "the second array after a scatter %s it", two ? "into" : "not into");
    }
    cudaFree(dev[0]);
    cudaFree(dev[1]);
    free(host);
    free(want);
    free(buf);
    free(got);
    free(got2);
    free(cell);
    free(perm);
}

int main(void)
{
    char msg[256];
    if (!gpu_probe(msg, sizeof msg)) {
        printf("test_share_cells: skipped: %s\n", msg);
        return 77;
    }
    share_cells c;
    memset(&c, 0, sizeof c);
    static const int counts[] = {1, 37, 1000, 5, 4096, 300};
    for (int e = 0; e < 2; e++)
        for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
            for (int pack = 0; pack < 2; pack++) {
                int ncells = 5000, nz = 1 + (int)i % 4;
                long zs = ncells + (long)(i % 3) * 64;
                one(&c, e ? 8 : 4, ncells, nz, zs, counts[i], pack, (int)i % 2);
            }
    share_cells_free(&c);
    CHECK(cudaGetLastError() == cudaSuccess, "a CUDA error");
    return check_done("test_share_cells");
}
