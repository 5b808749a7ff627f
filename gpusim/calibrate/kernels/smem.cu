// Shared-memory load bandwidth: each warp reads 32 consecutive 16-byte words
// (512 contiguous bytes, so every quarter-warp covers all 32 banks once: no
// conflicts). The loads are volatile asm so they are neither hoisted out of
// the loop nor merged; three-input XORs keep all four words alive.
#include "clocks.cuh"

#define GS_SMEM_WORDS 1024  // 16 KiB of 16-byte words per block

__device__ __forceinline__ uint4 gs_lds128(unsigned addr) {
    uint4 v;
    asm volatile("ld.volatile.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(addr));
    return v;
}

// blockDim.x must divide GS_SMEM_WORDS; each step reads GS_SMEM_WORDS / blockDim.x words per thread.
extern "C" __global__ void __launch_bounds__(256, 8) lds128_loop(int iters, unsigned* __restrict__ out,
                                       unsigned long long* __restrict__ stamps) {
    __shared__ uint4 tile[GS_SMEM_WORDS];
    for (unsigned i = threadIdx.x; i < GS_SMEM_WORDS; i += blockDim.x) {
        tile[i] = make_uint4(i * 2654435761u, i + 1, i ^ 0x5bd1e995u, i * 7u + 3u);
    }
    __syncthreads();
    unsigned base = (unsigned)__cvta_generic_to_shared(&tile[threadIdx.x]);
    unsigned step_bytes = blockDim.x * 16u;
    unsigned a = 0, b = 0;
    GsStamp s = gs_stamp_begin();
    for (int i = 0; i < iters; ++i) {
        // 4 loads per step at fixed offsets from base: with 256 threads they cover the 16 KiB tile.
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            uint4 v = gs_lds128(base + u * step_bytes);
            // All four words are used: with fewer, ptxas narrows the load to 32-bit LDS.
            a ^= v.x ^ v.y;
            b ^= v.z ^ v.w;
        }
    }
    gs_stamp_end(s, stamps);
    out[blockIdx.x * blockDim.x + threadIdx.x] = a ^ b;
}
