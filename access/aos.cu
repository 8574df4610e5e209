/* aos.cu — fastwaves with its 11 fields as an array of structs (one struct of 11 values per
 * point), for comparison with the struct-of-arrays layout every other kernel uses (thesis
 * Table 4.2). Thread per cell, offsets looked up once (idxvar) on the unstructured grid;
 * arithmetic on the regular grid. Only the field access changes: the body is FASTWAVES_BODY. */
#define KERNEL_BOUNDS 1024 /* see kernels.cuh */
#include "kernels.cuh"

#define AOS_NF 11
#define AOS_u_pos 0
#define AOS_v_pos 1
#define AOS_u_tens 2
#define AOS_v_tens 3
#define AOS_rho 4
#define AOS_ppuv 5
#define AOS_fx 6
#define AOS_wgtfac 7
#define AOS_hhl 8
#define AOS_u_out 9
#define AOS_v_out 10

/* Outputs share the struct array with the inputs, so loads take the ordinary path. */
#undef LD
#undef LDZ
#undef ST
#define LD(f, R) (aos[(long)(NB(R)) * AOS_NF + AOS_##f])
#define LDZ(f, R, dz) (aos[(long)(NB(R) + (dz) * ZS) * AOS_NF + AOS_##f])
#define ST(f, v) (aos[(long)(NB(C)) * AOS_NF + AOS_##f] = (v))

#define FASTWAVES_AOS_BIND(F) T *RESTRICT aos = (T *)(F).p[0]
#define FASTWAVES_AOS_BODY FASTWAVES_BODY
#define FASTWAVES_AOS_RELS FASTWAVES_RELS

#define STRATEGY_UNS(ST) IDXVAR_UNS(ST)
#define STRATEGY_REG(ST) REG_PER_CELL(ST)

#define NB(R) GATHERED_NB(R)
UNS_KERNELS(FASTWAVES_AOS, double) UNS_KERNELS(FASTWAVES_AOS, float)
REG_KERNEL(FASTWAVES_AOS, double) REG_KERNEL(FASTWAVES_AOS, float)

extern "C" {
aos_kernel_table aos_kernels = {KERNEL_ROW(FASTWAVES_AOS, double), KERNEL_ROW(FASTWAVES_AOS, float)};
int aos_kernels_upload(const void *rows, size_t bytes)
{
    return (int)cudaMemcpyToSymbol(c_nbtab, rows, bytes);
}
}
