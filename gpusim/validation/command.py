"""``gpusim validate``: compare a recorded dataset with the model, or measure one first.

With ``from_path`` no GPU is needed: the dataset is loaded, checked against the profile's
GPU, every measured run is simulated with its real footprint, and the report is written.
Without it the sweep runs on the local GPU first (:mod:`gpusim.validation.run_sweep`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpusim.profiles.loader import load_profile
from gpusim.validation.compare import compare_records, summary
from gpusim.validation.dataset import check_profile, load_dataset
from gpusim.validation.report import write_report

DEFAULT_PROFILE = "h200-sxm-calibrated"
DEFAULT_OUT = Path("reports/validation")


def compare_dataset(
    dataset: Path,
    profile_name: str = DEFAULT_PROFILE,
    out_dir: Path | None = None,
    jobs: int | None = None,
    write: bool = True,
    log: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Recompute the comparison of ``dataset``; the command's JSON object."""
    data = load_dataset(dataset)
    profile = load_profile(profile_name)
    check_profile(data, profile)
    rows = compare_records(data["records"], profile, jobs=jobs, log=log)
    summ = summary(rows)
    files: list[Path] = []
    if write:
        files = write_report(
            data, Path(dataset), profile.name, rows, summ, out_dir or dataset.parent
        )
    failed = [r["id"] for r in data["records"] if r.get("status") != "ok"]
    return {
        "dataset": str(dataset),
        "profile": profile.name,
        "gpu": data["provenance"]["gpu_name"],
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


def validate(
    from_path: Path | None,
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
    if from_path is not None:
        return compare_dataset(from_path, profile_name, out_dir, jobs, log=None)
    from gpusim.validation.run_sweep import run_sweep

    target = out_dir or DEFAULT_OUT
    dataset = run_sweep(target, cubin_dir, repeats=repeats, use_ncu=use_ncu, only=only, log=log)
    return compare_dataset(dataset, profile_name, target, jobs, log=None)
