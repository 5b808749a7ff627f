// Tensor-core throughput of mma.sync: each warp keeps ACC independent
// accumulator tiles in flight so the pipe, not the dependency chain, limits.
//
// Kinds: 0 = m16n8k16 f32.f16.f16.f32, 1 = m16n8k16 f32.bf16.bf16.f32,
// 2 = m16n8k8 f32.tf32.tf32.f32. Operands come from memory (random, non-zero),
// and every accumulator is stored, so nothing can be folded away.
#include "clocks.cuh"

template <int KIND>
__device__ __forceinline__ void gs_mma(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    if constexpr (KIND == 0) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
            "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else if constexpr (KIND == 1) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
            "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else {
        asm volatile(
            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
            "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
}

// operands: 6 words per thread (A fragment 4, B fragment 2), indexed by global thread id.
template <int KIND, int ACC>
__global__ void __launch_bounds__(256) mma_loop(const unsigned* __restrict__ operands, int iters, float* __restrict__ out,
                         unsigned long long* __restrict__ stamps) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned a[4], b[2];
#pragma unroll
    for (int i = 0; i < 4; ++i) a[i] = operands[6 * tid + i];
    b[0] = operands[6 * tid + 4];
    b[1] = operands[6 * tid + 5];
    float d[ACC][4];
#pragma unroll
    for (int j = 0; j < ACC; ++j) {
#pragma unroll
        for (int k = 0; k < 4; ++k) d[j][k] = 0.0f;
    }
    GsStamp s = gs_stamp_begin();
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < ACC; ++j) gs_mma<KIND>(d[j], a, b);
    }
    gs_stamp_end(s, stamps);
    float acc = 0.0f;
#pragma unroll
    for (int j = 0; j < ACC; ++j) acc += d[j][0] + d[j][1] + d[j][2] + d[j][3];
    out[tid] = acc;
}

template __global__ void mma_loop<0, 4>(const unsigned*, int, float*, unsigned long long*);
template __global__ void mma_loop<0, 8>(const unsigned*, int, float*, unsigned long long*);
template __global__ void mma_loop<1, 4>(const unsigned*, int, float*, unsigned long long*);
template __global__ void mma_loop<1, 8>(const unsigned*, int, float*, unsigned long long*);
template __global__ void mma_loop<2, 4>(const unsigned*, int, float*, unsigned long long*);
template __global__ void mma_loop<2, 8>(const unsigned*, int, float*, unsigned long long*);
