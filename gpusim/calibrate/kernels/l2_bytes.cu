// Byte counts of two L2 traffic patterns, for Nsight Compute (not timed).
//
// ldgsts_copy: each CTA copies ITERS tiles of 64 rows x D floats from global memory into
// shared memory with 16-byte cp.async.cg, in the fp32 kernel's own pattern (flash2_simt.cu,
// simt_load_tile): chunk i of a tile goes to row i / (D/4), column 4 (i % (D/4)) of a
// shared tile whose rows are LD floats apart (LD = D + 4 there, LD = D here too).
// l2_reread: every CTA (one per SM) reads the whole working set with 16-byte ld.global.cg,
// each from its own starting point, so that every line is read by SMs all over the chip,
// as the CTAs of one head read its K and V; the second of two launches counts what the
// first left in the L2.
template <int D, int LD, int THREADS>
__global__ void __launch_bounds__(THREADS) ldgsts_copy(const float* __restrict__ src, int tiles_total,
                                                        int iters, float* __restrict__ out) {
    constexpr int ROWS = 64, CH = D / 4, TOTAL = ROWS * CH;
    extern __shared__ __align__(128) float tile[];
    const int tid = threadIdx.x;
    for (int it = 0; it < iters; ++it) {
        const long long t = ((long long)blockIdx.x * iters + it) % tiles_total;
        const float* g = src + t * ROWS * D;
#pragma unroll
        for (int i0 = 0; i0 < TOTAL; i0 += THREADS) {
            const int i = i0 + tid;
            if (TOTAL % THREADS == 0 || i < TOTAL) {
                const int r = i / CH, c = i % CH;
                const unsigned dst = (unsigned)__cvta_generic_to_shared(tile + r * LD + c * 4);
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(g + r * D + c * 4));
            }
        }
        asm volatile("cp.async.commit_group;\n" ::);
        asm volatile("cp.async.wait_group 0;\n" ::);
        __syncthreads();
    }
    out[blockIdx.x * THREADS + tid] = tile[tid];
}

// Reads all ``words`` of ``buf`` with 16-byte ld.global.cg, the block's threads striding from
// ``start`` round the end; returns a value that depends on every load (so none is dropped).
__device__ __forceinline__ unsigned l2s_read_all(const uint4* __restrict__ buf, unsigned long long words,
                                                 unsigned long long start) {
    unsigned acc = 0;
    for (unsigned long long i = threadIdx.x; i < words; i += blockDim.x) {
        unsigned long long j = start + i;
        if (j >= words) j -= words;
        uint4 v;
        asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "l"(buf + j));
        acc ^= v.x ^ v.w;
    }
    return acc;
}

// Where this CTA starts reading a set of ``words``: CTAs start all over it, so that every line
// is wanted by SMs on both sides of the chip at once.
__device__ __forceinline__ unsigned long long l2s_start(unsigned long long words) {
    return (unsigned long long)blockIdx.x * 7919ull * 256ull % words;
}

__global__ void __launch_bounds__(256) l2_reread(const uint4* __restrict__ buf, unsigned long long words,
                                                 float* __restrict__ out) {
    const unsigned long long start = l2s_start(words);
    const unsigned acc = l2s_read_all(buf, words, start);
    out[blockIdx.x * 256 + threadIdx.x] = (float)(acc & 0xffu);
}

#define LC_INST(D, LD, T) template __global__ void ldgsts_copy<D, LD, T>(const float*, int, int, float*);
LC_INST(64, 68, 256)
LC_INST(64, 64, 256)
LC_INST(128, 132, 256)
LC_INST(128, 128, 256)
LC_INST(64, 68, 128)
LC_INST(128, 132, 128)

// l2_survive: does a working set every SM read survive P bytes of other traffic in the L2?
// One CTA per SM (all co-resident). Phase 1: every CTA reads the whole shared set W (as
// l2_reread); phase 2: each CTA streams its own slice of P bytes, read once (as the Q tiles
// and the output of an attention kernel pass through); phase 3 (when `again`): every CTA
// reads W again. DRAM reads with phase 3 minus those without are the bytes of W the L2 lost.
__device__ __forceinline__ void l2s_grid_sync(unsigned* bar, unsigned target) {
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(bar, 1u);
        while (atomicAdd(bar, 0u) < target) {
        }
        __threadfence();
    }
    __syncthreads();
}

// The phases every l2_survive variant shares: read the set W, grid-wide barrier, the other
// traffic (``other_traffic(acc)``, which returns what it read, or 0), barrier, and with
// ``again`` W once more. Each variant differs only in its other traffic.
template <class OtherTraffic>
__device__ __forceinline__ void l2s_survive(const uint4* __restrict__ shared_set, unsigned long long w_words,
                                            int again, unsigned* __restrict__ bar, float* __restrict__ out,
                                            OtherTraffic other_traffic) {
    const unsigned long long start = l2s_start(w_words);
    unsigned acc = l2s_read_all(shared_set, w_words, start);
    l2s_grid_sync(bar, gridDim.x);
    acc ^= other_traffic(acc);
    l2s_grid_sync(bar, 2 * gridDim.x);
    if (again) acc ^= l2s_read_all(shared_set, w_words, start);
    out[blockIdx.x * blockDim.x + threadIdx.x] = (float)(acc & 0xffu);
}

__global__ void __launch_bounds__(256) l2_survive(const uint4* __restrict__ shared_set, unsigned long long w_words,
                                                  const uint4* __restrict__ stream, unsigned long long p_words_per_cta,
                                                  int again, unsigned* __restrict__ bar, float* __restrict__ out) {
    l2s_survive(shared_set, w_words, again, bar, out, [=](unsigned) -> unsigned {
        if (p_words_per_cta == 0) return 0u;
        return l2s_read_all(stream + (unsigned long long)blockIdx.x * p_words_per_cta, p_words_per_cta, 0);
    });
}

// l2_survive_w: as l2_survive, but phase 2 *writes* each CTA's own slice of P bytes (16-byte
// st.global, whole lines, write-back as an output tile's store), so that the DRAM reads of W
// fetched again say how much written lines age a shared set, against read ones.
__device__ __forceinline__ void l2s_write_all(uint4* __restrict__ buf, unsigned long long words, unsigned v) {
    for (unsigned long long i = threadIdx.x; i < words; i += blockDim.x) {
        const unsigned lo = (unsigned)i;
        asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(buf + i), "r"(v), "r"(lo), "r"(v ^ lo), "r"(~lo)
                     : "memory");
    }
}

__global__ void __launch_bounds__(256) l2_survive_w(const uint4* __restrict__ shared_set, unsigned long long w_words,
                                                    uint4* __restrict__ sink, unsigned long long p_words_per_cta,
                                                    int again, unsigned* __restrict__ bar, float* __restrict__ out) {
    l2s_survive(shared_set, w_words, again, bar, out, [=](unsigned acc) -> unsigned {
        if (p_words_per_cta > 0)
            l2s_write_all(sink + (unsigned long long)blockIdx.x * p_words_per_cta, p_words_per_cta, acc);
        return 0u;
    });
}

// l2_survive_h: as l2_survive, but in phase 2 every CTA reads the *whole* P set (each from its
// own starting point), so that the other traffic is itself shared by all SMs, as the K and V
// of other heads are in an attention kernel: does shared traffic age a shared set as much per
// byte as traffic each SM reads alone?
__global__ void __launch_bounds__(256) l2_survive_h(const uint4* __restrict__ shared_set, unsigned long long w_words,
                                                    const uint4* __restrict__ other, unsigned long long p_words,
                                                    int again, unsigned* __restrict__ bar, float* __restrict__ out) {
    l2s_survive(shared_set, w_words, again, bar, out, [=](unsigned) -> unsigned {
        return p_words > 0 ? l2s_read_all(other, p_words, l2s_start(p_words)) : 0u;
    });
}
