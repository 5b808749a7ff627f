"""Shared-memory load bandwidth per SM per clock: 128-bit loads, no bank conflicts, all warps."""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.calibrate.context import BenchContext
from gpusim.calibrate.sources import compile_module, kernel_attributes
from gpusim.calibrate.throughput import run_config, summarise

NAME = "smem"
THREADS = 256  # with 4 loads per step this covers the kernel's 16 KiB tile exactly
LOADS_PER_STEP = 4
CONFIGS = ((THREADS, 4), (THREADS, 8))  # (threads per block, blocks per SM)


def run(ctx: BenchContext) -> dict[str, Any]:
    """Measure bytes per clock per SM delivered by ld.shared.v4 (LDS.128)."""
    cp = ctx.cp
    kernel = compile_module(cp, "smem.cu").get_function("lds128_loop")
    out = cp.zeros(max(t * b for t, b in CONFIGS) * ctx.sm_count, dtype=cp.uint32)

    def args(iters: int, stamps: Any) -> tuple[Any, ...]:
        return (np.int32(iters), out, stamps)

    configs = [
        run_config(
            ctx,
            kernel,
            args,
            threads,
            blocks,
            work_per_iter_per_block=threads * LOADS_PER_STEP * 16,
            unit="B",
            label="ld.volatile.shared.v4.u32, warp reads 512 contiguous bytes",
        )
        for threads, blocks in CONFIGS
    ]
    values = summarise(ctx, "smem", configs, "lds128_bytes_per_clk_per_sm", "lds128_bytes_per_s")
    return {
        "values": values,
        "details": {"configs": configs},
        "kernels": {"lds128_loop": kernel_attributes(kernel)},
    }
