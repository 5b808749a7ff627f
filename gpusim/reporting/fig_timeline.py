"""Figure 5: SM occupancy over time for one simulation, read back from its Chrome trace.

The engine writes the run's timeline in the Chrome trace format (``gpusim
simulate --trace``); this figure reads that same file, so the picture and what
Perfetto shows cannot disagree. Top: every CTA as a bar on its SM, coloured by
the wave it started in. Middle: resident CTAs as a share of the SMs' slots.
Bottom: the trace's DRAM and SM-to-L2 bandwidth counters.
"""

from __future__ import annotations

import itertools
import json
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpusim.reporting.figure import Figure, FigureData, Results
from gpusim.reporting.files import save_figure, write_bytes
from gpusim.reporting.plotting import fmt_time, pyplot

COLUMNS = ("t_us", "resident_ctas", "busy_sms", "occupancy")


def occupancy_steps(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Resident CTAs and busy SMs after each start or end of a CTA span (a step function)."""
    deltas: dict[float, list[tuple[int, int]]] = {}
    for s in spans:
        deltas.setdefault(s["ts"], []).append((+1, s["pid"]))
        deltas.setdefault(round(s["ts"] + s["dur"], 6), []).append((-1, s["pid"]))
    per_sm: dict[int, int] = {}
    resident = 0
    out = []
    for t in sorted(deltas):
        for d, sm in deltas[t]:
            resident += d
            per_sm[sm] = per_sm.get(sm, 0) + d
        out.append(
            {"t_us": t, "resident_ctas": resident, "busy_sms": sum(v > 0 for v in per_sm.values())}
        )
    return out


def read_trace(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of a gpusim Chrome trace the figure uses: CTA spans, kernels, counters, SMs."""
    events = doc["traceEvents"]
    spans = [e for e in events if e.get("ph") == "X" and e.get("cat") == "cta"]
    kernels = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"]
    counters: dict[str, list[tuple[float, float]]] = {}
    for e in events:
        if e.get("ph") == "C":
            counters.setdefault(e["name"], []).append((e["ts"], next(iter(e["args"].values()))))
    sms = sum(
        1
        for e in events
        if e.get("ph") == "M"
        and e["name"] == "process_name"
        and e["args"]["name"].startswith("SM ")
    )
    return {
        "spans": spans,
        "kernels": kernels,
        "counters": {k: sorted(v) for k, v in counters.items()},
        "sm_count": sms,
        "other": doc.get("otherData", {}),
    }


@dataclass
class Timeline(Figure):
    """SM occupancy over time (waves and tail) of one simulated kernel, from its trace."""

    algorithm: str = "flash2"
    profile: str = "h200-sxm"
    batch: int = 2  # 1,024 CTAs: about four waves and a tail, and a trace of ~200 kB
    heads: int = 16
    seq_len: int = 4096
    head_dim: int = 128
    dtype: str = "fp16"
    causal: bool = False
    detail: str = "aggregated"

    name = "fig5_timeline"
    title = "5. Timeline: SM occupancy over time (waves and tail)"

    @property
    def trace_name(self) -> str:
        """File name of the Chrome trace written beside the figure."""
        return f"{self.name}.trace.json"

    def simulate(self, trace_path: Path) -> dict[str, Any]:
        """Run the simulation with its Chrome trace written to ``trace_path``; its JSON dict."""
        from gpusim.api import build_inputs, simulate

        w, s, p, _ = build_inputs(
            algorithm=self.algorithm,
            profile=self.profile,
            batch=self.batch,
            heads=self.heads,
            seq_len=self.seq_len,
            head_dim=self.head_dim,
            dtype=self.dtype,
            causal=self.causal,
        )
        res = simulate(self.algorithm, w, s, p, trace_path=trace_path, detail=self.detail)
        return res.to_json_dict()

    def build(self, results: Results) -> FigureData:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / self.trace_name
            sim = self.simulate(path)
            trace_bytes = path.read_bytes()
        trace = read_trace(json.loads(trace_bytes))
        steps = occupancy_steps(trace["spans"])
        slots = trace["sm_count"] * sim["ctas_per_sm"]
        for s in steps:
            s["occupancy"] = s["resident_ctas"] / slots
        data = FigureData(steps, COLUMNS)
        data.summary = _summary(sim, trace, steps, slots)
        data.summary["trace"] = self.trace_name
        data.extra = {"trace": trace, "trace_bytes": trace_bytes}
        s = data.summary
        data.table_header = ["quantity", "value"]
        sched = f"Br {s['block_m']} × Bc {s['block_n']}, {s['warps']} warps, {s['stages']} stages"
        tail = f"{fmt_time(s['tail_s'])} ({100 * s['tail_fraction']:.1f}%)"
        data.table_rows = [
            ["schedule", sched],
            ["CTAs", f"{s['ctas']:,}"],
            ["CTAs per SM × SMs", f"{s['ctas_per_sm']} × {s['sm_count']}"],
            ["waves", f"{s['waves']:.2f}"],
            ["runtime", fmt_time(s["runtime_s"])],
            ["mean occupancy", f"{100 * s['mean_occupancy']:.1f}%"],
            ["tail (after the last full moment)", tail],
            ["bound", s["bound"]],
        ]
        return data

    def draw(self, data: FigureData, path: Path) -> None:
        plt = pyplot()
        trace = data.extra["trace"]
        s = data.summary
        fig, axes = plt.subplots(
            3,
            1,
            figsize=(11, 8),
            layout="constrained",
            sharex=True,
            gridspec_kw={"height_ratios": [3, 1.3, 1.3]},
        )
        starts = sorted({e["ts"] for e in trace["spans"]})
        wave_of = {t: i for i, t in enumerate(starts)}
        cmap = plt.get_cmap("tab10")
        per_row = s["ctas_per_sm"]
        rows: dict[tuple[int, int], list[dict]] = {}
        for e in trace["spans"]:
            rows.setdefault((e["pid"], e["tid"]), []).append(e)
        for (sm, slot), spans in sorted(rows.items()):
            spans.sort(key=lambda e: e["ts"])
            axes[0].broken_barh(
                [(e["ts"], e["dur"]) for e in spans],
                (sm + slot / per_row, 0.9 / per_row),
                facecolors=[cmap(wave_of[e["ts"]] % 10) for e in spans],
                lw=0,
            )
        axes[0].set_ylim(0, s["sm_count"])
        axes[0].invert_yaxis()
        axes[0].set_ylabel("SM (one bar per CTA slot)")
        axes[0].set_title(
            f"{s['algorithm']} on {s['profile']}: {s['ctas']:,} CTAs, {per_row} per SM on "
            f"{s['sm_count']} SMs = {s['waves']:.2f} waves (colour: order of start)"
        )
        ts = [r["t_us"] for r in data.rows]
        axes[1].step(
            ts,
            [100 * r["occupancy"] for r in data.rows],
            where="post",
            c="k",
            label="CTA slots in use",
        )
        axes[1].step(
            ts,
            [100 * r["busy_sms"] / s["sm_count"] for r in data.rows],
            where="post",
            c="#d62728",
            ls="--",
            label="SMs busy",
        )
        axes[1].set_ylabel("%")
        axes[1].set_ylim(0, 105)
        axes[1].legend(loc="lower left")
        if s["tail_s"] > 0:
            t0 = (s["runtime_s"] - s["tail_s"]) * 1e6
            for ax in axes:
                ax.axvline(t0, color="k", ls=":", lw=1)
            axes[1].text(t0, 50, f" tail {fmt_time(s['tail_s'])}", fontsize=8)
        for name, pts in sorted(trace["counters"].items()):
            axes[2].step([p[0] for p in pts], [p[1] for p in pts], where="post", label=name)
        axes[2].set_ylabel("GB/s")
        axes[2].set_xlabel("time (µs)")
        axes[2].legend(loc="upper right")
        save_figure(fig, path)

    def write(self, data: FigureData, out_dir: str | Path) -> list[Path]:
        trace = write_bytes(Path(out_dir) / self.trace_name, data.extra["trace_bytes"])
        return [*super().write(data, out_dir), trace]

    def describe(self, data: FigureData) -> str:
        s = data.summary
        slots = s["ctas_per_sm"] * s["sm_count"]
        last = s["ctas"] - int(s["waves"]) * slots if s["waves"] >= 1 else s["ctas"]
        return (
            f"{s['algorithm']} on {s['profile']} runs {s['ctas']:,} CTAs, {s['ctas_per_sm']} per "
            f"SM on {s['sm_count']} SMs, in {s['waves']:.2f} waves: every slot is busy during the "
            f"whole waves, then the last wave has only {last} CTAs for {slots} slots, so for the "
            f"final {fmt_time(s['tail_s'])} ({100 * s['tail_fraction']:.0f}% of the "
            f"{fmt_time(s['runtime_s'])} run) slots stand empty; the mean occupancy is "
            f"{100 * s['mean_occupancy']:.0f}%. The picture is drawn from the run's Chrome trace, "
            f"`{s['trace']}` (open it in Perfetto)."
        )


def _summary(sim: dict, trace: dict, steps: list[dict], slots: int) -> dict[str, Any]:
    end = max((e["ts"] + e["dur"] for e in trace["spans"]), default=0.0)
    start = min((e["ts"] for e in trace["spans"]), default=0.0)
    area = 0.0
    last_full = start
    for a, b in itertools.pairwise(steps):
        area += a["resident_ctas"] * (b["t_us"] - a["t_us"])
        if a["resident_ctas"] >= slots:
            last_full = b["t_us"]
    span = end - start
    sch = sim["schedule"]
    return {
        "algorithm": sim["algorithm"],
        "profile": sim["profile"],
        "workload": sim["workload"],
        "block_m": sch["block_m"],
        "block_n": sch["block_n"],
        "warps": sch["warps"],
        "stages": sch["stages"],
        "ctas": len(trace["spans"]),
        "ctas_per_sm": sim["ctas_per_sm"],
        "sm_count": trace["sm_count"],
        "waves": sim["waves"],
        "runtime_s": sim["runtime_s"],
        "bound": sim["bound"],
        "mean_occupancy": area / (slots * span) if span > 0 else 0.0,
        "tail_s": (end - last_full) * 1e-6,
        "tail_fraction": (end - last_full) / span if span > 0 else 0.0,
    }
