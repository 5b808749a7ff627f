"""The simulated timeline in the Chrome trace event format (opens in Perfetto or chrome://tracing).

One process per SM with one thread per CTA slot: each CTA is a complete
("X") event on the slot that ran it, named after its kernel, with its grid
index, batch-head and block. A ``GPU`` process carries one span per kernel
and two counter tracks, DRAM and SM-to-L2 bandwidth in use (GB/s), each the
average over :data:`COUNTER_BINS` equal slices of the run (the engine's
bandwidth is shared by processor sharing, so it is either all in use or idle
at any instant; averages say more). Timestamps are microseconds.

The file is deterministic (same input, same bytes) and written atomically
(a temporary file in the same directory, then a rename).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpusim import atomic
from gpusim.engine.clock import TICKS_PER_S

if TYPE_CHECKING:
    from gpusim.engine.cta_group import CtaGroup
    from gpusim.engine.kernel_run import KernelRun
    from gpusim.engine.result import SimResult
    from gpusim.engine.sim import Sim

#: Counter samples per run.
COUNTER_BINS = 400
#: CTA spans kept in one trace; later ones are counted in ``otherData`` and dropped.
MAX_CTA_SPANS = 250_000

_TICKS_PER_US = TICKS_PER_S // 10**6


def _us(t: int | float) -> float:
    return round(t / _TICKS_PER_US, 6)


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename (never half a file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(path, text)


class ChromeTracer:
    """Collects CTA spans during a run; :meth:`write` adds kernels and counters and saves."""

    def __init__(self, sm_count: int):
        self.sm_count = sm_count
        self.events: list[dict[str, Any]] = []
        self.dropped = 0
        self.slots_used = 0

    def cta_span(self, run: KernelRun, g: CtaGroup, end_tick: int) -> None:
        """Record every CTA of group ``g`` as running from its start to ``end_tick``."""
        bpb = run.grid.blocks_per_bh
        ts, dur = _us(g.start_tick), _us(end_tick - g.start_tick)
        self.slots_used = max(self.slots_used, run.ctas_per_sm)
        for layer, start in zip(g.layers, g.starts, strict=True):
            for j in range(g.smg.size):
                if len(self.events) >= MAX_CTA_SPANS:
                    self.dropped += 1
                    continue
                cta = start + j
                bh, block = divmod(cta, bpb)
                self.events.append(
                    {
                        "name": run.name,
                        "cat": "cta",
                        "ph": "X",
                        "pid": g.smg.sm0 + j,
                        "tid": layer,
                        "ts": ts,
                        "dur": dur,
                        "args": {"cta": cta, "bh": bh, "block": block},
                    }
                )

    def _metadata(self) -> list[dict[str, Any]]:
        gpu = self.sm_count
        out: list[dict[str, Any]] = [
            {"name": "process_name", "ph": "M", "pid": gpu, "args": {"name": "GPU"}},
            {"name": "process_sort_index", "ph": "M", "pid": gpu, "args": {"sort_index": -1}},
            {"name": "thread_name", "ph": "M", "pid": gpu, "tid": 0, "args": {"name": "kernels"}},
        ]
        for sm in range(self.sm_count):
            out.append({"name": "process_name", "ph": "M", "pid": sm, "args": {"name": f"SM {sm}"}})
            out.append(
                {"name": "process_sort_index", "ph": "M", "pid": sm, "args": {"sort_index": sm}}
            )
            for slot in range(self.slots_used):
                out.append(
                    {
                        "name": "thread_name",
                        "ph": "M",
                        "pid": sm,
                        "tid": slot,
                        "args": {"name": f"slot {slot}"},
                    }
                )
        return out

    def _counters(self, sim: Sim, end_tick: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if end_tick <= 0:
            return out
        width = max(1, -(-end_tick // COUNTER_BINS))
        for lane, label in zip(sim.memory.lanes, ("L2 bandwidth", "DRAM bandwidth"), strict=True):
            busy = [0] * COUNTER_BINS
            for t0, t1 in lane.busy or []:
                b = t0 // width
                while t0 < t1 and b < COUNTER_BINS:
                    edge = min(t1, (b + 1) * width)
                    busy[b] += edge - t0
                    t0, b = edge, b + 1
            gbs = lane.capacity * TICKS_PER_S / 1e9  # GB/s while busy
            for b in range(COUNTER_BINS):
                value = round(gbs * busy[b] / width, 3)
                out.append(
                    {
                        "name": label,
                        "ph": "C",
                        "pid": self.sm_count,
                        "ts": _us(b * width),
                        "args": {"GB/s": value},
                    }
                )
        return out

    def write(self, path: str | Path, sim: Sim, runs: list[KernelRun], result: SimResult) -> None:
        """Save the trace of the finished run to ``path``."""
        kernels = [
            {
                "name": r.name,
                "cat": "kernel",
                "ph": "X",
                "pid": self.sm_count,
                "tid": 0,
                "ts": _us(r.start_tick),
                "dur": _us((r.end_tick or r.start_tick) - r.start_tick),
                "args": {"ctas": r.grid.total, "ctas_per_sm": r.ctas_per_sm},
            }
            for r in runs
        ]
        doc = {
            "traceEvents": self._metadata()
            + kernels
            + self.events
            + self._counters(sim, sim.env.now),
            "displayTimeUnit": "ns",
            "otherData": {
                "algorithm": result.algorithm,
                "profile": result.profile,
                "detail": result.detail,
                "runtime_s": result.runtime_s,
                "cta_spans_dropped": self.dropped,
            },
        }
        write_atomic(path, json.dumps(doc, separators=(",", ":"), sort_keys=True))


#: Thread ids of one SM's slots in a combined trace start at ``(sm + 1) * SLOT_STRIDE``.
SLOT_STRIDE = 1000


def _thread_of(pid: int, tid: int, gpu_pid: int) -> int:
    """A run's (process, thread) as one thread of its algorithm's process: GPU first, then SMs."""
    return tid if pid == gpu_pid else (pid + 1) * SLOT_STRIDE + tid


def combine(runs: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Several traces of :class:`ChromeTracer` in one, a process (track group) per label.

    Each run's SM and GPU processes become threads of its label's process ("SM 3 slot 1",
    "GPU kernels"), so Perfetto shows one group per algorithm with the same tracks inside.
    """
    events: list[dict[str, Any]] = []
    other = []
    for index, (label, doc) in enumerate(runs):
        pid = index + 1
        meta = [e for e in doc["traceEvents"] if e["ph"] == "M"]
        names = {e["pid"]: e["args"]["name"] for e in meta if e["name"] == "process_name"}
        gpu_pid = next(p for p, n in names.items() if n == "GPU")
        events.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": label}})
        events.append(
            {"name": "process_sort_index", "ph": "M", "pid": pid, "args": {"sort_index": index}}
        )
        for e in meta:
            if e["name"] != "thread_name":
                continue
            tid = _thread_of(e["pid"], e["tid"], gpu_pid)
            name = f"{names[e['pid']]} {e['args']['name']}"
            events.append(
                {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}}
            )
            events.append(
                {
                    "name": "thread_sort_index",
                    "ph": "M",
                    "pid": pid,
                    "tid": tid,
                    "args": {"sort_index": tid},
                }
            )
        for e in doc["traceEvents"]:
            if e["ph"] == "M":
                continue
            moved = dict(e, pid=pid)
            if "tid" in e:
                moved["tid"] = _thread_of(e["pid"], e["tid"], gpu_pid)
            events.append(moved)
        other.append(doc.get("otherData", {}))
    return {"traceEvents": events, "displayTimeUnit": "ns", "otherData": {"runs": other}}


def write_combined(path: str | Path, runs: list[tuple[str, Path]]) -> None:
    """Combine the trace files ``runs`` (label, file) into ``path`` (see :func:`combine`)."""
    docs = [(label, json.loads(Path(p).read_text())) for label, p in runs]
    write_atomic(path, json.dumps(combine(docs), separators=(",", ":"), sort_keys=True))
