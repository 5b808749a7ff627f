// How much of a load-product-softmax loop's slowdown with few warps is the barrier's?
//
// The two FlashAttention-like loops of smem_overlap.cu (16 ldmatrix.x4 each feeding 4
// mma.sync, or 32 feeding 2, then a softmax pass; step_loop.cuh), with __syncthreads()
// after every SYNC_EVERY-th iteration instead of every one (0: never). If the warps of one
// CTA lose time at each barrier (they wait for the slowest, then start their next loads
// together), the cycles per iteration fall as the barriers thin out; if they lose it to
// the loop's own latencies, they do not.
#include "step_loop.cuh"

template <int NLD, int MMA_PER_LD, int SYNC_EVERY>
__global__ void __launch_bounds__(512) barrier_interval(const unsigned* __restrict__ operands,
                                                        int iters, unsigned zero,
                                                        float* __restrict__ out,
                                                        unsigned long long* __restrict__ stamps) {
    step_loop<NLD, MMA_PER_LD, 0, 1, SYNC_EVERY>(operands, iters, zero, out, stamps);
}

#define BI_INST(NLD, MPL, EVERY)                                                               \
    template __global__ void barrier_interval<NLD, MPL, EVERY>(const unsigned*, int, unsigned, \
                                                               float*, unsigned long long*);
BI_INST(16, 4, 1)
BI_INST(16, 4, 2)
BI_INST(16, 4, 4)
BI_INST(16, 4, 16)
BI_INST(16, 4, 0)
BI_INST(32, 2, 1)
BI_INST(32, 2, 2)
BI_INST(32, 2, 4)
BI_INST(32, 2, 16)
BI_INST(32, 2, 0)
