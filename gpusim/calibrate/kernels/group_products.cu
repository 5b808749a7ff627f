// Products whose two operands both stream from shared memory, issued in groups that barriers
// separate: how far do the tensor pipe and the shared memory overlap then? No attention code.
//
// One iteration of a warp runs five groups of mma.sync m16n8k16 (f16, f32 accumulate), with
// __syncthreads() between groups when SYNC is set. A group of shape (MT, NT, NK) is a warp's
// MT x NT tile of m16n8 accumulators over NK slices of k16: per slice MT ldmatrix.x4 for the
// A fragments and NT/2 ldmatrix.x4 for the B fragments (512 B per warp each, conflict-free
// rows of 16 B), then MT * NT products; the next slice's fragments are loaded before this
// slice's products are issued (one slice ahead, as a register-double-buffered warp GEMM does).
// Groups 1 and 2 have shape G1 and fresh accumulators; groups 3 and 4 shape G2 and
// accumulators kept across iterations; group 5 shape G3, fresh. With ALU set, the fresh
// accumulators of groups 1 and 2 are consumed between groups 2 and 3 by a pass per value
// (FFMA, MUFU.EX2, FMUL) whose f16 pairs are stored to shared memory (32-bit stores), and
// group 5's are added into a running sum.
#include <cuda_fp16.h>
#include "clocks.cuh"
#include "warp_mma.cuh"

constexpr int GP_TILE_U4 = 2048;  // 32 KiB of operands
constexpr unsigned GP_TILE_MASK = GP_TILE_U4 * 16 - 1;
constexpr int GP_STAGED = 8 * 256;  // 8 KiB: the stores cycle through it

__device__ __forceinline__ float gp_ex2(float x) {
    float y;
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

template <int MT, int NT>
__device__ __forceinline__ void gp_load(unsigned (&a)[MT][4], unsigned (&b)[NT / 2][4], unsigned base,
                                        unsigned off, unsigned lane) {
#pragma unroll
    for (int m = 0; m < MT; ++m) wm_ldsm_x4(a[m], base + ((off + m * 512u + lane * 16u) & GP_TILE_MASK));
#pragma unroll
    for (int n = 0; n < NT / 2; ++n)
        wm_ldsm_x4(b[n], base + ((off + (MT + n) * 512u + lane * 16u) & GP_TILE_MASK));
}

template <int MT, int NT, int NK>
__device__ __forceinline__ void gp_group(float (&acc)[MT][NT][4], unsigned base, unsigned off, unsigned lane) {
    constexpr unsigned SLICE = (MT + NT / 2) * 512u;
    unsigned a[2][MT][4], b[2][NT / 2][4];
    gp_load<MT, NT>(a[0], b[0], base, off, lane);
#pragma unroll
    for (int k = 0; k < NK; ++k) {
        if (k + 1 < NK) gp_load<MT, NT>(a[(k + 1) & 1], b[(k + 1) & 1], base, off + (k + 1) * SLICE, lane);
#pragma unroll
        for (int m = 0; m < MT; ++m)
#pragma unroll
            for (int n = 0; n < NT; ++n)
                wm_hmma(acc[m][n], a[k & 1][m], b[k & 1][n / 2][2 * (n & 1)], b[k & 1][n / 2][2 * (n & 1) + 1]);
    }
}

template <int MT, int NT>
__device__ __forceinline__ void gp_clear(float (&acc)[MT][NT][4]) {
#pragma unroll
    for (int m = 0; m < MT; ++m)
#pragma unroll
        for (int n = 0; n < NT; ++n)
#pragma unroll
            for (int k = 0; k < 4; ++k) acc[m][n][k] = 0.0f;
}

template <int MT, int NT>
__device__ __forceinline__ float gp_first(const float (&acc)[MT][NT][4]) {
    float s = 0.0f;
#pragma unroll
    for (int m = 0; m < MT; ++m)
#pragma unroll
        for (int n = 0; n < NT; ++n) s += acc[m][n][0];
    return s;
}

template <int M1, int N1, int K1, int M2, int N2, int K2, int M3, int N3, int K3, bool SYNC, bool ALU>
__global__ void __launch_bounds__(256) group_products(const unsigned* __restrict__ operands, int iters,
                                                      unsigned zero, float* __restrict__ out,
                                                      unsigned long long* __restrict__ stamps) {
    __shared__ uint4 tile[GP_TILE_U4];
    __shared__ unsigned staged[GP_STAGED];  // f16 pairs of groups 1 and 2, 32-bit stores
    for (int i = threadIdx.x; i < GP_TILE_U4; i += blockDim.x) {
        const unsigned* src = operands + 4 * ((blockIdx.x * GP_TILE_U4 + i) % (6 * 512));
        tile[i] = make_uint4(src[0], src[1], src[2], src[3]);
    }
    __syncthreads();
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned base = (unsigned)__cvta_generic_to_shared(tile);
    unsigned start = (warp * 2048u) & GP_TILE_MASK;
    float s1[M1][N1][4], s2[M1][N1][4], kv1[M2][N2][4], kv2[M2][N2][4], q[M3][N3][4];
    gp_clear<M2, N2>(kv1);
    gp_clear<M2, N2>(kv2);
    float keep = 0.0f;
    GsStamp st = gs_stamp_begin();
    for (int it = 0; it < iters; ++it) {
        gp_clear<M1, N1>(s1);
        gp_clear<M1, N1>(s2);
        gp_clear<M3, N3>(q);
        // Each group's offset moves by a multiple of ``zero`` (0, unknown to the compiler): an
        // iteration reads 60-84 KiB a warp from the 32 KiB tile, and ptxas would otherwise
        // reuse one group's fragments for another's loads of the same addresses.
        gp_group<M1, N1, K1>(s1, base, start, lane);
        if constexpr (SYNC) __syncthreads();
        gp_group<M1, N1, K1>(s2, base, start + 4096u + zero, lane);
        if constexpr (ALU) {
#pragma unroll
            for (int m = 0; m < M1; ++m)
#pragma unroll
                for (int n = 0; n < N1; ++n)
#pragma unroll
                    for (int k = 0; k < 4; k += 2) {
                        float p0 = gp_ex2(fmaf(s1[m][n][k], 1.4426950f, -0.5f)) * s2[m][n][k];
                        float p1 = gp_ex2(fmaf(s1[m][n][k + 1], 1.4426950f, -0.5f)) * s2[m][n][k + 1];
                        __half2 h = __floats2half2_rn(p0, p1);
                        staged[(((m * N1 + n) * 2 + k / 2) % 8) * 256 + threadIdx.x] = *reinterpret_cast<unsigned*>(&h);
                    }
        } else {
            keep += gp_first<M1, N1>(s1) + gp_first<M1, N1>(s2);
        }
        if constexpr (SYNC) __syncthreads();
        gp_group<M2, N2, K2>(kv1, base, start + 8192u + 2u * zero, lane);
        if constexpr (SYNC) __syncthreads();
        gp_group<M2, N2, K2>(kv2, base, start + 12288u + 3u * zero, lane);
        gp_group<M3, N3, K3>(q, base, start + 16384u + 4u * zero, lane);
        keep += gp_first<M3, N3>(q);
        // the next iteration's addresses depend on this one's results (``zero`` is 0)
        start = (start + 4096u + (__float_as_uint(keep) & zero)) & GP_TILE_MASK;
        if constexpr (SYNC) __syncthreads();
    }
    gs_stamp_end(st, stamps);
    float acc = keep + gp_first<M2, N2>(kv1) + gp_first<M2, N2>(kv2);
    if constexpr (ALU) acc += __uint_as_float(staged[threadIdx.x] & 0x3fffffffu);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

#define GP_INST(M1, N1, K1, M2, N2, K2, M3, N3, K3, SYNC, ALU)                                       \
    template __global__ void group_products<M1, N1, K1, M2, N2, K2, M3, N3, K3, SYNC, ALU>(          \
        const unsigned*, int, unsigned, float*, unsigned long long*);

// FlashAttention-2's backward tiles (Flash_bwd_kernel_traits of PyTorch 2.x) as per-warp group
// shapes, 8 warps: d64 128 x 128 (atom layouts 4, 4, 4), d128 64 x 128 (2, 4, 2), d256 64 x 64
// (4, 2, 2); S and dP (M1, N1, K1), dV and dK (M2, N2, K2), dQ (M3, N3, K3).
#define GP_ALL(M1, N1, K1, M2, N2, K2, M3, N3, K3)              \
    GP_INST(M1, N1, K1, M2, N2, K2, M3, N3, K3, true, false)   \
    GP_INST(M1, N1, K1, M2, N2, K2, M3, N3, K3, false, false)  \
    GP_INST(M1, N1, K1, M2, N2, K2, M3, N3, K3, true, true)
GP_ALL(2, 8, 4, 2, 4, 8, 2, 4, 8)
GP_ALL(2, 4, 8, 2, 8, 4, 2, 4, 8)
GP_ALL(1, 4, 16, 2, 8, 4, 2, 8, 4)
