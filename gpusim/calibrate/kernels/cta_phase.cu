// Do CTAs that share an SM and enter the same loop some cycles apart stay that far apart?
//
// The loops of smem_overlap.cu (kernels/step_loop.cuh: ldmatrix, mma.sync, a softmax-like
// pass, a barrier per iteration), CTAs of 4 warps, 2 or 4 on each SM. Thread 0 of each CTA
// learns its rank among its SM's CTAs (an atomic counter per SM, by %smid) and the clock64()
// of the SM's first CTA; the CTA of rank r enters the loop at that clock + MARGIN + r x
// ``delay`` cycles (MARGIN covers every CTA's set-up, so the offsets are the ones asked).
// The per-CTA stamps (clocks.cuh) give each CTA's cycles in the loop and its start.
#include "step_loop.cuh"

constexpr long long MARGIN = 40000;  // ~22 us at 1.8 GHz: the 32 KiB tile fill and launch spread

template <int NLD, int MMA_PER_LD, int NMMA_REG, int ROUNDS>
__global__ void __launch_bounds__(128) cta_phase(const unsigned* __restrict__ operands, int iters,
                                                 unsigned zero, float* __restrict__ out,
                                                 unsigned long long* __restrict__ stamps,
                                                 unsigned* __restrict__ sm_ranks,
                                                 unsigned long long* __restrict__ sm_first,
                                                 long long delay, unsigned* __restrict__ where) {
    __shared__ long long s_go;
    if (threadIdx.x == 0) {
        unsigned smid;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
        const unsigned rank = atomicAdd(&sm_ranks[smid], 1u);
        long long first;
        if (rank == 0) {
            first = clock64();
            atomicExch(&sm_first[smid], (unsigned long long)first + 1ull);  // 0 means not yet
        } else {
            unsigned long long v;
            while ((v = atomicAdd(&sm_first[smid], 0ull)) == 0ull) {
            }
            first = (long long)v - 1;
        }
        s_go = first + MARGIN + (long long)rank * delay;
        where[2 * blockIdx.x] = smid;
        where[2 * blockIdx.x + 1] = rank;
    }
    __syncthreads();
    step_loop<NLD, MMA_PER_LD, NMMA_REG, ROUNDS, 1, 0, true>(operands, iters, zero, out, stamps, s_go);
}

#define CP_INST(NLD, MPL, NREG, R)                                                                   \
    template __global__ void cta_phase<NLD, MPL, NREG, R>(const unsigned*, int, unsigned, float*,   \
                                                         unsigned long long*, unsigned*,            \
                                                         unsigned long long*, long long, unsigned*);
CP_INST(32, 0, 0, 0)
CP_INST(0, 0, 0, 1)
CP_INST(32, 0, 0, 1)
CP_INST(0, 0, 64, 0)
CP_INST(32, 0, 64, 0)
CP_INST(16, 4, 0, 0)
CP_INST(32, 2, 0, 0)
CP_INST(16, 4, 0, 1)
CP_INST(32, 2, 0, 1)
