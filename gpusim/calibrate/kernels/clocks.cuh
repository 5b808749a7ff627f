// Per-block clock stamps, so that per-clock rates use the SM clock seen during the run.
//
// Thread 0 of each block writes four 64-bit words at stamps[4 * blockIdx.x]:
// clock64() at start and end (SM cycles) and %globaltimer at start and end (ns).
// cycles / ns over a block that runs the whole kernel is the SM clock in GHz.
#pragma once

__device__ __forceinline__ unsigned long long gs_globaltimer_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

struct GsStamp {
    long long clk0;
    unsigned long long ns0;
};

__device__ __forceinline__ GsStamp gs_stamp_begin() {
    GsStamp s;
    s.ns0 = gs_globaltimer_ns();
    s.clk0 = clock64();
    return s;
}

__device__ __forceinline__ void gs_stamp_end(const GsStamp& s, unsigned long long* stamps) {
    long long clk1 = clock64();
    unsigned long long ns1 = gs_globaltimer_ns();
    if (threadIdx.x == 0) {
        unsigned long long* p = stamps + 4ull * blockIdx.x;
        p[0] = (unsigned long long)s.clk0;
        p[1] = (unsigned long long)clk1;
        p[2] = s.ns0;
        p[3] = ns1;
    }
}
