// Does the step rule's error follow the size of a step? The load-product-softmax loop of
// smem_overlap.cu with its products and its softmax scaled together: ACC accumulators of 4
// floats per thread (4, 8 or 16: the S fragments of a FlashAttention-2 warp with 32, 64 or
// 128 keys a step), NLD ldmatrix.x4 in proportion, each feeding MMA_PER_LD mma.sync, one
// softmax pass over the accumulators, then __syncthreads(). What a step holds besides (the
// barrier, the loop, the next load's dependence on the running sum) stays the same.
#include "step_loop.cuh"

template <int NLD, int MMA_PER_LD, int ACC>
__global__ void __launch_bounds__(512) step_size(const unsigned* __restrict__ operands, int iters,
                                                 unsigned zero, float* __restrict__ out,
                                                 unsigned long long* __restrict__ stamps) {
    step_loop<NLD, MMA_PER_LD, 0, 1, 1, 0, false, ACC>(operands, iters, zero, out, stamps);
}

#define SS_INST(NLD, MPL, ACC)                                                                    \
    template __global__ void step_size<NLD, MPL, ACC>(const unsigned*, int, unsigned, float*, \
                                                     unsigned long long*);
SS_INST(8, 4, 4)
SS_INST(16, 4, 8)
SS_INST(32, 4, 16)
SS_INST(16, 2, 4)
SS_INST(32, 2, 8)
SS_INST(64, 2, 16)
