"""Shared driver for the pipe-throughput benchmarks (tensor core, FP32, SFU, shared memory).

A kernel runs a loop of independent operations on every SM; its duration comes
from CUDA events and the SM clock from the kernel's own clock stamps, so a rate
per SM per clock uses the clock the SMs really ran at during that launch.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from gpusim.calibrate.clocks import block_cycles, clock_hz_from_stamps
from gpusim.calibrate.context import BenchContext
from gpusim.calibrate.event_timing import event_times_s, fit_iters
from gpusim.calibrate.stats import measurement

# Launch arguments for a given loop count and stamp buffer.
ArgsFor = Callable[[int, Any], tuple[Any, ...]]


def run_config(
    ctx: BenchContext,
    kernel: Any,
    args_for: ArgsFor,
    threads: int,
    blocks_per_sm: int,
    work_per_iter_per_block: float,
    unit: str,
    label: str,
    shared_mem_bytes: int = 0,
) -> dict[str, Any]:
    """Time one launch configuration; its per-SM-per-clock rate, total rate and clock."""
    cp = ctx.cp
    grid = ctx.sm_count * blocks_per_sm
    stamps = cp.zeros(4 * grid, dtype=cp.uint64)

    def launch(iters: int) -> None:
        kernel((grid,), (threads,), args_for(iters, stamps), shared_mem=shared_mem_bytes)

    iters = fit_iters(cp, launch, target_s=ctx.scale(5e-3, 5e-4), probe_iters=64)
    times = event_times_s(cp, lambda: launch(iters), repeats=ctx.scale(15, 3), warmup=2)
    flat = stamps.get().tolist()
    clock = clock_hz_from_stamps(flat, min_ns=ctx.scale(500_000, 20_000))
    cycles = block_cycles(flat)
    work = iters * work_per_iter_per_block * grid
    per_clk = [work / (t * clock["median_hz"] * ctx.sm_count) for t in times]
    method = (
        f"{label}: {threads} threads x {blocks_per_sm} blocks/SM x {ctx.sm_count} SMs, "
        f"{iters} iterations; CUDA-event time, SM clock from in-kernel clock64/globaltimer"
    )
    return {
        "threads": threads,
        "blocks_per_sm": blocks_per_sm,
        "iters": iters,
        "work_per_launch": work,
        "per_clk_per_sm": measurement(per_clk, f"{unit}/clk/SM", method),
        "per_s": measurement([work / t for t in times], f"{unit}/s", method),
        "sm_clock_hz": clock,
        "time_s": measurement(times, "s", method),
        # The last launch's per-block clock64 cycles (all blocks are resident at once).
        "block_cycles": {
            "median": statistics.median(cycles),
            "min": min(cycles),
            "max": max(cycles),
        },
    }


def best_config(configs: list[dict[str, Any]]) -> dict[str, Any]:
    """The configuration with the highest median rate per clock."""
    return max(configs, key=lambda c: c["per_clk_per_sm"]["median"])


def summarise(
    ctx: BenchContext, name: str, configs: list[dict[str, Any]], value_key: str, total_key: str
) -> dict[str, Any]:
    """Values for the results JSON: the best configuration's rate per clock, per second, clock."""
    best = best_config(configs)
    per_clk = dict(best["per_clk_per_sm"])
    per_clk["method"] = f"best of {len(configs)} launch configurations: {per_clk['method']}"
    clk = best["sm_clock_hz"]
    per_clk["sm_clock_hz"] = clk["median_hz"]
    ctx.log(
        f"{name} {value_key}: {per_clk['value']:.1f} (clock {clk['median_hz'] / 1e6:.0f} MHz, "
        f"{best['per_s']['value']:.4g} per s)"
    )
    return {
        value_key: per_clk,
        total_key: dict(best["per_s"]),
        f"{name}_sm_clock_hz": {
            "value": clk["median_hz"],
            "unit": "Hz",
            "min": clk["min_hz"],
            "median": clk["median_hz"],
            "max": clk["max_hz"],
            "count": clk["blocks"],
            "method": "clock64 cycles / globaltimer ns per block, "
            "over the best configuration's last launch",
        },
    }
