"""L2 bandwidth: every SM re-reads a buffer that fits in the L2, bypassing L1 (ld.global.cg).

The grid-wide stride makes each SM read a different part of the buffer on each
pass, so L1 could not serve repeats even if it were used. Several buffer sizes
are measured; the profile takes the best median (the L2's peak read rate).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.calibrate.context import BenchContext
from gpusim.calibrate.event_timing import event_times_s, fit_iters
from gpusim.calibrate.sources import compile_module, kernel_attributes
from gpusim.calibrate.stats import derived, measurement

NAME = "l2"
THREADS = 256
BLOCKS_PER_SM = 8
SIZES_MIB = (8, 16, 32)


def run(ctx: BenchContext) -> dict[str, Any]:
    """Measure read bandwidth from the L2 for buffers of 8, 16 and 32 MiB."""
    cp = ctx.cp
    mod = compile_module(cp, "memory.cu")
    read_k = mod.get_function("read_masked")
    grid = ctx.sm_count * BLOCKS_PER_SM
    threads_total = grid * THREADS
    sink = cp.zeros(4, dtype=cp.int32)
    repeats = ctx.scale(20, 3)
    per_size = {}
    for mib in SIZES_MIB:
        n16 = (mib << 20) // 16
        buf = cp.arange(n16 * 4, dtype=cp.uint32)
        mask = np.uint64(n16 - 1)

        def launch(iters: int, buf: Any = buf, mask: np.uint64 = mask) -> None:
            read_k((grid,), (THREADS,), (buf, mask, np.int32(iters), sink, np.int32(-1)))

        iters = fit_iters(cp, launch, target_s=ctx.scale(3e-3, 5e-4), probe_iters=256)
        times = event_times_s(cp, lambda launch=launch, iters=iters: launch(iters), repeats=repeats)
        nbytes = iters * threads_total * 16
        per_size[mib] = measurement(
            derived(times, nbytes),
            "B/s",
            f"read_masked over a {mib} MiB buffer, ld.global.cg, all SMs",
            buffer_bytes=mib << 20,
            iters_per_thread=iters,
            bytes_per_launch=nbytes,
        )
        ctx.log(f"l2 {mib} MiB: {per_size[mib]['value'] / 1e12:.3f} TB/s")
        del buf
    best_mib = max(per_size, key=lambda m: per_size[m]["value"])
    best = dict(per_size[best_mib])
    best["method"] = (
        f"best median over buffer sizes {list(SIZES_MIB)} MiB (here {best_mib} MiB): "
        + str(best["method"])
    )
    values = {"read_bandwidth_bytes_per_s": best}
    for mib, m in per_size.items():
        values[f"read_bandwidth_{mib}mib_bytes_per_s"] = m
    cp.get_default_memory_pool().free_all_blocks()
    return {
        "values": values,
        "details": {"threads_per_block": THREADS, "grid": grid, "repeats": repeats},
        "kernels": {"read_masked": kernel_attributes(read_k)},
    }
