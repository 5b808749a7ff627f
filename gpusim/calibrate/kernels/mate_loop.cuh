// The loop of mate_step.cu and mate_wide.cu: does the older of two SM-mates run ahead in a step
// that has a softmax? cta_scatter.cu's loop
// (NFILL 16-byte cp.async copies per lane, NLD ldmatrix.x4 each feeding MMA_PER_LD mma.sync, a
// wait and a barrier) with, between the products and the barrier, one softmax-like pass over
// the accumulator floats a thread holds (FMNMX, FFMA, MUFU.EX2, FADD per float, the running max
// and sum carried), as a FlashAttention step's products are followed by its softmax; the next
// products accumulate onto its results. Four products per exponential, as the attention step
// has: ACC = NLD x MMA_PER_LD / 16 accumulators of 4 floats (64 products: 16 floats a thread;
// 256: 64, as a warp of the 128 x 64 tile holds 32 x 64 scores). No attention code. Thread 0
// writes, per CTA: %smid, %globaltimer at start and end.
#pragma once
#include "clocks.cuh"
#include "warp_mma.cuh"

__device__ __forceinline__ unsigned ms_smid() {
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}

__device__ __forceinline__ float ms_ex2(float x) {
    float y;
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

template <int NLD, int MMA_PER_LD, int NFILL>
__device__ __forceinline__ void mate_loop(const uint4* __restrict__ src, unsigned long long src_mask, int iters,
                                          unsigned zero, float* __restrict__ out,
                                          unsigned long long* __restrict__ stamps) {
    constexpr int TILE_U4 = 1024;  // 16 KiB read by ldmatrix
    constexpr int FILL_U4 = 1024;  // 16 KiB landing by cp.async
    __shared__ uint4 tile[TILE_U4];
    __shared__ uint4 fill[FILL_U4];
    const unsigned long long t0 = gs_globaltimer_ns();
    for (int i = threadIdx.x; i < TILE_U4; i += blockDim.x) tile[i] = src[(blockIdx.x * 64ull + i) & src_mask];
    __syncthreads();
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned base = (unsigned)__cvta_generic_to_shared(tile);
    const unsigned fbase = (unsigned)__cvta_generic_to_shared(fill);
    unsigned long long g = (blockIdx.x * 7919ull * 128ull + threadIdx.x) & src_mask;
    constexpr int ACC = NLD * MMA_PER_LD / 16;
    static_assert(ACC >= 1 && NLD * MMA_PER_LD % 16 == 0, "four products per exponential");
    float d[ACC][4] = {};
    float mx = -1e30f, sum = 0.0f;
    unsigned a[4] = {lane, warp, lane ^ 5u, 3u};
    unsigned start = (warp * 4096u) & (TILE_U4 * 16 - 1);
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int f = 0; f < NFILL; ++f) {
            const unsigned dst = fbase + ((threadIdx.x + f * 128u) & (FILL_U4 - 1)) * 16u;
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src + ((g + f * 128ull) & src_mask)));
        }
        asm volatile("cp.async.commit_group;\n" ::);
        g = (g + NFILL * 128ull) & src_mask;
#pragma unroll
        for (int l = 0; l < NLD; ++l) {
            unsigned r[4];
            wm_ldsm_x4(r, base + ((start + l * 512u + lane * 16u) & (TILE_U4 * 16 - 1)));
#pragma unroll
            for (int m = 0; m < MMA_PER_LD; ++m) wm_hmma(d[(l * MMA_PER_LD + m) % ACC], a, r[(2 * m) & 3], r[(2 * m + 1) & 3]);
        }
#pragma unroll
        for (int j = 0; j < ACC; ++j) {
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                mx = fmaxf(mx, d[j][k]);
                const float p = ms_ex2(fmaf(d[j][k], 1.4426950f, -mx));
                sum += p;
                d[j][k] = p;
            }
        }
        asm volatile("cp.async.wait_group 0;\n" ::);
        start = (start + 2048u + (__float_as_uint(sum) & zero)) & (TILE_U4 * 16 - 1);
        __syncthreads();
    }
    const unsigned long long t1 = gs_globaltimer_ns();
    if (threadIdx.x == 0) {
        stamps[3ull * blockIdx.x] = ms_smid();
        stamps[3ull * blockIdx.x + 1] = t0;
        stamps[3ull * blockIdx.x + 2] = t1;
    }
    // A finite sink every thread writes (the products' operands are arbitrary bit patterns, so
    // their values may be NaN): the NaN poison shows a thread that did not.
    unsigned acc = fill[threadIdx.x].x ^ __float_as_uint(sum) ^ __float_as_uint(mx);
#pragma unroll
    for (int i = 0; i < 4; ++i) acc ^= __float_as_uint(d[i][0]) ^ __float_as_uint(d[i][3]);
    out[blockIdx.x * blockDim.x + threadIdx.x] = (float)(acc & 0xffu);
}

