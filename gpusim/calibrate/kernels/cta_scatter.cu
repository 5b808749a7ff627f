// How far apart do identical CTAs drift? Start and end of every CTA, and the SM it ran on.
//
// Every CTA runs the same loop: ITERS iterations of NFILL 16-byte cp.async copies per lane
// from a global buffer (the next tile), NLD ldmatrix.x4 from a 16 KiB shared tile each
// feeding MMA_PER_LD mma.sync (the products on the current tile), a wait for the copies and
// a barrier: a tile step of a FlashAttention-like kernel, with its loads, products and
// barrier but no attention arithmetic. The grid is many waves of CTAs, so that the stamps
// say how the CTAs of one wave spread out, how SMs differ in speed, and how that carries
// over into the next waves. Thread 0 writes, per CTA: %smid, %globaltimer at start and end.
#include "clocks.cuh"
#include "warp_mma.cuh"

__device__ __forceinline__ unsigned cs_smid() {
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}

template <int NLD, int MMA_PER_LD, int NFILL>
__global__ void __launch_bounds__(128) cta_scatter(const uint4* __restrict__ src, unsigned long long src_mask,
                                                   int iters, unsigned zero, float* __restrict__ out,
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
    float d[4][4] = {};
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
            for (int m = 0; m < MMA_PER_LD; ++m) wm_hmma(d[m & 3], a, r[(2 * m) & 3], r[(2 * m + 1) & 3]);
        }
        asm volatile("cp.async.wait_group 0;\n" ::);
        start = (start + 2048u + ((unsigned)d[0][0] & zero)) & (TILE_U4 * 16 - 1);
        __syncthreads();
    }
    const unsigned long long t1 = gs_globaltimer_ns();
    if (threadIdx.x == 0) {
        stamps[3ull * blockIdx.x] = cs_smid();
        stamps[3ull * blockIdx.x + 1] = t0;
        stamps[3ull * blockIdx.x + 2] = t1;
    }
    // The products' bits (their operands are arbitrary bit patterns, so the sums may be NaN)
    // and a filled word: a finite sink every thread writes, so the NaN poison shows a miss.
    unsigned acc = fill[threadIdx.x].x;
#pragma unroll
    for (int i = 0; i < 4; ++i) acc ^= __float_as_uint(d[i][0]) ^ __float_as_uint(d[i][3]);
    out[blockIdx.x * blockDim.x + threadIdx.x] = (float)(acc & 0xffu);
}

#define CS_INST(NLD, PER, NFILL) \
    template __global__ void cta_scatter<NLD, PER, NFILL>(const uint4*, unsigned long long, int, unsigned, float*, unsigned long long*);
CS_INST(32, 2, 8)  // products and tile loads, as an attention step
CS_INST(32, 2, 0)  // products alone
CS_INST(4, 1, 8)   // tile loads alone (little compute)
