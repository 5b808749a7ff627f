// Local memory (a thread's stack array, LDL/STL through L1) alone and beside mma.sync
// products, as a kernel that spills runs them: PyTorch's FlashAttention-2 forward at d128
// loads 12 and stores 14 words of local memory a step beside its 256 products per warp
// (data/h200/2026-12-02_torch_flash_sass). No attention code.
// local_chase: one warp per SM walks a chain of dependent local loads (each index read from
// the previous load): cycles per load = the load-to-use latency of local memory.
// local_mma<NMMA, NLD, NST>: one CTA of 8 warps per SM; each step every warp issues NMMA
// mma.sync m16n8k16 from registers (8 independent accumulators), NST local stores and NLD
// local loads (32-bit, addresses from a runtime index so the array stays in local memory).
// Every lane of a warp uses the same slot, as a register spill does: local memory
// interleaves the lanes' words, so such an access is 128 contiguous bytes.
// clock64 brackets the loop in every CTA.
#include "warp_mma.cuh"

constexpr int LOCAL_WORDS = 64;

__global__ void __launch_bounds__(32, 1) local_chase(int steps, int seed,
                                                     long long* __restrict__ cycles,
                                                     int* __restrict__ out) {
    int loc[LOCAL_WORDS];
#pragma unroll
    for (int i = 0; i < LOCAL_WORDS; ++i) loc[i] = (i * 37 + seed) & (LOCAL_WORDS - 1);
    int idx = seed & (LOCAL_WORDS - 1);  // the same slot in every lane, as a spill's
    __syncwarp();
    const long long t0 = clock64();
    for (int s = 0; s < steps; ++s) idx = loc[idx];
    const long long t1 = clock64();
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
    out[blockIdx.x * blockDim.x + threadIdx.x] = idx;
}

template <int NMMA, int NLD, int NST>
__global__ void __launch_bounds__(256, 1) local_mma(int steps, int seed,
                                                    long long* __restrict__ cycles,
                                                    float* __restrict__ out) {
    float loc[LOCAL_WORDS];
#pragma unroll
    for (int i = 0; i < LOCAL_WORDS; ++i) loc[i] = (float)(seed + i) * 0.5f + (float)threadIdx.x;
    unsigned a[4] = {0x3c003c00u ^ threadIdx.x, 0x3c003c00u, 0x3c003c00u, 0x3c003c00u};
    float acc[8][4] = {};
    unsigned idx = (unsigned)seed & (LOCAL_WORDS - 1);  // the same slot in every lane
    float sum = 0.f;
    __syncthreads();
    const long long t0 = clock64();
    for (int s = 0; s < steps; ++s) {
#pragma unroll
        for (int i = 0; i < NMMA; ++i) wm_hmma(acc[i & 7], a, a[1], a[2]);
#pragma unroll
        for (int k = 0; k < NST; ++k) loc[(idx + 7u * k) & (LOCAL_WORDS - 1)] = sum + (float)k;
#pragma unroll
        for (int k = 0; k < NLD; ++k) sum += loc[(idx + 5u * k + 3u) & (LOCAL_WORDS - 1)];
        idx = (idx + 13u) & (LOCAL_WORDS - 1);
    }
    const long long t1 = clock64();
#pragma unroll
    for (int i = 0; i < 8; ++i) sum += acc[i][0] + acc[i][1] + acc[i][2] + acc[i][3];
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

template __global__ void local_mma<256, 0, 0>(int, int, long long*, float*);
template __global__ void local_mma<0, 12, 14>(int, int, long long*, float*);
template __global__ void local_mma<256, 12, 14>(int, int, long long*, float*);
template __global__ void local_mma<0, 48, 56>(int, int, long long*, float*);
template __global__ void local_mma<256, 48, 56>(int, int, long long*, float*);
