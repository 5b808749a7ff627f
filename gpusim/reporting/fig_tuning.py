"""Figure 6b: the tuner's predicted Br x Bc heatmap against the one measured on the GPU.

Reads the tuner's proof record (``reports/tuning/``, written by
``scripts/tuning_proof.py`` on the GPU machine): for each workload, every
runnable schedule's predicted and measured time. Each cell is the best over
warps and stages for that tile, divided by the best cell of its map, so both
maps read "times slower than this map's best". The tuner's first choice and the
measured best are marked; the figures of merit (tuner's loss, Spearman) are
those of :mod:`gpusim.tuning.proof`, computed from the same record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpusim.reporting.figure import Figure, FigureData, Results
from gpusim.reporting.files import save_figure
from gpusim.reporting.plotting import pyplot

COLUMNS = (
    "workload",
    "batch",
    "heads",
    "seq_len",
    "head_dim",
    "dtype",
    "causal",
    "block_m",
    "block_n",
    "warps",
    "stages",
    "predicted_s",
    "measured_s",
    "tuner_rejected",
)


def workload_label(w: dict[str, Any]) -> str:
    """``d128 N4096 B4 H16 bf16 causal`` for a workload dict."""
    return f"d{w['head_dim']} N{w['seq_len_q']} B{w['batch']} H{w['heads']} {w['dtype']}" + (
        " causal" if w.get("causal") else ""
    )


def tile_grid(entries: list[dict[str, Any]], key: str) -> dict[tuple[int, int], float]:
    """Best ``key`` time per (Br, Bc) over warps and stages (tiles without a time left out)."""
    best: dict[tuple[int, int], float] = {}
    for e in entries:
        t = e.get(key)
        if t is None:
            continue
        tile = (e["schedule"]["block_m"], e["schedule"]["block_n"])
        best[tile] = min(float(t), best.get(tile, float("inf")))
    return best


@dataclass
class TunerHeatmap(Figure):
    """Predicted vs measured Br x Bc heatmaps of the tuner's proof workloads."""

    record: dict[str, Any] | None = None
    #: Workloads drawn (all of the record's when None).
    max_workloads: int | None = None
    facts: dict[str, Any] = field(default_factory=dict)

    name = "fig6b_tuner_heatmap"
    title = "6b. The tuner's predicted heatmap vs the measured one"

    def build(self, results: Results) -> FigureData:
        if not self.record:
            data = FigureData([], COLUMNS, drawable=False, summary={"recorded": False})
            data.notes.append(
                "the tuner's proof run is not recorded under reports/tuning/ yet (it is written "
                "by scripts/tuning_proof.py on the GPU machine)"
            )
            return data
        from gpusim.tuning import proof

        workloads = self.record["workloads"][: self.max_workloads]
        rows = []
        for entry in workloads:
            w = entry["workload"]
            for s in entry["schedules"]:
                sch = s["schedule"]
                rows.append(
                    {
                        "workload": workload_label(w),
                        "batch": w["batch"],
                        "heads": w["heads"],
                        "seq_len": w["seq_len_q"],
                        "head_dim": w["head_dim"],
                        "dtype": w["dtype"],
                        "causal": w["causal"],
                        **{k: sch[k] for k in ("block_m", "block_n", "warps", "stages")},
                        "predicted_s": s.get("predicted_s"),
                        "measured_s": s.get("measured_s"),
                        "tuner_rejected": s.get("tuner_rejected"),
                    }
                )
        proofs = proof.evaluate({"workloads": workloads})
        summary: dict[str, Any] = {
            "recorded": True,
            "path": self.record.get("_path"),
            "gpu": self.record.get("provenance", {}).get("gpu_name"),
            "profile": self.record.get("profile"),
            "summary": proof.summary(proofs),
            "workloads": [
                {
                    "label": workload_label(p.workload.model_dump()),
                    "tuner_loss": p.tuner_loss,
                    "spearman": p.spearman,
                    "rule_loss": p.rule_loss,
                    "tuner_choice": [p.tuner_choice.block_m, p.tuner_choice.block_n],
                    "measured_best": [p.measured_best.block_m, p.measured_best.block_n],
                }
                for p in proofs
            ],
        }
        data = FigureData(rows, COLUMNS, summary=summary)
        data.extra = {"workloads": workloads, "proofs": summary["workloads"]}
        data.table_header = [
            "workload",
            "tuner's tile",
            "measured best",
            "tuner's loss",
            "Spearman",
            "paper rule loss",
            "seed rule loss",
        ]
        for p in summary["workloads"]:
            data.table_rows.append(
                [
                    p["label"],
                    "{} × {}".format(*p["tuner_choice"]),
                    "{} × {}".format(*p["measured_best"]),
                    f"{100 * p['tuner_loss']:.1f}%",
                    f"{p['spearman']:.2f}",
                    _pct(p["rule_loss"].get("paper")),
                    _pct(p["rule_loss"].get("seed")),
                ]
            )
        return data

    def draw(self, data: FigureData, path: Path) -> None:
        import numpy as np

        plt = pyplot()
        entries = data.extra["workloads"]
        n = len(entries)
        per_row = 2  # workloads per row, each a (predicted, measured) pair
        nrows = -(-n // per_row)
        fig, axes = plt.subplots(
            nrows,
            2 * per_row,
            figsize=(4.0 * 2 * per_row, 3.3 * nrows),
            layout="constrained",
            squeeze=False,
        )
        image = None
        for i, entry in enumerate(entries):
            scheds = entry["schedules"]
            bms = sorted({s["schedule"]["block_m"] for s in scheds})
            bns = sorted({s["schedule"]["block_n"] for s in scheds})
            pred, meas = tile_grid(scheds, "predicted_s"), tile_grid(scheds, "measured_s")
            proof_ = data.extra["proofs"][i]
            for j, (grid, what) in enumerate(((pred, "predicted"), (meas, "measured"))):
                ax = axes[i // per_row][2 * (i % per_row) + j]
                best = min(grid.values()) if grid else 1.0
                z = np.full((len(bms), len(bns)), np.nan)
                for (bm, bn), t in grid.items():
                    z[bms.index(bm), bns.index(bn)] = t / best
                ax.set_facecolor("0.85")
                image = ax.imshow(
                    z, cmap="viridis_r", vmin=1.0, vmax=2.0, origin="lower", aspect="auto"
                )
                for a in range(len(bms)):
                    for b in range(len(bns)):
                        v = z[a, b]
                        ax.text(
                            b,
                            a,
                            "-" if np.isnan(v) else f"{v:.2f}",
                            ha="center",
                            va="center",
                            fontsize=7,
                            color="white" if v > 1.6 else "black",
                        )
                for tile, c in (
                    (proof_["tuner_choice"], "red"),
                    (proof_["measured_best"], "white"),
                ):
                    if tile[0] in bms and tile[1] in bns:
                        ax.add_patch(
                            plt.Rectangle(
                                (bns.index(tile[1]) - 0.5, bms.index(tile[0]) - 0.5),
                                1,
                                1,
                                fill=False,
                                ec=c,
                                lw=2,
                            )
                        )
                ax.set_xticks(range(len(bns)), [str(b) for b in bns])
                ax.set_yticks(range(len(bms)), [str(b) for b in bms])
                ax.set_xlabel("Bc")
                ax.set_ylabel("Br")
                ax.grid(False)
                ax.set_title(f"{proof_['label']}\n{what}", fontsize=8)
        for k in range(n, nrows * per_row):
            for j in range(2):
                axes[k // per_row][2 * (k % per_row) + j].set_visible(False)
        if image is not None:
            fig.colorbar(image, ax=axes.ravel().tolist(), label="time / best time of the map")
        s = data.summary["summary"]
        fig.suptitle(
            f"Tuner on {data.summary.get('gpu')}: red = tuner's choice, white = measured best; "
            f"within 5% in {s['within_5pct']} of {s['workloads']}, min Spearman "
            f"{s['min_spearman']:.2f}"
        )
        save_figure(fig, path)

    def describe(self, data: FigureData) -> str:
        if not data.summary.get("recorded"):
            return (
                "**Not there yet:** the tuner's measured proof run is not recorded under "
                "`reports/tuning/` (it is written by `scripts/tuning_proof.py` on the GPU "
                "machine), so this figure is not drawn; `gpusim report` draws it once the record "
                "is committed."
            )
        s = data.summary["summary"]
        return (
            f"On {data.summary['gpu']}, the tuner's first choice is within 5% of the measured "
            f"best in {s['within_5pct']} of {s['workloads']} workloads (largest loss "
            f"{100 * s['max_tuner_loss']:.1f}%), and predicted and measured times rank the "
            f"schedules alike (Spearman at least {s['min_spearman']:.2f}). The table gives, per "
            f"workload, what the paper's and seed 000's block-size rules would lose instead."
        )


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"
