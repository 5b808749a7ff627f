// The load-product-softmax loop of smem_overlap.cu and barrier_interval.cu, one iteration
// per warp: NLD ldmatrix.x4 (512 B per warp each, conflict-free rows of 16 B) from a 32 KiB
// shared tile; with MMA_PER_LD > 0 each load feeds that many mma.sync m16n8k16 (f16, f32
// accumulate) as their B operand; NMMA_REG more mma.sync take a register B operand; then
// ROUNDS softmax-like passes over the accumulators (FMNMX, FFMA, MUFU.EX2, FADD per value,
// and EXTRA more dependent FFMAs on each exponential: more issue per MUFU, as in a softmax
// that also rescales and converts);
// then __syncthreads() after every SYNC_EVERY-th iteration (never with 0). The next
// iteration's load addresses depend on the running sum (through ``zero``, 0 at run time),
// as the next tile's products depend on the softmax.
#pragma once
#include "clocks.cuh"
#include "warp_mma.cuh"

__device__ __forceinline__ float so_ex2(float x) {
    float y;
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// With STAGGER, the warps wait after the set-up until clock64() reaches ``go`` (cta_phase.cu:
// co-resident CTAs that enter the loop a chosen number of cycles apart); without it the
// argument is unused and the code is that of the loops the other benchmarks time. ACC: the
// accumulators (4 floats each) the products fill and the softmax passes read (step_size.cu
// varies it; 8 everywhere else).
template <int NLD, int MMA_PER_LD, int NMMA_REG, int ROUNDS, int SYNC_EVERY, int EXTRA = 0,
          bool STAGGER = false, int ACC = 8>
__device__ __forceinline__ void step_loop(const unsigned* __restrict__ operands, int iters, unsigned zero,
                                          float* __restrict__ out,
                                          unsigned long long* __restrict__ stamps, long long go = 0) {
    constexpr int TILE_U4 = 2048;  // 32 KiB
    __shared__ uint4 tile[TILE_U4];
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = threadIdx.x; i < TILE_U4; i += blockDim.x) {
        const unsigned* src = operands + 4 * ((blockIdx.x * TILE_U4 + i) % (6 * 512));
        tile[i] = make_uint4(src[0], src[1], src[2], src[3]);
    }
    __syncthreads();
    unsigned a[4], b[2];
#pragma unroll
    for (int i = 0; i < 4; ++i) a[i] = operands[6 * tid + i];
    b[0] = operands[6 * tid + 4];
    b[1] = operands[6 * tid + 5];
    // Operands made outside the loop, so that the loop holds only the instructions measured:
    // a different A per product of one load, a different register B per accumulator.
    unsigned am[4][4], bj[ACC][2];
#pragma unroll
    for (int m = 0; m < 4; ++m)
#pragma unroll
        for (int i = 0; i < 4; ++i) am[m][i] = a[i] ^ (unsigned)(m << 2);
#pragma unroll
    for (int j = 0; j < ACC; ++j) {
        bj[j][0] = b[0] ^ (unsigned)(j << 1);
        bj[j][1] = b[1] ^ (unsigned)(j << 3);
    }
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned base = (unsigned)__cvta_generic_to_shared(tile);
    unsigned start = (warp * 2048u) & (TILE_U4 * 16 - 1);
    float d[ACC][4];
    float mx = -1e30f, sum = 0.0f, keep = 0.0f;
    unsigned kx = 0;
    if constexpr (STAGGER) {
        while (clock64() < go) {
        }
    }
    GsStamp s = gs_stamp_begin();
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int j = 0; j < ACC; ++j) {
#pragma unroll
            for (int k = 0; k < 4; ++k)
                d[j][k] = (MMA_PER_LD > 0 || NMMA_REG > 0) ? 0.0f : __uint_as_float(a[k] ^ (j + k));
        }
#pragma unroll
        for (int l = 0; l < NLD; ++l) {
            unsigned r[4];
            const unsigned off = (start + l * 512u + lane * 16u) & (TILE_U4 * 16 - 1);
            wm_ldsm_x4(r, base + off);
            if constexpr (MMA_PER_LD > 0) {
#pragma unroll
                for (int m = 0; m < MMA_PER_LD; ++m)
                    wm_hmma(d[(l * MMA_PER_LD + m) % ACC], am[m], r[(2 * m) & 3], r[(2 * m + 1) & 3]);
            } else {
                kx ^= r[0];  // one use keeps the load; the others are left unused
            }
        }
#pragma unroll
        for (int m = 0; m < NMMA_REG; ++m) wm_hmma(d[m % ACC], a, bj[m % ACC][0], bj[m % ACC][1]);
#pragma unroll
        for (int rr = 0; rr < ROUNDS; ++rr) {
#pragma unroll
            for (int j = 0; j < ACC; ++j) {
#pragma unroll
                for (int k = 0; k < 4; ++k) {
                    mx = fmaxf(mx, d[j][k]);
                    float p = so_ex2(fmaf(d[j][k], 1.4426950f, -mx));
#pragma unroll
                    for (int e = 0; e < EXTRA; ++e) p = fmaf(p, 0.9990234f, 1.0e-7f);
                    sum += p;
                    d[j][k] = p;
                }
            }
        }
        if (ROUNDS == 0) {
#pragma unroll
            for (int j = 0; j < ACC; ++j) keep += d[j][0];
        }
        start = (start + 4096u + ((__float_as_uint(sum + keep) ^ kx) & zero)) & (TILE_U4 * 16 - 1);
        if constexpr (SYNC_EVERY == 1) {
            __syncthreads();
        } else if constexpr (SYNC_EVERY > 1) {
            if (it % SYNC_EVERY == SYNC_EVERY - 1) __syncthreads();
        }
    }
    gs_stamp_end(s, stamps);
    float acc = sum + mx + keep + (float)(kx & 1u);
#pragma unroll
    for (int j = 0; j < ACC; ++j) acc += d[j][0] + d[j][1] + d[j][2] + d[j][3];
    out[tid] = acc;
}

