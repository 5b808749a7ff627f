"""Tensor-core throughput of mma.sync (m16n8k16 f16 and bf16, m16n8k8 tf32), per SM per clock.

FLOPs count 2 per multiply-add: 4096 per m16n8k16 and 2048 per m16n8k8 instruction.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.calibrate.context import BenchContext
from gpusim.calibrate.sources import compile_module, kernel_attributes
from gpusim.calibrate.throughput import run_config, summarise

NAME = "tensor"
# dtype -> (template kind, FLOP per warp-level mma instruction, PTX shape)
KINDS = {"fp16": (0, 4096, "m16n8k16"), "bf16": (1, 4096, "m16n8k16"), "tf32": (2, 2048, "m16n8k8")}
# (threads per block, blocks per SM, independent accumulators per warp)
CONFIGS = ((128, 2, 8), (256, 2, 8), (256, 4, 4))


def _operands(cp: Any, dtype: str, words: int) -> Any:
    """Random non-zero operand bits: 32-bit words holding two f16/bf16 values or one tf32."""
    vals = cp.random.uniform(0.25, 1.0, size=2 * words, dtype=cp.float32)
    if dtype == "fp16":
        return vals.astype(cp.float16).view(cp.uint32)
    if dtype == "bf16":
        hi = (vals.view(cp.uint32) >> 16).astype(cp.uint32)  # bf16 is the top half of an f32
        return hi[0::2] | (hi[1::2] << 16)
    return vals[:words].view(cp.uint32)


def run(ctx: BenchContext) -> dict[str, Any]:
    """Measure mma.sync FLOP per clock per SM for each input type over a few launch shapes."""
    cp = ctx.cp
    names = tuple(f"mma_loop<{k},{acc}>" for k, _, _ in KINDS.values() for acc in (4, 8))
    mod = compile_module(cp, "tensor.cu", names)
    values: dict[str, Any] = {}
    details: dict[str, Any] = {}
    kernels: dict[str, Any] = {}
    max_threads = max(t * b for t, b, _ in CONFIGS) * ctx.sm_count
    out = cp.zeros(max_threads, dtype=cp.float32)
    for dtype, (kind, flop, shape) in KINDS.items():
        operands = _operands(cp, dtype, 6 * max_threads)
        configs = []
        for threads, blocks, acc in CONFIGS:
            kernel = mod.get_function(f"mma_loop<{kind},{acc}>")
            kernels[f"mma_loop<{kind},{acc}>"] = kernel_attributes(kernel)

            def args(iters: int, stamps: Any, operands: Any = operands) -> tuple[Any, ...]:
                return (operands, np.int32(iters), out, stamps)

            cfg = run_config(
                ctx,
                kernel,
                args,
                threads,
                blocks,
                work_per_iter_per_block=(threads // 32) * acc * flop,
                unit="FLOP",
                label=f"mma.sync.aligned.{shape} {dtype}, {acc} accumulators per warp",
            )
            cfg["accumulators_per_warp"] = acc
            configs.append(cfg)
        if not bool(cp.isfinite(out).all()):
            raise RuntimeError(f"mma {dtype}: non-finite accumulator sums")
        values.update(
            summarise(
                ctx,
                f"mma_{dtype}",
                configs,
                f"mma_sync_{dtype}_flops_per_clk_per_sm",
                f"mma_sync_{dtype}_flops_per_s",
            )
        )
        details[dtype] = configs
    return {"values": values, "details": details, "kernels": kernels}
