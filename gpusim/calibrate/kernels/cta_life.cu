// cta_life: what a warp-specialized Hopper CTA pays around its main loop, with no attention
// code. Written for gpusim/calibrate/cta_life.py; shares no code with any attention kernel.
//
// One CTA per SM (the host asks for more than half the SM's shared memory): warpgroup 0 is
// the producer, NC warpgroups (64 rows each, BR = 64 NC) consume. Thread 0 brings a Q block
// (BR x D 16-bit values, this CTA's own bytes: from DRAM after the host's L2 flush) into
// shared memory by bulk copies (cp.async.bulk, completing on an mbarrier), then `steps`
// tiles of `tile_bytes` through a two-stage ring (full/empty mbarriers; the tiles of CTAs
// of one group of `kv_group` come from the same bytes, so most are L2 hits). Consumers wait
// for Q, then per tile a dependent chain of `fma_iters` FMAs, and at the end store a BR x D
// 16-bit block of this CTA's own output in one of three ways:
//   store 0: nothing;
//   store 1: the layout of a wgmma m64nNk16 f32 accumulator packed to 16 bits, straight from
//            registers: thread t of warp w owns rows 16 w + t/4 and +8 and two adjacent
//            columns of every 8-column chunk, one 4-byte store per (row, chunk);
//   store 2: coalesced 16-byte stores (consecutive threads, consecutive 16-byte words).
// With NC > 1 the producer gives registers away and the consumers take them (setmaxnreg),
// as warp-specialized kernels do. Stamps (%globaltimer, ns) per CTA, 8 words at
// stamps[8 * blockIdx.x]: CTA start (thread 0), Q arrived, loop done, stores issued (first
// consumer thread, after a barrier of all consumers), %smid, and the stores' SM cycles
// (clock64 around them, same thread).
#include "mbarrier.cuh"

typedef unsigned int u32;
typedef unsigned long long u64;

__device__ __forceinline__ u64 cl_now_ns() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ u32 cl_smid() {
    u32 s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}
__device__ __forceinline__ void cl_consumers_sync(int nc) {
    asm volatile("bar.sync 1, %0;" ::"r"(nc * 128) : "memory");
}

template <int NC, int D>
__device__ __forceinline__ void cta_life(const char* __restrict__ q, const char* __restrict__ kv,
                                         u32* __restrict__ o, u64* __restrict__ stamps, int steps,
                                         int store, int fma_iters, int tile_bytes, int kv_group,
                                         int kv_tiles) {
    constexpr int BR = 64 * NC, Q_BYTES = BR * D * 2;
    extern __shared__ __align__(128) unsigned char cl_smem[];
    const u64 t0 = cl_now_ns();
    const u32 base = (u32)__cvta_generic_to_shared(cl_smem);
    const u32 q_full = base, full0 = base + 8, empty0 = base + 24;  // full[2], empty[2]
    const u32 sQ = base + 128, sT = sQ + Q_BYTES;
    const int tid = threadIdx.x;
    const int wg = __shfl_sync(0xffffffffu, tid / 128, 0);
    if (tid == 0) {
        mb_init(q_full, 1);
        for (int s = 0; s < 2; ++s) {
            mb_init(full0 + 8 * s, 1);
            mb_init(empty0 + 8 * s, NC * 128);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (wg == 0) {
        if constexpr (NC > 1) asm volatile("setmaxnreg.dec.sync.aligned.u32 24;");
        if (tid == 0) {
            stamps[8ull * blockIdx.x] = t0;
            mb_expect_tx(q_full, Q_BYTES);
            mb_bulk(sQ, q + (u64)blockIdx.x * Q_BYTES, Q_BYTES, q_full);
            const char* group = kv + (u64)(blockIdx.x / kv_group) * kv_tiles * tile_bytes;
            for (int j = 0; j < steps; ++j) {
                const int s = j & 1;
                mb_wait(empty0 + 8 * s, ((j >> 1) & 1) ^ 1);
                mb_expect_tx(full0 + 8 * s, tile_bytes);
                mb_bulk(sT + s * tile_bytes, group + (u64)(j % kv_tiles) * tile_bytes, tile_bytes,
                        full0 + 8 * s);
            }
        }
        return;
    }
    if constexpr (NC == 2) asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");
    if constexpr (NC == 3) asm volatile("setmaxnreg.inc.sync.aligned.u32 160;");
    const int t = tid - 128;
    mb_wait(q_full, 0);
    const u64 t1 = cl_now_ns();
    const float* fq = reinterpret_cast<const float*>(cl_smem + 128);
    float x = fq[t % (Q_BYTES / 4)];
    for (int j = 0; j < steps; ++j) {
        const int s = j & 1;
        mb_wait(full0 + 8 * s, (j >> 1) & 1);
        x += reinterpret_cast<const float*>(cl_smem + 128 + Q_BYTES + s * tile_bytes)[t];
        for (int f = 0; f < fma_iters; ++f) x = fmaf(x, 0.999f, 0.25f);
        mb_arrive(empty0 + 8 * s);
    }
    cl_consumers_sync(NC);
    const u64 t2 = cl_now_ns();
    const long long c2 = clock64();
    u32* out = o + (u64)blockIdx.x * (Q_BYTES / 4);
    const u32 v = __float_as_uint(x);
    if (store == 1) {
        const int warp = t / 32, lane = t % 32;
        const int row0 = 16 * warp + lane / 4;  // warp w of the block's consumers: rows 16 w ..
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            u32* dst = out + (row0 + 8 * i) * (D / 2) + lane % 4;
#pragma unroll
            for (int cc = 0; cc < D / 8; ++cc) dst[4 * cc] = v + cc;
        }
    } else if (store == 2) {
        uint4* dst = reinterpret_cast<uint4*>(out);
        for (int k = t; k < Q_BYTES / 16; k += NC * 128) dst[k] = make_uint4(v, v + 1, v + 2, k);
    }
    cl_consumers_sync(NC);
    if (t == 0) {
        const long long c3 = clock64();
        u64* p = stamps + 8ull * blockIdx.x;
        p[1] = t1;
        p[2] = t2;
        p[3] = cl_now_ns();
        p[4] = cl_smid();
        p[5] = (u64)(c3 - c2);
    }
}

#define CL_KERNEL(NC, D)                                                                         \
    extern "C" __global__ void __launch_bounds__((NC + 1) * 128, 1)                              \
        cta_life_c##NC##_d##D(const char* q, const char* kv, u32* o, u64* stamps, int steps,     \
                              int store, int fma_iters, int tile_bytes, int kv_group,            \
                              int kv_tiles) {                                                     \
        cta_life<NC, D>(q, kv, o, stamps, steps, store, fma_iters, tile_bytes, kv_group,         \
                        kv_tiles);                                                                \
    }

CL_KERNEL(1, 64)
CL_KERNEL(1, 128)
CL_KERNEL(1, 256)
CL_KERNEL(2, 64)
CL_KERNEL(2, 128)
CL_KERNEL(2, 256)
CL_KERNEL(3, 64)
CL_KERNEL(3, 128)
