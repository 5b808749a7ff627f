// The two products of one FlashAttention-2 tile on the CUDA cores, from shared memory, alone.
//
// The fp32 kernel's own product loops (simt_products.inc, included as flash2_simt.cu does),
// same thread layout, register blocking and shared-memory layout as flash2_simt.cu (TR x 16
// threads; TM query rows and TN keys per thread; rows padded by 16 B; P staged through a
// per-row-group buffer): per iteration, S = Q K^T for one BR x BC tile (float4 loads, FFMA),
// P = S written to shared memory, P V accumulated into O. No global memory, no softmax, one
// __syncthreads() per tile as the kernel has with two or more stages. What the engine
// needs: how fast FFMA products that stream their operands from shared memory run, per
// SM clock, against the FP32 pipe's peak (2 FLOP per FFMA lane).
#include "clocks.cuh"

template <int D, int BR, int BC, int WARPS>
__global__ void __launch_bounds__(WARPS * 32)
    simt_mm(const float* __restrict__ init, int iters, float* __restrict__ out,
            unsigned long long* __restrict__ stamps) {
  constexpr int THREADS = WARPS * 32;
  constexpr int TC = 16;
  constexpr int TR = THREADS / TC;
  constexpr int TM = BR / TR;
  constexpr int TN = BC / TC;
  constexpr int DQ = D / 64;
  constexpr int LD = D + 4;
  constexpr int LDP = BC + 16;
  static_assert(BR % TR == 0 && BC % TC == 0 && D % 64 == 0, "tile shape");
  extern __shared__ __align__(128) unsigned char smem_raw[];
  float* sQ = reinterpret_cast<float*>(smem_raw);
  float* sK = sQ + BR * LD;
  float* sV = sK + BC * LD;
  float* sP = sV + BC * LD;
  const float* sKs = sK;  // the names simt_products.inc reads
  const float* sVs = sV;
  const int tid = threadIdx.x;
  const int tc = tid & (TC - 1), tr = tid / TC;
  constexpr int FILL = BR * LD + 2 * BC * LD + BR * LDP;
  for (int i = tid; i < FILL; i += THREADS) sQ[i] = init[(blockIdx.x * 7 + i) % 4096];
  __syncthreads();
  float o[TM][DQ][4];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int q = 0; q < DQ; ++q)
#pragma unroll
      for (int e = 0; e < 4; ++e) o[i][q][e] = 0.f;
  GsStamp st = gs_stamp_begin();
  for (int it = 0; it < iters; ++it) {
#define SIMT_PRODUCT_QK
#include "simt_products.inc"
#undef SIMT_PRODUCT_QK
    __syncwarp();
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) sP[(tr + TR * i) * LDP + tc + TC * j] = s[i][j] * 1e-3f;
    __syncwarp();
#define SIMT_PRODUCT_PV
#include "simt_products.inc"
#undef SIMT_PRODUCT_PV
    __syncthreads();
  }
  gs_stamp_end(st, stamps);
  float acc = 0.f;
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int q = 0; q < DQ; ++q) acc += o[i][q][0] + o[i][q][1] + o[i][q][2] + o[i][q][3];
  out[blockIdx.x * THREADS + tid] = acc;
}

#define SM_INST(D, BR, BC, W) \
  template __global__ void simt_mm<D, BR, BC, W>(const float*, int, float*, unsigned long long*);
SM_INST(64, 64, 64, 8)
SM_INST(128, 64, 32, 8)
SM_INST(64, 64, 32, 4)
SM_INST(64, 64, 64, 4)
SM_INST(64, 128, 32, 8)
SM_INST(64, 128, 64, 8)
SM_INST(128, 64, 64, 8)
