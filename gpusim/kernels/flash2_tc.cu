// FlashAttention-2 forward, fp16/bf16 on tensor cores (mma.sync m16n8k16, fp32 accumulate).
//
// One CTA per (query block of BR rows, batch*head); WARPS warps split the query rows
// (split-q: warp w owns rows [w*BR/WARPS, (w+1)*BR/WARPS), 16*MT of them). Q, K and V tiles
// live in shared memory in a 16-byte-chunk XOR swizzle, so that ldmatrix and cp.async touch
// all 32 banks; K/V tiles arrive through a STAGES-deep cp.async ring. S = Q K^T and the
// running m, l, O stay in registers; P is converted in registers from accumulator fragments
// to A fragments for the second product. Layout (B, H, N, D) contiguous; K and V (B, Hkv, N, D).
//
// The schedule's long-context fields are compile-time switches, so that an instance with
// every switch off compiles to the code it did before they existed (the recorded SASS loops
// in data/sm90/2026-11-30_kernels_build describe those instances):
// - KV_BACK (kv_order "backward"): walk the visible K/V blocks from the last one down;
// - Q_FIRST (q_order "first-first"): m_block = blockIdx.x instead of gridDim.x - 1 - blockIdx.x;
// - GQA: K/V pointers by K/V head (heads / group of them), see flash2_kv_bh;
// - SPLIT (kv_splits > 1, FlashDecoding, as algorithms/split_kv.py models it): grid
//   (m blocks, n_splits, B*H); within a batch-head, block b = split * m_blocks + m_block is
//   launched in the same order as the query blocks (last first unless Q_FIRST). CTA
//   (m, split, bh) walks its split's slice of the key blocks clipped to what its query block
//   sees (flash2_split_slice); with nothing left it exits at once and writes nothing. Else it
//   writes its partial O (divided by its own l) and its rows' log-sum-exps (natural log, of
//   the scaled scores) in fp32: o_part[bh][row][split][D], lse[bh][row][split] (a row that
//   sees no key of the slice: O = 0, lse = -inf). flash2_combine.cu merges the splits.
// - PACK (pack_gqa, as algorithms/q_outer.py models it; needs grouped K/V heads): one CTA per
//   (block of BR / group queries, batch * K/V head): tile row r holds query q0 + r / group of
//   the group's head r % group (query-major), so a decode step fills group rows of one tile
//   and the group reads its K and V once. Each row keeps its own query for the causal mask;
//   with SPLIT the partial O and lse go to the row's own (query head, query) as without it.
#include "flash2_common.cuh"

// Element offset of 16-byte chunk c of row r in a tile with D columns (XOR swizzle).
template <int D>
__device__ __forceinline__ int swz(int r, int c) {
  constexpr int CH = D / 8;  // chunks per row
  if constexpr (CH >= 8) {
    return r * D + ((c ^ (r & 7)) << 3);
  } else {  // D = 32: 4 chunks per row, two rows share one 128-byte line
    return r * D + ((c ^ ((r >> 1) & 3)) << 3);
  }
}

// Shared-memory byte addresses of the 16-byte chunks 2*i + cl (i = 0..3) of lane row rl, for
// ldmatrix. Adding 16 rows or 8 chunks does not change the swizzle, so chunk 2*i + cl of row
// rl + 16*k sits at lane_addr[i & 3] + (i >> 2) * 128 + k * 32 * D bytes: every ldmatrix then
// takes a [register + immediate] address, with no integer work in the inner loops.
template <int D>
__device__ __forceinline__ void lane_addrs(u32 (&a)[4], const u16* tile, int rl, int cl) {
#pragma unroll
  for (int i = 0; i < 4; ++i) a[i] = smem_u32(tile + swz<D>(rl, (2 * i + cl) & (D / 8 - 1)));
}

// Byte offset of chunk pair i (chunks 2i, 2i+1) beyond lane_addrs' reach.
template <int D>
__device__ __forceinline__ u32 pair_off(int i) {
  return (D / 8 >= 8) ? (u32)(i >> 2) * 128u : 0u;
}

// Copies rows [row0, row0 + ROWS) of a (n x D) matrix into a swizzled tile; rows >= n read
// as zeros.
template <int D, int ROWS, int THREADS>
__device__ __forceinline__ void tc_load_tile(u16* s, const u16* g, int row0, int n, int tid) {
  constexpr int CH = D / 8;
  constexpr int TOTAL = ROWS * CH;
  static_assert(TOTAL % THREADS == 0 || TOTAL < THREADS, "tile chunks vs threads");
#pragma unroll
  for (int i0 = 0; i0 < TOTAL; i0 += THREADS) {
    const int i = i0 + tid;
    if (TOTAL % THREADS == 0 || i < TOTAL) {
      const int r = i / CH, c = i % CH;
      const int gr = row0 + r;
      const bool ok = gr < n;
      const u16* src = g + (long long)(ok ? gr : 0) * D + c * 8;
      cp_async16(smem_u32(s + swz<D>(r, c)), src, ok ? 16 : 0);
    }
  }
}

// Hooks of a diagnostic build (gpusim/validation/cta_stamps.py: each CTA's SM, start and end).
// Empty in every other build, so the kernels compile to the same code as without them.
#ifndef F2_CTA_BEGIN
#define F2_CTA_BEGIN()
#endif
#ifndef F2_CTA_END
#define F2_CTA_END()
#endif

template <bool BF16, int D, int BR, int BC, int WARPS, int STAGES, bool KV_BACK = false,
          bool Q_FIRST = false, bool GQA = false, bool SPLIT = false, bool PACK = false>
__global__ void __launch_bounds__(WARPS * 32)
    flash2_tc(const u16* __restrict__ Q, const u16* __restrict__ K, const u16* __restrict__ V,
              u16* __restrict__ O, int nq, int nk, int causal, float scale_log2,
              float* __restrict__ o_part, float* __restrict__ lse, int n_splits, int heads,
              int group) {
  constexpr int THREADS = WARPS * 32;
  constexpr int RW = BR / WARPS;  // query rows per warp
  constexpr int MT = RW / 16;     // m16 tiles per warp
  constexpr int NT = BC / 8;      // n8 tiles of S
  constexpr int DT = D / 8;       // n8 tiles of O
  constexpr int KD = D / 16;      // k16 steps of Q K^T
  constexpr int KC = BC / 16;     // k16 steps of P V
  constexpr int CH = D / 8;       // 16-byte chunks per row
  // Q fragments stay in registers when they are few; otherwise they are re-read per tile.
  constexpr bool Q_IN_REGS = (MT == 1 && D <= 128);
  static_assert(RW % 16 == 0, "each warp needs a multiple of 16 query rows");
  static_assert(BC % 16 == 0 && D % 32 == 0 && STAGES >= 1, "tile shape");

  extern __shared__ __align__(128) unsigned char smem_raw[];
  u16* sQ = reinterpret_cast<u16*>(smem_raw);
  u16* sK = sQ + BR * D;
  u16* sV = sK + STAGES * BC * D;

  F2_CTA_BEGIN();
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;  // mma fragment row group and thread-in-group
  // Last query blocks first: causal ones are the longest, so the tail of the grid is short.
  int m_block = gridDim.x - 1 - blockIdx.x;
  if constexpr (Q_FIRST) m_block = blockIdx.x;
  int split = 0;  // with SPLIT: counted down with the query blocks, as the model launches them
  if constexpr (SPLIT) split = Q_FIRST ? blockIdx.y : gridDim.y - 1 - blockIdx.y;
  // Queries per tile: BR, or BR / group with PACK (rows query-major: see the header).
  const int q_rows = PACK ? BR / group : BR;
  const int q0 = m_block * q_rows;
  long long bh = blockIdx.y;
  if constexpr (SPLIT) bh = blockIdx.z;
  long long kv_bh = bh;
  if constexpr (PACK) {
    // bh counts (batch, K/V head); Q and O point at the group's first query head.
    const int heads_kv = heads / group;
    bh = (kv_bh / heads_kv) * heads + (kv_bh % heads_kv) * group;
  } else if constexpr (GQA) {
    kv_bh = flash2_kv_bh(bh, heads, group);
  }
  Q += bh * nq * D;
  O += bh * nq * D;
  K += kv_bh * nk * D;
  V += kv_bh * nk * D;
  const int diag = nk - nq;
  int n_tiles = flash2_kv_tiles(q0, q_rows, nq, nk, causal, BC);
  int kb0 = 0;  // first key block this CTA walks (its slice's, with SPLIT)
  if constexpr (SPLIT) {
    flash2_split_slice((nk + BC - 1) / BC, n_tiles, n_splits, split, kb0, n_tiles);
    if (n_tiles == 0) return;  // the combine kernel reads only the splits with keys
  }
  // First key row of the j-th block this CTA visits, in its walking order. Where the blocks
  // are simply 0, 1, 2, ... (!WALKS) the loop keeps its own j * BC: even inlined, a call
  // here changed the register allocation of 36 of the 182 grid instances (default_loop_check).
  constexpr bool WALKS = KV_BACK || SPLIT;
  auto kv_row0 = [&](int j) -> int {
    if constexpr (KV_BACK) {
      return (kb0 + n_tiles - 1 - j) * BC;
    } else if constexpr (SPLIT) {
      return (kb0 + j) * BC;
    } else {
      return j * BC;
    }
  };
  const int wrow0 = warp * RW;  // first row of this warp inside the block

  float o[MT][DT][4];
  float m_i[MT][2], l_i[MT][2];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int dt = 0; dt < DT; ++dt)
#pragma unroll
      for (int e = 0; e < 4; ++e) o[mt][dt][e] = 0.f;
    m_i[mt][0] = m_i[mt][1] = -F2_INF;
    l_i[mt][0] = l_i[mt][1] = 0.f;
  }
  u32 qf[Q_IN_REGS ? KD : 1][4];

  // ---- one K/V tile: S = Q K^T, online softmax, O += P V -------------------------------
  // Per-lane ldmatrix addresses (see lane_addrs): Q rows wrow0 + (lane & 15); K rows
  // (lane & 7) + 8 * (lane >> 4) with chunk bit (lane >> 3) & 1; V rows lane & 15.
  u32 q_addr[4], k_addr[4], v_addr[4];
  lane_addrs<D>(q_addr, sQ, wrow0 + (lane & 15), lane >> 4);
  lane_addrs<D>(k_addr, sK, (lane & 7) + ((lane >> 4) << 3), (lane >> 3) & 1);
  lane_addrs<D>(v_addr, sV, lane & 15, lane >> 4);
  constexpr u32 ROW16_BYTES = 16u * D * 2u;

  auto compute_s = [&](u32 stage_bytes, float (&s)[MT][NT][4]) {
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) s[mt][nt][e] = 0.f;
#pragma unroll
    for (int kk = 0; kk < KD; ++kk) {
      u32 a[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        if constexpr (Q_IN_REGS) {
#pragma unroll
          for (int e = 0; e < 4; ++e) a[mt][e] = qf[kk][e];
        } else {
          ldsm_x4(a[mt], q_addr[kk & 3] + pair_off<D>(kk) + mt * ROW16_BYTES);
        }
      }
#pragma unroll
      for (int np = 0; np < NT / 2; ++np) {
        u32 b[4];
        ldsm_x4(b, k_addr[kk & 3] + stage_bytes + pair_off<D>(kk) + np * ROW16_BYTES);
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          mma16816<BF16>(s[mt][2 * np], a[mt], b[0], b[1]);
          mma16816<BF16>(s[mt][2 * np + 1], a[mt], b[2], b[3]);
        }
      }
    }
  };

  // Online softmax on S; P leaves as packed 16-bit pairs p[mt][nt][h] (row g + 8h, columns
  // 2t, 2t+1 of n-tile nt), which are exactly the A-fragment registers of P V.
  auto softmax_update = [&](float (&s)[MT][NT][4], u32 (&p)[MT][NT][2], int k0) {
    if (flash2_tile_needs_mask(q0, k0, nq, nk, causal, BC)) {
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int nt = 0; nt < NT; ++nt)
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            // (Without PACK, the sum as it was: another association changed the SASS.)
            const int row = PACK ? q0 + (wrow0 + mt * 16 + g + ((e >> 1) << 3)) / group
                                 : q0 + wrow0 + mt * 16 + g + ((e >> 1) << 3);
            const int col = k0 + nt * 8 + 2 * t + (e & 1);
            if (col >= nk || (causal && col > row + diag)) s[mt][nt][e] = -F2_INF;
          }
    }
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float mx = m_i[mt][h];
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) mx = fmaxf(mx, fmaxf(s[mt][nt][2 * h], s[mt][nt][2 * h + 1]));
        mx = warp_max_xor(mx, 4);  // the 4 threads of a quad hold one row
        // A row that has seen only masked keys keeps m = -inf; shift by 0 so exp2 gives 0.
        const float m_use = (mx == -F2_INF) ? 0.f : mx * scale_log2;
        const float alpha = fast_exp2(m_i[mt][h] * scale_log2 - m_use);
        m_i[mt][h] = mx;
        float rs = 0.f;
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) {
          const float p0 = fast_exp2(fmaf(s[mt][nt][2 * h], scale_log2, -m_use));
          const float p1 = fast_exp2(fmaf(s[mt][nt][2 * h + 1], scale_log2, -m_use));
          p[mt][nt][h] = pack2<BF16>(p0, p1);
          rs += p0 + p1;
        }
        // l stays a per-thread partial sum; the quad reduction happens once at the end.
        l_i[mt][h] = l_i[mt][h] * alpha + rs;
#pragma unroll
        for (int dt = 0; dt < DT; ++dt) {
          o[mt][dt][2 * h] *= alpha;
          o[mt][dt][2 * h + 1] *= alpha;
        }
      }
  };

  auto compute_pv = [&](u32 stage_bytes, const u32 (&p)[MT][NT][2]) {
#pragma unroll
    for (int kc = 0; kc < KC; ++kc) {
      u32 pa[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        pa[mt][0] = p[mt][2 * kc][0];
        pa[mt][1] = p[mt][2 * kc][1];
        pa[mt][2] = p[mt][2 * kc + 1][0];
        pa[mt][3] = p[mt][2 * kc + 1][1];
      }
#pragma unroll
      for (int dp = 0; dp < DT / 2; ++dp) {
        u32 b[4];
        ldsm_x4_trans(b, v_addr[dp & 3] + stage_bytes + pair_off<D>(dp) + kc * ROW16_BYTES);
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          mma16816<BF16>(o[mt][2 * dp], pa[mt], b[0], b[1]);
          mma16816<BF16>(o[mt][2 * dp + 1], pa[mt], b[2], b[3]);
        }
      }
    }
  };

  auto load_q_regs = [&]() {
    if constexpr (Q_IN_REGS) {
#pragma unroll
      for (int kk = 0; kk < KD; ++kk) ldsm_x4(qf[kk], q_addr[kk & 3] + pair_off<D>(kk));
    }
  };

  // ---- the K/V loop ----------------------------------------------------------------------
  if constexpr (PACK) {
    // Packed rows: row r is query q0 + r / group of head r % group (rows past nq read zeros).
#pragma unroll
    for (int i0 = 0; i0 < BR * CH; i0 += THREADS) {
      const int i = i0 + tid;
      if ((BR * CH) % THREADS == 0 || i < BR * CH) {
        const int r = i / CH, c = i % CH;
        const int q = q0 + r / group;
        const bool ok = q < nq;
        const u16* src = Q + ((long long)(r % group) * nq + (ok ? q : 0)) * D + c * 8;
        cp_async16(smem_u32(sQ + swz<D>(r, c)), src, ok ? 16 : 0);
      }
    }
  } else {
    tc_load_tile<D, BR, THREADS>(sQ, Q, q0, nq, tid);
  }
  if constexpr (STAGES == 1) {
    // One buffer each for K and V, as FlashAttention-2 does: K_{j+1} loads during P V_j and
    // V_{j+1} during Q K_{j+1}^T.
    if (n_tiles > 0) tc_load_tile<D, BC, THREADS>(sK, K, WALKS ? kv_row0(0) : 0, nk, tid);
    cp_async_commit();
    if (n_tiles > 0) tc_load_tile<D, BC, THREADS>(sV, V, WALKS ? kv_row0(0) : 0, nk, tid);
    cp_async_commit();
    for (int j = 0; j < n_tiles; ++j) {
      float s[MT][NT][4];
      u32 p[MT][NT][2];
      cp_async_wait<1>();
      __syncthreads();
      if (j == 0) load_q_regs();
      compute_s(0u, s);
      softmax_update(s, p, WALKS ? kv_row0(j) : j * BC);
      cp_async_wait<0>();
      __syncthreads();  // V_j has landed, and every warp is done reading K_j
      if (j + 1 < n_tiles)
        tc_load_tile<D, BC, THREADS>(sK, K, WALKS ? kv_row0(j + 1) : (j + 1) * BC, nk, tid);
      cp_async_commit();
      compute_pv(0u, p);
      __syncthreads();  // every warp is done reading V_j
      if (j + 1 < n_tiles)
        tc_load_tile<D, BC, THREADS>(sV, V, WALKS ? kv_row0(j + 1) : (j + 1) * BC, nk, tid);
      cp_async_commit();
    }
  } else {
#pragma unroll
    for (int st = 0; st < STAGES - 1; ++st) {
      if (st < n_tiles) {
        const int r0 = WALKS ? kv_row0(st) : st * BC;
        tc_load_tile<D, BC, THREADS>(sK + st * BC * D, K, r0, nk, tid);
        tc_load_tile<D, BC, THREADS>(sV + st * BC * D, V, r0, nk, tid);
      }
      cp_async_commit();
    }
    for (int j = 0; j < n_tiles; ++j) {
      cp_async_wait<STAGES - 2>();  // tile j (and Q) have landed for this thread's copies
      __syncthreads();              // ... for everyone's, and stage (j-1)%STAGES is free
      const int jn = j + STAGES - 1;
      if (jn < n_tiles) {
        const int sn = jn % STAGES;
        const int r0 = WALKS ? kv_row0(jn) : jn * BC;
        tc_load_tile<D, BC, THREADS>(sK + sn * BC * D, K, r0, nk, tid);
        tc_load_tile<D, BC, THREADS>(sV + sn * BC * D, V, r0, nk, tid);
      }
      cp_async_commit();
      if (j == 0) load_q_regs();
      const u32 stage_bytes = (u32)(j % STAGES) * (BC * D * 2);
      float s[MT][NT][4];
      u32 p[MT][NT][2];
      compute_s(stage_bytes, s);
      softmax_update(s, p, WALKS ? kv_row0(j) : j * BC);
      compute_pv(stage_bytes, p);
    }
  }

  // ---- epilogue: O / l, staged through this warp's own Q rows for 16-byte stores --------
  // (SPLIT: the slice's fp32 partial O and log-sum-exp instead)
  cp_async_wait<0>();
  __syncthreads();  // Q copies are complete even when no K/V tile was visited
  if constexpr (SPLIT) {
    // Partial O / l and the row's log-sum-exp, fp32, straight from the fragments: each
    // quad writes 32 contiguous bytes of a row per n8 tile (one sector).
    long long row0 = bh * nq;  // rows of this batch-head in [bh][row][split]
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float l = warp_sum_xor(l_i[mt][h], 4);
        const float inv = l > 0.f ? 1.f / l : 0.f;
        const int r = wrow0 + mt * 16 + g + 8 * h;
        int grow = q0 + wrow0 + mt * 16 + g + 8 * h;
        if constexpr (PACK) {
          grow = q0 + r / group;
          row0 = (bh + r % group) * nq;  // the row's own query head
        }
        if (grow < nq) {
#pragma unroll
          for (int dt = 0; dt < DT; ++dt) {
            float2 v;
            v.x = o[mt][dt][2 * h] * inv;
            v.y = o[mt][dt][2 * h + 1] * inv;
            const long long at = ((row0 + grow) * n_splits + split) * D + dt * 8 + 2 * t;
            *reinterpret_cast<float2*>(o_part + at) = v;
          }
          // ln(sum_j exp(s_ij * scale)) = ln2 * (m * scale_log2 + log2 l); no key: -inf.
          if (t == 0)
            lse[(row0 + grow) * n_splits + split] =
                l > 0.f ? 0.69314718056f * fmaf(m_i[mt][h], scale_log2, log2f(l)) : -F2_INF;
        }
      }
  } else {
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float l = warp_sum_xor(l_i[mt][h], 4);
        const float inv = l > 0.f ? 1.f / l : 0.f;  // rows that see no key give 0
        const int r = wrow0 + mt * 16 + g + 8 * h;
#pragma unroll
        for (int dt = 0; dt < DT; ++dt) {
          const u32 v = pack2<BF16>(o[mt][dt][2 * h] * inv, o[mt][dt][2 * h + 1] * inv);
          *reinterpret_cast<u32*>(sQ + swz<D>(r, dt) + 2 * t) = v;
        }
      }
    __syncwarp();
#pragma unroll
    for (int i = lane; i < RW * CH; i += 32) {
      const int r = i / CH, c = i % CH;
      if constexpr (PACK) {
        const int tr = wrow0 + r;  // tile row: query q0 + tr / group of head tr % group
        const int q = q0 + tr / group;
        if (q < nq)
          *reinterpret_cast<uint4*>(O + ((long long)(tr % group) * nq + q) * D + c * 8) =
              *reinterpret_cast<const uint4*>(sQ + swz<D>(tr, c));
      } else {
        const int grow = q0 + wrow0 + r;
        if (grow < nq)
          *reinterpret_cast<uint4*>(O + (long long)grow * D + c * 8) =
              *reinterpret_cast<const uint4*>(sQ + swz<D>(wrow0 + r, c));
      }
    }
  }
  F2_CTA_END();
}
