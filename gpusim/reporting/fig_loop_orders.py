"""Figure 3: the loop orders of the seeds side by side: bytes moved and predicted runtime.

``flash-naive-qkv`` (one query per CTA against every key), ``flash-naive-kvq``
(keys outer, state in HBM), ``flash1`` (K/V blocks outer, O/l/m in HBM),
``flash2`` (Q blocks outer, state on chip) and ``flash2-kvq`` (the FA2
recurrence in K/V-outer order) on one workload with the same 64 x 64 tile
(one query row for the single-query order), so only the order differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gpusim.reporting.figure import Figure, FigureData, Results, workload_dict, workload_text
from gpusim.reporting.files import save_figure
from gpusim.reporting.plotting import colour, fmt_bytes, fmt_time, gb, ms, pyplot
from gpusim.reporting.points import Point
from gpusim.reporting.schedules import tile_point

LOOP_ORDERS = ("flash-naive-qkv", "flash-naive-kvq", "flash1", "flash2", "flash2-kvq")
#: Orders that keep the running state (m, l, O) in HBM between steps.
HBM_STATE = ("flash-naive-kvq", "flash1", "flash2-kvq")
#: Algorithms whose CTA owns a single query row.
SINGLE_QUERY = ("flash-naive-qkv",)

COLUMNS = (
    "profile",
    "algorithm",
    "block_m",
    "block_n",
    "warps",
    "stages",
    "global_read_bytes",
    "global_write_bytes",
    "global_bytes",
    "dram_bytes",
    "l2_hit_rate",
    "runtime_s",
    "tflops",
    "bound",
    "ctas_per_sm",
    "reason",
)


@dataclass
class LoopOrders(Figure):
    """Global bytes, DRAM bytes and runtime of the five loop orders on one workload."""

    profiles: tuple[str, ...] = ("a100-sxm4-80gb", "h200-sxm")
    algorithms: tuple[str, ...] = LOOP_ORDERS
    block: int = 64
    batch: int = 64
    heads: int = 16
    seq_len: int = 1024
    head_dim: int = 64
    dtype: str = "fp16"

    name = "fig3_loop_orders"
    title = "3. Loop orders: which order moves less data"

    def _point(self, prof: str, alg: str) -> Point | str:
        bm = 1 if alg in SINGLE_QUERY else self.block
        return tile_point(alg, prof, workload_dict(self), bm, self.block)

    def points(self) -> list[Point]:
        pts = [self._point(p, a) for p in self.profiles for a in self.algorithms]
        return [p for p in pts if isinstance(p, Point)]

    def build(self, results: Results) -> FigureData:
        rows = []
        for prof in self.profiles:
            for alg in self.algorithms:
                pt = self._point(prof, alg)
                if isinstance(pt, str):
                    rows.append({"profile": prof, "algorithm": alg, "reason": pt})
                    continue
                r = results[pt]
                row = {k: r[k] for k in COLUMNS if k in r}
                row["global_bytes"] = r["global_read_bytes"] + r["global_write_bytes"]
                row["dram_bytes"] = r["dram_read_bytes"] + r["dram_write_bytes"]
                rows.append(row)
        data = FigureData(rows, COLUMNS)
        ok = [r for r in rows if "runtime_s" in r]
        summary: dict = {"workload": workload_dict(self), "tile": self.block}
        for prof in self.profiles:
            mine = {r["algorithm"]: r for r in ok if r["profile"] == prof}
            summary[prof] = {
                a: {k: r[k] for k in ("global_bytes", "dram_bytes", "runtime_s", "bound")}
                for a, r in mine.items()
            }
            summary[prof]["order_by_global_bytes"] = sorted(
                mine, key=lambda a: (mine[a]["global_bytes"], a)
            )
            summary[prof]["order_by_runtime"] = sorted(
                mine, key=lambda a: (mine[a]["runtime_s"], a)
            )
        data.summary = summary
        data.table_header = [
            "profile",
            "algorithm",
            "tile Br × Bc",
            "global read",
            "global written",
            "DRAM bytes",
            "runtime",
            "vs flash2",
            "bound",
        ]
        for r in rows:
            if "runtime_s" not in r:
                data.table_rows.append(
                    [r["profile"], r["algorithm"], "-", "does not fit"] + ["-"] * 5
                )
                continue
            ref = summary[r["profile"]].get("flash2")
            vs = f"{r['runtime_s'] / ref['runtime_s']:.1f}×" if ref else "-"
            data.table_rows.append(
                [
                    r["profile"],
                    r["algorithm"],
                    f"{r['block_m']} × {r['block_n']}",
                    fmt_bytes(r["global_read_bytes"]),
                    fmt_bytes(r["global_write_bytes"]),
                    fmt_bytes(r["dram_bytes"]),
                    fmt_time(r["runtime_s"]),
                    vs,
                    r["bound"],
                ]
            )
        return data

    def draw(self, data: FigureData, path: Path) -> None:
        plt = pyplot()
        fig, axes = plt.subplots(1, 3, figsize=(14, 4.4), layout="constrained")
        algs = list(self.algorithms)
        width = 0.8 / max(1, len(self.profiles))
        metrics = (
            ("global_bytes", "SM↔L2 bytes (global), GB", gb),
            ("dram_bytes", "DRAM bytes, GB", gb),
            ("runtime_s", "predicted runtime, ms", ms),
        )
        for ax, (key, label, unit) in zip(axes, metrics, strict=True):
            for i, prof in enumerate(self.profiles):
                by = {r["algorithm"]: r for r in data.rows if r["profile"] == prof}
                xs, ys = [], []
                for j, a in enumerate(algs):
                    if key in by.get(a, {}):
                        xs.append(j + (i - (len(self.profiles) - 1) / 2) * width)
                        ys.append(unit(by[a][key]))
                bars = ax.bar(xs, ys, width, color=colour(prof), label=prof)
                ax.bar_label(bars, fmt="%.3g", fontsize=6, padding=1)
            ax.set_yscale("log")
            ax.set_xticks(range(len(algs)), algs, rotation=20, ha="right")
            ax.set_title(label)
        axes[0].legend(loc="upper right")
        fig.suptitle(
            f"Loop orders with {self.block} × {self.block} tiles (flash-naive-qkv: 1 × "
            f"{self.block}): {workload_text(self)}"
        )
        save_figure(fig, path)

    def describe(self, data: FigureData) -> str:
        prof = self.profiles[-1]
        s = data.summary[prof]
        order = s["order_by_global_bytes"]
        least, most = order[0], order[-1]
        ratio = s[most]["global_bytes"] / s[least]["global_bytes"]
        text = (
            f"With the same tiles only the order differs: on {prof} {least} moves the fewest "
            f"SM↔L2 bytes ({fmt_bytes(s[least]['global_bytes'])}) and {most} the most "
            f"({fmt_bytes(s[most]['global_bytes'])}, {ratio:.0f}×)"
        )
        state = [a for a in HBM_STATE if a in s]
        if "flash2" in s and state:
            ratios = [s[a]["dram_bytes"] / s["flash2"]["dram_bytes"] for a in state]
            text += (
                f", and the orders that keep m, l and O in HBM ({', '.join(state)}) send "
                f"{min(ratios):.0f}–{max(ratios):.0f}× flash2's bytes to DRAM"
            )
        ranked = ", ".join(f"{a} {fmt_time(s[a]['runtime_s'])}" for a in s["order_by_runtime"])
        return text + f". Ranked by predicted runtime: {ranked}."
