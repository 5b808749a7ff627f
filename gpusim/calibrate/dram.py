"""DRAM bandwidth: streaming read, write and copy kernels and a CuPy device-to-device copy.

Buffers are far larger than the L2, filled with a non-zero pattern. Bandwidth
counts bytes read plus bytes written over the event-timed duration.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.calibrate.context import BenchContext
from gpusim.calibrate.event_timing import event_times_s
from gpusim.calibrate.sources import compile_module, kernel_attributes
from gpusim.calibrate.stats import derived, measurement

NAME = "dram"
THREADS = 256
BLOCKS_PER_SM = 8  # 2048 threads per SM: every SM at full occupancy


def run(ctx: BenchContext) -> dict[str, Any]:
    """Measure streaming read, write and copy bandwidth over buffers much larger than the L2."""
    cp = ctx.cp
    mod = compile_module(cp, "memory.cu")
    kernels = {n: mod.get_function(n) for n in ("read_masked", "write_stream", "copy_stream")}
    buf_bytes = ctx.scale(2 << 30, 256 << 20)  # each of the two buffers
    repeats = ctx.scale(30, 5)
    grid = ctx.sm_count * BLOCKS_PER_SM
    try:
        values = _measure(ctx, kernels, buf_bytes, repeats, grid)
    finally:
        cp.get_default_memory_pool().free_all_blocks()
    return {
        "values": values,
        "details": {
            "buffer_bytes": buf_bytes,
            "threads_per_block": THREADS,
            "grid": grid,
            "repeats": repeats,
        },
        "kernels": {n: kernel_attributes(k) for n, k in kernels.items()},
    }


def _measure(
    ctx: BenchContext, kernels: dict[str, Any], buf_bytes: int, repeats: int, grid: int
) -> dict[str, Any]:
    cp = ctx.cp
    n16 = buf_bytes // 16
    if n16 & (n16 - 1):
        raise ValueError(f"buffer of {buf_bytes} bytes is not a power of two of 16-byte words")
    src = cp.arange(buf_bytes // 4, dtype=cp.uint32)  # a non-zero, non-repeating pattern
    dst = cp.empty_like(src)
    sink = cp.zeros(4, dtype=cp.int32)
    threads_total = grid * THREADS
    read_iters = -(-n16 // threads_total)  # each element at least once; the mask wraps the rest
    mask = np.uint64(n16 - 1)
    stream_ptr = cp.cuda.get_current_stream().ptr

    def read() -> None:
        args = (src, mask, np.int32(read_iters), sink, np.int32(-1))
        kernels["read_masked"]((grid,), (THREADS,), args)

    def write() -> None:
        kernels["write_stream"]((grid,), (THREADS,), (dst, np.uint64(n16), np.int32(12345)))

    def copy() -> None:
        kernels["copy_stream"]((grid,), (THREADS,), (src, dst, np.uint64(n16)))

    def memcpy() -> None:
        kind = cp.cuda.runtime.memcpyDeviceToDevice
        cp.cuda.runtime.memcpyAsync(dst.data.ptr, src.data.ptr, buf_bytes, kind, stream_ptr)

    cases = {
        "read_bandwidth_bytes_per_s": (
            read,
            read_iters * threads_total * 16,
            "read_masked kernel, ld.global.cg, 16 B/thread",
        ),
        "write_bandwidth_bytes_per_s": (
            write,
            buf_bytes,
            "write_stream kernel, st.global.cs, 16 B/thread",
        ),
        "copy_kernel_bandwidth_bytes_per_s": (
            copy,
            2 * buf_bytes,
            "copy_stream kernel, 4 x 16 B loads in flight per thread; bytes read + written",
        ),
        "copy_bandwidth_bytes_per_s": (
            memcpy,
            2 * buf_bytes,
            "cudaMemcpyAsync device-to-device through CuPy; bytes read + written",
        ),
    }
    values = {}
    for key, (launch, nbytes, method) in cases.items():
        times = event_times_s(cp, launch, repeats=repeats, warmup=3)
        values[key] = measurement(
            derived(times, nbytes), "B/s", method, bytes_per_launch=nbytes, buffer_bytes=buf_bytes
        )
        ctx.log(f"dram {key}: {values[key]['value'] / 1e12:.3f} TB/s")
    # The last case copied src to dst: check it moved the right bytes.
    if not bool(cp.array_equal(dst, src)):
        raise RuntimeError("copy check failed: destination differs from source")
    return values
