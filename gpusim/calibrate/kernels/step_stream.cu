// A tile stream that waits for each tile before it issues the next, with a gap after each:
// the load structure of an attention step (flash2_tc.cu's STAGES path: wait for tile t,
// issue tile t + STAGES - 1 into the freed stage, then work on tile t), with the work
// replaced by a spin of GAP SM cycles, so that an SM keeps only STAGES - 1 tiles in flight
// while it works and fewer while it waits. No attention code: the question is how long a
// step's tile takes to arrive when the SM asks for it this way, against the tile's bytes,
// the SMs streaming and the CTAs on each.
#include "clocks.cuh"
#include "tile_stream.cuh"

template <int STAGES, int WORDS>
__global__ void __launch_bounds__(128) step_stream(const uint4* __restrict__ src,
                                                   unsigned long long base_words,
                                                   unsigned long long words_per_cta,
                                                   long long gap_cycles,
                                                   unsigned long long* __restrict__ stamps,
                                                   float* __restrict__ out) {
    extern __shared__ uint4 stage[];
    const GsStamp st = gs_stamp_begin();
    const uint4* g = src + base_words + (unsigned long long)blockIdx.x * words_per_cta;
    const int tiles = (int)(words_per_cta / WORDS);
    unsigned acc = 0;
#pragma unroll
    for (int t = 0; t < STAGES - 1; ++t) {
        if (t < tiles) {
            ts_issue_tile<WORDS, 128>(stage + t * WORDS, g + (unsigned long long)t * WORDS);
        } else {
            asm volatile("cp.async.commit_group;\n" ::);
        }
    }
    for (int t = 0; t < tiles; ++t) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));
        __syncthreads();  // tile t has landed for everyone; stage (t - 1) % STAGES is free
        const int tn = t + STAGES - 1;
        if (tn < tiles) {
            ts_issue_tile<WORDS, 128>(stage + (tn % STAGES) * WORDS,
                                      g + (unsigned long long)tn * WORDS);
        } else {
            asm volatile("cp.async.commit_group;\n" ::);
        }
        acc ^= stage[(t % STAGES) * WORDS + threadIdx.x].x;  // the tile is used
        if (gap_cycles > 0) {
            const long long c0 = clock64();
            while (clock64() - c0 < gap_cycles) {
            }
        }
    }
    gs_stamp_end(st, stamps);
    out[blockIdx.x * blockDim.x + threadIdx.x] = (float)(acc & 0xffu);
}

#define SS_INST(S, W)                                                                          \
    template __global__ void step_stream<S, W>(const uint4*, unsigned long long,               \
                                               unsigned long long, long long,                  \
                                               unsigned long long*, float*);
SS_INST(2, 512)
SS_INST(2, 1024)
SS_INST(2, 2048)
SS_INST(2, 4096)
SS_INST(3, 512)
SS_INST(3, 1024)
SS_INST(3, 2048)
SS_INST(3, 4096)
