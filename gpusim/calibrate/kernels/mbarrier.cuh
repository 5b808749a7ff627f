// mbarrier waits and bulk copies into shared memory (PTX ISA: mbarrier, cp.async.bulk), for
// the calibration kernels that stream tiles as warp-specialized Hopper kernels do
// (cta_life.cu, wgmma.cu). Shares no code with any attention kernel.
#pragma once

__device__ __forceinline__ void mb_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mb_expect_tx(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void mb_arrive(unsigned bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mb_wait(unsigned bar, unsigned parity) {
    asm volatile(
        "{\n .reg .pred p;\n MB_WAIT:\n"
        " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
        " @!p bra MB_WAIT;\n}\n" ::"r"(bar),
        "r"(parity)
        : "memory");
}
// Bulk copy of `bytes` (a multiple of 16) into shared memory, in pieces of at most 32 KiB,
// each completing on `bar`.
__device__ __forceinline__ void mb_bulk(unsigned dst, const void* src, unsigned bytes, unsigned bar) {
    for (unsigned off = 0; off < bytes; off += 32768u) {
        const unsigned n = bytes - off < 32768u ? bytes - off : 32768u;
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                dst + off),
            "l"((const char*)src + off), "r"(n), "r"(bar)
            : "memory");
    }
}
