// mate_loop.cuh's loop with room for two CTAs' registers a SM (__launch_bounds__(128, 2): up to
// 255 a thread, as the attention kernel's tiles take), at the score floats a thread of each of
// the project's two-CTA tiles holds: 32 (128 x 32 and 64 x 64) and 64 (128 x 64).
#include "mate_loop.cuh"

template <int NLD, int MMA_PER_LD, int NFILL>
__global__ void __launch_bounds__(128, 2) mate_wide(const uint4* __restrict__ src, unsigned long long src_mask,
                                                    int iters, unsigned zero, float* __restrict__ out,
                                                    unsigned long long* __restrict__ stamps) {
    mate_loop<NLD, MMA_PER_LD, NFILL>(src, src_mask, iters, zero, out, stamps);
}

#define MW_INST(NLD, PER, NFILL) \
    template __global__ void mate_wide<NLD, PER, NFILL>(const uint4*, unsigned long long, int, unsigned, float*, unsigned long long*);
MW_INST(32, 4, 8)  // 32 score floats a thread, four products per ldmatrix (the 128 x 32 tile's)
MW_INST(64, 2, 8)  // 32 score floats, two products per ldmatrix (the 64 x 64 tile's)
MW_INST(64, 4, 8)  // 64 score floats a thread (the 128 x 64 tile's)
