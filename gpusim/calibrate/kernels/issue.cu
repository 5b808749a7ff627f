// Issue and serialisation of mma.sync with dependent non-tensor work, FlashAttention-like.
//
// Each iteration of a warp: NMMA mma.sync m16n8k16 (f16, f32 accumulate) into ACC
// independent accumulator tiles that start from zero (as S = Q K^T does), then ROUNDS
// passes of a softmax-like sequence over the ACC*4 accumulator values each thread holds
// (per value: FMNMX into a running max, FFMA, MUFU.EX2, FADD into a running sum), then an
// optional __syncthreads(). The next iteration's A operand depends on the running sum
// (through a mask, the argument ``zero``, that is 0 at run time), as P V depends on the softmax. NMMA = 0 is
// the ALU-only loop, ROUNDS = 0 the MMA-only loop.
#include "clocks.cuh"

__device__ __forceinline__ void gs_hmma(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ float gs_ex2(float x) {
    float y;
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

template <int NMMA, int ROUNDS, int SYNC>
__global__ void __launch_bounds__(512) issue_loop(const unsigned* __restrict__ operands, int iters, unsigned zero,
                                                  float* __restrict__ out, unsigned long long* __restrict__ stamps) {
    constexpr int ACC = 8;
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned a[4], b[2];
#pragma unroll
    for (int i = 0; i < 4; ++i) a[i] = operands[6 * tid + i];
    b[0] = operands[6 * tid + 4];
    b[1] = operands[6 * tid + 5];
    // A different B operand per accumulator, so that no two MMA chains are alike.
    unsigned bj[ACC][2];
#pragma unroll
    for (int j = 0; j < ACC; ++j) {
        bj[j][0] = b[0] ^ (unsigned)(j << 1);
        bj[j][1] = b[1] ^ (unsigned)(j << 3);
    }
    float d[ACC][4];
    float mx = -1e30f, sum = 0.0f, keep = 0.0f;
    GsStamp s = gs_stamp_begin();
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int j = 0; j < ACC; ++j) {
#pragma unroll
            for (int k = 0; k < 4; ++k) d[j][k] = (NMMA > 0) ? 0.0f : __uint_as_float(a[k] ^ (j + k));
        }
#pragma unroll
        for (int m = 0; m < NMMA; ++m) gs_hmma(d[m % ACC], a, bj[m % ACC]);
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
#pragma unroll
            for (int j = 0; j < ACC; ++j) {
#pragma unroll
                for (int k = 0; k < 4; ++k) {
                    mx = fmaxf(mx, d[j][k]);
                    float p = gs_ex2(fmaf(d[j][k], 1.4426950f, -mx));
                    sum += p;
                    d[j][k] = p;
                }
            }
        }
        if (ROUNDS == 0) {
#pragma unroll
            for (int j = 0; j < ACC; ++j) keep += d[j][0];
        }
        a[0] ^= (__float_as_uint(sum + keep) & zero);
        if (SYNC) __syncthreads();
    }
    gs_stamp_end(s, stamps);
    float acc = sum + mx + keep;
#pragma unroll
    for (int j = 0; j < ACC; ++j) acc += d[j][0] + d[j][1] + d[j][2] + d[j][3];
    out[tid] = acc;
}

template __global__ void issue_loop<64, 0, 1>(const unsigned*, int, unsigned, float*, unsigned long long*);
template __global__ void issue_loop<0, 1, 1>(const unsigned*, int, unsigned, float*, unsigned long long*);
template __global__ void issue_loop<0, 2, 1>(const unsigned*, int, unsigned, float*, unsigned long long*);
template __global__ void issue_loop<64, 1, 1>(const unsigned*, int, unsigned, float*, unsigned long long*);
template __global__ void issue_loop<64, 2, 1>(const unsigned*, int, unsigned, float*, unsigned long long*);
template __global__ void issue_loop<128, 1, 1>(const unsigned*, int, unsigned, float*, unsigned long long*);
template __global__ void issue_loop<64, 1, 0>(const unsigned*, int, unsigned, float*, unsigned long long*);
template __global__ void issue_loop<0, 1, 0>(const unsigned*, int, unsigned, float*, unsigned long long*);
template __global__ void issue_loop<64, 0, 0>(const unsigned*, int, unsigned, float*, unsigned long long*);
