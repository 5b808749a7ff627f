"""Figure 6a: predicted against measured, over the validation dataset recorded on the GPU.

Each measured run of the datasets under ``data/`` is simulated by the current model
with the compiled kernel's real registers and shared memory (as ``gpusim
validate --from`` does), and plotted against what the GPU measured: runtime
(CUDA events, median) and, where Nsight Compute counted the run, DRAM and
SM-to-L2 bytes. Without a recorded dataset the figure is not drawn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpusim.reporting.figure import Figure, FigureData, Results
from gpusim.reporting.files import save_figure
from gpusim.reporting.measured import SIMULATED_HERE, MeasuredRun
from gpusim.reporting.plotting import pyplot

COLUMNS = (
    "config_id",
    "algorithm",
    "variant",
    "dtype",
    "head_dim",
    "seq_len",
    "causal",
    "batch",
    "heads",
    "block_m",
    "block_n",
    "warps",
    "stages",
    "profile",
    "measured_runtime_s",
    "predicted_runtime_s",
    "runtime_err",
    "measured_dram_bytes",
    "predicted_dram_bytes",
    "dram_err",
    "measured_global_bytes",
    "predicted_global_bytes",
    "global_err",
    "bound",
)
VARIANT_COLOURS = {"tc": "#1f77b4", "simt": "#ff7f0e", "cublas": "#7f7f7f"}


def rel_err(predicted: float | None, measured: float | None) -> float | None:
    """``(predicted - measured) / measured``; None when either is missing."""
    if predicted is None or measured is None or measured == 0:
        return None
    return (predicted - measured) / measured


def error_stats(errs: list[float]) -> dict[str, Any]:
    """Count, mean absolute error (MAPE) and largest absolute error of relative errors."""
    if not errs:
        return {"n": 0, "mape": None, "max_abs_err": None}
    return {
        "n": len(errs),
        "mape": sum(abs(e) for e in errs) / len(errs),
        "max_abs_err": max(abs(e) for e in errs),
    }


@dataclass
class PredictedVsMeasured(Figure):
    """Runtime and bytes predicted by the model against the GPU's, one point per measured run."""

    runs: list[MeasuredRun] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)  # dataset path, GPU, profile, date

    name = "fig6a_predicted_vs_measured"
    title = "6a. Predicted vs measured (validation dataset)"

    def build(self, results: Results) -> FigureData:
        rows = [self._row(r) for r in self.runs]
        data = FigureData(rows, COLUMNS, drawable=bool(rows))
        if not rows:
            data.notes.append(
                "no validation dataset is recorded under data/ yet (it is written "
                "by `gpusim validate` on the GPU machine); nothing is drawn rather than "
                "inventing points"
            )
            data.summary = {"recorded": False}
            return data
        summary: dict[str, Any] = {"recorded": True, **self.facts}
        if self.facts.get("predictions") == SIMULATED_HERE:
            data.notes.append(
                "no comparison is recorded beside the validation dataset, so gpusim report "
                "simulated every run itself (slow); `gpusim validate --from DATASET` records one"
            )
        summary["runtime"] = error_stats([r["runtime_err"] for r in rows])
        summary["dram_bytes"] = error_stats(
            [r["dram_err"] for r in rows if r["dram_err"] is not None]
        )
        summary["global_bytes"] = error_stats(
            [r["global_err"] for r in rows if r["global_err"] is not None]
        )
        summary["runtime_by_variant"] = {
            v: error_stats([r["runtime_err"] for r in rows if r["variant"] == v])
            for v in sorted({r["variant"] for r in rows})
        }
        worst = max(rows, key=lambda r: (abs(r["runtime_err"]), r["config_id"]))
        summary["worst"] = {"config_id": worst["config_id"], "runtime_err": worst["runtime_err"]}
        data.summary = summary
        data.table_header = ["class", "runs", "runtime MAPE", "max |error|"]
        data.table_rows = [
            [f"all ({self.facts.get('profile', '')})", *_stat_cells(summary["runtime"])],
            *[
                [f"variant {v}", *_stat_cells(st)]
                for v, st in summary["runtime_by_variant"].items()
            ],
            ["DRAM bytes (Nsight)", *_stat_cells(summary["dram_bytes"])],
            ["SM-to-L2 bytes (Nsight)", *_stat_cells(summary["global_bytes"])],
        ]
        return data

    @staticmethod
    def _row(r: MeasuredRun) -> dict[str, Any]:
        w, s = r.workload, r.schedule
        return {
            "config_id": r.config_id,
            "algorithm": r.algorithm,
            "variant": r.variant,
            "dtype": w.dtype,
            "head_dim": w.head_dim,
            "seq_len": w.seq_len_q,
            "causal": w.causal,
            "batch": w.batch,
            "heads": w.heads,
            "block_m": s.block_m,
            "block_n": s.block_n,
            "warps": s.warps,
            "stages": s.stages,
            "profile": r.profile,
            "measured_runtime_s": r.runtime_s,
            "predicted_runtime_s": r.predicted_runtime_s,
            "runtime_err": rel_err(r.predicted_runtime_s, r.runtime_s),
            "measured_dram_bytes": r.dram_bytes,
            "predicted_dram_bytes": r.predicted_dram_bytes,
            "dram_err": rel_err(r.predicted_dram_bytes, r.dram_bytes),
            "measured_global_bytes": r.global_bytes,
            "predicted_global_bytes": r.predicted_global_bytes,
            "global_err": rel_err(r.predicted_global_bytes, r.global_bytes),
            "bound": r.bound,
        }

    def draw(self, data: FigureData, path: Path) -> None:
        plt = pyplot()
        fig, axes = plt.subplots(1, 3, figsize=(14, 4.4), layout="constrained")
        rows = data.rows
        pairs = (
            (axes[0], "measured_runtime_s", "predicted_runtime_s", 1e3, "runtime (ms)"),
            (axes[1], "measured_dram_bytes", "predicted_dram_bytes", 1e-9, "DRAM bytes (GB)"),
        )
        for ax, mk, pk, scale, label in pairs:
            pts = [r for r in rows if r[mk] is not None and r[pk] is not None]
            for v in sorted({r["variant"] for r in pts}):
                sel = [r for r in pts if r["variant"] == v]
                ax.plot(
                    [r[mk] * scale for r in sel],
                    [r[pk] * scale for r in sel],
                    "o",
                    c=VARIANT_COLOURS.get(v, "k"),
                    ms=4,
                    label=v,
                )
            if pts:
                vals = [r[k] * scale for r in pts for k in (mk, pk)]
                lo, hi = min(vals) / 1.5, max(vals) * 1.5
                ax.plot([lo, hi], [lo, hi], "k-", lw=0.8)
                ax.plot([lo, hi], [lo * 1.1, hi * 1.1], "k:", lw=0.6)
                ax.plot([lo, hi], [lo * 0.9, hi * 0.9], "k:", lw=0.6)
                ax.set_xlim(lo, hi)
                ax.set_ylim(lo, hi)
                ax.set_xscale("log")
                ax.set_yscale("log")
                ax.legend(loc="upper left")
            else:
                ax.text(0.5, 0.5, "no Nsight counts recorded", ha="center", transform=ax.transAxes)
            ax.set_xlabel(f"measured {label}")
            ax.set_ylabel(f"predicted {label}")
            ax.set_title(f"{label}: dotted ±10%")
        ax = axes[2]
        for v in sorted({r["variant"] for r in rows}):
            sel = [r for r in rows if r["variant"] == v]
            ax.plot(
                [r["seq_len"] for r in sel],
                [100 * r["runtime_err"] for r in sel],
                "o",
                c=VARIANT_COLOURS.get(v, "k"),
                ms=4,
                label=v,
            )
        ax.axhline(0, color="k", lw=0.8)
        for y in (-10, 10):
            ax.axhline(y, color="k", ls=":", lw=0.6)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("sequence length")
        ax.set_ylabel("runtime error (predicted / measured − 1), %")
        ax.set_title("runtime error by length")
        s = data.summary
        fig.suptitle(
            f"Predicted ({s.get('profile')}) vs measured ({s.get('gpu')}): {s['runtime']['n']} "
            f"runs, runtime MAPE {100 * s['runtime']['mape']:.1f}%, "
            f"max {100 * s['runtime']['max_abs_err']:.1f}%"
        )
        save_figure(fig, path)

    def describe(self, data: FigureData) -> str:
        s = data.summary
        if not s.get("recorded"):
            return (
                "**Not there yet:** no validation dataset is recorded under `data/`"
                " (it is written by `gpusim validate` on the GPU machine), so this figure is not "
                "drawn; `gpusim report` draws it as soon as the dataset is committed."
            )
        rt, dr = s["runtime"], s["dram_bytes"]
        text = (
            f"Over {rt['n']} runs measured on {s['gpu']}, the model ({s['profile']}) predicts "
            f"runtime with a mean absolute error of {100 * rt['mape']:.1f}% (worst "
            f"{100 * rt['max_abs_err']:.1f}%, `{s['worst']['config_id']}`)."
        )
        if dr["n"]:
            text += (
                f" DRAM bytes of the {dr['n']} runs Nsight Compute counted are within "
                f"{100 * dr['max_abs_err']:.1f}% (mean {100 * dr['mape']:.1f}%)."
            )
        else:
            text += " No run has Nsight Compute byte counts recorded yet."
        return text


def _stat_cells(st: dict[str, Any]) -> list[str]:
    if not st["n"]:
        return ["0", "-", "-"]
    return [str(st["n"]), f"{100 * st['mape']:.1f}%", f"{100 * st['max_abs_err']:.1f}%"]
