"""One warp loop timed at several launch shapes: the rows the stand-alone loop benchmarks record.

``issue`` and ``smem_overlap`` both time kernels whose every warp repeats one loop, at
(threads per CTA, CTAs per SM) shapes that put 1, 2 or 4 warps on each scheduler; a row
holds the loop's parameters, the shape, the SM cycles one iteration of every warp of a
scheduler takes, and the SM clock.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gpusim.calibrate.context import import_cupy, make_context
from gpusim.calibrate.sources import compile_module, kernel_attributes
from gpusim.calibrate.throughput import run_config

SCHEDULERS_PER_SM = 4
WARP_THREADS = 32
#: (threads per CTA, CTAs per SM): 1, 2 and 4 warps per scheduler, in one CTA or in CTAs of
#: 4 warps; the launch shapes of every loop benchmark
SHAPES = ((128, 1), (256, 1), (512, 1), (128, 2), (128, 4))


def loop_rows(
    ctx: Any,
    kernel: Any,
    name: str,
    params: dict[str, int],
    shapes: tuple[tuple[int, int], ...],
    args: Callable[[int, Any], tuple[Any, ...]],
) -> list[dict[str, Any]]:
    """``kernel`` at each shape: ``params`` and the shape, cycles per iteration, the clock."""
    rows = []
    for threads, blocks in shapes:
        cfg = run_config(
            ctx,
            kernel,
            args,
            threads,
            blocks,
            work_per_iter_per_block=threads // WARP_THREADS,
            unit="warp-iteration",
            label=name,
        )
        warps_per_sm = threads // WARP_THREADS * blocks
        per_clk = cfg["per_clk_per_sm"]["median"]
        row = {
            **params,
            "threads": threads,
            "ctas_per_sm": blocks,
            "warps_per_scheduler": warps_per_sm // SCHEDULERS_PER_SM,
            # every warp of a scheduler doing one iteration, in SM cycles
            "cycles_per_iteration_per_scheduler": warps_per_sm / per_clk,
            "sm_clock_hz": cfg["sm_clock_hz"]["median_hz"],
            "raw": cfg,
        }
        ctx.log(
            f"{name} {threads}x{blocks}: {row['cycles_per_iteration_per_scheduler']:.1f} "
            f"cycles/iter/scheduler at {row['sm_clock_hz'] / 1e6:.0f} MHz"
        )
        rows.append(row)
    return rows


def time_loops(
    cp: Any,
    ctx: Any,
    source: str,
    loops: Sequence[tuple[str, dict[str, int]]],
    shapes: tuple[tuple[int, int], ...],
) -> tuple[list[dict[str, Any]], dict[str, dict[str, int]]]:
    """Each ``(name, params)`` loop of ``source`` at each launch shape: the rows of
    :func:`loop_rows` and each kernel's attributes.

    The kernels take ``(operands, iters, zero, out, stamps)``: random fp16 operands, 0 for
    ``zero``, and an output every thread writes (poisoned with NaN first; the first launch
    shape's threads are checked finite).
    """
    mod = compile_module(cp, source, tuple(name for name, _ in loops))
    threads_max = max(t * b for t, b in shapes) * ctx.sm_count
    vals = cp.random.uniform(0.25, 1.0, size=12 * max(threads_max, 4096), dtype=cp.float32)
    operands = vals.astype(cp.float16).view(cp.uint32)
    out = cp.full(threads_max, cp.nan, dtype=cp.float32)

    def args(iters: int, stamps: Any) -> tuple[Any, ...]:
        return (operands, np.int32(iters), np.uint32(0), out, stamps)

    rows, kernels = [], {}
    for name, params in loops:
        kernel = mod.get_function(name)
        kernels[name] = kernel_attributes(kernel)
        rows += loop_rows(ctx, kernel, name, params, shapes, args)
    finite = bool(cp.isfinite(out[: ctx.sm_count * 128]).all())
    ctx.log(f"outputs finite (first launch shape's threads): {finite}")
    return rows, kernels


#: The two FlashAttention-like loops of kernels/step_loop.cuh that the step-loop variants
#: time: (ldmatrix.x4 per warp-iteration, mma.sync fed by each).
STEP_LOOPS = ((16, 4), (32, 2))


def step_loop_variant_loops(
    kernel: str, param: str, values: Sequence[int]
) -> list[tuple[str, dict[str, int]]]:
    """``(name, params)`` of ``kernel<NLD, MMA_PER_LD, value>`` for both step loops and every
    value of the variant's third template parameter ``param``."""
    return [
        (f"{kernel}<{nld},{per_ld},{v}>", {"nld": nld, "mma_per_ld": per_ld, param: v})
        for nld, per_ld in STEP_LOOPS
        for v in values
    ]


def run_step_loop_variant(
    quick: bool, kernel: str, param: str, values: Sequence[int]
) -> dict[str, Any]:
    """A step-loop variant benchmark's whole run: ``kernels/<kernel>.cu`` at :data:`SHAPES`;
    the JSON its ``--out`` writes."""
    cp = import_cupy()
    ctx = make_context(cp, quick=quick)
    loops = step_loop_variant_loops(kernel, param, values)
    rows, kernels = time_loops(cp, ctx, f"{kernel}.cu", loops, SHAPES)
    return {"gpu": ctx.gpu_name, "date": ctx.date, "kernels": kernels, "rows": rows}
