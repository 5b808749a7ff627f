"""Kernel launch overhead, from an empty kernel, three ways.

- one launch between two CUDA events: what an event-timed kernel carries on top
  of its work (the profile's value);
- back-to-back launches from Python, per launch: the host's launch rate;
- the same launches replayed from a CUDA graph: the device's launch rate;
- one and two launches between CUDA events queued behind a busy GPU (a 256 MiB fill, as
  the harnesses' L2 flush): what a timed kernel carries when the host is ahead of the GPU;
plus host wall time of launch-and-synchronise.
"""

from __future__ import annotations

import time
from typing import Any

from gpusim.calibrate.context import BenchContext
from gpusim.calibrate.event_timing import event_times_s
from gpusim.calibrate.sources import compile_module, kernel_attributes
from gpusim.calibrate.stats import measurement

NAME = "launch"


def run(ctx: BenchContext) -> dict[str, Any]:
    """Measure the cost of launching an empty kernel."""
    cp = ctx.cp
    kernel = compile_module(cp, "launch.cu").get_function("empty_kernel")
    repeats = ctx.scale(200, 20)
    batch = ctx.scale(1000, 50)

    def launch() -> None:
        kernel((1,), (32,), ())

    values: dict[str, Any] = {}
    single = event_times_s(cp, launch, repeats=repeats, warmup=20)
    values["event_single_launch_s"] = measurement(
        single, "s", "one empty-kernel launch (1 block of 32 threads) between two CUDA events"
    )
    b2b = event_times_s(cp, launch, repeats=ctx.scale(20, 3), warmup=1, launches_per_sample=batch)
    values["back_to_back_launch_s"] = measurement(
        b2b, "s", f"{batch} empty-kernel launches from Python between two CUDA events, per launch"
    )
    stream = cp.cuda.get_current_stream()
    wall = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        launch()
        stream.synchronize()
        wall.append(time.perf_counter() - t0)
    values["host_launch_sync_s"] = measurement(
        wall, "s", "host wall time of one empty-kernel launch plus stream synchronize"
    )
    values.update(_queued(ctx, launch, repeats))
    details: dict[str, Any] = {"repeats": repeats, "batch": batch}
    try:
        values["graph_launch_s"] = _graph(ctx, launch, batch)
    except Exception as exc:  # graphs are a refinement; their absence must not fail the benchmark
        details["graph_error"] = f"{type(exc).__name__}: {exc}"
    for key in (
        "event_single_launch_s",
        "queued_launch_s",
        "queued_second_launch_s",
        "back_to_back_launch_s",
        "graph_launch_s",
        "host_launch_sync_s",
    ):
        if key in values:
            ctx.log(f"launch {key}: {values[key]['value'] * 1e6:.2f} us")
    return {
        "values": values,
        "details": details,
        "kernels": {"empty_kernel": kernel_attributes(kernel)},
    }


def _graph(ctx: BenchContext, launch: Any, batch: int) -> dict[str, Any]:
    """Per-kernel time of a CUDA graph of ``batch`` empty kernels, replayed."""
    cp = ctx.cp
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        for _ in range(batch):
            launch()
        graph = stream.end_capture()
        graph.upload()
        times = event_times_s(cp, lambda: graph.launch(), repeats=ctx.scale(20, 3), warmup=2)
    return measurement(
        [t / batch for t in times], "s", f"CUDA graph of {batch} empty kernels replayed, per kernel"
    )


def _queued(ctx: BenchContext, launch: Any, repeats: int) -> dict[str, Any]:
    """Event-timed empty kernels queued behind a 256 MiB fill: one kernel, and what a
    second one adds (the median of two kernels' times less the median of one's)."""
    cp = ctx.cp
    busy = cp.empty(256 << 20, dtype=cp.uint8)
    start, end = cp.cuda.Event(), cp.cuda.Event()

    def timed(kernels: int) -> list[float]:
        out = []
        for r in range(repeats + 5):
            busy.fill(r & 0xFF)  # the GPU is busy while the host queues what follows
            start.record()
            for _ in range(kernels):
                launch()
            end.record()
            end.synchronize()
            out.append(cp.cuda.get_elapsed_time(start, end) / 1e3)
        return out[5:]

    one, two = timed(1), timed(2)
    extra = [b - a for a, b in zip(sorted(one), sorted(two), strict=True)]
    return {
        "queued_launch_s": measurement(
            one, "s", "one empty kernel between CUDA events, queued behind a 256 MiB fill"
        ),
        "queued_second_launch_s": measurement(
            extra, "s", "a second queued empty kernel: two kernels' times less one's, by rank"
        ),
    }
