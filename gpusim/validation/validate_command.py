"""``gpusim validate``: compare a recorded dataset with the model, or measure one first.

With ``from_path`` no GPU is needed: the dataset is loaded, checked against the profile's
GPU, every measured run is simulated with its real footprint, and the report is written into
the folder given, or a fresh temporary one: never beside the dataset, which is recorded data.
Without it the sweep runs on the local GPU first (:mod:`gpusim.validation.run_sweep`), into
the folder given or a new ``gpusim-validation-<date>`` folder here.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpusim.data.layout import REPO_ROOT
from gpusim.errors import GpusimError
from gpusim.profiles.loader import load_profile
from gpusim.validation.dataset import check_profile, load_dataset, merge_records
from gpusim.validation.predicted_vs_measured import compare_records, summary
from gpusim.validation.validation_report import write_report

DEFAULT_PROFILE = "h200-sxm"


def compare_dataset(
    datasets: Path | list[Path],
    profile_name: str = DEFAULT_PROFILE,
    out_dir: Path | None = None,
    jobs: int | None = None,
    write: bool = True,
    log: Callable[[str], None] | None = None,
    only: str | None = None,
) -> dict[str, Any]:
    """Recompute the comparison of one dataset, or of several merged in order (a later
    dataset's re-measurement of a config supersedes the earlier one); the command's JSON.
    ``only``: the records whose id contains any comma-separated part of it (as a sweep's
    ``--only`` picks configs to run); one that matches none is a one-line error."""
    paths = [Path(datasets)] if isinstance(datasets, str | Path) else [Path(p) for p in datasets]
    profile = load_profile(profile_name)
    loaded = []
    for p in paths:
        data = load_dataset(p)
        check_profile(data, profile)
        loaded.append((p, data))
    named = [(_name(p, out_dir), d) for p, d in loaded]
    records, superseded = merge_records(named)
    if only:
        from gpusim.validation.run_sweep import picked

        records = [r for r in records if picked(r["id"], only)]
        if not records:
            raise GpusimError(f"--only {only}: no config of {paths[0]} has any of these in its id")
    rows = compare_records(records, profile, jobs=jobs, log=log)
    summ = summary(rows)
    files: list[Path] = []
    if write:
        target = out_dir or Path(tempfile.mkdtemp(prefix="gpusim-validate-"))
        files = write_report(named, records, superseded, profile.name, rows, summ, target)
    failed = [r["id"] for r in records if r.get("status") != "ok"]
    return {
        "dataset": str(paths[0]),
        "datasets": [str(p) for p in paths],
        "superseded": superseded,
        "profile": profile.name,
        "gpu": loaded[0][1]["provenance"]["gpu_name"],
        "configs": summ["configs"],
        "failed": failed,
        "runtime_mape": summ["runtime_mape"],
        "runtime_max_abs_err": summ["runtime_max_abs_err"],
        "runtime_mean_err": summ["runtime_mean_err"],
        "runtime_by_kind": summ["runtime_by_kind"],
        "dram_bytes_mape": summ["dram_bytes_mape"],
        "dram_bytes_max_abs_err": summ["dram_bytes_max_abs_err"],
        "l2_bytes_mape": summ["l2_bytes_mape"],
        "l2_bytes_max_abs_err": summ["l2_bytes_max_abs_err"],
        "ncu_configs": summ["ncu_configs"],
        "kernel_time_mape": summ["kernel_time_mape"],
        "targets": summ["targets"],
        "by_class": summ["by_class"],
        "worst": summ["worst"],
        "files": [str(f) for f in files],
    }


def _name(path: Path, out_dir: Path | None) -> str:
    """The dataset's path relative to the report folder when it lies below it, else to the
    repository when it lies in it (the same name wherever the report is written)."""
    for base in (out_dir, REPO_ROOT):
        try:
            return str(path.resolve().relative_to(Path(base).resolve()))
        except (TypeError, ValueError):
            continue
    return str(path)


def validate(
    from_path: Path | list[Path] | None,
    profile_name: str = DEFAULT_PROFILE,
    out_dir: Path | None = None,
    cubin_dir: Path | None = None,
    use_ncu: bool = True,
    only: str | None = None,
    repeats: int = 10,
    jobs: int | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """``--from``: compare a recorded dataset; otherwise measure on this GPU, then compare."""
    if from_path:
        return compare_dataset(from_path, profile_name, out_dir, jobs, log=None, only=only)
    from gpusim.validation.run_sweep import run_sweep

    target = out_dir or Path(f"gpusim-validation-{dt.datetime.now(dt.UTC):%Y-%m-%d}")
    dataset = run_sweep(target, cubin_dir, repeats=repeats, use_ncu=use_ncu, only=only, log=log)
    return compare_dataset(dataset, profile_name, target, jobs, log=None)
