"""FP32 FMA throughput per SM per clock (FFMA counts 2 FLOP), 8 independent chains per thread."""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.calibrate.context import BenchContext
from gpusim.calibrate.sources import compile_module, kernel_attributes
from gpusim.calibrate.throughput import run_config, summarise

NAME = "fp32"
ACC = 8
CONFIGS = ((256, 4), (256, 8))  # (threads per block, blocks per SM)


def run(ctx: BenchContext) -> dict[str, Any]:
    """Measure FFMA FLOP per clock per SM."""
    cp = ctx.cp
    name = f"ffma_loop<{ACC}>"
    kernel = compile_module(cp, "alu.cu", (name,)).get_function(name)
    init = cp.random.uniform(0.0, 1.0, size=1024, dtype=cp.float32)
    out = cp.zeros(max(t * b for t, b in CONFIGS) * ctx.sm_count, dtype=cp.float32)
    # x -> 0.999 x + 0.001 keeps every chain in [0, 1].
    a, b = np.float32(0.999), np.float32(0.001)

    def args(iters: int, stamps: Any) -> tuple[Any, ...]:
        return (init, a, b, np.int32(iters), out, stamps)

    configs = [
        run_config(
            ctx,
            kernel,
            args,
            threads,
            blocks,
            work_per_iter_per_block=threads * ACC * 2,
            unit="FLOP",
            label=f"FFMA, {ACC} chains per thread",
        )
        for threads, blocks in CONFIGS
    ]
    values = summarise(ctx, "fp32", configs, "ffma_flops_per_clk_per_sm", "ffma_flops_per_s")
    return {
        "values": values,
        "details": {"configs": configs},
        "kernels": {name: kernel_attributes(kernel)},
    }
