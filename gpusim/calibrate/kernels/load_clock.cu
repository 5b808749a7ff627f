// load_clock: the SM clock under the load an attention step puts on the GPU, one part at a time,
// with no attention in it.
//
// Each CTA (128 threads, two shared-memory stages of 32 KiB, the size of a d128 Bc64 K+V tile
// in bf16) runs ``tiles`` steps. A step can
//   - stream: bring the next 32 KiB from a global buffer into the other stage with 16-byte
//     cp.async.cg (through the L2; the buffer's size decides whether the bytes come from the
//     L2 or from DRAM), as an attention CTA brings its next K/V tile;
//   - products: ``mma_rounds`` rounds of one ldmatrix.x4 from the landed stage and eight
//     independent mma.sync m16n8k16 per warp;
//   - softmax: ``mix_rounds`` rounds over the 32 accumulators of one ex2.approx and two FMAs.
// Without streaming the stages are filled once and re-read. Every part's operands come from
// the previous one, so that none can be dropped. Thread 0 stamps clock64 and %globaltimer at
// the CTA's start and end (clocks.cuh): cycles over nanoseconds is the clock the SM ran at.
#include "clocks.cuh"
#include "tile_stream.cuh"
#include "warp_mma.cuh"

constexpr int LC_THREADS = 128;
constexpr int LC_TILE_WORDS = 2048;  // uint4 words: 32 KiB

__device__ __forceinline__ void lc_issue_tile(uint4* stage, const uint4* __restrict__ g) {
    ts_issue_tile<LC_TILE_WORDS, LC_THREADS>(stage, g);
}

extern "C" __global__ void __launch_bounds__(LC_THREADS)
    load_clock(const uint4* __restrict__ buf, unsigned long long buf_tiles, int tiles, int stream,
               int mma_rounds, int mix_rounds, unsigned long long* __restrict__ stamps,
               float* __restrict__ out) {
    extern __shared__ __align__(128) uint4 stage[];  // 2 x LC_TILE_WORDS
    const GsStamp st = gs_stamp_begin();
    // CTAs start at tiles spread over the buffer and walk it forward, wrapping at its end.
    unsigned long long tile = (blockIdx.x * 7919ull) % buf_tiles;
    lc_issue_tile(stage, buf + tile * LC_TILE_WORDS);
    lc_issue_tile(stage + LC_TILE_WORDS, buf + ((tile + 1) % buf_tiles) * LC_TILE_WORDS);
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncthreads();
    float acc[8][4] = {};
    const unsigned lane_bytes = (threadIdx.x & 127u) * 16u;  // a row address per lane, in 2 KiB
    for (int t = 0; t < tiles; ++t) {
        if (stream) {
            tile = (tile + 1) % buf_tiles;
            lc_issue_tile(stage + ((t + 1) & 1) * LC_TILE_WORDS, buf + tile * LC_TILE_WORDS);
            asm volatile("cp.async.wait_group 1;\n" ::);
        }
        __syncthreads();
        const unsigned base = (unsigned)__cvta_generic_to_shared(stage + (t & 1) * LC_TILE_WORDS);
        for (int r = 0; r < mma_rounds; ++r) {
            unsigned a[4];
            wm_ldsm_x4(a, base + lane_bytes + (unsigned)(r & 15) * 2048u);
#pragma unroll
            for (int k = 0; k < 8; ++k) wm_hmma(acc[k], a, a[k & 3], a[(k + 1) & 3]);
        }
        for (int r = 0; r < mix_rounds; ++r) {
#pragma unroll
            for (int k = 0; k < 8; ++k) {
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    const float x = -fabsf(acc[k][j]) * 1e-3f;  // exp2 of a number in (-1, 0]
                    acc[k][j] = fmaf(exp2f(x), 0.5f, fmaf(acc[k][j], 0.25f, 0.125f));
                }
            }
        }
        __syncthreads();
    }
    asm volatile("cp.async.wait_group 0;\n" ::);
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += acc[k][0] + acc[k][1] + acc[k][2] + acc[k][3];
    out[blockIdx.x * LC_THREADS + threadIdx.x] = isfinite(s) ? 1.0f : 0.0f;  // random bits: any value
    gs_stamp_end(st, stamps);
}
