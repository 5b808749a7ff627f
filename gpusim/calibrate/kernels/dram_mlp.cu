// DRAM bandwidth against the bytes a thread keeps in flight (memory-level parallelism).
//
// Each trip of a thread issues K independent 16-byte loads from a buffer far larger than the
// L2 and waits for all of them (the next trip's addresses depend on what they returned,
// through a mask the host sets to zero, so the compiler cannot start the next trip early);
// with COPY each loaded word is then stored to a second buffer (fire and forget), as a row
// softmax reads a row and writes it back. With C CTAs of 128 threads per SM, the SM keeps
// C x 128 x K x 16 bytes of reads in flight: Little's law says how far below the DRAM's
// bandwidth that leaves the GPU when the latency cannot be covered.
template <int K, bool COPY>
__global__ void __launch_bounds__(128) dram_mlp(const uint4* __restrict__ src, uint4* __restrict__ dst,
                                                unsigned long long mask, int trips, unsigned zero,
                                                float* __restrict__ out) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned acc = 0;
    for (int t = 0; t < trips; ++t) {
        uint4 v[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            unsigned long long j = (i + k * stride) & mask;
            asm volatile("ld.global.nc.v4.u32 {%0,%1,%2,%3}, [%4];"
                         : "=r"(v[k].x), "=r"(v[k].y), "=r"(v[k].z), "=r"(v[k].w)
                         : "l"(src + j));
        }
#pragma unroll
        for (int k = 0; k < K; ++k) {
            acc ^= v[k].x ^ v[k].w;
            if (COPY) dst[(i + k * stride) & mask] = v[k];
        }
        i += K * stride + (acc & zero);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = (float)(acc & 0xffu);
}

#define DM_INST(K, COPY) \
    template __global__ void dram_mlp<K, COPY>(const uint4*, uint4*, unsigned long long, int, unsigned, float*);
DM_INST(1, false)
DM_INST(2, false)
DM_INST(4, false)
DM_INST(8, false)
DM_INST(16, false)  // sm_stream.py: 32 KiB in flight per 128-thread CTA
DM_INST(1, true)
DM_INST(2, true)
DM_INST(4, true)
DM_INST(8, true)
