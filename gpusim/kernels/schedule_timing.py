"""Timing of (workload, schedule) pairs on the GPU: CUDA events, L2 flushed, medians.

``time_schedules`` is the measurement the validation step compares with the simulator's
prediction: every repeat starts from a cold L2 (a 256 MB buffer is written first, so what
the kernel finds in L2 is that buffer, not its own inputs), and the record carries the
kernel's attributes (registers, shared memory, local memory) beside the times.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from typing import Any

from gpusim.errors import GpusimError
from gpusim.kernels.runner import Flash2Runner
from gpusim.schedule import Schedule
from gpusim.workload import Workload

L2_FLUSH_BYTES = 256 * 1024 * 1024


def to_bf16_bits(cp: Any, x: Any) -> Any:
    """float32 CuPy array -> uint16 bf16 bit patterns, rounded to nearest even."""
    bits = x.astype(cp.float32).view(cp.uint32)
    rounded = (bits + cp.uint32(0x7FFF) + ((bits >> 16) & cp.uint32(1))) >> 16
    return rounded.astype(cp.uint16)


def from_bf16_bits(cp: Any, b: Any) -> Any:
    """uint16 bf16 bit patterns -> float32 CuPy array."""
    return (b.astype(cp.uint32) << 16).view(cp.float32)


def random_inputs(cp: Any, workload: Workload, seed: int = 0) -> tuple[Any, Any, Any]:
    """Standard-normal q, k, v in the workload's storage type (bf16 as raw bits); never zeros.

    K and V have the workload's K/V heads (``heads_kv``)."""
    w = workload
    rng = cp.random.default_rng(seed)
    shapes = [
        (w.batch, h, n, w.head_dim)
        for h, n in ((w.heads, w.seq_len_q), (w.kv_heads, w.seq_len_k), (w.kv_heads, w.seq_len_k))
    ]
    out = []
    for shape in shapes:
        x = rng.standard_normal(shape, dtype=cp.float32)
        if w.dtype == "bf16":
            x = to_bf16_bits(cp, x)
        elif w.dtype == "fp16":
            x = x.astype(cp.float16)
        out.append(x)
    return out[0], out[1], out[2]


def time_launches(
    cp: Any, launch: Any, repeats: int, warmup: int, flush: Any | None
) -> list[float]:
    """Seconds of ``launch()`` per repeat between CUDA events, L2 flushed before each."""
    for _ in range(warmup):
        launch()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for r in range(repeats):
        if flush is not None:
            flush.fill(r & 0xFF)  # a kernel that writes 256 MB: evicts everything from L2
        start.record()
        launch()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / 1e3)
    return times


def time_schedules(
    configs: Iterable[tuple[Workload, Schedule]],
    runner: Flash2Runner | None = None,
    repeats: int = 20,
    warmup: int = 3,
    flush_l2: bool = True,
    seed: int = 0,
) -> list[dict]:
    """Time each (workload, schedule) on the current GPU; one record per pair, in order.

    A record holds the workload and schedule (as dicts), the instance key, the median, min
    and all times in seconds, TFLOP/s by the papers' convention, the grid size and the
    kernel attributes. A split-KV schedule's time covers both its launches (split and
    combine); its workspace is allocated before the timing. A pair with no instance, or
    whose inputs or launches fail (out of memory, a launch error), gets ``error`` instead of
    times, and the next pair runs.
    """
    runner = runner or Flash2Runner()
    cp = runner.cp
    flush = cp.empty(L2_FLUSH_BYTES, dtype=cp.uint8) if flush_l2 else None
    records = []
    inputs: dict[Workload, tuple] = {}
    for workload, schedule in configs:
        rec: dict = {"workload": workload.model_dump(), "schedule": schedule.model_dump()}
        try:
            inst = runner.instance(workload, schedule)
            loaded = runner.load(inst)
            split = runner.split_workspace(workload, schedule)
        except GpusimError as exc:
            records.append(rec | {"error": str(exc)})
            continue
        try:
            if workload not in inputs:
                inputs.clear()  # keep one problem's buffers alive at a time
                q, k, v = random_inputs(cp, workload, seed)
                inputs[workload] = (q, k, v, cp.empty_like(q))
            q, k, v, o = inputs[workload]
            runner.check_arrays(workload, q, k, v, o)

            def launch(loaded=loaded, w=workload, q=q, k=k, v=v, o=o, split=split) -> None:
                runner.launch(loaded, w, q, k, v, o, split=split)

            times = time_launches(cp, launch, repeats, warmup, flush)
        except Exception as exc:
            # CuPy raises its own types (OutOfMemoryError, CUDADriverError, ...); whatever it
            # is, this pair gets its error and the next pair runs with fresh buffers.
            inputs.clear()
            records.append(rec | {"instance": inst.key, "error": f"{type(exc).__name__}: {exc}"})
            continue
        med = statistics.median(times)
        records.append(
            rec
            | {
                "instance": inst.key,
                "median_s": med,
                "min_s": min(times),
                "times_s": times,
                "tflops": workload.model_flops() / med / 1e12,
                "ctas": -(-workload.seq_len_q // inst.block_m)
                * workload.batch_heads
                * schedule.kv_splits,
                "attributes": loaded.attributes(),
            }
        )
    return records
