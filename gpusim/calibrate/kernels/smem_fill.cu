// Do cp.async fills of shared memory take the bandwidth that ldmatrix reads use?
//
// Each iteration of a warp: NFILL cp.async.cg copies of 16 B per lane (512 B per warp each)
// from an L2-resident global buffer into an 8 KiB fill region of shared memory, committed as
// one group; then NLD ldmatrix.x4 (512 B per warp each) from a separate 32 KiB tile; then a
// wait for the previous iteration's group (two groups in flight, as a two-stage K/V ring
// keeps) and __syncthreads(). FlashAttention-2's tile steps do the same: the next K/V tile
// lands by cp.async while the warps read the current one with ldmatrix. Comparing the loop
// with fills to the loop without says how much a filled byte costs the shared-memory reads.
#include "clocks.cuh"
#include "warp_mma.cuh"

__device__ __forceinline__ void sf_cp_async16(unsigned dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}

template <int NLD, int NFILL>
__global__ void __launch_bounds__(512) smem_fill(const uint4* __restrict__ src, unsigned src_mask,
                                                 int iters, unsigned zero, float* __restrict__ out,
                                                 unsigned long long* __restrict__ stamps) {
    constexpr int TILE_U4 = 2048;  // 32 KiB read by ldmatrix
    constexpr int FILL_U4 = 512;  // 8 KiB written by cp.async (never read: no consumer)
    __shared__ uint4 tile[TILE_U4];
    __shared__ uint4 fill[FILL_U4];
    for (int i = threadIdx.x; i < TILE_U4; i += blockDim.x) tile[i] = src[(blockIdx.x * TILE_U4 + i) & src_mask];
    __syncthreads();
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned base = (unsigned)__cvta_generic_to_shared(tile);
    const unsigned fbase = (unsigned)__cvta_generic_to_shared(fill);
    unsigned start = (warp * 2048u) & (TILE_U4 * 16 - 1);
    // Each CTA walks its own stretch of the source, coalesced: lane l copies bytes 16 l.
    unsigned g = (blockIdx.x * 7919u * 32u + threadIdx.x) & src_mask;
    unsigned kx = 0;
    GsStamp s = gs_stamp_begin();
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int f = 0; f < NFILL; ++f) {
            const unsigned dst = fbase + (((warp * NFILL + f) * 32u + lane + it * 64u) & (FILL_U4 - 1)) * 16u;
            sf_cp_async16(dst, src + ((g + f * blockDim.x) & src_mask));
        }
        asm volatile("cp.async.commit_group;\n" ::);
        g = (g + NFILL * blockDim.x) & src_mask;
#pragma unroll
        for (int l = 0; l < NLD; ++l) {
            unsigned r[4];
            const unsigned off = (start + l * 512u + lane * 16u) & (TILE_U4 * 16 - 1);
            wm_ldsm_x4(r, base + off);
            kx ^= r[0];
        }
        asm volatile("cp.async.wait_group 1;\n" ::);
        start = (start + 4096u + (kx & zero)) & (TILE_U4 * 16 - 1);
        __syncthreads();
    }
    asm volatile("cp.async.wait_group 0;\n" ::);
    gs_stamp_end(s, stamps);
    out[blockIdx.x * blockDim.x + threadIdx.x] = (float)(kx & 0xffu) + (float)fill[threadIdx.x & (FILL_U4 - 1)].x * 0.0f;
}

#define SF_INST(NLD, NFILL) \
    template __global__ void smem_fill<NLD, NFILL>(const uint4*, unsigned, int, unsigned, float*, unsigned long long*);
SF_INST(32, 0)
SF_INST(0, 4)
SF_INST(0, 8)
SF_INST(32, 4)
SF_INST(32, 8)
SF_INST(16, 8)
