"""Recorded measurements the report reads (never writes): the validation datasets and the
tuner's proof runs, as committed under ``data/`` (found by their ``kind``, at any depth), and
the predictions generated beside the report (``reports/validation/``, ``reports/tuning/``).

Both are produced on the GPU machine by other parts of gpusim; when a file is not
there yet the loaders return nothing and the figures say so, rather than inventing data.

Predictions beside the measurements: for validation, the comparison that ``gpusim
validate --from`` last wrote (``comparison.json``: each run simulated with the
compiled kernel's real registers and shared memory), so the report and the
validation README show the same numbers; without one, the runs are simulated
here the same way (slow: causal runs take seconds each). For the tuner, the
predictions file of ``python -m gpusim.tuning.proof_report predict``.
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
#: The ``kind`` of the tuner's proof record (python -m gpusim.tuning.proof_measure) and of its
#: predictions.
TUNING_KIND = "gpusim tuning proof"
TUNING_PREDICTIONS_KIND = "gpusim tuning proof predictions"
#: ``predictions`` in the facts when no comparison is recorded and the runs were simulated here.
SIMULATED_HERE = "simulated by gpusim report"
#: Profile a dataset is judged with when no comparison names one (gpusim validate's default).
JUDGING_PROFILE = "h200-sxm"


@dataclass(frozen=True)
class MeasuredRun:
    """One attention run measured on a GPU and the model's prediction of it."""

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
    dram_bytes: float | None = None  # measured by Nsight Compute, read + written
    predicted_dram_bytes: int | None = None
    global_bytes: float | None = None  # measured SM-to-L2 bytes
    predicted_global_bytes: int | None = None


def _json_files(folder: Path, accept: Callable[[dict[str, Any]], bool]) -> list[Path]:
    """JSON files under ``folder`` (any depth, sorted by path) whose object ``accept``s."""
    out = []
    for p in sorted(folder.rglob("*.json")) if folder.is_dir() else []:
        try:
            with p.open() as f:
                doc = json.load(f)
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and accept(doc):
            out.append(p)
    return out


def _kind(kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda doc: doc.get("kind") == kind


def find_validation_datasets(data_dir: str | Path) -> list[Path]:
    """The validation datasets under ``data_dir`` (any depth) of one GPU, oldest first (by the
    date in their provenance, then path): a later one's re-measurement of a config supersedes.
    The GPU is the one most of them were measured on (the H200 in the repository's data/: a
    held-out set run on a lent H100 is another card's measurement, judged by its own profile
    in its own report, not this figure's)."""
    found = _json_files(Path(data_dir), _kind(DATASET_KIND))
    prov = {p: json.loads(p.read_text())["provenance"] for p in found}
    gpus = [str(v.get("gpu_name", "")) for v in prov.values()]
    if gpus:
        # the most datasets, ties to the GPU of the earliest path
        gpu = max(dict.fromkeys(gpus), key=gpus.count)
        found = [p for p in found if str(prov[p].get("gpu_name", "")) == gpu]
    return sorted(found, key=lambda p: (str(prov[p].get("date_utc", "")), str(p)))


def find_validation_comparison(reports_dir: str | Path) -> Path | None:
    """The comparison ``gpusim validate --from`` wrote (``comparison.json``), or None."""
    found = _json_files(
        Path(reports_dir) / "validation",
        lambda d: "rows" in d and "summary" in d and "profile" in d,
    )
    return found[-1] if found else None


def _from_row(
    row: dict[str, Any], rec: dict[str, Any] | None, profile: str, gpu: str
) -> MeasuredRun:
    """A run from one comparison row (the dataset record, when found, gives the exact inputs)."""
    if rec is not None:
        w, s = Workload(**rec["workload"]), Schedule.from_record(rec["schedule"])
    else:
        n = row["seq_len"]
        w = Workload(
            batch=row["batch"],
            heads=row["heads"],
            seq_len_q=n,
            seq_len_k=n,
            head_dim=row["head_dim"],
            dtype=row["dtype"],
            causal=row["causal"],
        )
        s = Schedule(
            block_m=row["block_m"],
            block_n=row["block_n"],
            warps=row["warps"],
            stages=row["stages"],
        )
    n = row.get("ncu") or {}
    return MeasuredRun(
        config_id=row["id"],
        algorithm=row["kind"],
        variant=row.get("variant", ""),
        workload=w,
        schedule=s,
        gpu=gpu,
        profile=profile,
        runtime_s=row["measured_s"],
        predicted_runtime_s=row["predicted_s"],
        bound=row.get("bound", ""),
        dram_bytes=n.get("dram_bytes_measured"),
        predicted_dram_bytes=n.get("dram_bytes_predicted"),
        global_bytes=n.get("l2_bytes_measured"),
        predicted_global_bytes=n.get("l2_bytes_predicted"),
    )


def _judge(args: tuple[dict[str, Any], str, str]) -> MeasuredRun:
    from dataclasses import asdict

    from gpusim.profiles import load_profile
    from gpusim.validation.predicted_vs_measured import compare_record

    rec, profile, gpu = args
    row = compare_record(rec, load_profile(profile), detail="aggregated")
    return _from_row(asdict(row), rec, profile, gpu)


def _simulate_all(tasks, jobs, on_done) -> list[MeasuredRun]:
    jobs = min(2, os.cpu_count() or 1) if jobs is None else jobs
    runs: list[MeasuredRun] = []
    if jobs <= 1 or len(tasks) <= 1:
        for t in tasks:
            runs.append(_judge(t))
            if on_done:
                on_done(runs[-1].config_id)
        return runs
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for run in pool.map(_judge, tasks):
            runs.append(run)
            if on_done:
                on_done(run.config_id)
    return runs


def validation_runs(
    data_dir: str | Path,
    *,
    reports_dir: str | Path | None = None,
    jobs: int | None = None,
    on_done: Callable[[str], None] | None = None,
) -> tuple[list[MeasuredRun], dict[str, Any]]:
    """Every measured (ok) run of the datasets under ``data_dir`` with its prediction (the
    comparison under ``reports_dir``, default ``data_dir``), and facts about where they come
    from (``datasets``, ``gpu``, ``profile``, ``date``, ``commit``, ``predictions``);
    ``([], {})`` when no dataset is recorded."""
    reports_dir = data_dir if reports_dir is None else reports_dir
    paths = find_validation_datasets(data_dir)
    if not paths:
        return [], {}
    from gpusim.validation.dataset import load_dataset, merge_records

    loaded = [(_rel(p, data_dir), load_dataset(p)) for p in paths]
    records, _ = merge_records(loaded)
    prov = loaded[-1][1]["provenance"]
    gpu = prov["gpu_name"]
    ok = [r for r in records if r.get("status") == "ok"]
    facts: dict[str, Any] = {
        "datasets": [name for name, _ in loaded],
        "gpu": gpu,
        "date": prov.get("date_utc"),
        "commit": prov.get("git_commit"),
        "records": len(records),
        "ok": len(ok),
    }
    comp_path = find_validation_comparison(reports_dir)
    if comp_path is not None:
        comp = json.loads(comp_path.read_text())
        by_id = {r["id"]: r for r in ok}
        runs = [_from_row(row, by_id.get(row["id"]), comp["profile"], gpu) for row in comp["rows"]]
        facts |= {"profile": comp["profile"], "predictions": _rel(comp_path, reports_dir)}
    else:
        tasks = [(r, JUDGING_PROFILE, gpu) for r in ok]
        runs = _simulate_all(tasks, jobs, on_done)
        facts |= {"profile": JUDGING_PROFILE, "predictions": SIMULATED_HERE}
    runs.sort(key=lambda r: r.config_id)
    return runs, facts


def _rel(path: Path, reports_dir: str | Path) -> str:
    try:
        return str(path.relative_to(reports_dir))
    except ValueError:
        return str(path)


def validation_work(data_dir: str | Path, reports_dir: str | Path | None = None) -> int:
    """Runs :func:`validation_runs` will simulate (0 when a comparison is recorded)."""
    if find_validation_comparison(data_dir if reports_dir is None else reports_dir) is not None:
        return 0
    ids = set()
    for p in find_validation_datasets(data_dir):
        ids |= {r["id"] for r in json.loads(p.read_text())["records"] if r.get("status") == "ok"}
    return len(ids)


def _top_first(folder: Path, paths: list[Path]) -> list[Path]:
    """``paths`` directly in ``folder`` when there are any (the judged predictions; a
    subfolder holds an alternative model's), else all of them."""
    top = [p for p in paths if p.parent == folder]
    return top or paths


def _names(path: Path, named: str) -> bool:
    """Whether ``path`` ends with the relative path ``named`` (a predictions file's
    ``measured_file``: relative to the repository, or to the predictions' folder before)."""
    parts = Path(named).parts
    return bool(parts) and path.resolve().parts[-len(parts) :] == parts


def find_tuning_proof(data_dir: str | Path, reports_dir: str | Path | None = None) -> Path | None:
    """The tuner's proof record under ``data_dir`` (any depth): the one the predictions under
    ``reports_dir/tuning`` (default ``data_dir``) name (``measured_file``), else the last by
    path; None if there is none."""
    folder = Path(data_dir if reports_dir is None else reports_dir) / "tuning"
    found = _json_files(Path(data_dir), _kind(TUNING_KIND))
    preds = _top_first(folder, _json_files(folder, _kind(TUNING_PREDICTIONS_KIND)))
    if preds:
        named = json.loads(preds[-1].read_text()).get("measured_file")
        hit = [p for p in found if named and _names(p, named)]
        if hit:
            return hit[0]
    return found[-1] if found else None


def load_tuning_proof(
    data_dir: str | Path, reports_dir: str | Path | None = None
) -> dict[str, Any] | None:
    """The tuner's measured proof record with the recorded predictions merged in (``predicted_s``
    stays None where none is recorded), or None if nothing is recorded. ``_facts`` says where
    each part comes from."""
    path = find_tuning_proof(data_dir, reports_dir)
    if path is None:
        return None
    reports_dir = data_dir if reports_dir is None else reports_dir
    record = json.loads(path.read_text())
    facts: dict[str, Any] = {"measured": _rel(path, data_dir), "predictions": None}
    folder = Path(reports_dir) / "tuning"
    preds = _top_first(folder, _json_files(folder, _kind(TUNING_PREDICTIONS_KIND)))
    if preds:
        from gpusim.tuning.proof_report import with_predictions

        p = json.loads(preds[-1].read_text())
        record = with_predictions(record, p)
        facts |= {
            "predictions": _rel(preds[-1], reports_dir),
            "model_commit": p.get("model_commit"),
        }
    record["_facts"] = facts
    return record
