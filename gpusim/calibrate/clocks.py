"""The SM clock seen during a run: from in-kernel stamps, and from nvidia-smi samples.

Kernels write per-block ``clock64()`` and ``%globaltimer`` stamps (see
``kernels/clocks.cuh``); cycles over nanoseconds is the clock the SMs really ran
at. :class:`SmiSampler` polls ``nvidia-smi`` in the background so each benchmark
can also say what the driver reported while it ran.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

# Fields polled while the benchmarks run; the event-reason field is newer, so it is optional.
SMI_FIELDS = ("clocks.sm", "clocks.mem", "power.draw", "temperature.gpu")
SMI_OPTIONAL_FIELDS = ("clocks_event_reasons.active",)
# Fields read once, before and after the suite.
SMI_STATIC_FIELDS = (
    "name",
    "driver_version",
    "pstate",
    "clocks.sm",
    "clocks.max.sm",
    "clocks.mem",
    "clocks.max.mem",
    "power.draw",
    "power.limit",
    "temperature.gpu",
    "memory.total",
    "compute_mode",
    "persistence_mode",
)


def clock_hz_from_stamps(stamps: Sequence[int], min_ns: int = 100_000) -> dict[str, float]:
    """SM clock from flat per-block stamps ``[clk0, clk1, ns0, ns1] * blocks``.

    Blocks shorter than ``min_ns`` are ignored (the global timer ticks coarsely).
    Returns the median, min and max over blocks in hertz, and how many blocks counted.
    """
    if len(stamps) % 4:
        raise ValueError(f"stamps length {len(stamps)} is not a multiple of 4")
    rates = []
    longest = (0, 0)
    for i in range(0, len(stamps), 4):
        clk0, clk1, ns0, ns1 = (int(x) for x in stamps[i : i + 4])
        cycles, ns = clk1 - clk0, ns1 - ns0
        longest = max(longest, (ns, cycles))
        if ns >= min_ns and cycles > 0:
            rates.append(cycles / ns * 1e9)
    if not rates:
        raise ValueError(
            "no block ran long enough to read the clock from its stamps (longest block "
            f"{longest[0]} ns, {longest[1]} cycles, of {len(stamps) // 4}; {min_ns} ns needed)"
        )
    return {
        "median_hz": statistics.median(rates),
        "min_hz": min(rates),
        "max_hz": max(rates),
        "blocks": len(rates),
    }


def launch_clock_hz(cp: Any, stamps: Any) -> float:
    """Median over blocks of the last launch's clock, from its stamps on the device."""
    return clock_hz_from_stamps(cp.asnumpy(stamps).tolist())["median_hz"]


def sustained_clocks(
    cp: Any, launch: Callable[[], float], stamps: Any, seconds: float
) -> list[dict[str, float]]:
    """Back-to-back ``launch()`` (it returns its CUDA-event milliseconds) for ``seconds``:
    each launch's time since the first and its clock."""
    rows = []
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        ms = launch()
        rows.append({"t_s": time.perf_counter() - t0, "clock_hz": launch_clock_hz(cp, stamps),
                     "ms": ms})  # fmt: skip
    return rows


def protocol_clocks(
    cp: Any,
    launch: Callable[[], float],
    stamps: Any,
    flush: Any,
    warmup: int,
    timed: int,
    idle_s: float,
) -> dict[str, Any]:
    """One launch length under the validation sweeps' protocol: ``idle_s`` idle, then
    ``warmup`` and ``timed`` launches, each after an L2 flush (``flush.fill``); every
    launch's clock and milliseconds, and the timed ones' medians."""
    time.sleep(idle_s)
    rows = []
    for k in range(warmup + timed):
        flush.fill(k & 0xFF)
        ms = launch()
        rows.append({"clock_hz": launch_clock_hz(cp, stamps), "ms": ms, "timed": k >= warmup})
    kept = [r for r in rows if r["timed"]]
    return {
        "launches": rows,
        "median_clock_hz": statistics.median(r["clock_hz"] for r in kept),
        "median_ms": statistics.median(r["ms"] for r in kept),
    }


def smi_query(fields: Sequence[str]) -> dict[str, str]:
    """One ``nvidia-smi --query-gpu`` reading of GPU 0, as raw strings; empty when it fails."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return {}
    try:
        out = subprocess.run(
            [exe, f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits", "-i", "0"],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        ).stdout
    except (subprocess.SubprocessError, OSError):
        return {}
    values = [v.strip() for v in out.strip().splitlines()[0].split(",")] if out.strip() else []
    return dict(zip(fields, values, strict=False)) if len(values) == len(fields) else {}


def smi_static() -> dict[str, str]:
    """The driver's view of GPU 0 (name, driver, clocks, power, temperature) right now."""
    return smi_query(SMI_STATIC_FIELDS)


@dataclass
class SmiSampler:
    """Polls nvidia-smi every ``period_ms`` in a background process; a context manager."""

    period_ms: int = 100
    samples: list[tuple[float, dict[str, str]]] = field(default_factory=list)
    error: str | None = None
    fields: tuple[str, ...] = SMI_FIELDS
    _proc: subprocess.Popen[str] | None = None
    _thread: threading.Thread | None = None

    def __enter__(self) -> SmiSampler:
        exe = shutil.which("nvidia-smi")
        if exe is None:
            self.error = "nvidia-smi not found"
            return self
        full = SMI_FIELDS + SMI_OPTIONAL_FIELDS
        self.fields = full if smi_query(full) else SMI_FIELDS
        cmd = [exe, f"--query-gpu={','.join(self.fields)}", "--format=csv,noheader,nounits"]
        try:
            self._proc = subprocess.Popen(
                [*cmd, "-i", "0", "-lms", str(self.period_ms)],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
        except OSError as exc:
            self.error = f"nvidia-smi could not start: {exc}"
            return self
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        return self

    def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for line in self._proc.stdout:
            values = [v.strip() for v in line.strip().split(",")]
            if len(values) == len(self.fields):
                self.samples.append((time.monotonic(), dict(zip(self.fields, values, strict=True))))

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def window(self, t0: float, t1: float) -> dict[str, object]:
        """Summary of the samples taken between monotonic times ``t0`` and ``t1``."""
        inside = [s for t, s in self.samples if t0 <= t <= t1]
        summary: dict[str, object] = {"samples": len(inside)}
        for name, key in (("clocks.sm", "sm_clock_mhz"), ("power.draw", "power_w")):
            vals = [_num(s.get(name)) for s in inside]
            nums = [v for v in vals if v is not None]
            if nums:
                summary[key] = {
                    "min": min(nums),
                    "median": statistics.median(nums),
                    "max": max(nums),
                }
        reasons = sorted({s.get("clocks_event_reasons.active", "") for s in inside} - {""})
        if reasons:
            summary["clock_event_reasons"] = reasons
        return summary


def _num(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def block_cycles(stamps: Sequence[int]) -> list[int]:
    """Each block's ``clock64`` cycles between its stamps (flat ``[clk0, clk1, ns0, ns1]``).

    A rate per clock from these needs no clock reading at all, so it cannot be skewed by a
    clock that changed between the timed launches and the one whose stamps were read.
    """
    if len(stamps) % 4:
        raise ValueError(f"stamps length {len(stamps)} is not a multiple of 4")
    return [int(stamps[i + 1]) - int(stamps[i]) for i in range(0, len(stamps), 4)]
