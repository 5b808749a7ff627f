// Hopper warpgroup products (wgmma.mma_async m64nNk16, f32 accumulators) on every SM:
// their throughput per N, their latency, and how much of a softmax-like stream hides
// behind them, in the same warpgroup or in another one. Written for gpusim's calibration
// (gpusim/calibrate/wgmma.py); shares no code with any attention kernel.
//
// Operands: B (N rows x 64 K, shared by the CTA's warpgroups) and one A (64 rows x 64 K)
// per warpgroup in shared memory, filled with random non-zero values; either the 128-byte
// swizzled K-major layout (SWZ 1: 8-row atoms of 1024 bytes, a k16 step is 32 bytes on) or
// the unswizzled one (SWZ 0: 8x8 core matrices of 128 bytes, K-neighbours 128 bytes apart,
// M/N-neighbours 256; each k16 step its own block). A from registers: four random words.
//
// Kernels (thread 0 of each block stamps clock64 and %globaltimer around the loop):
// - wg_tput<N,DT,AREG,CHAINS,SOFT>: per iteration a fence, U = 8 products (one
//   accumulator chained, CHAINS 1; or two accumulators alternating, CHAINS 2), a commit,
//   with SOFT a softmax pass over its own N/2-element tile, then wait_group 1 (one group
//   stays in flight). ``roles`` gives each warpgroup its work: 2 bits per warpgroup
//   (bit 0 products, bit 1 softmax). With SOFT, at most 2 warpgroups (255 registers each).
// - wg_lat<N,DT,AREG>: one product, commit, wait_group 0: the dependent latency.
// - wg_check<N,DT,AREG>: one product from zeroed accumulators, every accumulator stored,
//   for the host's float64 check of the layout.
#include "clocks.cuh"
#include "wgmma_ops.cuh"
#include "mbarrier.cuh"

#define GS_U 8                 // products per iteration (a d128 k-loop: 128 / 16)
#define GS_A_BYTES 8192        // one warpgroup's A: 64 rows x 64 K x 2 bytes

__device__ __forceinline__ unsigned long long gs_desc(unsigned addr, unsigned lbo, unsigned sbo,
                                                      unsigned swz) {
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | ((unsigned long long)(lbo >> 4) << 16) |
           ((unsigned long long)(sbo >> 4) << 32) | ((unsigned long long)swz << 62);
}

// Descriptor of k16 step k (0..3) of a tile of `rows` rows at shared address base.
__device__ __forceinline__ unsigned long long gs_tile_desc(unsigned base, int rows, int k, int swz) {
    if (swz) return gs_desc(base + 32u * k, 16u, 1024u, 1u);
    return gs_desc(base + (unsigned)(k * rows * 32), 128u, 256u, 0u);
}

__device__ __forceinline__ void gs_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void gs_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int K> __device__ __forceinline__ void gs_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(K) : "memory");
}
__device__ __forceinline__ float gs_ex2(float x) {
    float y;
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// Fill the CTA's operands from `init` (random words), then make them visible to the
// tensor cores' (async proxy) reads. Returns the 1024-aligned shared base address.
__device__ __forceinline__ unsigned gs_fill(const unsigned* __restrict__ init, int init_words,
                                            int n, int groups) {
    extern __shared__ unsigned char gs_smem[];
    unsigned raw = (unsigned)__cvta_generic_to_shared(gs_smem);
    unsigned base = (raw + 1023u) & ~1023u;
    unsigned* p = (unsigned*)(gs_smem + (base - raw));
    int words = (n * 128 + groups * GS_A_BYTES) / 4;
    for (int i = threadIdx.x; i < words; i += blockDim.x) p[i] = init[(i + 977 * blockIdx.x) % init_words];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    return base;
}

template <int E>
__device__ __forceinline__ void gs_softmax(float (&s)[E], float& l0, float& l1) {
    // Two rows of E/2 elements per thread, each row shared by the 4 lanes of a quad,
    // as an m64 accumulator tile holds them: max, 2 shuffle-maxes, exp2 of the scaled
    // difference, sum.
    const float scale = 1.4426950f;
    float m0 = s[0], m1 = s[E / 2];
#pragma unroll
    for (int i = 1; i < E / 2; ++i) m0 = fmaxf(m0, s[i]);
#pragma unroll
    for (int i = E / 2 + 1; i < E; ++i) m1 = fmaxf(m1, s[i]);
    m0 = fmaxf(m0, __shfl_xor_sync(0xffffffffu, m0, 1));
    m1 = fmaxf(m1, __shfl_xor_sync(0xffffffffu, m1, 1));
    m0 = fmaxf(m0, __shfl_xor_sync(0xffffffffu, m0, 2));
    m1 = fmaxf(m1, __shfl_xor_sync(0xffffffffu, m1, 2));
    float sum0 = 0.f, sum1 = 0.f;
#pragma unroll
    for (int i = 0; i < E; ++i) {
        float m = i < E / 2 ? m0 : m1;
        float e = gs_ex2(fmaf(s[i], scale, -m * scale));
        if (i < E / 2) sum0 += e; else sum1 += e;
        s[i] = e;
    }
    l0 += sum0;
    l1 += sum1;
}

template <int N, int DT, int AREG, int CHAINS>
__device__ __forceinline__ void gs_issue(float (&d0)[N / 2], float (&d1)[N / 2], unsigned abase,
                                         unsigned bbase, int swz, const unsigned (&a)[4]) {
#pragma unroll
    for (int u = 0; u < GS_U; ++u) {
        int k = u & 3;
        unsigned long long da = gs_tile_desc(abase, 64, k, swz);
        unsigned long long db = gs_tile_desc(bbase, N, k, swz);
        if (CHAINS == 2 && (u & 1)) GsWgmma<N, DT, AREG>::mma(d1, da, db, a);
        else GsWgmma<N, DT, AREG>::mma(d0, da, db, a);
    }
}

template <int N, int DT, int AREG, int CHAINS, int SOFT>
__global__ void __launch_bounds__(SOFT ? 256 : 384) wg_tput(const unsigned* __restrict__ init, int init_words,
                                               int iters, int roles, int swz,
                                               float* __restrict__ out,
                                               unsigned long long* __restrict__ stamps) {
    const int groups = blockDim.x / 128, wg = threadIdx.x / 128;
    const unsigned base = gs_fill(init, init_words, N, groups);
    const unsigned bbase = base, abase = base + N * 128 + wg * GS_A_BYTES;
    const int role = (roles >> (2 * wg)) & 3;
    unsigned a[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) a[i] = init[(threadIdx.x * 4 + i + 131 * blockIdx.x) % init_words];
    float d0[N / 2], d1[N / 2];  // d1 is dead (no registers) with one chain
#pragma unroll
    for (int i = 0; i < N / 2; ++i) { d0[i] = 0.f; d1[i] = 0.f; }
    constexpr int E = SOFT ? N / 2 : 2;
    float s[E], l0 = 0.f, l1 = 0.f;
#pragma unroll
    for (int i = 0; i < E; ++i) s[i] = __uint_as_float((init[(threadIdx.x + 7 * i) % init_words] & 0x007fffffu) | 0x3f800000u);
    GsStamp st = gs_stamp_begin();
    if (role == 1) {
        for (int it = 0; it < iters; ++it) {
            gs_fence();
            gs_issue<N, DT, AREG, CHAINS>(d0, d1, abase, bbase, swz, a);
            gs_commit();
            gs_wait<1>();
        }
    } else if (SOFT && role == 3) {
        for (int it = 0; it < iters; ++it) {
            gs_fence();
            gs_issue<N, DT, AREG, CHAINS>(d0, d1, abase, bbase, swz, a);
            gs_commit();
            gs_softmax<E>(s, l0, l1);
            gs_wait<1>();
        }
    } else if (SOFT && role == 2) {
        for (int it = 0; it < iters; ++it) gs_softmax<E>(s, l0, l1);
    }
    gs_wait<0>();
    // Thread 0 stamps for the block: wait for every warpgroup, or a mix whose
    // warpgroup 0 is idle (".S") would stamp an empty interval.
    __syncthreads();
    gs_stamp_end(st, stamps);
    float acc = l0 + l1;
#pragma unroll
    for (int i = 0; i < N / 2; ++i) acc += d0[i] + (CHAINS == 2 ? d1[i] : 0.f);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

template <int N, int DT, int AREG>
__global__ void __launch_bounds__(128) wg_lat(const unsigned* __restrict__ init, int init_words,
                                              int iters, int roles, int swz, float* __restrict__ out,
                                              unsigned long long* __restrict__ stamps) {
    const unsigned base = gs_fill(init, init_words, N, 1);
    unsigned a[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) a[i] = init[(threadIdx.x * 4 + i) % init_words];
    float d[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
    GsStamp st = gs_stamp_begin();
    for (int it = 0; it < iters; ++it) {
        gs_fence();
        GsWgmma<N, DT, AREG>::mma(d, gs_tile_desc(base + N * 128, 64, it & 3, swz),
                                  gs_tile_desc(base, N, it & 3, swz), a);
        gs_commit();
        gs_wait<0>();
    }
    gs_stamp_end(st, stamps);
    float acc = 0.f;
#pragma unroll
    for (int i = 0; i < N / 2; ++i) acc += d[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// One k16 product of k-step 0 into zeroed accumulators, all stored: out[t * N/2 + i].
template <int N, int DT, int AREG>
__global__ void __launch_bounds__(128) wg_check(const unsigned* __restrict__ init, int init_words,
                                                int swz, float* __restrict__ out) {
    const unsigned base = gs_fill(init, init_words, N, 1);
    unsigned a[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) a[i] = init[(threadIdx.x * 4 + i) % init_words];
    float d[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
    gs_fence();
    GsWgmma<N, DT, AREG>::mma(d, gs_tile_desc(base + N * 128, 64, 0, swz), gs_tile_desc(base, N, 0, swz), a);
    gs_commit();
    gs_wait<0>();
#pragma unroll
    for (int i = 0; i < N / 2; ++i) out[threadIdx.x * (N / 2) + i] = d[i];
}

// Pieces of an attention step shared by wg_step, wg_step_fill and wg_step_lag.
// S = Q K^T: m64 n=NQ, A and B from shared memory, NP/16 products (K = d = NP).
template <int NQ, int NP, int DT>
__device__ __forceinline__ void gs_issue_qk(float (&s)[NQ / 2], unsigned abase, unsigned b,
                                            int swz, const unsigned (&a)[4]) {
#pragma unroll
    for (int u = 0; u < NP / 16; ++u)
        GsWgmma<NQ, DT, 0>::mma(s, gs_tile_desc(abase, 64, u & 3, swz), gs_tile_desc(b, NQ, u & 3, swz), a);
}
// O += P V: m64 n=NP, A from registers, NQ/16 products (K = Bc = NQ).
template <int NQ, int NP, int DT>
__device__ __forceinline__ void gs_issue_pv(float (&o)[NP / 2], unsigned abase, unsigned b,
                                            int swz, const unsigned (&a)[4]) {
#pragma unroll
    for (int u = 0; u < NQ / 16; ++u)
        GsWgmma<NP, DT, 1>::mma(o, gs_tile_desc(abase, 64, u & 3, swz), gs_tile_desc(b, NP, u & 3, swz), a);
}
// P rounded to bf16 pairs (folded into pk so that the conversions stay).
template <int E>
__device__ __forceinline__ void gs_pack(const float (&s)[E], unsigned& pk) {
#pragma unroll
    for (int i = 0; i < E; i += 2) {
        unsigned w;
        asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(s[i + 1]), "f"(s[i]));
        pk ^= w;
    }
}
// A causal mask on a diagonal tile: each element's row and key column from the thread's
// place in the warpgroup, the key hidden (-inf) past the diagonal `diag`.
template <int E>
__device__ __forceinline__ void gs_mask(float (&s)[E], int diag) {
    const int t = threadIdx.x % 128;
    const int r0 = 16 * (t / 32) + (t % 32) / 4;
#pragma unroll
    for (int i = 0; i < E; ++i) {
        const int row = r0 + 8 * (i >= E / 2);
        const int col = 8 * ((i % (E / 2)) / 2) + 2 * (t % 4) + (i & 1);
        if (col > row + diag) s[i] = -__int_as_float(0x7f800000);
    }
}
// O rescaled as the running maximum moves (one multiply per accumulator).
template <int E>
__device__ __forceinline__ void gs_rescale(float (&o)[E], float l0) {
    const float alpha = 1.0f / (1.0f + l0 * 1e-30f);
#pragma unroll
    for (int i = 0; i < E; ++i) o[i] *= alpha;
}
// Everything the loop produced, in one value the host reads (keeps the work alive).
template <int A, int B>
__device__ __forceinline__ float gs_total(const float (&s)[A], const float (&o)[B], float l0,
                                          float l1, unsigned pk) {
    float acc = l0 + l1 + __uint_as_float(pk & 0x3f7fffffu);
#pragma unroll
    for (int i = 0; i < A; ++i) acc += s[i];
#pragma unroll
    for (int i = 0; i < B; ++i) acc += o[i];
    return acc;
}

// The consumers' A operands of wg_step_fill/_lag: G warpgroups' 8 KiB, random non-zero words.
template <int G>
__device__ __forceinline__ void gs_fill_a(const unsigned* __restrict__ init, int init_words,
                                          unsigned* p) {
    for (int i = threadIdx.x; i < G * GS_A_BYTES / 4; i += blockDim.x)
        p[i] = init[(i + 977 * blockIdx.x) % init_words];
}
// A consumer's registers: P's stand-in A fragment (random words) and zeroed accumulators.
template <int A, int B>
__device__ __forceinline__ void gs_consumer_regs(const unsigned* __restrict__ init, int init_words,
                                                 int tid, unsigned (&a)[4], float (&s)[A],
                                                 float (&o)[B]) {
#pragma unroll
    for (int i = 0; i < 4; ++i) a[i] = init[(tid * 4 + i + 131 * blockIdx.x) % init_words];
#pragma unroll
    for (int i = 0; i < A; ++i) s[i] = 0.f;
#pragma unroll
    for (int i = 0; i < B; ++i) o[i] = 0.f;
}

// An attention step's two products as warp-specialized Hopper kernels issue them, per
// warpgroup: S = Q K^T (m64 n=NQ, A and B from shared memory, K = NP: NP/16 products), a
// commit, O += P V (m64 n=NP, A from registers, K = NQ: NQ/16 products), a commit; wait for
// the first group (the second stays in flight); with SOFT a softmax pass over S's
// accumulators (NQ/2 per thread) and its 16-bit packing, then wait for the second and rescale
// O's accumulators (NP/2 multiplies per thread). SOFT 2 masks S first, as a causal kernel's
// diagonal tile does (a compare and select per element, the diagonal moving step by step). Operand values do not depend on the
// softmax (no attention code, only its instruction mix and order).
template <int NQ, int NP, int DT, int SOFT, int GMAX>
__global__ void __launch_bounds__(GMAX * 128) wg_step(const unsigned* __restrict__ init,
                                                      int init_words, int iters, int roles,
                                                      int swz, float* __restrict__ out,
                                                      unsigned long long* __restrict__ stamps) {
    const int groups = blockDim.x / 128, wg = threadIdx.x / 128;
    const unsigned base = gs_fill(init, init_words, NQ + NP, groups);
    const unsigned bq = base, bp = base + NQ * 128;
    const unsigned abase = base + (NQ + NP) * 128 + wg * GS_A_BYTES;
    unsigned a[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) a[i] = init[(threadIdx.x * 4 + i + 131 * blockIdx.x) % init_words];
    float s[NQ / 2], o[NP / 2];
#pragma unroll
    for (int i = 0; i < NQ / 2; ++i) s[i] = 0.f;
#pragma unroll
    for (int i = 0; i < NP / 2; ++i) o[i] = 0.f;
    float l0 = 0.f, l1 = 0.f;
    unsigned pk = 0u;
    GsStamp st = gs_stamp_begin();
    for (int it = 0; it < iters; ++it) {
        gs_fence();
        gs_issue_qk<NQ, NP, DT>(s, abase, bq, swz, a);
        gs_commit();
        gs_issue_pv<NQ, NP, DT>(o, abase, bp, swz, a);
        gs_commit();
        gs_wait<1>();
        if (SOFT == 2) gs_mask<NQ / 2>(s, (it & 15) * 8 - 64);
        if (SOFT) {
            gs_softmax<NQ / 2>(s, l0, l1);
            gs_pack<NQ / 2>(s, pk);
        }
        gs_wait<0>();
        if (SOFT) gs_rescale<NP / 2>(o, l0);
    }
    gs_wait<0>();
    __syncthreads();
    gs_stamp_end(st, stamps);
    out[blockIdx.x * blockDim.x + threadIdx.x] = gs_total<NQ / 2, NP / 2>(s, o, l0, l1, pk);
}

// wg_step with its tiles streamed in: warpgroup 0 is a producer (one thread) that brings each
// step's K and V tiles (Bc x d 16-bit values each, from an L2-resident buffer) into a
// two-stage shared-memory ring by bulk copies completing on a "full" mbarrier, and waits for
// the consumers' "empty" arrival before refilling a stage; the consumer warpgroups run
// wg_step's loop with the B operands of both products in the stage just filled (registers
// given from the producer to the consumers by setmaxnreg, as warp-specialized kernels do).
template <int NQ, int NP, int DT, int SOFT, int G>
__global__ void __launch_bounds__((G + 1) * 128, 1) wg_step_fill(const unsigned* __restrict__ init,
                                                       int init_words, int iters, int roles,
                                                       int swz, float* __restrict__ out,
                                                       unsigned long long* __restrict__ stamps) {
    constexpr unsigned TILE = NQ * NP * 2;  // one K or V tile: Bc x d 16-bit values
    extern __shared__ unsigned char gs_smem[];
    const unsigned raw = (unsigned)__cvta_generic_to_shared(gs_smem);
    const unsigned base = (raw + 1023u) & ~1023u;
    const unsigned bars = base, full0 = bars, empty0 = bars + 16;  // full[2], empty[2]
    const unsigned abase0 = base + 1024, ring = abase0 + G * GS_A_BYTES;
    const int tid = threadIdx.x, wg = __shfl_sync(0xffffffffu, tid / 128, 0);
    gs_fill_a<G>(init, init_words, (unsigned*)(gs_smem + (abase0 - raw)));
    if (tid == 0) {
        for (int s = 0; s < 2; ++s) {
            mb_init(full0 + 8 * s, 1);
            mb_init(empty0 + 8 * s, G * 128);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    GsStamp st = gs_stamp_begin();
    if (wg == 0) {
        if constexpr (G > 1) asm volatile("setmaxnreg.dec.sync.aligned.u32 24;");
        if (tid == 0) {
            const unsigned words = (unsigned)init_words * 4u - 2u * TILE;
            for (int it = 0; it < iters; ++it) {
                const int s = it & 1;
                mb_wait(empty0 + 8 * s, ((it >> 1) & 1) ^ 1);
                mb_expect_tx(full0 + 8 * s, 2 * TILE);
                const unsigned off = ((unsigned)it * 4096u) % words & ~15u;
                mb_bulk(ring + s * 2 * TILE, (const char*)init + off, TILE, full0 + 8 * s);
                mb_bulk(ring + s * 2 * TILE + TILE, (const char*)init + off + TILE, TILE, full0 + 8 * s);
            }
        }
    } else {
        if constexpr (G == 2) asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");
        if constexpr (G == 3) asm volatile("setmaxnreg.inc.sync.aligned.u32 160;");
        const unsigned abase = abase0 + (wg - 1) * GS_A_BYTES;
        unsigned a[4];
        float s_[NQ / 2], o[NP / 2];
        gs_consumer_regs<NQ / 2, NP / 2>(init, init_words, tid, a, s_, o);
        float l0 = 0.f, l1 = 0.f;
        unsigned pk = 0u;
        for (int it = 0; it < iters; ++it) {
            const int s = it & 1;
            const unsigned bq = ring + s * 2 * TILE, bp = bq + TILE;
            mb_wait(full0 + 8 * s, (it >> 1) & 1);
            gs_fence();
            gs_issue_qk<NQ, NP, DT>(s_, abase, bq, swz, a);
            gs_commit();
            gs_issue_pv<NQ, NP, DT>(o, abase, bp, swz, a);
            gs_commit();
            gs_wait<1>();
            if (SOFT) {
                gs_softmax<NQ / 2>(s_, l0, l1);
                gs_pack<NQ / 2>(s_, pk);
            }
            gs_wait<0>();
            mb_arrive(empty0 + 8 * s);
            if (SOFT) gs_rescale<NP / 2>(o, l0);
        }
        out[blockIdx.x * blockDim.x + tid] = gs_total<NQ / 2, NP / 2>(s_, o, l0, l1, pk);
    }
    __syncthreads();
    gs_stamp_end(st, stamps);
    if (tid < 128) out[blockIdx.x * blockDim.x + tid] = 0.f;
}

// wg_step_fill with the tile stream's other common shape: a barrier pair per tile (K full and
// empty, V full and empty) and each step's S = Q K_j^T issued together with the previous
// tile's O += P V_{j-1}; K_j's stage is released once S is done, V_{j-1}'s once P V is.
template <int NQ, int NP, int DT, int G>
__global__ void __launch_bounds__((G + 1) * 128, 1) wg_step_lag(const unsigned* __restrict__ init,
                                                      int init_words, int iters, int roles,
                                                      int swz, float* __restrict__ out,
                                                      unsigned long long* __restrict__ stamps) {
    constexpr unsigned TILE = NQ * NP * 2;
    extern __shared__ unsigned char gs_smem[];
    const unsigned raw = (unsigned)__cvta_generic_to_shared(gs_smem);
    const unsigned base = (raw + 1023u) & ~1023u;
    // kfull[2], vfull[2], kempty[2], vempty[2]
    const unsigned kfull = base, vfull = base + 16, kempty = base + 32, vempty = base + 48;
    const unsigned abase0 = base + 1024, ring = abase0 + G * GS_A_BYTES;
    const int tid = threadIdx.x, wg = __shfl_sync(0xffffffffu, tid / 128, 0);
    gs_fill_a<G>(init, init_words, (unsigned*)(gs_smem + (abase0 - raw)));
    if (tid == 0) {
        for (int s = 0; s < 2; ++s) {
            mb_init(kfull + 8 * s, 1);
            mb_init(vfull + 8 * s, 1);
            mb_init(kempty + 8 * s, G * 128);
            mb_init(vempty + 8 * s, G * 128);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    GsStamp st = gs_stamp_begin();
    if (wg == 0) {
        if constexpr (G > 1) asm volatile("setmaxnreg.dec.sync.aligned.u32 24;");
        if (tid == 0) {
            const unsigned words = (unsigned)init_words * 4u - 2u * TILE;
            for (int it = 0; it < iters; ++it) {
                const int s = it & 1;
                const unsigned parity = ((it >> 1) & 1) ^ 1;
                const unsigned off = ((unsigned)it * 4096u) % words & ~15u;
                mb_wait(kempty + 8 * s, parity);
                mb_expect_tx(kfull + 8 * s, TILE);
                mb_bulk(ring + s * 2 * TILE, (const char*)init + off, TILE, kfull + 8 * s);
                mb_wait(vempty + 8 * s, parity);
                mb_expect_tx(vfull + 8 * s, TILE);
                mb_bulk(ring + s * 2 * TILE + TILE, (const char*)init + off + TILE, TILE, vfull + 8 * s);
            }
        }
    } else {
        if constexpr (G == 2) asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");
        if constexpr (G == 3) asm volatile("setmaxnreg.inc.sync.aligned.u32 160;");
        const unsigned abase = abase0 + (wg - 1) * GS_A_BYTES;
        unsigned a[4];
        float s_[NQ / 2], o[NP / 2];
        gs_consumer_regs<NQ / 2, NP / 2>(init, init_words, tid, a, s_, o);
        float l0 = 0.f, l1 = 0.f;
        unsigned pk = 0u;
        for (int it = 0; it < iters; ++it) {
            const int s = it & 1, ps = (it - 1) & 1;
            mb_wait(kfull + 8 * s, (it >> 1) & 1);
            gs_fence();
            gs_issue_qk<NQ, NP, DT>(s_, abase, ring + s * 2 * TILE, swz, a);
            gs_commit();
            if (it > 0) {
                mb_wait(vfull + 8 * ps, ((it - 1) >> 1) & 1);
                gs_issue_pv<NQ, NP, DT>(o, abase, ring + ps * 2 * TILE + TILE, swz, a);
                gs_commit();
                gs_wait<1>();
            } else {
                gs_wait<0>();
            }
            mb_arrive(kempty + 8 * s);
            gs_softmax<NQ / 2>(s_, l0, l1);
            gs_pack<NQ / 2>(s_, pk);
            gs_wait<0>();
            if (it > 0) mb_arrive(vempty + 8 * ps);
            gs_rescale<NP / 2>(o, l0);
        }
        out[blockIdx.x * blockDim.x + tid] = gs_total<NQ / 2, NP / 2>(s_, o, l0, l1, pk);
    }
    __syncthreads();
    gs_stamp_end(st, stamps);
    if (tid < 128) out[blockIdx.x * blockDim.x + tid] = 0.f;
}

// Per-block stamps written as soon as taken (thread 0: start at stamps[4b] and [4b+2], end at
// [4b+1] and [4b+3], as gs_stamp_begin/_end), so that no stamp is held in registers across the
// producer's and consumers' loops (wg_step_fill keeps its start stamp in an 8-byte spill slot).
__device__ __forceinline__ void gs_stamp_begin_to(unsigned long long* __restrict__ stamps) {
    const GsStamp s = gs_stamp_begin();
    if (threadIdx.x == 0) {
        stamps[4ull * blockIdx.x] = (unsigned long long)s.clk0;
        stamps[4ull * blockIdx.x + 2] = s.ns0;
    }
}
__device__ __forceinline__ void gs_stamp_end_to(unsigned long long* __restrict__ stamps) {
    const long long clk1 = clock64();
    const unsigned long long ns1 = gs_globaltimer_ns();
    if (threadIdx.x == 0) {
        stamps[4ull * blockIdx.x + 1] = (unsigned long long)clk1;
        stamps[4ull * blockIdx.x + 3] = ns1;
    }
}

// wg_step_fill (with the softmax) over a STAGES-deep ring: the producer thread fills stage
// it % STAGES once the consumers have released it, the consumers wait for stage it % STAGES
// (phase (it / STAGES) & 1) and release it after P V, as wg_step_fill's loop with 2 stages.
// For a kernel whose ring is deeper than two stages (three consumer warpgroups and three
// stages: 160 registers a consumer thread after setmaxnreg). It repeats wg_step_fill's body on
// purpose: folding wg_step_fill into it would change the SASS of the committed fill rows
// (data/h200/2026-12-04_calibration_wgmma_step), which the profiles' c come from.
// HOLD (the "overlap" rows): P's packed words are stored to shared memory before the wait
// for P V. Without that store ptxas places the wait (WARPGROUP.DEPBAR 0) before the softmax's
// exponentials in this loop and in wg_step's and wg_step_fill's (cuobjdump -sass: 17-38
// instructions after the wait for S, no MUFU between), so those rows time a softmax that
// does not overlap its own warpgroup's P V; flash3_wgmma.cu's consumer keeps every exp2
// between the two waits, and with the store this loop does too (tests/calibrate).
template <int NQ, int NP, int DT, int G, int STAGES, bool HOLD = false>
__global__ void __launch_bounds__((G + 1) * 128, 1) wg_step_ring(const unsigned* __restrict__ init,
                                                       int init_words, int iters, int roles,
                                                       int swz, float* __restrict__ out,
                                                       unsigned long long* __restrict__ stamps) {
    constexpr unsigned TILE = NQ * NP * 2;  // one K or V tile: Bc x d 16-bit values
    static_assert(STAGES >= 2 && 16 * STAGES <= 512, "full[STAGES], empty[STAGES] below HOLD's words");
    extern __shared__ unsigned char gs_smem[];
    const unsigned raw = (unsigned)__cvta_generic_to_shared(gs_smem);
    const unsigned base = (raw + 1023u) & ~1023u;
    const unsigned full0 = base, empty0 = base + 8 * STAGES;  // full[STAGES], empty[STAGES]
    const unsigned abase0 = base + 1024, ring = abase0 + G * GS_A_BYTES;
    const int tid = threadIdx.x, wg = __shfl_sync(0xffffffffu, tid / 128, 0);
    gs_fill_a<G>(init, init_words, (unsigned*)(gs_smem + (abase0 - raw)));
    if (tid == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mb_init(full0 + 8 * s, 1);
            mb_init(empty0 + 8 * s, G * 128);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    gs_stamp_begin_to(stamps);
    if (wg == 0) {
        if constexpr (G > 1) asm volatile("setmaxnreg.dec.sync.aligned.u32 24;");
        if (tid == 0) {
            const unsigned words = (unsigned)init_words * 4u - 2u * TILE;
            for (int it = 0; it < iters; ++it) {
                const int s = it % STAGES;
                mb_wait(empty0 + 8 * s, ((it / STAGES) & 1) ^ 1);
                mb_expect_tx(full0 + 8 * s, 2 * TILE);
                const unsigned off = ((unsigned)it * 4096u) % words & ~15u;
                mb_bulk(ring + s * 2 * TILE, (const char*)init + off, TILE, full0 + 8 * s);
                mb_bulk(ring + s * 2 * TILE + TILE, (const char*)init + off + TILE, TILE, full0 + 8 * s);
            }
        }
    } else {
        if constexpr (G == 2) asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");
        if constexpr (G == 3) asm volatile("setmaxnreg.inc.sync.aligned.u32 160;");
        const unsigned abase = abase0 + (wg - 1) * GS_A_BYTES;
        unsigned a[4];
        float s_[NQ / 2], o[NP / 2];
        gs_consumer_regs<NQ / 2, NP / 2>(init, init_words, tid, a, s_, o);
        float l0 = 0.f, l1 = 0.f;
        unsigned pk = 0u;
        for (int it = 0; it < iters; ++it) {
            const int s = it % STAGES;
            const unsigned bq = ring + s * 2 * TILE, bp = bq + TILE;
            mb_wait(full0 + 8 * s, (it / STAGES) & 1);
            gs_fence();
            gs_issue_qk<NQ, NP, DT>(s_, abase, bq, swz, a);
            gs_commit();
            gs_issue_pv<NQ, NP, DT>(o, abase, bp, swz, a);
            gs_commit();
            gs_wait<1>();
            gs_softmax<NQ / 2>(s_, l0, l1);
            gs_pack<NQ / 2>(s_, pk);
            if constexpr (HOLD) {
                // a word per lane past the barriers (1 KiB holds them and these 128 bytes)
                asm volatile("st.shared.u32 [%0], %1;" ::"r"(base + 512 + 4 * (tid % 32)), "r"(pk)
                             : "memory");
            }
            gs_wait<0>();
            mb_arrive(empty0 + 8 * s);
            gs_rescale<NP / 2>(o, l0);
        }
        out[blockIdx.x * blockDim.x + tid] = gs_total<NQ / 2, NP / 2>(s_, o, l0, l1, pk);
    }
    __syncthreads();
    gs_stamp_end_to(stamps);
    if (tid < 128) out[blockIdx.x * blockDim.x + tid] = 0.f;
}

#define GS_ARGS const unsigned*, int, int, int, int, float*, unsigned long long*
#ifndef GS_NO_INSTANCES  // a test instantiates only the kernels it reads
#define GS_TPUT(N, DT, AR, CH, SO) template __global__ void wg_tput<N, DT, AR, CH, SO>(GS_ARGS);
#define GS_LAT(N, DT, AR) template __global__ void wg_lat<N, DT, AR>(GS_ARGS);
#define GS_CHECK(N, DT, AR) \
    template __global__ void wg_check<N, DT, AR>(const unsigned*, int, int, float*);
#define GS_PER_N(N)                                                                    \
    GS_TPUT(N, 0, 0, 1, 0) GS_TPUT(N, 0, 1, 1, 0) GS_TPUT(N, 1, 0, 1, 0) GS_TPUT(N, 1, 1, 1, 0) \
    GS_LAT(N, 1, 0) GS_LAT(N, 1, 1) GS_LAT(N, 0, 0)                                    \
    GS_CHECK(N, 1, 0) GS_CHECK(N, 1, 1) GS_CHECK(N, 0, 0) GS_CHECK(N, 0, 1)
#define GS_INDEP(N) \
    GS_TPUT(N, 0, 0, 2, 0) GS_TPUT(N, 0, 1, 2, 0) GS_TPUT(N, 1, 0, 2, 0) GS_TPUT(N, 1, 1, 2, 0)
GS_PER_N(8) GS_PER_N(16) GS_PER_N(32) GS_PER_N(64) GS_PER_N(96) GS_PER_N(128) GS_PER_N(192) GS_PER_N(256)
GS_INDEP(8) GS_INDEP(16) GS_INDEP(32) GS_INDEP(64) GS_INDEP(96) GS_INDEP(128)
GS_TPUT(64, 1, 0, 1, 1) GS_TPUT(128, 1, 0, 1, 1) GS_TPUT(64, 1, 1, 1, 1) GS_TPUT(128, 1, 1, 1, 1)

#define GS_STEP(NQ, NP, G) template __global__ void wg_step<NQ, NP, 1, 0, G>(GS_ARGS); \
    template __global__ void wg_step<NQ, NP, 1, 1, G>(GS_ARGS); \
    template __global__ void wg_step<NQ, NP, 1, 2, G>(GS_ARGS);
// The tiles of the project's wgmma instances (Bc 176 and 80: below)
GS_STEP(96, 64, 3) GS_STEP(128, 64, 2) GS_STEP(192, 64, 2)
GS_STEP(64, 128, 2) GS_STEP(96, 128, 2) GS_STEP(128, 128, 2) GS_STEP(192, 128, 2)
GS_STEP(64, 256, 1) GS_STEP(64, 256, 2) GS_STEP(96, 256, 2)
#define GS_FILL(NQ, NP, G) template __global__ void wg_step_fill<NQ, NP, 1, 1, G>(GS_ARGS);
GS_FILL(96, 64, 3) GS_FILL(128, 64, 2) GS_FILL(192, 64, 2)
GS_FILL(64, 128, 2) GS_FILL(96, 128, 2) GS_FILL(128, 128, 2) GS_FILL(192, 128, 2)
GS_FILL(64, 256, 1) GS_FILL(64, 256, 2) GS_FILL(96, 256, 2)
#define GS_LAG(NQ, NP, G) template __global__ void wg_step_lag<NQ, NP, 1, G>(GS_ARGS);
GS_LAG(96, 64, 3) GS_LAG(128, 64, 2) GS_LAG(192, 64, 2)
GS_LAG(64, 128, 2) GS_LAG(96, 128, 2) GS_LAG(128, 128, 2) GS_LAG(192, 128, 2)
GS_LAG(64, 256, 1) GS_LAG(64, 256, 2) GS_LAG(96, 256, 2)
// Block n between the measured ones, as the project's instances use them (d128 Bc176 and d256
// Bc80, two consumer warpgroups), and three consumer warpgroups at Bc 64 and 128 (d64)
GS_STEP(176, 128, 2) GS_STEP(80, 256, 2) GS_STEP(64, 64, 3) GS_STEP(128, 64, 3)
GS_FILL(176, 128, 2) GS_FILL(80, 256, 2) GS_FILL(64, 64, 3) GS_FILL(128, 64, 3)
GS_LAG(176, 128, 2) GS_LAG(80, 256, 2) GS_LAG(64, 64, 3) GS_LAG(128, 64, 3)
// Three consumer warpgroups over a three-stage ring (the d64 m192 n96 instance's), at Bc 64,
// 96 and 128, and at Bc 96 over two stages (wg_step_fill's ring, this kernel's code)
#define GS_RING(NQ, NP, G, S) template __global__ void wg_step_ring<NQ, NP, 1, G, S>(GS_ARGS);
GS_RING(96, 64, 3, 3) GS_RING(64, 64, 3, 3) GS_RING(128, 64, 3, 3) GS_RING(96, 64, 3, 2)
#define GS_OVL(NQ, NP, G, S) template __global__ void wg_step_ring<NQ, NP, 1, G, S, true>(GS_ARGS);
GS_OVL(96, 64, 3, 3) GS_OVL(64, 64, 3, 3) GS_OVL(128, 64, 3, 3)
GS_OVL(128, 64, 2, 2) GS_OVL(192, 64, 2, 2)
GS_OVL(64, 128, 2, 2) GS_OVL(96, 128, 2, 2) GS_OVL(128, 128, 2, 2) GS_OVL(176, 128, 2, 2)
GS_OVL(192, 128, 2, 2) GS_OVL(64, 256, 2, 2) GS_OVL(80, 256, 2, 2) GS_OVL(96, 256, 2, 2)
// One consumer warpgroup over two stages (no setmaxnreg), at the one-warpgroup instances'
// tiles (gpusim.calibrate.wgmma_step_one)
GS_OVL(128, 64, 1, 2) GS_OVL(192, 64, 1, 2) GS_OVL(64, 128, 1, 2) GS_OVL(128, 128, 1, 2)
GS_OVL(64, 256, 1, 2)
#endif
