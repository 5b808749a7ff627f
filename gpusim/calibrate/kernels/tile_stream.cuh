// One CTA's copy of a tile of WORDS 16-byte words from global into shared memory with
// cp.async.cg (through the L2, not L1), THREADS threads striding over it, as one commit group:
// the tile streaming of kv_walk.cu and load_clock.cu (an attention step's next K/V tile).
#pragma once

template <int WORDS, int THREADS>
__device__ __forceinline__ void ts_issue_tile(uint4* stage, const uint4* __restrict__ g) {
#pragma unroll
    for (int i = threadIdx.x; i < WORDS; i += THREADS) {
        const unsigned dst = (unsigned)__cvta_generic_to_shared(stage + i);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(g + i));
    }
    asm volatile("cp.async.commit_group;\n" ::);
}
