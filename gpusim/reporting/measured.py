"""Recorded measurements the report reads (never writes): the validation dataset and the
tuner's proof run, as committed under ``reports/validation/`` and ``reports/tuning/``.

Both are produced on the GPU machine by other parts of gpusim; when a file is not
there yet the loaders return nothing and the figures say so, rather than inventing data.
A validation record is judged as ``gpusim validate --from`` judges it
(:func:`gpusim.validation.compare.compare_record`: simulated with the compiled
kernel's real registers and shared memory), so the figures show the current model.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpusim.schedule import Schedule
from gpusim.workload import Workload

#: The ``kind`` of a validation dataset file (gpusim.validation.dataset).
DATASET_KIND = "gpusim validation dataset"
#: The ``kind`` of the tuner's proof record (scripts/tuning_proof.py).
TUNING_KIND = "gpusim tuning proof"
#: Profiles tried, in order, for judging a dataset whose GPU they describe.
JUDGING_PROFILES = ("h200-sxm-calibrated", "h200-sxm", "h100-sxm5", "a100-sxm4-80gb")
#: Engine path for the re-simulations (the reports' fast path).
DETAIL = "aggregated"


@dataclass(frozen=True)
class MeasuredRun:
    """One attention run measured on a GPU and the current model's prediction of it."""

    config_id: str
    algorithm: str
    variant: str  # tc, simt, cublas
    workload: Workload
    schedule: Schedule
    gpu: str
    profile: str  # the profile the prediction is made with
    runtime_s: float  # measured median
    predicted_runtime_s: float
    bound: str
    dram_bytes: int | None = None  # measured by Nsight Compute, read + written
    predicted_dram_bytes: int | None = None
    global_bytes: int | None = None  # measured SM-to-L2 bytes
    predicted_global_bytes: int | None = None


def _json_files(folder: Path, kind: str) -> list[Path]:
    out = []
    for p in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            with p.open() as f:
                head = json.load(f)
        except (OSError, ValueError):
            continue
        if isinstance(head, dict) and head.get("kind") == kind:
            out.append(p)
    return out


def find_validation_dataset(reports_dir: str | Path) -> Path | None:
    """The validation dataset under ``reports_dir/validation`` (the last by name), or None."""
    found = _json_files(Path(reports_dir) / "validation", DATASET_KIND)
    return found[-1] if found else None


def judging_profile(dataset: dict[str, Any]) -> str:
    """The first of :data:`JUDGING_PROFILES` that describes the dataset's GPU."""
    from gpusim.errors import GpusimError
    from gpusim.profiles import list_profiles, load_profile
    from gpusim.validation.dataset import check_profile

    for name in (p for p in JUDGING_PROFILES if p in list_profiles()):
        try:
            check_profile(dataset, load_profile(name))
        except GpusimError:
            continue
        return name
    raise GpusimError(
        f"no shipped profile describes {dataset['provenance'].get('gpu_name')!r}, the GPU of "
        "the validation dataset"
    )


def _judge(args: tuple[dict[str, Any], str, str]) -> MeasuredRun:
    from gpusim.profiles import load_profile
    from gpusim.validation.compare import compare_record

    rec, profile, gpu = args
    row = compare_record(rec, load_profile(profile), detail=DETAIL)
    n = row.ncu or {}
    return MeasuredRun(
        config_id=row.id,
        algorithm=row.kind,
        variant=row.variant,
        workload=Workload(**rec["workload"]),
        schedule=Schedule(**rec["schedule"]),
        gpu=gpu,
        profile=profile,
        runtime_s=row.measured_s,
        predicted_runtime_s=row.predicted_s,
        bound=row.bound,
        dram_bytes=n.get("dram_bytes_measured"),
        predicted_dram_bytes=n.get("dram_bytes_predicted"),
        global_bytes=n.get("l2_bytes_measured"),
        predicted_global_bytes=n.get("l2_bytes_predicted"),
    )


def validation_runs(
    reports_dir: str | Path,
    *,
    jobs: int | None = None,
    on_done: Callable[[str], None] | None = None,
) -> tuple[list[MeasuredRun], dict[str, Any]]:
    """Every measured (ok) record of the dataset with the model's prediction, and facts about
    the dataset (``path``, ``gpu``, ``profile``, ``date``, ``commit``); ``([], {})`` if none."""
    path = find_validation_dataset(reports_dir)
    if path is None:
        return [], {}
    from gpusim.validation.dataset import load_dataset

    data = load_dataset(path)
    prov = data["provenance"]
    profile = judging_profile(data)
    ok = [r for r in data["records"] if r.get("status") == "ok"]
    tasks = [(r, profile, prov["gpu_name"]) for r in ok]
    jobs = min(2, os.cpu_count() or 1) if jobs is None else jobs
    runs: list[MeasuredRun] = []
    if jobs <= 1 or len(tasks) <= 1:
        for t in tasks:
            runs.append(_judge(t))
            if on_done:
                on_done(runs[-1].config_id)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for run in pool.map(_judge, tasks):
                runs.append(run)
                if on_done:
                    on_done(run.config_id)
    facts = {
        "path": str(path),
        "gpu": prov["gpu_name"],
        "profile": profile,
        "date": prov.get("date_utc"),
        "commit": prov.get("git_commit"),
        "records": len(data["records"]),
        "ok": len(ok),
    }
    return runs, facts


def validation_record_count(reports_dir: str | Path) -> int:
    """How many ok records the dataset has (0 without one): the progress bar's share."""
    path = find_validation_dataset(reports_dir)
    if path is None:
        return 0
    data = json.loads(path.read_text())
    return sum(1 for r in data.get("records", []) if r.get("status") == "ok")


def find_tuning_proof(reports_dir: str | Path) -> Path | None:
    """The tuner's proof record under ``reports_dir/tuning`` (the last by name), or None."""
    found = _json_files(Path(reports_dir) / "tuning", TUNING_KIND)
    return found[-1] if found else None


def load_tuning_proof(reports_dir: str | Path) -> dict[str, Any] | None:
    """The tuner's recorded proof run (see ``gpusim.tuning.proof``), or None if not recorded."""
    path = find_tuning_proof(reports_dir)
    if path is None:
        return None
    record = json.loads(path.read_text())
    record.setdefault("_path", str(path))
    return record
