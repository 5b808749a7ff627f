// Hopper-native attention forward: TMA loads, mbarrier pipelines, wgmma products, a producer
// warpgroup and NC consumer warpgroups (FlashAttention-3's structure, written for gpusim).
//
// CTA = (NC + 1) warpgroups. Warpgroup 0 gives its registers away (setmaxnreg.dec) and one of
// its threads issues every TMA copy: Q once, then K_j and V_j into a STAGES-deep ring, each
// slot guarded by a "full" barrier (TMA completes its bytes) and an "empty" barrier (every
// consumer thread arrives once its wgmma reading the slot has completed). Consumer warpgroup
// c owns query rows [64c, 64c + 64) of the block: S = Q K^T by wgmma (A and B from swizzled
// shared memory), online softmax in registers, P rounded to 16 bits in registers and used as
// wgmma's register A operand for O += P V (V read transposed through its descriptor). The
// product S_{j+1} = Q K_{j+1}^T and O += P_j V_j are issued before the softmax of S_{j+1}, so
// the tensor cores work while the SFU computes exponentials.
//
// Layout: Q, K, V, O are (B*H, N, D) contiguous 16-bit arrays. Tensor maps are 3-D
// (D, N, B*H) with 64-element (128-byte) boxes and 128-byte swizzle, so a tile of R rows and D
// columns lands as D/64 panels of R x 128 bytes, rows past N filled with zeros. Causal masks
// are bottom-right aligned (key j visible to query i iff j <= i + nk - nq), as flash2_tc's.
//
// Long-context switches (compile-time, so that an instance with both off is the kernel as it was):
// - GQA: K and V have heads / group heads; query head h of a batch reads K/V head h / group
//   (flash2_kv_bh), through K and V tensor maps over (D, Nk, B*Hkv).
// - SPLIT (kv_splits > 1, FlashDecoding, as algorithms/split_kv.py models it): grid (m blocks,
//   n_splits, B*H); CTA (m, split, bh) walks its split's slice of the key blocks clipped to
//   what its query block sees (flash2_split_slice, the mma.sync kernel's rule), exits at once
//   with nothing left, else writes its partial O (divided by its own l) and its rows'
//   log-sum-exps in fp32 as flash2_tc does: o_part[bh][row][split][D], lse[bh][row][split];
//   flash2_combine.cu merges the splits.
#include "wgmma_ops.cuh"

typedef unsigned short u16;

#define WG_INF __int_as_float(0x7f800000)

// CUtensorMap's 128 opaque bytes, passed by value as a __grid_constant__ parameter.
struct __align__(64) TmaMap {
  u64 opaque[16];
};

__device__ __forceinline__ u32 wg_smem(const void* p) {
  return static_cast<u32>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(u32 bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count));
}

__device__ __forceinline__ void mbar_expect_tx(u32 bar, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void mbar_arrive(u32 bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

__device__ __forceinline__ bool mbar_try_wait(u32 bar, int parity) {
  u32 ok;
  asm volatile(
      "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(ok)
      : "r"(bar), "r"(parity)
      : "memory");
  return ok != 0;
}

__device__ __forceinline__ u64 wg_globaltimer() {
  u64 t;
  asm volatile("mov.u64 %0, %globaltimer;\n" : "=l"(t));
  return t;
}

// Wait until the barrier's phase of this parity completed. A pipeline bug would hang the GPU;
// after 1 s the wait gives up instead (the output is then wrong and the check says so). Not
// __trap(): a trap anywhere in the consumer path makes ptxas ignore setmaxnreg's budget
// (seen with CUDA 13.0: 168 registers and spills instead of 221 and none).
__device__ __forceinline__ void mbar_wait(u32 bar, int parity) {
  if (mbar_try_wait(bar, parity)) return;
  const u64 t0 = wg_globaltimer();
  while (!mbar_try_wait(bar, parity)) {
    if (wg_globaltimer() - t0 > 1000000000ull) break;
  }
}

// One 3-D TMA box (64 columns, rows, 1 head) into shared memory, completing on bar.
__device__ __forceinline__ void tma_load(u32 dst, const TmaMap* map, int col, int row, int bh,
                                         u32 bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(dst),
      "l"(reinterpret_cast<u64>(map)), "r"(col), "r"(row), "r"(bh), "r"(bar)
      : "memory");
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Keeps the compiler from moving accumulator reads or writes across an asynchronous product.
template <int R>
__device__ __forceinline__ void fence_regs(float (&x)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(x[i])::"memory");
}

// Shared-memory matrix descriptor, 128-byte swizzle. K-major operands: sbo = 1024 (8 rows of
// 128 bytes), lbo unused (16). MN-major: lbo = bytes between 64-element column panels.
__device__ __forceinline__ u64 desc_sw128(u32 addr, u32 lbo, u32 sbo) {
  return static_cast<u64>((addr & 0x3FFFF) >> 4) | (static_cast<u64>(lbo >> 4) << 16) |
         (static_cast<u64>(sbo >> 4) << 32) | (1ull << 62);
}

__device__ __forceinline__ float wg_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

template <bool BF16>
__device__ __forceinline__ u32 wg_pack(float lo, float hi) {
  u32 r;
  if constexpr (BF16) {
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  } else {
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  }
  return r;
}

// Key blocks a query block visits: up to the last key its last row may see.
__device__ __forceinline__ int wg_kv_tiles(int q0, int br, int nq, int nk, int causal, int bc) {
  int end = nk;
  if (causal) end = min(nk, min(q0 + br, nq) + nk - nq);
  return end <= 0 ? 0 : (end + bc - 1) / bc;
}

// Key blocks that need no mask: every key below nk and visible to the block's first row.
__device__ __forceinline__ int wg_full_tiles(int q0, int nq, int nk, int causal, int bc) {
  int end = nk;
  if (causal) end = min(nk, q0 + 1 + nk - nq);
  return end <= 0 ? 0 : end / bc;
}

template <int BC, int NS, bool MASK>
struct Softmax {
  // Online softmax of one S tile (this thread's two rows r0 and r0 + 8): updates the running
  // max m (already scaled by log2e/sqrt(d)) and partial sum l, turns s into p, returns the
  // factor the accumulated O must be multiplied by.
  __device__ __forceinline__ static void run(float (&s)[NS], float (&m)[2], float (&l)[2],
                                             float (&alpha)[2], float scale, int row0, int col0,
                                             int nk, int causal, int diag) {
    if constexpr (MASK) {
#pragma unroll
      for (int c = 0; c < BC / 8; ++c) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int row = row0 + 8 * (e >> 1), col = col0 + 8 * c + (e & 1);
          if (col >= nk || (causal && col > row + diag)) s[4 * c + e] = -WG_INF;
        }
      }
    }
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      float mx = -WG_INF;
#pragma unroll
      for (int c = 0; c < BC / 8; ++c) mx = fmaxf(mx, fmaxf(s[4 * c + 2 * i], s[4 * c + 2 * i + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float m_new = fmaxf(m[i], mx * scale);
      // A row that has seen no key yet keeps m = -inf; exponentials then use 0 (all p = 0).
      const float m_use = m_new == -WG_INF ? 0.f : m_new;
      alpha[i] = wg_exp2(m[i] - m_use);
      m[i] = m_new;
      float sum = 0.f;
#pragma unroll
      for (int c = 0; c < BC / 8; ++c) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float p = wg_exp2(fmaf(s[4 * c + 2 * i + e], scale, -m_use));
          s[4 * c + 2 * i + e] = p;
          sum += p;
        }
      }
      l[i] = l[i] * alpha[i] + sum;
    }
  }
};

// P (fp32 accumulator layout of S) -> 16-bit A fragments of the P V product: for k-step k the
// four registers are rows r0/r0+8 of key columns 16k..16k+7 and 16k+8..16k+15.
template <bool BF16, int BC>
__device__ __forceinline__ void pack_p(const float (&s)[BC / 2], u32 (&pa)[BC / 16][4]) {
#pragma unroll
  for (int k = 0; k < BC / 16; ++k) {
    pa[k][0] = wg_pack<BF16>(s[8 * k + 0], s[8 * k + 1]);
    pa[k][1] = wg_pack<BF16>(s[8 * k + 2], s[8 * k + 3]);
    pa[k][2] = wg_pack<BF16>(s[8 * k + 4], s[8 * k + 5]);
    pa[k][3] = wg_pack<BF16>(s[8 * k + 6], s[8 * k + 7]);
  }
}

// Barrier i of the block's array (q_full, k_full[S], v_full[S], k_empty[S], v_empty[S]).
template <int STAGES>
struct Bars {
  u32 base;
  __device__ __forceinline__ u32 k_full(int s) const { return base + 8u * (1 + s); }
  __device__ __forceinline__ u32 v_full(int s) const { return base + 8u * (1 + STAGES + s); }
  __device__ __forceinline__ u32 k_empty(int s) const { return base + 8u * (1 + 2 * STAGES + s); }
  __device__ __forceinline__ u32 v_empty(int s) const { return base + 8u * (1 + 3 * STAGES + s); }
};

// One consumer warpgroup: S = Q K^T, softmax, O += P V over the block's key tiles, then O.
// PP (ping-pong, two consumers): the warpgroups take turns issuing their products, named
// barriers 1 and 2 passing the turn, so one's softmax runs while the other's products do.
template <bool BF16, int D, int BC, int STAGES, int NC, bool PP, bool SPLIT>
__device__ __forceinline__ void consumer(u32 sQ, u32 sK, u32 sV, u32 q_full, Bars<STAGES> bar,
                                         u16* __restrict__ O, int q0, int bh, int nq, int nk,
                                         int causal, float scale_log2, int n_tiles, int tid,
                                         int kb0, float* __restrict__ o_part,
                                         float* __restrict__ lse, int split, int n_splits) {
  constexpr int BR = 64 * NC, KV_BYTES = BC * D * 2;
  const int wg = tid / 128;
  auto k_full = [&](int s) { return bar.k_full(s); };
  auto v_full = [&](int s) { return bar.v_full(s); };
  auto k_empty = [&](int s) { return bar.k_empty(s); };
  auto v_empty = [&](int s) { return bar.v_empty(s); };
  if constexpr (NC == 2) {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 240;\n");
  } else if constexpr (NC == 3) {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 160;\n");
  }
  const int c = wg - 1, t = tid % 128, warp = t / 32, lane = t % 32;
  const int row0 = q0 + 64 * c + 16 * warp + lane / 4;  // this thread's rows: row0, row0 + 8
  const int col_in = 2 * (lane % 4);                    // its first column in each 8-col chunk
  const int diag = nk - nq;
  // Tiles j < n_full need no mask (j counts from this CTA's first key block kb0).
  const int n_full = min(n_tiles, wg_full_tiles(q0, nq, nk, causal, BC) - kb0);

  float o[D / 2];
#pragma unroll
  for (int i = 0; i < D / 2; ++i) o[i] = 0.f;
  float m[2] = {-WG_INF, -WG_INF}, l[2] = {0.f, 0.f}, alpha[2];
  float s[BC / 2];
  u32 pa[BC / 16][4];

  // Q descriptors: this warpgroup's 64 rows of each panel; k-step k is 32 bytes into a row.
  const u32 q_rows = sQ + c * 64 * 128;
  auto issue_s = [&](int j) {
    const u32 kb = sK + (j % STAGES) * KV_BYTES;
    fence_regs(s);
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < D / 16; ++k) {
      const u32 off = (k % 4) * 32;  // k16 step inside a 128-byte swizzled row
      const u64 da = desc_sw128(q_rows + (k / 4) * BR * 128 + off, 16, 1024);
      const u64 db = desc_sw128(kb + (k / 4) * BC * 128 + off, 16, 1024);
      wgmma_ss<BC, BF16>(s, da, db, k > 0);
    }
    wgmma_commit();
  };
  auto issue_pv = [&](int j) {
    const u32 vb = sV + (j % STAGES) * KV_BYTES;
    fence_regs(o);
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < BC / 16; ++k) {
      // 16 keys = two 1024-byte groups of 8 rows; column panels BC*128 bytes apart.
      wgmma_rs<D, BF16>(o, pa[k], desc_sw128(vb + k * 2048, BC * 128, 1024), 1);
    }
    wgmma_commit();
  };
  auto softmax = [&](int j) {
    const int col0 = (SPLIT ? kb0 + j : j) * BC + col_in;
    if (j < n_full) {
      Softmax<BC, BC / 2, false>::run(s, m, l, alpha, scale_log2, row0, col0, nk, causal, diag);
    } else {
      Softmax<BC, BC / 2, true>::run(s, m, l, alpha, scale_log2, row0, col0, nk, causal, diag);
    }
  };

  static_assert(!PP || NC == 2, "ping-pong takes two consumer warpgroups");
  auto turn_wait = [&]() {
    if constexpr (PP) asm volatile("bar.sync %0, 256;\n" ::"r"(1 + c) : "memory");
  };
  auto turn_done = [&]() {
    if constexpr (PP) asm volatile("bar.arrive %0, 256;\n" ::"r"(2 - c) : "memory");
  };

  mbar_wait(q_full, 0);
  if (n_tiles > 0) {
    if (PP && c == 1) turn_done();  // consumer 0 goes first
    mbar_wait(k_full(0), 0);
    turn_wait();
    issue_s(0);
    turn_done();
    wgmma_wait<0>();
    fence_regs(s);
    mbar_arrive(k_empty(0));
    softmax(0);
    pack_p<BF16, BC>(s, pa);
    for (int j = 1; j < n_tiles; ++j) {
      mbar_wait(k_full(j % STAGES), (j / STAGES) & 1);
      mbar_wait(v_full((j - 1) % STAGES), ((j - 1) / STAGES) & 1);
      turn_wait();
      issue_s(j);
      issue_pv(j - 1);
      turn_done();
      wgmma_wait<1>();  // S_j is done; P_{j-1} V_{j-1} may still run
      fence_regs(s);
      mbar_arrive(k_empty(j % STAGES));
      softmax(j);
      wgmma_wait<0>();
      fence_regs(o);
      mbar_arrive(v_empty((j - 1) % STAGES));
#pragma unroll
      for (int i = 0; i < D / 8; ++i) {
        o[4 * i + 0] *= alpha[0];
        o[4 * i + 1] *= alpha[0];
        o[4 * i + 2] *= alpha[1];
        o[4 * i + 3] *= alpha[1];
      }
      pack_p<BF16, BC>(s, pa);
    }
    const int last = n_tiles - 1;
    mbar_wait(v_full(last % STAGES), (last / STAGES) & 1);
    turn_wait();
    issue_pv(last);
    turn_done();
    if (PP && c == 0) turn_wait();  // takes consumer 1's last hand-over: no barrier left open
    wgmma_wait<0>();
    fence_regs(o);
    mbar_arrive(v_empty(last % STAGES));
  }

  // ---- epilogue: O / l, rounded to 16 bits; rows with no visible key give 0 ----
  float inv[2], tot[2];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    float sum = l[i];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    tot[i] = sum;
    inv[i] = sum > 0.f ? 1.f / sum : 0.f;
  }
  if constexpr (SPLIT) {
    // The slice's partial O / l and each row's log-sum-exp (natural log of the scaled
    // scores: m is already in log2 units of them), fp32, as flash2_tc writes them.
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int row = row0 + 8 * i;
      if (row >= nq) continue;
      const long long at = (static_cast<long long>(bh) * nq + row) * n_splits + split;
      float* dst = o_part + at * D + col_in;
#pragma unroll
      for (int cc = 0; cc < D / 8; ++cc) {
        float2 v;
        v.x = o[4 * cc + 2 * i] * inv[i];
        v.y = o[4 * cc + 2 * i + 1] * inv[i];
        *reinterpret_cast<float2*>(dst + 8 * cc) = v;
      }
      if (lane % 4 == 0) lse[at] = tot[i] > 0.f ? 0.69314718056f * (m[i] + __log2f(tot[i])) : -WG_INF;
    }
    return;
  }
  u16* out = O + static_cast<long long>(bh) * nq * D;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int row = row0 + 8 * i;
    if (row >= nq) continue;
    u32* dst = reinterpret_cast<u32*>(out + static_cast<long long>(row) * D + col_in);
#pragma unroll
    for (int cc = 0; cc < D / 8; ++cc) {
      dst[4 * cc] = wg_pack<BF16>(o[4 * cc + 2 * i] * inv[i], o[4 * cc + 2 * i + 1] * inv[i]);
    }
  }
}

template <bool BF16, int D, int BC, int STAGES, int NC, bool PP = false, bool GQA = false,
          bool SPLIT = false>
__global__ void __launch_bounds__((NC + 1) * 128, 1)
    flash3_wgmma(const __grid_constant__ TmaMap tm_q, const __grid_constant__ TmaMap tm_k,
                 const __grid_constant__ TmaMap tm_v, u16* __restrict__ O, int nq, int nk,
                 int causal, float scale_log2, int heads, int group, float* __restrict__ o_part,
                 float* __restrict__ lse, int n_splits) {
  constexpr int BR = 64 * NC;
  constexpr int PANELS = D / 64;
  constexpr int Q_BYTES = BR * D * 2, KV_BYTES = BC * D * 2;
  static_assert(D % 64 == 0 && D <= 256, "head dim: 64, 128 or 256");
  static_assert(BC % 16 == 0 && BC <= 256, "key block: a multiple of 16 up to 256");
  static_assert(NC >= 1 && NC <= 3, "1 to 3 consumer warpgroups");

  extern __shared__ unsigned char smem_raw[];
  // 128-byte swizzle needs 1024-byte aligned panels; the launch adds 1024 bytes of slack.
  const u32 base = (wg_smem(smem_raw) + 1023u) & ~1023u;
  const u32 sQ = base, sK = sQ + Q_BYTES, sV = sK + STAGES * KV_BYTES;
  const u32 bars = sV + STAGES * KV_BYTES;  // q_full, k_full[S], v_full[S], k_empty[S], v_empty[S]
  const u32 q_full = bars;
  const Bars<STAGES> bar{bars};
  auto k_full = [&](int s) { return bar.k_full(s); };
  auto v_full = [&](int s) { return bar.v_full(s); };
  auto k_empty = [&](int s) { return bar.k_empty(s); };
  auto v_empty = [&](int s) { return bar.v_empty(s); };

  const int tid = threadIdx.x;
  // Warp-uniform by construction (a broadcast), so ptxas can give each role its own register
  // budget after setmaxnreg.
  const int wg = __shfl_sync(0xffffffffu, tid / 128, 0);
  // Longest query blocks first when causal, so the short ones fill the tail of the grid.
  const int m_block = causal ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  const int q0 = m_block * BR, bh = SPLIT ? blockIdx.z : blockIdx.y;
  // The K/V head this query head reads (GQA), and this CTA's key blocks [kb0, kb0 + n_tiles).
  const int kv_bh = GQA ? (bh / heads) * (heads / group) + (bh % heads) / group : bh;
  int n_tiles = wg_kv_tiles(q0, BR, nq, nk, causal, BC), kb0 = 0, split = 0;
  if constexpr (SPLIT) {
    // Counted down with the query blocks, as the model (and flash2_tc) launches them.
    split = gridDim.y - 1 - blockIdx.y;
    const int tc = (nk + BC - 1) / BC;
    kb0 = static_cast<int>(static_cast<long long>(split) * tc / n_splits);
    const int end = min(static_cast<int>(static_cast<long long>(split + 1) * tc / n_splits),
                        n_tiles);
    n_tiles = max(end - kb0, 0);
    if (n_tiles == 0) return;  // the combine kernel reads only the splits with keys
  }

  if (tid == 0) {
    mbar_init(q_full, 1);
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(k_full(s), 1);
      mbar_init(v_full(s), 1);
      mbar_init(k_empty(s), NC * 128);
      mbar_init(v_empty(s), NC * 128);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  if (wg == 0) {
    // ---- producer ----
    // One consumer warpgroup (256 threads) has 255 registers per thread anyway.
    if constexpr (NC > 1) asm volatile("setmaxnreg.dec.sync.aligned.u32 24;\n");
    if (tid == 0) {
    mbar_expect_tx(q_full, Q_BYTES);
#pragma unroll
    for (int p = 0; p < PANELS; ++p) tma_load(sQ + p * BR * 128, &tm_q, 64 * p, q0, bh, q_full);
    for (int j = 0; j < n_tiles; ++j) {
      const int s = j % STAGES, parity = ((j / STAGES) & 1) ^ 1;
      mbar_wait(k_empty(s), parity);
      mbar_expect_tx(k_full(s), KV_BYTES);
#pragma unroll
      for (int p = 0; p < PANELS; ++p)
        tma_load(sK + s * KV_BYTES + p * BC * 128, &tm_k, 64 * p, (kb0 + j) * BC, kv_bh,
                 k_full(s));
      mbar_wait(v_empty(s), parity);
      mbar_expect_tx(v_full(s), KV_BYTES);
#pragma unroll
      for (int p = 0; p < PANELS; ++p)
        tma_load(sV + s * KV_BYTES + p * BC * 128, &tm_v, 64 * p, (kb0 + j) * BC, kv_bh,
                 v_full(s));
    }
    }
  } else {
    consumer<BF16, D, BC, STAGES, NC, PP, SPLIT>(sQ, sK, sV, q_full, bar, O, q0, bh, nq, nk,
                                             causal, scale_log2, n_tiles, tid, kb0, o_part, lse,
                                             split, n_splits);
  }
}
