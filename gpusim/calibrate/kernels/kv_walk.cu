// kv_walk: CTAs that walk a shared buffer tile by tile, as the CTAs of one attention head
// walk its K and V, with arithmetic between tiles and no attention in it.
//
// The grid is 1-D and launched in order: CTA b walks the buffer of "head" b / ctas_per_head,
// so that consecutive CTAs share a buffer as consecutive query blocks of a head share K/V.
// Each CTA (128 threads) streams its head's buffer forward in tiles of 32 KiB with 16-byte
// cp.async.cg (through the L2, not L1) into two shared-memory stages: the next tile is in
// flight while the current one is worked on (``work`` rounds of eight independent FMA chains
// per thread, seeded from the tile, so that the loads cannot be dropped and co-resident CTAs
// share the SM's FP32 pipes as attention CTAs share its tensor cores). The dynamic shared
// memory asked for at launch decides how many CTAs share an SM.
//
// Thread 0 stamps each CTA: stamps[3 b] = the SM it ran on, stamps[3 b + 1] and [3 b + 2]
// = %globaltimer (ns) at its start and end.
#include "clocks.cuh"
#include "tile_stream.cuh"
#include "warp_mma.cuh"

constexpr int KW_THREADS = 128;
constexpr int KW_TILE_WORDS = 2048;  // uint4 words: 32 KiB, a d128 Bc64 tile of K and V in bf16

__device__ __forceinline__ void kw_issue_tile(uint4* stage, const uint4* __restrict__ g) {
    ts_issue_tile<KW_TILE_WORDS, KW_THREADS>(stage, g);
}

__device__ __forceinline__ unsigned kw_smid() {
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}

// The walk both kernels share: stamp the start, stream the head's buffer through two stages,
// call ``work(tile)`` on each landed tile (between two barriers: the stage is refilled two
// tiles on), then ``finish()`` gives the thread's output and thread 0 stamps the end.
template <class Work, class Finish>
__device__ __forceinline__ void kw_walk(const uint4* __restrict__ buf, unsigned long long head_words,
                                        int ctas_per_head, int tiles, unsigned long long* __restrict__ stamps,
                                        float* __restrict__ out, uint4* stage, Work work, Finish finish) {
    const unsigned long long t_start = gs_globaltimer_ns();
    const uint4* head = buf + (unsigned long long)(blockIdx.x / ctas_per_head) * head_words;
    kw_issue_tile(stage, head);
    for (int t = 0; t < tiles; ++t) {
        if (t + 1 < tiles) {
            kw_issue_tile(stage + ((t + 1) & 1) * KW_TILE_WORDS,
                          head + (unsigned long long)(t + 1) * KW_TILE_WORDS);
            asm volatile("cp.async.wait_group 1;\n" ::);
        } else {
            asm volatile("cp.async.wait_group 0;\n" ::);
        }
        __syncthreads();
        work(stage + (t & 1) * KW_TILE_WORDS);
        __syncthreads();
    }
    out[blockIdx.x * KW_THREADS + threadIdx.x] = finish();
    if (threadIdx.x == 0) {
        stamps[3ull * blockIdx.x] = kw_smid();
        stamps[3ull * blockIdx.x + 1] = t_start;
        stamps[3ull * blockIdx.x + 2] = gs_globaltimer_ns();
    }
}

extern "C" __global__ void __launch_bounds__(KW_THREADS)
    kv_walk(const uint4* __restrict__ buf, unsigned long long head_words, int ctas_per_head, int tiles,
            int work, unsigned long long* __restrict__ stamps, float* __restrict__ out) {
    extern __shared__ __align__(128) uint4 stage[];  // 2 x KW_TILE_WORDS
    float a[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) a[k] = 1.0f + 1e-3f * (float)(threadIdx.x + k);
    kw_walk(
        buf, head_words, ctas_per_head, tiles, stamps, out, stage,
        [&](const uint4* tile) {
            const uint4 v = tile[threadIdx.x];
            const float b = 1e-9f * (float)(v.x ^ v.w);
            for (int r = 0; r < work; ++r) {
#pragma unroll
                for (int k = 0; k < 8; ++k) a[k] = fmaf(a[k], 0.999f, b);
            }
        },
        [&]() {
            float s = 0.0f;
#pragma unroll
            for (int k = 0; k < 8; ++k) s += a[k];
            return s;
        });
}

// kv_walk_mma: the same walk with the work between tiles on the tensor cores, as an attention
// step does it: ``work`` rounds per tile of one ldmatrix.x4 from the landed tile and eight
// independent mma.sync m16n8k16 per warp (co-resident CTAs share the SM's tensor pipes).
extern "C" __global__ void __launch_bounds__(KW_THREADS)
    kv_walk_mma(const uint4* __restrict__ buf, unsigned long long head_words, int ctas_per_head, int tiles,
                int work, unsigned long long* __restrict__ stamps, float* __restrict__ out) {
    extern __shared__ __align__(128) uint4 stage[];  // 2 x KW_TILE_WORDS
    float acc[8][4] = {};
    const unsigned lane_bytes = (threadIdx.x & 127u) * 16u;  // a row address per lane, in 2 KiB
    kw_walk(
        buf, head_words, ctas_per_head, tiles, stamps, out, stage,
        [&](const uint4* tile) {
            const unsigned base = (unsigned)__cvta_generic_to_shared(tile);
            for (int r = 0; r < work; ++r) {
                unsigned a[4];
                wm_ldsm_x4(a, base + lane_bytes + (unsigned)(r & 15) * 2048u);
#pragma unroll
                for (int k = 0; k < 8; ++k) wm_hmma(acc[k], a, a[k & 3], a[(k + 1) & 3]);
            }
        },
        [&]() {
            float s = 0.0f;
#pragma unroll
            for (int k = 0; k < 8; ++k) s += acc[k][0] + acc[k][1] + acc[k][2] + acc[k][3];
            return isfinite(s) ? 1.0f : 0.0f;  // random bits: any value
        });
}

// kv_walk_mix: kv_walk_mma's walk with a softmax-like pass after the products of each tile, as
// an attention step alternates its tensor-core products with exponentials and row arithmetic:
// ``mix`` rounds over the 32 accumulators of one ex2.approx (MUFU) and two FMAs each.
extern "C" __global__ void __launch_bounds__(KW_THREADS)
    kv_walk_mix(const uint4* __restrict__ buf, unsigned long long head_words, int ctas_per_head, int tiles,
                int work, int mix, unsigned long long* __restrict__ stamps, float* __restrict__ out) {
    extern __shared__ __align__(128) uint4 stage[];  // 2 x KW_TILE_WORDS
    float acc[8][4] = {};
    const unsigned lane_bytes = (threadIdx.x & 127u) * 16u;
    kw_walk(
        buf, head_words, ctas_per_head, tiles, stamps, out, stage,
        [&](const uint4* tile) {
            const unsigned base = (unsigned)__cvta_generic_to_shared(tile);
            for (int r = 0; r < work; ++r) {
                unsigned a[4];
                wm_ldsm_x4(a, base + lane_bytes + (unsigned)(r & 15) * 2048u);
#pragma unroll
                for (int k = 0; k < 8; ++k) wm_hmma(acc[k], a, a[k & 3], a[(k + 1) & 3]);
            }
            for (int r = 0; r < mix; ++r) {
#pragma unroll
                for (int k = 0; k < 8; ++k) {
#pragma unroll
                    for (int j = 0; j < 4; ++j) {
                        // keep the value bounded: exp2 of a number in (-1, 0]
                        const float x = -fabsf(acc[k][j]) * 1e-3f;
                        acc[k][j] = fmaf(exp2f(x), 0.5f, fmaf(acc[k][j], 0.25f, 0.125f));
                    }
                }
            }
        },
        [&]() {
            float s = 0.0f;
#pragma unroll
            for (int k = 0; k < 8; ++k) s += acc[k][0] + acc[k][1] + acc[k][2] + acc[k][3];
            return isfinite(s) ? 1.0f : 0.0f;
        });
}

// Writes zeros over a scratch buffer between two profiled launches, so that none finds the
// previous one's lines in the L2.
extern "C" __global__ void kv_walk_flush(uint4* __restrict__ scratch, unsigned long long words) {
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < words;
         i += (unsigned long long)gridDim.x * blockDim.x)
        scratch[i] = make_uint4(0u, 0u, 0u, 0u);
}
