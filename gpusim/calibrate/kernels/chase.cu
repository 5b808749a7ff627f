// Pointer chase: one thread follows a chain of 32-bit word indices, each load
// depending on the one before, so each step costs one full memory latency.
// ld.global.cg keeps L1 out of the way; the chain's layout decides whether the
// steps hit in L2 or go to DRAM.
//
// out[0] = cycles, out[1] = ns over `steps` timed steps (after `warm_steps`),
// out[2] = the last index (so nothing is optimised away).

extern "C" __global__ void chase(const unsigned int* __restrict__ buf, unsigned int start,
                                 int warm_steps, int steps, unsigned long long* out) {
    unsigned int idx = start;
    for (int i = 0; i < warm_steps; ++i) {
        idx = __ldcg(buf + idx);
    }
    unsigned long long ns0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns0));
    long long c0 = clock64();
    for (int i = 0; i < steps; ++i) {
        idx = __ldcg(buf + idx);
    }
    long long c1 = clock64();
    unsigned long long ns1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns1));
    out[0] = (unsigned long long)(c1 - c0);
    out[1] = ns1 - ns0;
    out[2] = idx;
}
