/* onchip_stage.cuh — how the on-chip persistent kernels (persist_onchip.cu, onchip_regular.cu)
 * bring a level's values into shared memory: with prefetch (pf), the level that the previous one
 * loaded into PF registers a thread is stored, a barrier, and the next level's loads are issued
 * to fly while this one computes; without, each level is loaded and stored before a barrier.
 * load(s, z): the value of slot s at level z. Level z is stored into v (the caller's buffer of
 * parity z & 1); ns slots; pre: the registers, alive across calls. The caller's passes read v
 * after this returns. */
#ifndef PILLAR_ONCHIP_STAGE_CUH
#define PILLAR_ONCHIP_STAGE_CUH

template <typename T, int PF, typename Load>
__device__ __forceinline__ void onchip_stage(bool pf, int z, int nz, int ns, int tid, int nt, T *v,
                                             T (&pre)[PF > 0 ? PF : 1], Load load)
{
    if (pf) {
        if (z == 0) /* a step's first level: nothing loaded it ahead (the barrier) */
#pragma unroll
            for (int i = 0; i < (PF > 0 ? PF : 1); i++)
                if (tid + i * nt < ns)
                    pre[i] = load(tid + i * nt, 0);
#pragma unroll
        for (int i = 0; i < (PF > 0 ? PF : 1); i++)
            if (tid + i * nt < ns)
                v[tid + i * nt] = pre[i];
        __syncthreads();
        if (z + 1 < nz) /* the next level's loads fly while this one computes: its cache level,
                         * state and buffers are not written now */
#pragma unroll
            for (int i = 0; i < (PF > 0 ? PF : 1); i++)
                if (tid + i * nt < ns)
                    pre[i] = load(tid + i * nt, z + 1);
    } else {
        for (int s = tid; s < ns; s += nt) /* the level at the block's slots */
            v[s] = load(s, z);
        __syncthreads();
    }
}

/* What step t reads and writes: the state arrays and the export buffers swap roles every step
 * (step t reads `state` and export buffer 0 at even t). */
template <typename T> struct onchip_parity {
    const T *cur;  /* the state the step reads (its streamed levels, the grid's halo) */
    T *nxt;        /* the state it writes (its streamed levels) */
    const T *xin;  /* the cached levels' values of the other blocks' cells, from the last step */
    T *xout;       /* this step's exports */
    __device__ onchip_parity(int t, void *state, void *other, void *xb0, void *xb1)
        : cur((const T *)((t & 1) ? other : state)), nxt((T *)((t & 1) ? state : other)),
          xin((const T *)((t & 1) ? xb1 : xb0)), xout((T *)((t & 1) ? xb0 : xb1))
    {
    }
};

#endif
