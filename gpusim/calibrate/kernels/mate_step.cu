// mate_loop.cuh's loop at the default register budget (what data/h100/2026-12-06_mate_step ran,
// 66-69 registers): copies, ldmatrix and mma.sync, a softmax pass, a barrier; per CTA its SM,
// start and end.
#include "mate_loop.cuh"

template <int NLD, int MMA_PER_LD, int NFILL>
__global__ void __launch_bounds__(128) mate_step(const uint4* __restrict__ src, unsigned long long src_mask,
                                                 int iters, unsigned zero, float* __restrict__ out,
                                                 unsigned long long* __restrict__ stamps) {
    mate_loop<NLD, MMA_PER_LD, NFILL>(src, src_mask, iters, zero, out, stamps);
}

#define MS_INST(NLD, PER, NFILL) \
    template __global__ void mate_step<NLD, PER, NFILL>(const uint4*, unsigned long long, int, unsigned, float*, unsigned long long*);
MS_INST(32, 2, 8)  // a 16-row warp tile's two products per ldmatrix
MS_INST(16, 4, 8)  // a 32-row warp tile's four
