"""Figure 1: standard attention against FlashAttention-2 as the sequence grows (seed 001, §5, §8).

Seed 001 leaves its comparison tables (section 8, memory and speed) empty and
gives the traffic only as orders (section 5: standard O(N²), flash O(N²/Br)).
This figure fills them for the seed's own example (batch 8, heads 32, head dim
128, fp16) on the A100, H100 and H200 profiles: DRAM bytes, device memory
allocated, and predicted runtime against N. A point whose buffers do not fit in
the profile's device memory is not simulated (it could not run) and is marked so.
Where the validation dataset has measured runs of the FlashAttention-2 paper's
benchmark shape (B·N = 16k tokens, H·d = 2048, d 128), a second row puts
measured and predicted on the same axes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gpusim.api.device_memory import algorithm_footprint_bytes
from gpusim.profiles import load_profile
from gpusim.reporting.figure import Figure, FigureData, Results
from gpusim.reporting.files import save_figure
from gpusim.reporting.measured import MeasuredRun
from gpusim.reporting.measured_shape import (
    draw_shape,
    loglog_n,
    select_runs,
    shape_rows,
    shape_summary,
)
from gpusim.reporting.plotting import colour, fmt_bytes, fmt_time, gb, ms, pyplot
from gpusim.reporting.points import Point
from gpusim.workload import Workload

COLUMNS = (
    "panel",
    "profile",
    "algorithm",
    "seq_len_q",
    "batch",
    "heads",
    "head_dim",
    "dtype",
    "source",
    "block_m",
    "block_n",
    "warps",
    "stages",
    "fits_hbm",
    "hbm_footprint_bytes",
    "dram_bytes",
    "global_bytes",
    "runtime_s",
    "tflops",
    "bound",
)


@dataclass
class StandardVsFlash(Figure):
    """DRAM traffic, memory footprint and runtime of ``standard`` and ``flash2`` against N."""

    profiles: tuple[str, ...] = ("a100-sxm4-80gb", "h100-sxm5", "h200-sxm")
    algorithms: tuple[str, ...] = ("standard", "flash2")
    seq_lens: tuple[int, ...] = (512, 1024, 2048, 4096, 8192, 16384)
    batch: int = 8
    heads: int = 32
    head_dim: int = 128
    dtype: str = "fp16"
    reference_seq_len: int = 2048  # seed 001's example
    measured: list[MeasuredRun] = field(default_factory=list)

    name = "fig1_standard_vs_flash"
    title = "1. Standard attention vs FlashAttention-2 against sequence length"

    def workload(self, n: int) -> Workload:
        """The seed's example workload at sequence length ``n``."""
        return Workload(
            batch=self.batch,
            heads=self.heads,
            seq_len_q=n,
            seq_len_k=n,
            head_dim=self.head_dim,
            dtype=self.dtype,
        )

    def _fits(self, algorithm: str, profile: str, n: int) -> tuple[bool, int]:
        need = algorithm_footprint_bytes(algorithm, self.workload(n))
        return need <= load_profile(profile).dram_bytes.value, need

    def _point(self, algorithm: str, profile: str, n: int) -> Point:
        return Point(algorithm, profile, self.batch, self.heads, n, self.head_dim, self.dtype)

    def measured_runs(self) -> list[MeasuredRun]:
        """The measured runs drawn in the second row (see :func:`select_runs`)."""
        return select_runs(self.measured, self.algorithms, self.head_dim)

    def points(self) -> list[Point]:
        pts = [
            self._point(a, p, n)
            for p in self.profiles
            for a in self.algorithms
            for n in self.seq_lens
            if self._fits(a, p, n)[0]
        ]
        return pts

    def build(self, results: Results) -> FigureData:
        rows = []
        for prof in self.profiles:
            for alg in self.algorithms:
                for n in self.seq_lens:
                    fits, need = self._fits(alg, prof, n)
                    row = {
                        "panel": "seed-example",
                        "profile": prof,
                        "algorithm": alg,
                        "seq_len_q": n,
                        "batch": self.batch,
                        "heads": self.heads,
                        "head_dim": self.head_dim,
                        "dtype": self.dtype,
                        "source": "simulated" if fits else "does not fit",
                        "fits_hbm": fits,
                        "hbm_footprint_bytes": need,
                    }
                    if fits:
                        row.update(_sim_fields(results[self._point(alg, prof, n)]))
                    rows.append(row)
        rows += shape_rows(self.measured_runs())
        data = FigureData(rows, COLUMNS)
        data.summary = self._summary(rows)
        data.table_header, data.table_rows = self._table(rows)
        if not self.measured_runs():
            data.notes.append(
                "no measured runs of standard/flash2 (head dim 128, non-causal, 16-bit) are "
                "recorded under data/ yet, so only predictions are shown"
            )
        return data

    def _summary(self, rows: list[dict]) -> dict:
        sim = {
            (r["profile"], r["algorithm"], r["seq_len_q"]): r
            for r in rows
            if r["panel"] == "seed-example"
        }
        workload = {
            "batch": self.batch,
            "heads": self.heads,
            "head_dim": self.head_dim,
            "dtype": self.dtype,
            "seq_lens": list(self.seq_lens),
        }
        runs = self.measured_runs()
        out: dict = {
            "workload": workload,
            "profiles": {},
            "measured": shape_summary(runs),
            "measured_gpu": runs[0].gpu if runs else None,
        }
        for prof in self.profiles:
            ps: dict = {}
            for n in self.seq_lens:
                s, f = sim.get((prof, "standard", n)), sim.get((prof, "flash2", n))
                if s and f and s["fits_hbm"] and f["fits_hbm"]:
                    ps[str(n)] = {
                        "speedup": s["runtime_s"] / f["runtime_s"],
                        "dram_ratio": s["dram_bytes"] / f["dram_bytes"],
                        "footprint_ratio": s["hbm_footprint_bytes"] / f["hbm_footprint_bytes"],
                    }
            unfit = [n for n in self.seq_lens if not sim[(prof, "standard", n)]["fits_hbm"]]
            out["profiles"][prof] = {
                "by_seq_len": ps,
                "standard_does_not_fit_from": min(unfit, default=None),
            }
        return out

    def _table(self, rows: list[dict]):
        header = [
            "profile",
            "N",
            "HBM allocated: standard",
            "flash2",
            "DRAM bytes: standard",
            "flash2",
            "runtime: standard",
            "flash2",
            "speed-up",
        ]
        by = {
            (r["profile"], r["seq_len_q"], r["algorithm"]): r
            for r in rows
            if r["panel"] == "seed-example"
        }
        body = []
        for prof in self.profiles:
            for n in self.seq_lens:
                s, f = by[(prof, n, "standard")], by[(prof, n, "flash2")]
                fit = s["fits_hbm"]
                body.append(
                    [
                        prof,
                        n,
                        fmt_bytes(s["hbm_footprint_bytes"]),
                        fmt_bytes(f["hbm_footprint_bytes"]),
                        fmt_bytes(s["dram_bytes"]) if fit else "does not fit",
                        fmt_bytes(f["dram_bytes"]),
                        fmt_time(s["runtime_s"]) if fit else "-",
                        fmt_time(f["runtime_s"]),
                        f"{s['runtime_s'] / f['runtime_s']:.1f}×" if fit else "-",
                    ]
                )
        return header, body

    def draw(self, data: FigureData, path: Path) -> None:
        plt = pyplot()
        measured = [r for r in data.rows if r["panel"] == "measured-shape"]
        nrows = 2 if measured else 1
        fig, axes = plt.subplots(nrows, 3, figsize=(13, 4.2 * nrows), layout="constrained")
        top = axes[0] if nrows == 2 else axes
        seed = [r for r in data.rows if r["panel"] == "seed-example"]
        styles = {"standard": "--", "flash2": "-"}
        for prof in self.profiles:
            for alg in self.algorithms:
                pts = [r for r in seed if r["profile"] == prof and r["algorithm"] == alg]
                ok = [r for r in pts if r["fits_hbm"]]
                kw = dict(color=colour(prof), ls=styles.get(alg, "-"), marker="o", ms=3)
                top[0].plot([r["seq_len_q"] for r in ok], [gb(r["dram_bytes"]) for r in ok], **kw)
                top[1].plot(
                    [r["seq_len_q"] for r in pts], [gb(r["hbm_footprint_bytes"]) for r in pts], **kw
                )
                top[2].plot([r["seq_len_q"] for r in ok], [ms(r["runtime_s"]) for r in ok], **kw)
                for r in pts:
                    if not r["fits_hbm"]:
                        top[1].plot(r["seq_len_q"], gb(r["hbm_footprint_bytes"]), "x", c="k")
            cap = load_profile(prof).dram_bytes.value
            top[1].axhline(gb(cap), color=colour(prof), lw=0.8, alpha=0.6)
        top[0].set_title("DRAM bytes (read + written)")
        top[0].set_ylabel("GB")
        top[1].set_title("device memory allocated (lines: each profile's HBM)")
        top[1].set_ylabel("GB")
        top[2].set_title("predicted runtime")
        top[2].set_ylabel("ms")
        _legend(top[2], self.profiles, styles)
        for ax in top:
            loglog_n(ax, list(self.seq_lens))
            ax.set_xlabel("sequence length N")
        if measured:
            draw_shape(axes[1], data.rows, self.algorithms)
        fig.suptitle(
            f"Standard vs FlashAttention-2: batch {self.batch}, heads {self.heads}, head dim "
            f"{self.head_dim}, {self.dtype} (x: standard's S and P do not fit in HBM)"
        )
        save_figure(fig, path)

    def describe(self, data: FigureData) -> str:
        s = data.summary["profiles"]
        parts = []
        ref = str(self.reference_seq_len)
        for prof, v in s.items():
            if ref in v["by_seq_len"]:
                b = v["by_seq_len"][ref]
                parts.append(f"{b['speedup']:.1f}× on {prof}")
        first = data.summary["profiles"][self.profiles[0]]
        by = first["by_seq_len"]
        lens = sorted(int(k) for k in by)
        text = (
            "Standard attention writes S and P to HBM, so its DRAM traffic and its memory "
            "grow with N² while FlashAttention-2's grow with N"
        )
        if lens:
            top = by[str(lens[-1])]
            text += (
                f": at N = {lens[-1]} standard moves {top['dram_ratio']:.0f}× the DRAM bytes and "
                f"allocates {top['footprint_ratio']:.0f}× the memory"
            )
        unfit = first["standard_does_not_fit_from"]
        if unfit:
            text += f", and from N = {unfit} its buffers no longer fit in {self.profiles[0]}'s HBM"
        text += "."
        if parts:
            text += (
                f" At the seed's N = {ref} the model predicts FlashAttention-2 faster by "
                + ", ".join(parts)
                + "."
            )
        m = data.summary["measured"]
        if m:
            errs = ", ".join(
                f"{100 * v['mape']:.0f}% for {a} ({v['n']} lengths)" for a, v in sorted(m.items())
            )
            text += (
                f" Against runs measured on {data.summary['measured_gpu']} (second row), the "
                f"predicted runtime is off by {errs} on average."
            )
        return text


def _sim_fields(sim: dict) -> dict:
    return {k: sim[k] for k in ("block_m", "block_n", "warps", "stages")} | {
        "dram_bytes": sim["dram_read_bytes"] + sim["dram_write_bytes"],
        "global_bytes": sim["global_read_bytes"] + sim["global_write_bytes"],
        "runtime_s": sim["runtime_s"],
        "tflops": sim["tflops"],
        "bound": sim["bound"],
    }


def _legend(ax, profiles, styles) -> None:
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=colour(p), label=p) for p in profiles]
    handles += [Line2D([], [], color="k", ls=ls, label=a) for a, ls in styles.items()]
    ax.legend(handles=handles, loc="upper left")
