"""Exponential throughput on the special-function unit (MUFU.EX2), results per SM per clock.

``ex2`` times the bare instruction (ex2.approx.ftz.f32); ``expf`` times CUDA's
``__expf``, which adds a multiply by log2(e) and range fix-ups, as a kernel
that writes ``__expf(x - m)`` pays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.calibrate.context import BenchContext
from gpusim.calibrate.sources import compile_module, kernel_attributes
from gpusim.calibrate.throughput import run_config, summarise

NAME = "sfu"
ACC = 8
CONFIGS = ((256, 4), (256, 8))  # (threads per block, blocks per SM)


def run(ctx: BenchContext) -> dict[str, Any]:
    """Measure ex2.approx and __expf results per clock per SM."""
    cp = ctx.cp
    names = (f"ex2_loop<{ACC}>", f"expf_loop<{ACC}>")
    mod = compile_module(cp, "alu.cu", names)
    # x -> 2^x - 1.5 settles at -1 and e^x - 1.5 near -1.2 from any start below about 0.8.
    init = cp.random.uniform(-1.0, 0.5, size=1024, dtype=cp.float32)
    out = cp.zeros(max(t * b for t, b in CONFIGS) * ctx.sm_count, dtype=cp.float32)
    c = np.float32(1.5)
    values: dict[str, Any] = {}
    details: dict[str, Any] = {}
    kernels: dict[str, Any] = {}
    for label, name, key in (("ex2", names[0], "ex2"), ("__expf", names[1], "expf")):
        kernel = mod.get_function(name)
        kernels[name] = kernel_attributes(kernel)

        def args(iters: int, stamps: Any) -> tuple[Any, ...]:
            return (init, c, np.int32(iters), out, stamps)

        configs = [
            run_config(
                ctx,
                kernel,
                args,
                threads,
                blocks,
                work_per_iter_per_block=threads * ACC,
                unit="exp",
                label=f"{label}, {ACC} chains per thread",
            )
            for threads, blocks in CONFIGS
        ]
        if not bool(cp.isfinite(out).all()):
            raise RuntimeError(f"{label}: chains left the finite range")
        values.update(summarise(ctx, key, configs, f"{key}_per_clk_per_sm", f"{key}_per_s"))
        details[key] = configs
    return {"values": values, "details": details, "kernels": kernels}
