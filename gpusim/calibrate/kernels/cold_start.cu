// cold_start: one load per page over the first `pages` pages of a buffer (`page_int4` 16-byte
// words apart), so that the GPU's address translations for them are warm while the L2 holds
// next to none of their bytes. Written for gpusim/calibrate/cold_start.py; shares no code
// with any attention kernel. The XOR is stored only when it equals a value the host never
// passes, which keeps the loads alive.
extern "C" __global__ void touch_pages(const int4* __restrict__ buf, unsigned long long pages,
                                       unsigned long long page_int4, int4* __restrict__ sink,
                                       int never) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= pages) return;
    int4 v = __ldcg(buf + i * page_int4);
    if ((v.x ^ v.w) == never) sink[0] = v;
}
