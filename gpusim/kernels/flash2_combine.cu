// FlashDecoding's second kernel: merges the kv_splits partial results of flash2_tc<...SPLIT>,
// as algorithms/split_kv.py's CombineKernel models it.
//
// Row r of (batch*head, query) has, per split s that has keys for its query block, a partial
// output O_s (divided by the split's own softmax denominator) and the split's log-sum-exp L_s
// (natural log of the scaled scores; -inf where the split saw no key of that row). The
// exact result is O = sum_s w_s O_s / sum_s w_s, w_s = exp(L_s - max_s L_s), and 0 for a row
// no split saw (every L_s = -inf: no NaN). The splits without keys for the query block (their
// CTAs exited, their partials are unwritten) are not read: the first n of them have keys,
// n = flash2_splits_with_keys of the block's visible key blocks. Grid (ceil(nq / rows),
// B*H), 4 warps; CTA (i, bh) takes `rows` query rows (a divisor of block_m, so that they lie
// in one query block), warp w its rows w, w + 4, ...; lane k holds columns
// [k*PER, (k+1)*PER) (PER = D/32, at least 2, so that stores are whole 16-bit pairs).
// Layout: o_part[bh][row][split][D] and lse[bh][row][split] fp32, O[bh][row][D] 16-bit.
#include "flash2_common.cuh"

template <bool BF16, int D>
__global__ void __launch_bounds__(128)
    flash2_combine(const float* __restrict__ o_part, const float* __restrict__ lse,
                   u16* __restrict__ O, int nq, int nk, int causal, int n_splits, int block_m,
                   int block_n, int rows) {
  constexpr int PER = D >= 64 ? D / 32 : 2;  // columns per lane
  constexpr int LANES = D / PER;             // lanes that hold columns
  static_assert(D % 32 == 0 && PER % 2 == 0, "head dim");
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int r0 = blockIdx.x * rows;
  const long long bh = blockIdx.y;
  const int q0 = r0 / block_m * block_m;  // the split kernel's query block of these rows
  const int tc = (nk + block_n - 1) / block_n;
  const int n = flash2_splits_with_keys(tc, flash2_kv_tiles(q0, block_m, nq, nk, causal,
                                                            block_n), n_splits);
  for (int r = r0 + warp; r < min(r0 + rows, nq); r += 4) {
    const long long row = bh * nq + r;
    const float* lrow = lse + row * n_splits;
    float mx = -F2_INF;
    for (int s = lane; s < n; s += 32) mx = fmaxf(mx, lrow[s]);
    mx = warp_max_xor(mx, 32);
    float acc[PER];
#pragma unroll
    for (int e = 0; e < PER; ++e) acc[e] = 0.f;
    float wsum = 0.f;
    if (mx != -F2_INF) {
      for (int s = 0; s < n; ++s) {
        const float w = expf(lrow[s] - mx);  // -inf - mx: 0
        wsum += w;
        if (lane < LANES) {
          const float* src = o_part + (row * n_splits + s) * D + lane * PER;
          if constexpr (PER % 4 == 0) {
#pragma unroll
            for (int e = 0; e < PER; e += 4) {
              const float4 v = *reinterpret_cast<const float4*>(src + e);
              acc[e] = fmaf(w, v.x, acc[e]);
              acc[e + 1] = fmaf(w, v.y, acc[e + 1]);
              acc[e + 2] = fmaf(w, v.z, acc[e + 2]);
              acc[e + 3] = fmaf(w, v.w, acc[e + 3]);
            }
          } else {
            const float2 v = *reinterpret_cast<const float2*>(src);
            acc[0] = fmaf(w, v.x, acc[0]);
            acc[1] = fmaf(w, v.y, acc[1]);
          }
        }
      }
    }
    const float inv = wsum > 0.f ? 1.f / wsum : 0.f;
    if (lane < LANES) {
      u32 packed[PER / 2];
#pragma unroll
      for (int e = 0; e < PER / 2; ++e)
        packed[e] = pack2<BF16>(acc[2 * e] * inv, acc[2 * e + 1] * inv);
      u16* dst = O + row * D + lane * PER;
      if constexpr (PER == 8) {
        uint4 v;
        v.x = packed[0], v.y = packed[1], v.z = packed[2], v.w = packed[3];
        *reinterpret_cast<uint4*>(dst) = v;
      } else if constexpr (PER == 4) {
        uint2 v;
        v.x = packed[0], v.y = packed[1];
        *reinterpret_cast<uint2*>(dst) = v;
      } else {
        *reinterpret_cast<u32*>(dst) = packed[0];
      }
    }
  }
}
