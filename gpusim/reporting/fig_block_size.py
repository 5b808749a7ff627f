"""Figure 2: HBM accesses and runtime against block size, after the FlashAttention paper's
Figure 2 (middle): sequence 1024, head dim 64, 16 heads, batch 64.

Square tiles (Br = Bc = B) for FlashAttention-1 (the paper's algorithm, K/V
outer) and FlashAttention-2. "HBM accesses" in the paper's sense are the
SM-to-memory-system bytes (``global_*``); the DRAM bytes after the L2 are drawn
beside them. The knee is the first block size at which the busiest resource is
a compute pipe (tensor core, FP32, exp) instead of a memory level (DRAM, L2,
shared memory): from there larger blocks stop paying off.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gpusim.reporting.figure import Figure, FigureData, Results, workload_dict, workload_text
from gpusim.reporting.files import save_figure
from gpusim.reporting.plotting import colour, fmt_bytes, fmt_time, gb, ms, pyplot
from gpusim.reporting.points import Point
from gpusim.reporting.schedules import tile_point

#: Resources that make a run memory-bound (the others are compute pipes, or latency).
MEMORY_BOUNDS = ("dram", "l2", "smem")
COMPUTE_BOUNDS = ("tensor", "fp32", "sfu")

COLUMNS = (
    "profile",
    "algorithm",
    "block",
    "warps",
    "stages",
    "fits",
    "reason",
    "global_bytes",
    "dram_bytes",
    "runtime_s",
    "tflops",
    "bound",
    "util_dram",
    "util_l2",
    "util_smem",
    "util_tensor",
    "util_fp32",
    "util_sfu",
    "knee",
)


@dataclass
class BlockSize(Figure):
    """HBM accesses (global bytes), DRAM bytes and runtime of square tiles against their size."""

    profiles: tuple[str, ...] = ("a100-sxm4-80gb", "h200-sxm")
    algorithms: tuple[str, ...] = ("flash1", "flash2")
    blocks: tuple[int, ...] = (16, 32, 64, 128, 256)
    batch: int = 64
    heads: int = 16
    seq_len: int = 1024
    head_dim: int = 64
    dtype: str = "fp16"

    name = "fig2_block_size"
    title = "2. Block size: HBM accesses and runtime (FlashAttention paper, Figure 2 middle)"

    def _point(self, prof: str, alg: str, b: int) -> Point | str:
        return tile_point(alg, prof, workload_dict(self), b, b)

    def points(self) -> list[Point]:
        pts = [
            self._point(p, a, b)
            for p in self.profiles
            for a in self.algorithms
            for b in self.blocks
        ]
        return [p for p in pts if isinstance(p, Point)]

    def build(self, results: Results) -> FigureData:
        rows = []
        summary: dict = {}
        for prof in self.profiles:
            for alg in self.algorithms:
                series = []
                for b in self.blocks:
                    pt = self._point(prof, alg, b)
                    row = {"profile": prof, "algorithm": alg, "block": b}
                    if isinstance(pt, str):
                        row |= {"fits": False, "reason": pt}
                    else:
                        r = results[pt]
                        row |= {
                            "fits": True,
                            "warps": r["warps"],
                            "stages": r["stages"],
                            "global_bytes": r["global_read_bytes"] + r["global_write_bytes"],
                            "dram_bytes": r["dram_read_bytes"] + r["dram_write_bytes"],
                            "runtime_s": r["runtime_s"],
                            "tflops": r["tflops"],
                            "bound": r["bound"],
                        }
                        row |= {f"util_{k}": r[f"util_{k}"] for k in MEMORY_BOUNDS + COMPUTE_BOUNDS}
                        series.append(row)
                    rows.append(row)
                knee = knee_of(series)
                for row in series:
                    row["knee"] = row["block"] == knee
                summary.setdefault(prof, {})[alg] = _series_summary(series, knee)
        data = FigureData(rows, COLUMNS, summary={"workload": workload_dict(self), **summary})
        data.table_header = [
            "profile",
            "algorithm",
            "block",
            "warps × stages",
            "HBM accesses",
            "DRAM bytes",
            "runtime",
            "bound",
        ]
        for r in rows:
            fits = r["fits"]
            data.table_rows.append(
                [
                    r["profile"],
                    r["algorithm"],
                    f"{r['block']}" + (" (knee)" if r.get("knee") else ""),
                    f"{r['warps']} × {r['stages']}" if fits else "-",
                    fmt_bytes(r["global_bytes"]) if fits else "does not fit",
                    fmt_bytes(r["dram_bytes"]) if fits else "-",
                    fmt_time(r["runtime_s"]) if fits else "-",
                    r["bound"] if fits else short_reason(r["reason"]),
                ]
            )
        return data

    def draw(self, data: FigureData, path: Path) -> None:
        plt = pyplot()
        nr, nc = len(self.profiles), len(self.algorithms)
        fig, axes = plt.subplots(
            nr, nc, figsize=(5.2 * nc, 3.6 * nr), layout="constrained", squeeze=False
        )
        for i, prof in enumerate(self.profiles):
            for j, alg in enumerate(self.algorithms):
                ax = axes[i][j]
                rows = [
                    r
                    for r in data.rows
                    if r["profile"] == prof and r["algorithm"] == alg and r["fits"]
                ]
                xs = list(range(len(rows)))
                ax.bar(
                    [x - 0.2 for x in xs],
                    [gb(r["global_bytes"]) for r in rows],
                    0.4,
                    color="#9ecae1",
                    label="HBM accesses (SM↔L2)",
                )
                ax.bar(
                    [x + 0.2 for x in xs],
                    [gb(r["dram_bytes"]) for r in rows],
                    0.4,
                    color="#3182bd",
                    label="DRAM bytes (after L2)",
                )
                ax.set_xticks(xs, [str(r["block"]) for r in rows])
                ax.set_ylabel("GB")
                ax.set_xlabel("block size Br = Bc")
                twin = ax.twinx()
                twin.plot(
                    xs, [ms(r["runtime_s"]) for r in rows], "o-", c=colour(prof), label="runtime"
                )
                twin.set_ylabel("runtime (ms)")
                # Headroom above the highest point for its bound label.
                twin.set_ylim(0, 1.2 * max((ms(r["runtime_s"]) for r in rows), default=1.0))
                twin.grid(False)
                for x, r in zip(xs, rows, strict=True):
                    twin.annotate(
                        r["bound"],
                        (x, ms(r["runtime_s"])),
                        textcoords="offset points",
                        xytext=(0, 6),
                        ha="center",
                        fontsize=7,
                    )
                    if r.get("knee"):
                        ax.axvline(x, color="k", ls="--", lw=1)
                        ax.text(x, ax.get_ylim()[1] * 0.95, " knee", va="top", fontsize=8)
                missing = [
                    str(r["block"])
                    for r in data.rows
                    if r["profile"] == prof and r["algorithm"] == alg and not r["fits"]
                ]
                note = f" (B = {', '.join(missing)}: do not fit)" if missing else ""
                ax.set_title(f"{alg} on {prof}{note}", fontsize=9)
                if i == 0 and j == 0:
                    h1, l1 = ax.get_legend_handles_labels()
                    h2, l2 = twin.get_legend_handles_labels()
                    ax.legend(h1 + h2, l1 + l2, loc="upper right")
        fig.suptitle(
            f"Block size: {workload_text(self)} (labels: what bounds each run; dashed: the knee)"
        )
        save_figure(fig, path)

    def describe(self, data: FigureData) -> str:
        parts = []
        for alg in self.algorithms:
            runs = [
                (p, data.summary[p][alg]) for p in self.profiles if data.summary[p][alg]["blocks"]
            ]
            if not runs:
                continue
            s0 = runs[0][1]
            speed = ", ".join(f"{s['speedup']:.1f}× on {p}" for p, s in runs)
            knees = [f"B = {s['knee']} on {p}" for p, s in runs if s["knee"]]
            still = [f"{s['bounds'][-1]} on {p}" for p, s in runs if not s["knee"]]
            text = (
                f"{alg}'s HBM accesses fall {s0['global_ratio']:.0f}× from B = {s0['blocks'][0]} "
                f"to {s0['blocks'][-1]} (the largest that fits) and its runtime {speed}"
            )
            if knees:
                text += f", the knee (a compute pipe becomes the bound) at {', '.join(knees)}"
            if still:
                text += f"; no knee up to B = {s0['blocks'][-1]} (bound there: {', '.join(still)})"
            parts.append(text)
        return (
            "Larger tiles re-read K/V (flash2) or Q, O, l, m (flash1) fewer times, so HBM "
            "accesses fall as 1/B and runtime falls with them until a compute pipe becomes "
            "the bound. " + "; ".join(parts) + "."
        )


def short_reason(reason: str) -> str:
    """A few words for the table; the CSV keeps the whole reason."""
    words = []
    if "spills" in reason or "registers" in reason:
        words.append("registers")
    if "shared memory" in reason:
        words.append("shared memory")
    return "does not fit: " + (" and ".join(words) or reason)


def knee_of(series: list[dict]) -> int | None:
    """The first block size whose bound is a compute pipe, if any."""
    for r in series:
        if r["bound"] in COMPUTE_BOUNDS:
            return r["block"]
    return None


def _series_summary(series: list[dict], knee: int | None) -> dict:
    if not series:
        return {"blocks": [], "knee": None}
    a, b = series[0], series[-1]
    return {
        "blocks": [r["block"] for r in series],
        "knee": knee,
        "global_bytes": [r["global_bytes"] for r in series],
        "runtime_s": [r["runtime_s"] for r in series],
        "bounds": [r["bound"] for r in series],
        "global_ratio": a["global_bytes"] / b["global_bytes"],
        "speedup": a["runtime_s"] / b["runtime_s"],
    }
