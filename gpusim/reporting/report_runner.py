"""``gpusim report``'s work: build every figure from fresh simulations and recorded data.

Steps: read what is recorded (validation dataset, tuner proof), collect the
simulations all figures need (each distinct point once), run them on a few
processes, build and write each figure, then ``README.md`` and ``summary.json``.
Nothing written depends on the time, the machine or the order the processes
finish in, so two runs give the same bytes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpusim.data.layout import DATA_DIR
from gpusim.errors import GpusimError
from gpusim.reporting.fig_block_size import BlockSize
from gpusim.reporting.fig_loop_orders import LoopOrders
from gpusim.reporting.fig_roofline import Roofline
from gpusim.reporting.fig_standard_vs_flash import StandardVsFlash
from gpusim.reporting.fig_timeline import Timeline
from gpusim.reporting.fig_tuning import TunerHeatmap
from gpusim.reporting.fig_validation import PredictedVsMeasured
from gpusim.reporting.figure import Figure, FigureData
from gpusim.reporting.files import write_json, write_text
from gpusim.reporting.measured import (
    load_tuning_proof,
    validation_runs,
    validation_work,
)
from gpusim.reporting.points import run_points

#: Folders under reports/ with hand-written analysis beside the generated files.
OTHERS = ("kernels", "tuning", "validation")


class Progress:
    """What the runner reports as it goes; the CLI draws a bar from it (default: silent)."""

    def add(self, steps: int) -> None:
        """``steps`` more steps are coming."""

    def advance(self, label: str) -> None:
        """One step is done."""


@dataclass
class Report:
    """What a run wrote and what it found."""

    files: list[Path]
    figures: dict[str, FigureData] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    wall_s: float = 0.0

    def summary(self) -> dict[str, Any]:
        """Each figure's key numbers and notes, by figure name."""
        return {name: {"summary": d.summary, "notes": d.notes} for name, d in self.figures.items()}


def default_figures(
    data_dir: str | Path,
    jobs: int | None = None,
    progress: Progress | None = None,
    reports_dir: str | Path | None = None,
) -> list[Figure]:
    """The report's figures with their standard sizes, fed with what ``data_dir`` records."""
    progress = progress or Progress()
    runs, facts = validation_runs(
        data_dir, reports_dir=reports_dir, jobs=jobs, on_done=lambda i: progress.advance(i)
    )
    return [
        StandardVsFlash(measured=runs),
        BlockSize(),
        LoopOrders(),
        Roofline(),
        Timeline(),
        PredictedVsMeasured(runs=runs, facts=facts),
        TunerHeatmap(record=load_tuning_proof(data_dir, reports_dir)),
    ]


def select(figures: Sequence[Figure], only: Sequence[str] | None) -> list[Figure]:
    """The figures named in ``only`` (full name or ``figN``/``figNa`` prefix); all if empty."""
    if not only:
        return list(figures)
    out = []
    for key in only:
        hits = [f for f in figures if _names(f, key)]
        if not hits:
            names = ", ".join(f.name for f in figures)
            raise GpusimError(f"unknown figure {key!r}; known: {names}")
        out += [f for f in hits if f not in out]
    return out


def _names(figure: Figure, key: str) -> bool:
    """``key`` is the figure's name, its ``figN``/``figNa`` stem, or ``figN`` of ``figNa``."""
    stem = figure.name.split("_")[0]
    return key in (figure.name, stem) or (stem.startswith(key) and stem[len(key) :].isalpha())


def build_report(
    out_dir: str | Path = "reports",
    data_dir: str | Path | None = None,
    *,
    only: Sequence[str] | None = None,
    jobs: int | None = None,
    progress: Progress | None = None,
    figures: Callable[[], list[Figure]] | None = None,
) -> Report:
    """Build the figures into ``out_dir`` (reading recorded data from ``data_dir``, default the
    repository's ``data/``, and the predictions generated beside the report from ``out_dir``);
    without ``only`` also ``README.md`` and ``summary.json``."""
    t0 = time.perf_counter()
    out = Path(out_dir)
    data = Path(data_dir) if data_dir is not None else DATA_DIR
    if not data.is_dir():  # a mistyped --data would otherwise read as 'nothing measured yet'
        raise GpusimError(f"--data {data_dir}: no such folder")
    progress = progress or Progress()
    evidence: list[Path] = []
    if figures is None and not only and data.resolve() == DATA_DIR.resolve():
        from gpusim.reporting import evidence as ev

        # before the figures: fig6a reads the comparison this writes; only from the
        # repository's data/, whose judged dataset and proof runs they name
        evidence = ev.validation_report(out, jobs) + ev.tuning_reports(out)
    progress.add(validation_work(data, out))
    all_figs = figures() if figures else default_figures(data, jobs, progress, out)
    chosen = select(all_figs, only)
    points = sorted({p for f in chosen for p in f.points()}, key=lambda p: p.sort_key())
    progress.add(len(points) + len(chosen))
    results = run_points(points, jobs=jobs, on_done=lambda p: progress.advance(p.algorithm))
    report = Report(files=evidence)
    for f in chosen:
        d = f.build(results)
        report.figures[f.name] = d
        report.files += f.write(d, out)
        report.notes += [f"{f.name}: {n}" for n in d.notes]
        progress.advance(f.name)
    if not only:
        from gpusim.reporting.readme import readme_text

        report.files.append(write_json(out / "summary.json", report.summary()))
        report.files.append(write_text(out / "README.md", readme_text(chosen, report, out)))
    report.wall_s = time.perf_counter() - t0
    return report
