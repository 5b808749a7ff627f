"""Timing device work with CUDA events: warm-up, many repeats, per-launch seconds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def event_times_s(
    cp: Any,
    launch: Callable[[], None],
    repeats: int,
    warmup: int = 3,
    launches_per_sample: int = 1,
    before: Callable[[int], None] | None = None,
) -> list[float]:
    """Seconds per launch, one sample per repeat, each from a pair of CUDA events.

    ``launches_per_sample`` launches go between one pair of events, which measures
    back-to-back throughput; with 1 it measures one launch as the device sees it.
    ``before(r)`` runs ahead of repeat ``r``'s first event (an L2 flush, as the timing
    harness queues one before every timed launch).
    """
    for _ in range(warmup):
        launch()
    cp.cuda.get_current_stream().synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    samples = []
    for r in range(repeats):
        if before is not None:
            before(r)
        start.record()
        for _ in range(launches_per_sample):
            launch()
        end.record()
        end.synchronize()
        samples.append(cp.cuda.get_elapsed_time(start, end) / 1e3 / launches_per_sample)
    return samples


def fit_iters(
    cp: Any,
    launch_with: Callable[[int], None],
    target_s: float,
    probe_iters: int,
    max_iters: int = 1 << 30,
) -> int:
    """Loop count that makes one launch last about ``target_s``.

    Two timed probes: the first, short one is mostly launch overhead and so
    under-estimates the rate; the second runs near the target and corrects it.
    """
    launch_with(probe_iters)  # the first launch also loads the module
    iters = probe_iters
    for _ in range(2):
        t = event_times_s(cp, lambda n=iters: launch_with(n), repeats=1, warmup=0)[0]
        iters = max(1, min(max_iters, int(iters * target_s / max(t, 1e-7))))
    return iters
