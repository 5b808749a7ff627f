// Helpers shared by the flash2 kernels: asynchronous copies, ldmatrix, mma, exp2, packing.
//
// No system headers on purpose: the same text compiles under NVRTC (CuPy RawModule) and nvcc
// without include paths. Everything that needs a Hopper/Ampere instruction is inline PTX.
#pragma once

typedef unsigned short u16;
typedef unsigned int u32;

#define F2_INF __int_as_float(0x7f800000)

// Shared-memory address as the 32-bit value PTX's .shared state space expects.
__device__ __forceinline__ u32 smem_u32(const void* p) {
  return static_cast<u32>(__cvta_generic_to_shared(p));
}

// 16-byte global->shared copy that bypasses L1; src_bytes = 0 fills the 16 bytes with zeros,
// which is how rows past the end of a ragged tile are made harmless.
__device__ __forceinline__ void cp_async16(u32 dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(src_bytes));
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// 2^x with the SFU (MUFU.EX2); ftz: -inf gives +0, which masked scores rely on.
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ float warp_max_xor(float v, int lanes) {
  for (int o = 1; o < lanes; o <<= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ __forceinline__ float warp_sum_xor(float v, int lanes) {
  for (int o = 1; o < lanes; o <<= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Two fp32 values rounded to one register of two 16-bit values; lo goes to the low half
// (the lower column index of an mma fragment).
template <bool BF16>
__device__ __forceinline__ u32 pack2(float lo, float hi) {
  u32 r;
  if constexpr (BF16) {
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  } else {
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  }
  return r;
}

__device__ __forceinline__ void ldsm_x4(u32 (&r)[4], u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

__device__ __forceinline__ void ldsm_x4_trans(u32 (&r)[4], u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// D = A(16x16, row) * B(16x8, col) + D with fp32 accumulators.
template <bool BF16>
__device__ __forceinline__ void mma16816(float (&d)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  if constexpr (BF16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

// Number of K/V tiles a query block starting at q0 must visit: causal blocks stop at the
// diagonal (bottom-right aligned: query i sees keys j <= i + nk - nq).
__device__ __forceinline__ int flash2_kv_tiles(int q0, int rows, int nq, int nk, int causal,
                                               int bc) {
  const int last_row = min(q0 + rows, nq) - 1;
  const int last_key = causal ? min(nk - 1, last_row + nk - nq) : nk - 1;
  return last_key < 0 ? 0 : last_key / bc + 1;
}

// Whether tile (q0, k0) holds any key past the end or above the diagonal for some row.
__device__ __forceinline__ bool flash2_tile_needs_mask(int q0, int k0, int nq, int nk,
                                                       int causal, int bc) {
  return (k0 + bc > nk) || (causal && k0 + bc - 1 > q0 + nk - nq);
}

// Split-KV (FlashDecoding), as algorithms/split_kv.py models it: split `split` of `n_splits`
// covers the key blocks [split * tc / n_splits, (split + 1) * tc / n_splits) of the
// tc = ceil(nk / bc) blocks (whole blocks, sizes differing by at most one), clipped to the
// `visible` blocks its query block sees; `count` is 0 when nothing is left.
__device__ __forceinline__ void flash2_split_slice(int tc, int visible, int n_splits,
                                                   int split, int& first, int& count) {
  first = (int)((long long)split * tc / n_splits);
  const int end = min((int)((long long)(split + 1) * tc / n_splits), visible);
  count = max(end - first, 0);
}

// How many splits have keys for a query block that sees its first `visible` key blocks
// (the slices are in order, so those are splits 0 ..): algorithms.split_kv.splits_with_keys.
__device__ __forceinline__ int flash2_splits_with_keys(int tc, int visible, int n_splits) {
  int n = 0;
  while (n < n_splits && (long long)n * tc / n_splits < visible) ++n;
  return n;
}

// GQA/MQA: the (batch, K/V head) whose K and V the query (batch, head) `bh` reads; the query
// heads g*group .. g*group + group - 1 of a batch share K/V head g.
__device__ __forceinline__ long long flash2_kv_bh(long long bh, int heads, int group) {
  return (bh / heads) * (heads / group) + (bh % heads) / group;
}
