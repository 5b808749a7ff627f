"""The GPU kernels a PyTorch call launches, as its profiler traces them (names, grids, times).

Torch is imported when called, never at import, so that the measuring scripts import on a
machine without it.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any


def profiled_kernels(launch: Callable[[], Any], name_chars: int = 2000) -> list[dict[str, Any]]:
    """The kernels one ``launch()`` runs, in launch order: each one's name (cut to
    ``name_chars``), grid, block, registers, shared memory and duration in microseconds."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        launch()
        torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        prof.export_chrome_trace(str(path))
        events = json.loads(path.read_text()).get("traceEvents", [])
    return [kernel_record(e, name_chars) for e in kernel_events(events)]


def kernel_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Chrome trace's kernel events, by start time."""
    kernels = (e for e in events if e.get("cat") == "kernel")
    return sorted(kernels, key=lambda e: e.get("ts", 0))


def kernel_record(event: dict[str, Any], name_chars: int) -> dict[str, Any]:
    """What a measurement keeps of one kernel event."""
    a = event.get("args", {})
    return {
        "name": event.get("name", "")[:name_chars],
        "grid": a.get("grid"),
        "block": a.get("block"),
        "registers_per_thread": a.get("registers per thread"),
        "shared_memory_bytes": a.get("shared memory"),
        "duration_us": event.get("dur"),
    }
