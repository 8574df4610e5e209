/* poison.cu — writes the poison pattern into device outputs before each run. */
#include "field.h"

static __global__ void poison_kernel(unsigned long long *p64, unsigned *p32, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (p64)
            p64[i] = POISON_F64;
        else
            p32[i] = POISON_F32;
    }
}

extern "C" int poison_device(void *p, size_t n, int is_float)
{
    poison_kernel<<<1024, 256>>>(is_float ? 0 : (unsigned long long *)p, is_float ? (unsigned *)p : 0, n);
    return (int)cudaGetLastError();
}
