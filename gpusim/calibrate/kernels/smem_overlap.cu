// Does shared-memory operand traffic (ldmatrix) overlap the tensor pipe and the softmax?
//
// Each iteration of a warp: NLD ldmatrix.x4 (512 B per warp each, conflict-free rows of
// 16 B) from a 32 KiB shared tile; with MMA_PER_LD > 0 each load feeds that many
// mma.sync m16n8k16 (f16, f32 accumulate) as their B operand, as the K and V fragments of
// FlashAttention-2 do (4 per load for 32 query rows per warp, 2 for 16); NMMA_REG more
// mma.sync take a register B operand (no shared memory); then ROUNDS softmax-like passes
// over the accumulators (FMNMX, FFMA, MUFU.EX2, FADD per value); then __syncthreads().
// The next iteration's load addresses depend on the running sum (through ``zero``, 0 at
// run time), as the next tile's products depend on the softmax.
#include "step_loop.cuh"

template <int NLD, int MMA_PER_LD, int NMMA_REG, int ROUNDS>
__global__ void __launch_bounds__(512) smem_overlap(const unsigned* __restrict__ operands, int iters,
                                                    unsigned zero, float* __restrict__ out,
                                                    unsigned long long* __restrict__ stamps) {
    step_loop<NLD, MMA_PER_LD, NMMA_REG, ROUNDS, 1>(operands, iters, zero, out, stamps);
}

#define SO_INST(NLD, MPL, NREG, R)                                                                      \
    template __global__ void smem_overlap<NLD, MPL, NREG, R>(const unsigned*, int, unsigned, float*, \
                                                            unsigned long long*);
SO_INST(32, 0, 0, 0)
SO_INST(0, 0, 0, 1)
SO_INST(32, 0, 0, 1)
SO_INST(0, 0, 64, 0)
SO_INST(32, 0, 64, 0)
SO_INST(16, 4, 0, 0)
SO_INST(32, 2, 0, 0)
SO_INST(16, 4, 0, 1)
SO_INST(32, 2, 0, 1)
