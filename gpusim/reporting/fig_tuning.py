"""Figure 6b: the tuner's predicted Br x Bc heatmap against the one measured on the GPU.

Reads the tuner's proof record (``reports/tuning/``, written by
``python -m gpusim.tuning.proof_measure`` on the GPU machine): for each workload, every
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
                "by python -m gpusim.tuning.proof_measure on the GPU machine)"
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
        proofs = []
        for entry in workloads:
            try:
                p = proof.evaluate_workload(entry)
            except ValueError:  # no schedule with both a prediction and a measurement
                p = None
            proofs.append(p)
        done = [p for p in proofs if p is not None]
        facts = self.record.get("_facts", {})
        summary: dict[str, Any] = {
            "recorded": True,
            "measured": facts.get("measured"),
            "predictions": facts.get("predictions"),
            "model_commit": facts.get("model_commit"),
            "gpu": self.record.get("provenance", {}).get("gpu_name"),
            "profile": self.record.get("profile"),
            "summary": proof.summary(done) if done else None,
            "workloads": [_proof_dict(e, p) for e, p in zip(workloads, proofs, strict=True)],
        }
        data = FigureData(rows, COLUMNS, summary=summary)
        data.extra = {"workloads": workloads, "proofs": summary["workloads"]}
        if not done:
            data.notes.append(
                "the tuner's measured proof run is recorded, but not the model's predictions for "
                "it (`python -m gpusim.tuning.proof_report predict` writes them to "
                "reports/tuning/), so only the measured maps are drawn"
            )
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
            if p["tuner_loss"] is None:
                best = "{} × {}".format(*p["measured_best"])
                data.table_rows.append([p["label"], "-", best, "-", "-", "-", "-"])
                continue
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
                # The measured best as a wide white frame, the tuner's choice as a narrower red
                # one inside it, so both show when they are the same tile.
                for tile, c, inset, lw in (
                    (proof_["measured_best"], "white", 0.0, 3.0),
                    (proof_["tuner_choice"], "red", 0.08, 2.0),
                ):
                    if tile and tile[0] in bms and tile[1] in bns:
                        x0 = bns.index(tile[1]) - 0.5 + inset
                        y0 = bms.index(tile[0]) - 0.5 + inset
                        side = 1 - 2 * inset
                        ax.add_patch(plt.Rectangle((x0, y0), side, side, fill=False, ec=c, lw=lw))
                ax.set_xticks(range(len(bns)), [str(b) for b in bns])
                ax.set_yticks(range(len(bms)), [str(b) for b in bms])
                ax.set_xlabel("Bc")
                ax.set_ylabel("Br")
                ax.grid(False)
                if not grid:
                    ax.text(
                        0.5,
                        0.5,
                        f"no {what} times recorded",
                        ha="center",
                        va="center",
                        transform=ax.transAxes,
                        fontsize=8,
                    )
                ax.set_title(f"{proof_['label']}\n{what}", fontsize=8)
        for k in range(n, nrows * per_row):
            for j in range(2):
                axes[k // per_row][2 * (k % per_row) + j].set_visible(False)
        if image is not None:
            fig.colorbar(
                image, ax=axes.ravel().tolist(), shrink=0.5, label="time / best time of the map"
            )
        s = data.summary["summary"]
        head = f"Tuner on {data.summary.get('gpu')}: red = tuner's choice, white = measured best"
        if s:
            head += (
                f"; within 5% in {s['within_5pct']} of {s['workloads']}, min Spearman "
                f"{s['min_spearman']:.2f}"
            )
        else:
            head += "; no predictions recorded yet"
        fig.suptitle(head)
        save_figure(fig, path)

    def describe(self, data: FigureData) -> str:
        if not data.summary.get("recorded"):
            return (
                "**Not there yet:** the tuner's measured proof run is not recorded under "
                "`data/` (it is written by `python -m gpusim.tuning.proof_measure` on the "
                "GPU machine), so this figure is not drawn; `gpusim report` draws it once the "
                "record is committed."
            )
        s = data.summary["summary"]
        n = len(data.summary["workloads"])
        if not s:
            return (
                f"The measured maps of {n} workloads on {data.summary['gpu']} are drawn; "
                "**not there yet:** the model's predictions for them are not recorded in "
                "`reports/tuning/` (`python -m gpusim.tuning.proof_report predict`), so the "
                "predicted maps and the tuner's loss are missing."
            )
        return (
            f"On {data.summary['gpu']}, the tuner's first choice is within 5% of the measured "
            f"best in {s['within_5pct']} of {s['workloads']} workloads (largest loss "
            f"{100 * s['max_tuner_loss']:.1f}%; issue 6 asks for 7 of 8), and the rank "
            f"correlation of predicted and measured times is at least {s['min_spearman']:.2f} "
            f"(target 0.8). The table gives, per workload, what the paper's and seed 000's "
            f"block-size rules would lose instead (predictions: `{data.summary['predictions']}`)."
        )


def _proof_dict(entry: dict[str, Any], p: Any) -> dict[str, Any]:
    """A workload's figures (None where there are no predictions); the measured best always."""
    meas = tile_grid(entry["schedules"], "measured_s")
    best = min(meas, key=lambda t: (meas[t], t)) if meas else None
    if p is None:
        return {
            "label": workload_label(entry["workload"]),
            "tuner_loss": None,
            "spearman": None,
            "rule_loss": {},
            "tuner_choice": None,
            "measured_best": list(best) if best else None,
        }
    return {
        "label": workload_label(p.workload.model_dump()),
        "tuner_loss": p.tuner_loss,
        "spearman": p.spearman,
        "rule_loss": p.rule_loss,
        "tuner_choice": [p.tuner_choice.block_m, p.tuner_choice.block_n],
        "measured_best": [p.measured_best.block_m, p.measured_best.block_n],
    }


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"
