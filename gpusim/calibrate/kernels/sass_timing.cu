// Latency and issue cost of the instructions the attention kernel's loop is made of, seen by
// one warp: a chain of N dependent instructions gives the latency (cycles per link), eight
// independent chains give the cycles a warp-instruction holds its pipe. One block of WARPS
// warps; warp w runs on scheduler w % 4, so WARPS = 4 puts one warp on each scheduler and
// WARPS = 8 two. Every thread writes its result (so that nothing is dead code) and each
// warp's lane 0 writes the clock64() cycles its loop took.
#include "warp_mma.cuh"

enum Op {
    HMMA_CHAIN = 0,   // d = mma(a, b, d): the accumulator's dependence
    HMMA_TP = 1,      // 8 independent accumulators
    LDSM_CHAIN = 2,   // the next ldmatrix's address is the last one's result (all zeros)
    LDSM_TP = 3,      // 8 independent ldmatrix
    SHFL_CHAIN = 4,   // v = shfl.bfly(v)
    SHFL_TP = 5,
    MUFU_CHAIN = 6,   // v = ex2(v)
    MUFU_TP = 7,
    IADD_CHAIN = 8,   // v = v + c (the ALU part of the ldmatrix chain)
    FMNMX_TP = 9,     // fmax of 8 independent chains
    FMUL_TP = 10,
    F2FP_TP = 11,     // two floats packed into a bf16 pair
    IMAD_TP = 12,
    LOP3_TP = 13,
    HMMA_USE = 14,    // an HMMA's result moved into the next HMMA's A operand: result latency
    BAR_CHAIN = 15,   // bar.sync back to back: what a barrier costs when every warp is there
};

__device__ __forceinline__ float ex2f(float x) {
    float y;
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

constexpr int REPS = 4;

template <int OP, int N>
__global__ void sass_timing(unsigned* out, long long* cycles, unsigned seed) {
    __shared__ __align__(128) unsigned short tile[64 * 64];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) tile[i] = 0;  // offsets of 0
    __syncthreads();
    // one 16-byte row per lane, 512 contiguous bytes: ldmatrix without bank conflicts, as
    // the attention kernel's swizzled tiles give it
    const unsigned base = (unsigned)__cvta_generic_to_shared(tile) + lane * 16;
    unsigned acc = seed + threadIdx.x;
    float f[8];
    unsigned u[8];
#pragma unroll
    for (int c = 0; c < 8; ++c) {
        f[c] = __uint_as_float(0x3f800000u + ((seed + c) & 0xff));  // ~1.0, never constant
        u[c] = seed * (c + 3) + lane;
    }
    float d[8][4];
#pragma unroll
    for (int c = 0; c < 8; ++c)
#pragma unroll
        for (int e = 0; e < 4; ++e) d[c][e] = 0.f;
    unsigned a[4] = {u[0], u[1], u[2], u[3]};
    unsigned addr = base;  // the ldmatrix chain runs through every trip
    __syncwarp();
    const long long t0 = clock64();
#pragma unroll 1
    for (int i = 0; i < N; ++i) {
#pragma unroll
      for (int rep = 0; rep < REPS; ++rep) {  // 32 instructions of the kind per trip
        if constexpr (OP == HMMA_CHAIN) {
#pragma unroll
            for (int k = 0; k < 8; ++k) wm_hmma(d[0], a, u[4], u[5]);
        } else if constexpr (OP == HMMA_TP) {
#pragma unroll
            for (int c = 0; c < 8; ++c) wm_hmma(d[c], a, u[4], u[5]);
        } else if constexpr (OP == HMMA_USE) {
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                wm_hmma(d[0], a, u[4], u[5]);
                a[0] = __float_as_uint(d[0][0]);  // the next product waits for this one's result
            }
        } else if constexpr (OP == LDSM_CHAIN) {
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                unsigned r[4];
                wm_ldsm_x4(r, addr);
                addr = base + r[0];
            }
        } else if constexpr (OP == LDSM_TP) {
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                unsigned r[4];
                // an offset the compiler cannot know, so that no two loads merge
                wm_ldsm_x4(r, base + ((i + k * 4 + rep) & 31) * 16);
                u[k] += r[0] ^ r[3];
            }
        } else if constexpr (OP == SHFL_CHAIN) {
#pragma unroll
            for (int k = 0; k < 8; ++k) acc = __shfl_xor_sync(0xffffffffu, acc, 1 + (k & 1));
        } else if constexpr (OP == SHFL_TP) {
#pragma unroll
            for (int c = 0; c < 8; ++c) u[c] = __shfl_xor_sync(0xffffffffu, u[c], 1);
        } else if constexpr (OP == MUFU_CHAIN) {
#pragma unroll
            for (int k = 0; k < 8; ++k) f[0] = ex2f(f[0]);
        } else if constexpr (OP == MUFU_TP) {
#pragma unroll
            for (int c = 0; c < 8; ++c) f[c] = ex2f(f[c]);
        } else if constexpr (OP == IADD_CHAIN) {
#pragma unroll
            for (int k = 0; k < 8; ++k) asm volatile("add.u32 %0, %0, %1;" : "+r"(acc) : "r"(u[1]));
        } else if constexpr (OP == FMNMX_TP) {
#pragma unroll
            for (int c = 0; c < 8; ++c) asm volatile("max.f32 %0, %0, %1;" : "+f"(f[c]) : "f"(f[(c + 1) & 7]));
        } else if constexpr (OP == FMUL_TP) {
#pragma unroll
            for (int c = 0; c < 8; ++c) asm volatile("mul.f32 %0, %0, %1;" : "+f"(f[c]) : "f"(f[(c + 1) & 7]));
        } else if constexpr (OP == F2FP_TP) {
#pragma unroll
            for (int c = 0; c < 8; ++c)
                asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(u[c]) : "f"(f[c]), "f"(__uint_as_float(u[c])));
        } else if constexpr (OP == IMAD_TP) {
#pragma unroll
            for (int c = 0; c < 8; ++c) asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(u[c]) : "r"(u[(c + 1) & 7]), "r"(acc));
        } else if constexpr (OP == BAR_CHAIN) {
#pragma unroll
            for (int k = 0; k < 8; ++k) asm volatile("bar.sync 0;" ::: "memory");
        } else if constexpr (OP == LOP3_TP) {
#pragma unroll
            for (int c = 0; c < 8; ++c) asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(u[c]) : "r"(u[(c + 1) & 7]), "r"(acc));
        }
      }
    }
    const long long t1 = clock64();
#pragma unroll
    for (int c = 0; c < 8; ++c) {
        acc ^= u[c] ^ __float_as_uint(f[c]);
#pragma unroll
        for (int e = 0; e < 4; ++e) acc ^= __float_as_uint(d[c][e]);
    }
    acc ^= a[0] ^ addr;
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    if (lane == 0) cycles[blockIdx.x * (blockDim.x >> 5) + warp] = t1 - t0;
}
