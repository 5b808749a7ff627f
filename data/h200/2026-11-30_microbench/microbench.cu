// Kernels of microbench.py (one-off measurements behind the Hopper profiles' "measured" sources).
__device__ __forceinline__ unsigned smid() { unsigned r; asm volatile("mov.u32 %0, %%smid;" : "=r"(r)); return r; }

#define RECORD(t0, t1) \
  if (threadIdx.x == 0) { rec[3*blockIdx.x] = t0; rec[3*blockIdx.x+1] = t1; rec[3*blockIdx.x+2] = smid(); }

#define MMA_KERNEL(NAME, SHAPE, TYPES, NA, NB)                                                   \
extern "C" __global__ void NAME(int iters, long long* rec, float* sink) {                        \
  unsigned a[4] = {0x2c002c00u ^ threadIdx.x, 0x2c002c00u, 0x2c002c00u, 0x2c002c00u};            \
  unsigned b[2] = {0x2c002c00u, 0x2c002c00u ^ threadIdx.x};                                      \
  float c[8][4];                                                                                  \
  for (int k = 0; k < 8; k++) for (int j = 0; j < 4; j++) c[k][j] = 0.f;                          \
  __syncthreads(); long long t0 = clock64();                                                      \
  for (int i = 0; i < iters; i++) {                                                               \
    _Pragma("unroll") for (int k = 0; k < 8; k++) {                                               \
      if (NA == 4) asm volatile("mma.sync.aligned." SHAPE ".row.col.f32." TYPES ".f32 "          \
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                                  \
        : "+f"(c[k][0]), "+f"(c[k][1]), "+f"(c[k][2]), "+f"(c[k][3])                              \
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));                      \
      else asm volatile("mma.sync.aligned." SHAPE ".row.col.f32." TYPES ".f32 "                  \
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8}, {%0,%1,%2,%3};"                                     \
        : "+f"(c[k][0]), "+f"(c[k][1]), "+f"(c[k][2]), "+f"(c[k][3])                              \
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]));                                 \
    }                                                                                             \
  }                                                                                               \
  __syncthreads(); long long t1 = clock64(); RECORD(t0, t1);                                      \
  float s = 0.f; for (int k = 0; k < 8; k++) s += c[k][0] + c[k][1] + c[k][2] + c[k][3];          \
  if (s == 1234.5f) sink[0] = s;                                                                  \
}
MMA_KERNEL(mma_f16, "m16n8k16", "f16.f16", 4, 2)
MMA_KERNEL(mma_bf16, "m16n8k16", "bf16.bf16", 4, 2)
MMA_KERNEL(mma_tf32, "m16n8k8", "tf32.tf32", 4, 2)

extern "C" __global__ void ex2_rate(int iters, long long* rec, float* sink) {
  float x[8]; for (int k = 0; k < 8; k++) x[k] = -0.001f * (k + 1 + threadIdx.x);
  __syncthreads(); long long t0 = clock64();
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < 8; k++) { asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x[k])); x[k] = -x[k]; }
  }
  __syncthreads(); long long t1 = clock64(); RECORD(t0, t1);
  float s = 0.f; for (int k = 0; k < 8; k++) s += x[k]; if (s == 1234.5f) sink[0] = s;
}

extern "C" __global__ void ffma_rate(int iters, long long* rec, float* sink) {
  float x[8]; for (int k = 0; k < 8; k++) x[k] = 0.001f * (k + threadIdx.x);
  const float m = 0.999f, a = 0.001f;
  __syncthreads(); long long t0 = clock64();
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int j = 0; j < 4; j++) {  // 32 FFMAs per loop trip, so loop overhead stays small
      #pragma unroll
      for (int k = 0; k < 8; k++) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x[k]) : "f"(m), "f"(a));
    }
  }
  __syncthreads(); long long t1 = clock64(); RECORD(t0, t1);
  float s = 0.f; for (int k = 0; k < 8; k++) s += x[k]; if (s == 1234.5f) sink[0] = s;
}

extern "C" __global__ void smem_rate(int iters, long long* rec, float* sink) {
  extern __shared__ uint4 buf[];  // 8 slots of blockDim.x x 16 B
  for (int k = 0; k < 8; k++) buf[k * blockDim.x + threadIdx.x] = make_uint4(threadIdx.x, k, 2, 3);
  unsigned addr = (unsigned)__cvta_generic_to_shared(&buf[threadIdx.x]);
  const unsigned slot = blockDim.x * 16;
  unsigned acc = 0;
  __syncthreads(); long long t0 = clock64();
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < 8; k++) {
      unsigned p, q, r, s;
      // volatile and a changing address: ptxas must not merge repeated loads of one word
      asm volatile("ld.volatile.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                   : "=r"(p), "=r"(q), "=r"(r), "=r"(s) : "r"(addr + ((i + k) & 7) * slot));
      acc ^= p ^ q ^ r ^ s;
    }
  }
  __syncthreads(); long long t1 = clock64(); RECORD(t0, t1);
  if (acc == 0xdeadbeefu) sink[0] = (float)acc;
}

extern "C" __global__ void chase(const unsigned long long* next, int warm, int steps, long long* out) {
  unsigned long long p = 0;
  for (int i = 0; i < warm; i++) asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(p) : "l"(next + p));
  long long t0 = clock64();
  for (int i = 0; i < steps; i++) asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(p) : "l"(next + p));
  long long t1 = clock64();
  out[0] = t1 - t0; out[1] = (long long)p;
}

extern "C" __global__ void read_bw(const uint4* __restrict__ buf, long long n, int passes, unsigned* sink) {
  unsigned acc = 0;
  for (int r = 0; r < passes; r++)
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
      uint4 v; asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(buf + i));
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  if (acc == 0xdeadbeefu) sink[0] = acc;
}

extern "C" __global__ void empty() {}
