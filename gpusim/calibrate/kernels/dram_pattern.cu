// DRAM bandwidth by access pattern: plain 16-byte loads or stores over a buffer far larger
// than the L2, in runs of RUN_WORDS contiguous 16-byte words, runs PITCH_WORDS apart down a
// band of BAND rows (as a tile walks a row-major matrix whose rows are PITCH_WORDS long: a
// GEMM writing its output tiles, reading its A operand), the bands one after another.
// RUN_WORDS == PITCH_WORDS is one contiguous stream. MODE 0 reads (each word folded into a
// checksum), 1 writes (values from the thread index), 2 copies (read, then write elsewhere).
// Each thread moves one word per iteration of a grid-stride loop.
template <int RUN_WORDS, int MODE>
__global__ void __launch_bounds__(256) dram_pattern(const uint4* __restrict__ src,
                                                    uint4* __restrict__ dst,
                                                    unsigned long long words,
                                                    float* __restrict__ out) {
    constexpr unsigned long long PITCH_WORDS = 2048;  // 32-KiB rows
    constexpr unsigned long long BAND = 128;
    constexpr unsigned long long RUNS_PER_ROW = PITCH_WORDS / RUN_WORDS;
    unsigned acc = 0;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         g < words; g += stride) {
        const unsigned long long run = g / RUN_WORDS, off = g % RUN_WORDS;
        const unsigned long long band = run / (BAND * RUNS_PER_ROW);
        const unsigned long long rem = run % (BAND * RUNS_PER_ROW);
        const unsigned long long row = band * BAND + rem % BAND, col = rem / BAND;
        const unsigned long long w = row * PITCH_WORDS + col * RUN_WORDS + off;
        if (MODE == 0) {
            acc ^= src[w].x;
        } else if (MODE == 1) {
            dst[w] = make_uint4((unsigned)g, (unsigned)w, acc, 7u);
        } else {
            dst[w] = src[w];
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = (float)(acc & 0xffu);
}

#define DP_INST(R, M) \
    template __global__ void dram_pattern<R, M>(const uint4*, uint4*, unsigned long long, float*);
DP_INST(4, 0)
DP_INST(8, 0)
DP_INST(16, 0)
DP_INST(32, 0)
DP_INST(2048, 0)
DP_INST(4, 1)
DP_INST(8, 1)
DP_INST(16, 1)
DP_INST(32, 1)
DP_INST(2048, 1)
DP_INST(8, 2)
DP_INST(2048, 2)
