// Does the gain of co-resident CTAs depend on what bounds the softmax?
//
// The two FlashAttention-like loops of smem_overlap.cu (16 ldmatrix.x4 each feeding 4
// mma.sync, or 32 feeding 2, then a softmax pass and a barrier; step_loop.cuh) with EXTRA
// more dependent FFMAs on each exponential. With none the pass is bound by the MUFU pipe
// (32 EX2 per thread against 4 other instructions per value); with 4 the issue slots and
// the MUFU pipe take about as long; with 8 the issue slots bound it, as in the attention
// kernels' softmax, which also rescales, sums and converts.
#include "step_loop.cuh"

template <int NLD, int MMA_PER_LD, int EXTRA>
__global__ void __launch_bounds__(512) softmax_mix(const unsigned* __restrict__ operands, int iters,
                                                   unsigned zero, float* __restrict__ out,
                                                   unsigned long long* __restrict__ stamps) {
    step_loop<NLD, MMA_PER_LD, 0, 1, 1, EXTRA>(operands, iters, zero, out, stamps);
}

#define SM_INST(NLD, MPL, EXTRA)                                                                  \
    template __global__ void softmax_mix<NLD, MPL, EXTRA>(const unsigned*, int, unsigned, float*, \
                                                          unsigned long long*);
SM_INST(16, 4, 0)
SM_INST(16, 4, 4)
SM_INST(16, 4, 8)
SM_INST(32, 2, 0)
SM_INST(32, 2, 4)
SM_INST(32, 2, 8)
