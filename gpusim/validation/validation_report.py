"""The validation report: README.md (Markdown), a predicted-vs-measured scatter (PNG), the
error table (CSV) and the comparison as JSON, all recomputed from a recorded dataset.

The Markdown is :mod:`gpusim.validation.report_markdown`'s; this module writes the files.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from gpusim.source_commit import git_commit
from gpusim.validation.predicted_vs_measured import TARGETS, Row
from gpusim.validation.report_markdown import markdown

CSV_COLUMNS = (
    "id",
    "kind",
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
    "regs_per_thread",
    "smem_bytes_per_cta",
    "ctas_per_sm",
    "measured_s",
    "predicted_s",
    "runtime_err",
    "bound",
    "dram_bytes_measured",
    "dram_bytes_predicted",
    "dram_bytes_err",
    "l2_bytes_measured",
    "l2_bytes_predicted",
    "l2_bytes_err",
    "kernel_time_measured_s",
    "kernel_time_predicted_s",
    "sm_clock_hz_measured",
)
COLOURS = {"tc": "tab:blue", "simt": "tab:orange", "cublas": "tab:green"}


def write_csv(rows: list[Row], path: Path) -> Path:
    """One line per config with the columns of :data:`CSV_COLUMNS`."""
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, CSV_COLUMNS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r.as_dict() | (r.ncu or {}))
    return path


def scatter(rows: list[Row], path: Path, title: str) -> Path:
    """Predicted against measured runtime, log-log, with the y = x line and ±10 % / ±25 % bands."""
    # A Figure of its own on the Agg canvas (files only: no display on servers and CI), not
    # pyplot, whose import and figure manager are a good part of a cold validate's report.
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 6.0), dpi=120)
    ax = fig.subplots()
    lo = min(min(r.measured_s, r.predicted_s) for r in rows) * 1e3 / 1.5
    hi = max(max(r.measured_s, r.predicted_s) for r in rows) * 1e3 * 1.5
    xs = [lo, hi]
    ax.plot(xs, xs, color="black", lw=1, label="predicted = measured")
    for f, style in ((0.10, "--"), (0.25, ":")):
        ax.plot(xs, [x * (1 + f) for x in xs], color="grey", ls=style, lw=0.8)
        ax.plot(xs, [x * (1 - f) for x in xs], color="grey", ls=style, lw=0.8, label=f"±{f:.0%}")
    for variant, colour in COLOURS.items():
        for causal, marker in ((False, "o"), (True, "^")):
            pts = [r for r in rows if r.variant == variant and r.causal == causal]
            if pts:
                ax.scatter(
                    [r.measured_s * 1e3 for r in pts],
                    [r.predicted_s * 1e3 for r in pts],
                    c=colour,
                    marker=marker,
                    s=22,
                    label=f"{variant}{' causal' if causal else ''} ({len(pts)})",
                )
    ax.set(xscale="log", yscale="log", xlim=xs, ylim=xs, title=title)
    ax.set_xlabel("measured runtime (ms, CUDA events, median)")
    ax.set_ylabel("predicted runtime (ms, gpusim simulate)")
    ax.grid(True, which="both", lw=0.3)
    ax.legend(fontsize=7, loc="upper left")
    # Fixed margins: tight_layout measures every label of both log axes' minor ticks, which
    # took longer than the rest of the report.
    fig.subplots_adjust(left=0.12, right=0.97, bottom=0.09, top=0.94)
    fig.savefig(path)
    return path


def write_report(
    datasets: list[tuple[str, dict[str, Any]]],
    records: list[dict[str, Any]],
    superseded: list[dict[str, Any]],
    profile_name: str,
    rows: list[Row],
    summ: dict[str, Any],
    out_dir: Path,
) -> list[Path]:
    """Write README.md, scatter.png, errors.csv and comparison.json into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    notes_path = out_dir / "notes.md"
    notes = notes_path.read_text() if notes_path.exists() else ""
    names = [n for n, _ in datasets]
    gpu = datasets[0][1]["provenance"]["gpu_name"]
    summ = summ | {"model_commit": git_commit()}
    written = [
        write_csv(rows, out_dir / "errors.csv"),
        scatter(rows, out_dir / "scatter.png", f"gpusim on {gpu}"),
    ]
    comp = out_dir / "comparison.json"
    comp.write_text(
        json.dumps(
            {
                "datasets": names,
                "superseded": superseded,
                "profile": profile_name,
                "targets": TARGETS,
                "summary": summ,
                "rows": [r.as_dict() for r in rows],
            },
            indent=1,
        )
        + "\n"
    )
    readme = out_dir / "README.md"
    readme.write_text(markdown(datasets, records, superseded, profile_name, rows, summ, notes))
    return [*written, comp, readme]
