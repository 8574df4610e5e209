/* poison.cu — writes the poison pattern into device outputs before each run. */
#include "field.h"

/* Elements offset + k*stride, k < n (stride 1: a struct-of-arrays field; the number of fields:
 * one member of an array of structs). */
static __global__ void poison_kernel(unsigned long long *p64, unsigned *p32, size_t n, size_t stride,
                                     size_t offset)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
         k += (size_t)gridDim.x * blockDim.x) {
        if (p64)
            p64[offset + k * stride] = POISON_F64;
        else
            p32[offset + k * stride] = POISON_F32;
    }
}

extern "C" int poison_device(void *p, size_t n, size_t stride, size_t offset, int is_float)
{
    poison_kernel<<<1024, 256>>>(is_float ? 0 : (unsigned long long *)p, is_float ? (unsigned *)p : 0,
                                 n, stride, offset);
    return (int)cudaGetLastError();
}
