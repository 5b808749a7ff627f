// FlashDecoding's second kernel: merges the kv_splits partial results of flash2_tc<...SPLIT>.
//
// Row r of (batch*head, query) has, per slice s, a partial output O_s (divided by the slice's
// own softmax denominator) and the slice's log-sum-exp L_s (natural log of the scaled scores;
// -inf where the slice saw no key of that row). The exact result is
//   O = sum_s w_s O_s / sum_s w_s,  w_s = exp(L_s - max_s L_s),
// and 0 for a row no slice saw (every L_s = -inf: no NaN). One warp per row, 4 rows per
// 128-thread CTA; lane k holds columns [k*PER, (k+1)*PER) (PER = D/32, at least 2, so that
// stores are whole 16-bit pairs); slices whose weight is 0 are not read. Layout:
// o_part[s][row][D] and lse[s][row] fp32 (row = bh * nq + i), O[row][D] in 16 bits.
#include "flash2_common.cuh"

template <bool BF16, int D>
__global__ void __launch_bounds__(128)
    flash2_combine(const float* __restrict__ o_part, const float* __restrict__ lse,
                   u16* __restrict__ O, long long rows, int n_splits) {
  constexpr int PER = D >= 64 ? D / 32 : 2;  // columns per lane
  constexpr int LANES = D / PER;             // lanes that hold columns
  static_assert(D % 32 == 0 && PER % 2 == 0, "head dim");
  const long long row = (long long)blockIdx.x * 4 + (threadIdx.x >> 5);
  if (row >= rows) return;  // whole warps leave together
  const int lane = threadIdx.x & 31;

  float mx = -F2_INF;
  for (int s = lane; s < n_splits; s += 32) mx = fmaxf(mx, lse[s * rows + row]);
  mx = warp_max_xor(mx, 32);

  float acc[PER];
#pragma unroll
  for (int e = 0; e < PER; ++e) acc[e] = 0.f;
  float wsum = 0.f;
  if (mx != -F2_INF) {
    for (int s = 0; s < n_splits; ++s) {
      const float w = expf(lse[s * rows + row] - mx);  // -inf - mx: 0
      if (w == 0.f) continue;  // the same for every lane: no divergence
      wsum += w;
      if (lane < LANES) {
        const float* src = o_part + (s * rows + row) * D + lane * PER;
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
