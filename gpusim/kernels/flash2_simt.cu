// FlashAttention-2 forward in fp32 on the CUDA cores (FFMA), the seeds' float32 algorithm.
//
// One CTA per (query block of BR rows, batch*head). Threads form a TR x 16 grid (TR = 2 *
// WARPS): thread (tr, tc) owns query rows tr + TR*i (i < TM) and, of each K/V tile, keys
// tc + 16*j (j < TN) of S and output columns 4*tc + 64*q .. +3 of O. The 16 threads of one
// row group are one half-warp, so row max and row sum are shuffles. Q, K, V tiles sit in shared
// memory with rows padded by 16 bytes (float4 reads hit distinct banks); P goes through a
// per-row-group shared buffer (only the owning half-warp writes and reads it). Running m, l,
// O in registers, one final normalisation. K/V arrive through a STAGES-deep cp.async ring.
#include "flash2_common.cuh"

template <int LD, int ROWS, int D, int THREADS>
__device__ __forceinline__ void simt_load_tile(float* s, const float* g, int row0, int n, int tid) {
  constexpr int CH = D / 4;  // 16-byte chunks per row
  constexpr int TOTAL = ROWS * CH;
#pragma unroll
  for (int i0 = 0; i0 < TOTAL; i0 += THREADS) {
    const int i = i0 + tid;
    if (TOTAL % THREADS == 0 || i < TOTAL) {
      const int r = i / CH, c = i % CH;
      const int gr = row0 + r;
      const bool ok = gr < n;
      const float* src = g + (long long)(ok ? gr : 0) * D + c * 4;
      cp_async16(smem_u32(s + r * LD + c * 4), src, ok ? 16 : 0);
    }
  }
}

template <int D, int BR, int BC, int WARPS, int STAGES>
__global__ void __launch_bounds__(WARPS * 32)
    flash2_simt(const float* __restrict__ Q, const float* __restrict__ K,
                const float* __restrict__ V, float* __restrict__ O, int nq, int nk, int causal,
                float scale_log2) {
  constexpr int THREADS = WARPS * 32;
  constexpr int TC = 16;            // threads across keys / output columns
  constexpr int TR = THREADS / TC;  // threads across query rows
  constexpr int TM = BR / TR;       // query rows per thread
  constexpr int TN = BC / TC;       // keys per thread per tile
  constexpr int DQ = D / 64;        // float4 output chunks per thread and row
  constexpr int LD = D + 4;         // padded row of Q, K, V (floats)
  constexpr int LDP = BC + 16;      // padded row of P: the two half-warps land 16 banks apart
  static_assert(BR % TR == 0 && BC % TC == 0 && D % 64 == 0, "tile shape");

  extern __shared__ __align__(128) unsigned char smem_raw[];
  float* sQ = reinterpret_cast<float*>(smem_raw);
  float* sK = sQ + BR * LD;
  float* sV = sK + STAGES * BC * LD;
  float* sP = sV + STAGES * BC * LD;

  const int tid = threadIdx.x;
  const int tc = tid & (TC - 1), tr = tid / TC;
  const int m_block = gridDim.x - 1 - blockIdx.x;
  const int q0 = m_block * BR;
  const long long bh = blockIdx.y;
  Q += bh * nq * D;
  O += bh * nq * D;
  K += bh * nk * D;
  V += bh * nk * D;
  const int diag = nk - nq;
  const int n_tiles = flash2_kv_tiles(q0, BR, nq, nk, causal, BC);

  float o[TM][DQ][4];
  float m_i[TM], l_i[TM];
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int q = 0; q < DQ; ++q)
#pragma unroll
      for (int e = 0; e < 4; ++e) o[i][q][e] = 0.f;
    m_i[i] = -F2_INF;
    l_i[i] = 0.f;
  }

  auto tile = [&](const float* sKs, const float* sVs, int k0) {
#define SIMT_PRODUCT_QK
#include "simt_products.inc"
#undef SIMT_PRODUCT_QK
    const bool mask = flash2_tile_needs_mask(q0, k0, nq, nk, causal, BC);
    __syncwarp();  // the half-warp is done reading the previous tile's P
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int r = tr + TR * i;
      if (mask) {
#pragma unroll
        for (int j = 0; j < TN; ++j) {
          const int col = k0 + tc + TC * j;
          if (col >= nk || (causal && col > q0 + r + diag)) s[i][j] = -F2_INF;
        }
      }
      float mx = m_i[i];
#pragma unroll
      for (int j = 0; j < TN; ++j) mx = fmaxf(mx, s[i][j]);
      mx = warp_max_xor(mx, TC);
      const float m_use = (mx == -F2_INF) ? 0.f : mx * scale_log2;
      const float alpha = fast_exp2(m_i[i] * scale_log2 - m_use);
      m_i[i] = mx;
      float rs = 0.f;
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        const float p = fast_exp2(fmaf(s[i][j], scale_log2, -m_use));
        rs += p;
        sP[r * LDP + tc + TC * j] = p;
      }
      l_i[i] = l_i[i] * alpha + rs;
#pragma unroll
      for (int q = 0; q < DQ; ++q)
#pragma unroll
        for (int e = 0; e < 4; ++e) o[i][q][e] *= alpha;
    }
    __syncwarp();  // P rows of this half-warp are written
#define SIMT_PRODUCT_PV
#include "simt_products.inc"
#undef SIMT_PRODUCT_PV
  };

  simt_load_tile<LD, BR, D, THREADS>(sQ, Q, q0, nq, tid);
  if constexpr (STAGES == 1) {
    for (int j = 0; j < n_tiles; ++j) {
      if (j > 0) __syncthreads();  // everyone is done with tile j-1
      simt_load_tile<LD, BC, D, THREADS>(sK, K, j * BC, nk, tid);
      simt_load_tile<LD, BC, D, THREADS>(sV, V, j * BC, nk, tid);
      cp_async_commit();
      cp_async_wait<0>();
      __syncthreads();
      tile(sK, sV, j * BC);
    }
  } else {
#pragma unroll
    for (int st = 0; st < STAGES - 1; ++st) {
      if (st < n_tiles) {
        simt_load_tile<LD, BC, D, THREADS>(sK + st * BC * LD, K, st * BC, nk, tid);
        simt_load_tile<LD, BC, D, THREADS>(sV + st * BC * LD, V, st * BC, nk, tid);
      }
      cp_async_commit();
    }
    for (int j = 0; j < n_tiles; ++j) {
      cp_async_wait<STAGES - 2>();
      __syncthreads();
      const int jn = j + STAGES - 1;
      if (jn < n_tiles) {
        const int sn = jn % STAGES;
        simt_load_tile<LD, BC, D, THREADS>(sK + sn * BC * LD, K, jn * BC, nk, tid);
        simt_load_tile<LD, BC, D, THREADS>(sV + sn * BC * LD, V, jn * BC, nk, tid);
      }
      cp_async_commit();
      const int sc = j % STAGES;
      tile(sK + sc * BC * LD, sV + sc * BC * LD, j * BC);
    }
  }
  cp_async_wait<0>();

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const float l = warp_sum_xor(l_i[i], TC);
    const float inv = l > 0.f ? 1.f / l : 0.f;  // rows that see no key give 0
    const int grow = q0 + tr + TR * i;
    if (grow < nq) {
#pragma unroll
      for (int q = 0; q < DQ; ++q) {
        float4 v;
        v.x = o[i][q][0] * inv;
        v.y = o[i][q][1] * inv;
        v.z = o[i][q][2] * inv;
        v.w = o[i][q][3] * inv;
        *reinterpret_cast<float4*>(O + (long long)grow * D + 4 * tc + 64 * q) = v;
      }
    }
  }
}
