"""``explore``: check the spec, run every point not yet done, write the table, summary and
figures.

The output folder holds ``points.jsonl`` (the journal, one record per finished point,
:mod:`gpusim.resumable_sweep`), ``explore.json`` (what the journal was computed with),
``points.parquet`` and ``points.csv``, ``summary.json`` and the figures. Running the same
spec on the same folder again runs only the points missing from the journal (a killed or
interrupted sweep resumes); a spec on another base profile or with other tuner settings is
refused there, since its results would mix with the old ones. Every file but the journal
(appended a line at a time) is written atomically.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
from rich.console import Console

from gpusim import atomic
from gpusim.errors import GpusimError
from gpusim.explore.evaluate import PointEvaluator
from gpusim.explore.sweep_plan import Plan
from gpusim.resumable_sweep import SweepSummary, run_sweep

EXECUTORS = ("local", "dask")
JOURNAL = "points.jsonl"
MANIFEST = "explore.json"


@dataclass
class ExploreResult:
    """What one ``explore`` call did and wrote."""

    plan: Plan
    out: Path
    sweep: SweepSummary
    table: pa.Table
    summary: dict[str, Any]
    files: list[Path] = field(default_factory=list)
    executor: str = "local"


def _check_manifest(plan: Plan, out: Path) -> None:
    """Refuse a folder whose journal was computed on another base profile or settings."""
    path = out / MANIFEST
    if not path.exists():
        return
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        raise GpusimError(f"{path}: unreadable; remove it, or use another --out") from None
    if old.get("base_fingerprint") != plan.base_fingerprint:
        raise GpusimError(
            f"{out} holds a sweep on another base profile or tuner settings "
            f"({old.get('base_profile')}, {old.get('footprints')}); use another --out"
        )


def _manifest(plan: Plan) -> dict[str, Any]:
    import gpusim

    return {
        "base_profile": plan.base.name,
        "base_fingerprint": plan.base_fingerprint,
        "footprints": plan.spec.footprints,
        "gpusim_version": gpusim.__version__,
        "spec": plan.spec.model_dump(mode="json"),
    }


def _executor_context(executor: str, scheduler, workers, connect_timeout_s):
    if executor not in EXECUTORS:
        raise GpusimError(f"unknown executor {executor!r}; use one of {', '.join(EXECUTORS)}")
    if executor == "local":
        if scheduler is not None or workers is not None:
            raise GpusimError("--scheduler and --workers need --executor dask")
        return contextlib.nullcontext(None)
    from gpusim.explore.dask_executor import DaskExecutor

    return DaskExecutor(scheduler, workers, connect_timeout_s)


def explore(
    plan: Plan,
    out: str | Path,
    *,
    executor: str = "local",
    jobs: int | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    connect_timeout_s: float = 5.0,
    retry_failed: bool = False,
    progress: bool = False,
    figures: bool = True,
    console: Console | None = None,
) -> ExploreResult:
    """Run ``plan``'s points into ``out`` and write its table, summary and figures.

    ``executor`` is ``"local"`` (``jobs`` processes, default one per core) or ``"dask"``
    (``scheduler``: an address such as ``tcp://host:8786``; else a LocalCluster of
    ``workers``). Bad input, an unreachable scheduler included, is a one-line
    :class:`GpusimError` before any point runs. A Ctrl-C stops the sweep with what finished
    on disk; the files are written for those points and ``sweep.interrupted`` says so.
    """
    from gpusim.explore.figures import write_figures
    from gpusim.explore.summary import runtime_grid, summarize
    from gpusim.explore.table import read_table, write_table
    from gpusim.parallel_map import default_jobs

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise GpusimError(f"--out {str(out)!r} is a file, not a folder")
    _check_manifest(plan, out)
    if jobs is not None and jobs < 1:
        raise GpusimError(f"--jobs must be at least 1, got {jobs}")
    if jobs is not None and executor == "dask":
        raise GpusimError("--jobs is for --executor local; a LocalCluster takes --workers")
    evaluator = PointEvaluator.of(plan.base, plan.spec.footprints)
    with _executor_context(executor, scheduler, workers, connect_timeout_s) as cluster:
        out.mkdir(parents=True, exist_ok=True)
        atomic.write_json(out / MANIFEST, _manifest(plan))
        sweep = run_sweep(
            plan.points,  # made afresh for each pass, never held
            evaluator,
            out / JOURNAL,
            jobs=default_jobs() if jobs is None else jobs,
            retry_failed=retry_failed,
            progress=progress,
            description="explore",
            console=console,
            executor=cluster,
        )
    table = read_table(plan, out / JOURNAL)
    files = write_table(table, out)
    summary = summarize(plan, table, interrupted=sweep.interrupted)
    summary["executor"] = executor if cluster is None else cluster.where
    files.append(atomic.write_json(out / "summary.json", summary, sort_keys=False))
    if figures:
        files += write_figures(plan, runtime_grid(plan, table), out)
    return ExploreResult(plan, out, sweep, table, summary, files, executor)
