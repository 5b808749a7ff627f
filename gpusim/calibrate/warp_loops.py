"""One warp loop timed at several launch shapes: the rows the stand-alone loop benchmarks record.

``issue`` and ``smem_overlap`` both time kernels whose every warp repeats one loop, at
(threads per CTA, CTAs per SM) shapes that put 1, 2 or 4 warps on each scheduler; a row
holds the loop's parameters, the shape, the SM cycles one iteration of every warp of a
scheduler takes, and the SM clock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpusim.calibrate.throughput import run_config

SCHEDULERS_PER_SM = 4
WARP_THREADS = 32


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
