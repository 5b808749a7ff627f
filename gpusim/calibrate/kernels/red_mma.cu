// mma.sync products and fp32 atomic adds (RED) in the same loop, one CTA of 8 warps per SM:
// do the adds a backward kernel sends (its dQ, added straight from an m16n8 accumulator's
// registers) run beside the products, or do they take the SM's time? No attention code.
// Each step, every warp issues NMMA mma.sync m16n8k16 from registers (8 independent
// accumulators) and NRED warp-wide fp32 atomicAdd instructions (RED, the result unused) in the
// C-fragment layout (8 rows x 4 floats two apart, rows 128 floats long), the rows moving on
// each step through a 16-MiB buffer the L2 keeps. clock64 brackets the loop in every CTA.
#include "warp_mma.cuh"

template <int NMMA, int NRED>
__global__ void __launch_bounds__(256, 1) red_mma(float* __restrict__ buf,
                                                  unsigned long long floats, int steps,
                                                  long long* __restrict__ cycles,
                                                  float* __restrict__ out) {
    constexpr unsigned long long ROW_FLOATS = 128;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const unsigned long long chunks = floats / 1024ull;  // 8 rows x 128 floats
    unsigned a[4] = {0x3c003c00u ^ threadIdx.x, 0x3c003c00u, 0x3c003c00u, 0x3c003c00u};
    float acc[8][4] = {};
    const float v = 1.0f + (float)(lane & 7u) * 0.125f;
    __syncthreads();
    const long long t0 = clock64();
    for (int s = 0; s < steps; ++s) {
#pragma unroll
        for (int i = 0; i < NMMA; ++i) wm_hmma(acc[i & 7], a, a[1], a[2]);
        // this warp's chunk for the step: one of 32 columns groups of 4 floats per row set
        const unsigned long long c = ((unsigned long long)blockIdx.x * 977ull + s * 8ull + warp) % chunks;
#pragma unroll
        for (int k = 0; k < NRED; ++k) {
            const unsigned long long col = 8ull * ((k >> 1) & 15) + 2ull * (lane & 3u) + (k & 1u);
            const unsigned long long row = 8ull * c + (lane >> 2);
            atomicAdd(buf + row * ROW_FLOATS + col, v);
        }
    }
    const long long t1 = clock64();
    float sum = 0.f;
#pragma unroll
    for (int i = 0; i < 8; ++i) sum += acc[i][0] + acc[i][1] + acc[i][2] + acc[i][3];
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

template __global__ void red_mma<320, 0>(float*, unsigned long long, int, long long*, float*);
template __global__ void red_mma<0, 32>(float*, unsigned long long, int, long long*, float*);
template __global__ void red_mma<0, 64>(float*, unsigned long long, int, long long*, float*);
template __global__ void red_mma<320, 32>(float*, unsigned long long, int, long long*, float*);
template __global__ void red_mma<320, 64>(float*, unsigned long long, int, long long*, float*);
template __global__ void red_mma<160, 32>(float*, unsigned long long, int, long long*, float*);
template __global__ void red_mma<160, 0>(float*, unsigned long long, int, long long*, float*);
