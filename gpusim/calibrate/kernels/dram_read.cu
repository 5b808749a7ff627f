// DRAM read bandwidth of a tile stream into shared memory, as a tile loader issues it.
//
// Each CTA walks its own contiguous slice of a buffer far larger than the L2, TILE_WORDS
// 16-byte words per tile, STAGES tiles in flight: every thread issues its share of a tile's
// 16-byte cp.async.cg copies, one commit group per tile, and waits for the oldest group
// before it reads one word of that tile (folded into a checksum, so the copies are used)
// and issues the next tile into the freed stage. With COPY each thread also stores the word
// it read and the rest of its share of the tile back to a second buffer (plain 16-byte
// stores), so the stream is reads and writes in equal bytes.
template <int STAGES, bool COPY>
__global__ void __launch_bounds__(256) dram_read(const uint4* __restrict__ src,
                                                 uint4* __restrict__ dst,
                                                 unsigned long long words_per_cta,
                                                 int tile_words, float* __restrict__ out) {
    extern __shared__ uint4 stage[];
    const unsigned long long first = (unsigned long long)blockIdx.x * words_per_cta;
    const int tiles = (int)(words_per_cta / tile_words);
    unsigned acc = 0;
    auto issue = [&](int t) {
        if (t < tiles) {
            const uint4* g = src + first + (unsigned long long)t * tile_words;
            uint4* s = stage + (t % STAGES) * tile_words;
            for (int w = threadIdx.x; w < tile_words; w += blockDim.x) {
                unsigned saddr = (unsigned)__cvta_generic_to_shared(s + w);
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(saddr), "l"(g + w));
            }
        }
        asm volatile("cp.async.commit_group;");
    };
#pragma unroll
    for (int t = 0; t < STAGES; ++t) issue(t);
    for (int t = 0; t < tiles; ++t) {
        asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 1));
        __syncthreads();
        const uint4* s = stage + (t % STAGES) * tile_words;
        acc ^= s[threadIdx.x].x;
        if (COPY) {
            uint4* d = dst + first + (unsigned long long)t * tile_words;
            for (int w = threadIdx.x; w < tile_words; w += blockDim.x) d[w] = s[w];
        }
        __syncthreads();
        issue(t + STAGES);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = (float)(acc & 0xffu);
}

#define DR_INST(S, COPY) \
    template __global__ void dram_read<S, COPY>(const uint4*, uint4*, unsigned long long, int, float*);
DR_INST(2, false)
DR_INST(3, false)
DR_INST(4, false)
DR_INST(2, true)
DR_INST(4, true)
