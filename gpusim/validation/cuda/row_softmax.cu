// Row softmax of standard attention: P = softmax(scale * S) row by row, S and P in fp16.
//
// One CTA per row (as the model's `softmax_row` kernel): the row is read from global memory
// once into shared memory as fp32 (max on the way), exponentiated in place (sum on the way),
// and written once, normalised. 16-byte loads and stores; the row length must be a multiple
// of 8. scale_log2 = log2(e) / sqrt(d), so exp2(x * scale_log2) = exp(x / sqrt(d)).
#include <cuda_fp16.h>

template <int THREADS>
__device__ float block_reduce(float v, float* red, bool is_max) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int o = 16; o > 0; o >>= 1) {
        float u = __shfl_xor_sync(0xffffffffu, v, o);
        v = is_max ? fmaxf(v, u) : v + u;
    }
    if (lane == 0) red[warp] = v;
    __syncthreads();
    v = red[0];
    for (int w = 1; w < THREADS / 32; ++w) v = is_max ? fmaxf(v, red[w]) : v + red[w];
    __syncthreads();  // red is reused by the next reduction
    return v;
}

template <int THREADS>
__global__ void __launch_bounds__(THREADS) row_softmax(const __half* __restrict__ s,
                                                       __half* __restrict__ p, int n,
                                                       float scale_log2) {
    extern __shared__ float row[];
    __shared__ float red[THREADS / 32];
    const long long base = (long long)blockIdx.x * n;
    const uint4* src = reinterpret_cast<const uint4*>(s + base);
    uint4* dst = reinterpret_cast<uint4*>(p + base);
    const int chunks = n / 8;
    float m = -__int_as_float(0x7f800000);  // -inf; NVRTC has no INFINITY macro
    for (int c = threadIdx.x; c < chunks; c += THREADS) {
        uint4 raw = src[c];
        const __half2* h = reinterpret_cast<const __half2*>(&raw);
        float v[8];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            float2 f = __half22float2(h[i]);
            v[2 * i] = f.x * scale_log2;
            v[2 * i + 1] = f.y * scale_log2;
            m = fmaxf(m, fmaxf(v[2 * i], v[2 * i + 1]));
        }
        // Two 16-byte shared stores per chunk rather than eight 4-byte ones.
        float4* r4 = reinterpret_cast<float4*>(row) + 2 * c;
        r4[0] = make_float4(v[0], v[1], v[2], v[3]);
        r4[1] = make_float4(v[4], v[5], v[6], v[7]);
    }
    m = block_reduce<THREADS>(m, red, true);
    float sum = 0.f;
    for (int i = threadIdx.x; i < n; i += THREADS) {
        float e = exp2f(row[i] - m);
        row[i] = e;
        sum += e;
    }
    sum = block_reduce<THREADS>(sum, red, false);
    const float inv = 1.f / sum;
    for (int c = threadIdx.x; c < chunks; c += THREADS) {
        const float4* r4 = reinterpret_cast<const float4*>(row) + 2 * c;
        const float4 a = r4[0], b = r4[1];
        uint4 raw;
        __half2* h = reinterpret_cast<__half2*>(&raw);
        h[0] = __floats2half2_rn(a.x * inv, a.y * inv);
        h[1] = __floats2half2_rn(a.z * inv, a.w * inv);
        h[2] = __floats2half2_rn(b.x * inv, b.y * inv);
        h[3] = __floats2half2_rn(b.z * inv, b.w * inv);
        dst[c] = raw;
    }
}
