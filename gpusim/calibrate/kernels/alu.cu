// FP32 FMA and MUFU (exp) throughput: ACC independent dependency chains per
// thread, enough warps per SM to hide each instruction's latency.
//
// ffma_loop:  x = x * a + b             (one FFMA per step; counts 2 FLOP)
// ex2_loop:   x = ex2.approx.ftz(x) - c (one MUFU.EX2 plus one FADD per step)
// expf_loop:  x = __expf(x) - c         (what kernels write: FMUL, MUFU.EX2, fix-ups)
// With c near 1.5 the ex2 chain settles on a fixed point instead of overflowing.
// Launched with 256 threads; the bounds keep 8 such blocks (2048 threads) per SM.
#include "clocks.cuh"

template <int ACC>
__global__ void __launch_bounds__(256, 8) ffma_loop(const float* __restrict__ init, float a, float b, int iters,
                          float* __restrict__ out, unsigned long long* __restrict__ stamps) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    float x[ACC];
#pragma unroll
    for (int j = 0; j < ACC; ++j) x[j] = init[(tid + j) & 1023];
    GsStamp s = gs_stamp_begin();
    // FFMA issues at one warp-instruction per clock per sub-partition, the issue rate itself, so
    // the loop's counter, compare and branch take FFMA slots: unrolled 16 deep they cost about 2%
    // (at the default depth of 4 they cost 3 in 35, and the rate read about 9% low).
#pragma unroll 16
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < ACC; ++j) x[j] = fmaf(x[j], a, b);
    }
    gs_stamp_end(s, stamps);
    float acc = 0.0f;
#pragma unroll
    for (int j = 0; j < ACC; ++j) acc += x[j];
    out[tid] = acc;
}

__device__ __forceinline__ float gs_ex2(float x) {
    float y;
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

template <int ACC>
__global__ void __launch_bounds__(256, 8) ex2_loop(const float* __restrict__ init, float c, int iters, float* __restrict__ out,
                         unsigned long long* __restrict__ stamps) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    float x[ACC];
#pragma unroll
    for (int j = 0; j < ACC; ++j) x[j] = init[(tid + j) & 1023];
    GsStamp s = gs_stamp_begin();
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < ACC; ++j) x[j] = gs_ex2(x[j]) - c;
    }
    gs_stamp_end(s, stamps);
    float acc = 0.0f;
#pragma unroll
    for (int j = 0; j < ACC; ++j) acc += x[j];
    out[tid] = acc;
}

template <int ACC>
__global__ void __launch_bounds__(256, 8) expf_loop(const float* __restrict__ init, float c, int iters, float* __restrict__ out,
                          unsigned long long* __restrict__ stamps) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    float x[ACC];
#pragma unroll
    for (int j = 0; j < ACC; ++j) x[j] = init[(tid + j) & 1023];
    GsStamp s = gs_stamp_begin();
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < ACC; ++j) x[j] = __expf(x[j]) - c;
    }
    gs_stamp_end(s, stamps);
    float acc = 0.0f;
#pragma unroll
    for (int j = 0; j < ACC; ++j) acc += x[j];
    out[tid] = acc;
}

template __global__ void ffma_loop<8>(const float*, float, float, int, float*, unsigned long long*);
template __global__ void ex2_loop<8>(const float*, float, int, float*, unsigned long long*);
template __global__ void expf_loop<8>(const float*, float, int, float*, unsigned long long*);
