"""What a data folder's manifest says beyond its files: where it was before the ``data/``
layout (issue 17), notes on superseded folders, and the command its README quotes."""

from __future__ import annotations

import re
from pathlib import Path

CALIBRATION_RUNS = (
    "barrier_interval", "cta_launch", "cta_scatter", "dram_mlp", "issue", "l2_bytes",
    "l2_survive", "sass_timing", "simt_mm", "smem_fill", "smem_overlap", "softmax_mix",
)  # fmt: skip

#: Each folder's path before the move (git mv, bytes unchanged).
MOVED_FROM = {
    "2026-11-30_calibration": "reports/calibration/ (its top-level files)",
    **{
        f"2026-11-30_calibration_{w}": f"reports/calibration/{w}_h200_2026-11-30/"
        for w in CALIBRATION_RUNS
    },
    "2026-11-30_kernels_bench": "reports/kernels/h200_2026-11-30/",
    "2026-11-30_kernels_cli": "reports/kernels/h200_2026-11-30_cli/",
    "2026-11-30_kernels_build": "reports/kernels/build_sm90/",
    **{
        f"2026-11-30_tuning_{w}": f"reports/tuning/h200_2026-11-30_{w}/"
        for w in ("caps", "heldout", "nvcc", "nvcc_repeat", "nvrtc")
    },
    "2026-11-30_validation": "reports/validation/h200_2026-11-30/",
    **{
        f"2026-11-30_validation_{w}": f"reports/validation/h200_2026-11-30_{w}/"
        for w in ("dram21", "sm_l2", "standard")
    },
    "2026-11-30_validation_l2_probe": "reports/validation/l2_probe_h200_2026-11-30/",
    "2026-11-30_validation_sass_mask_split": "reports/validation/sass_mask_split/",
    "2026-11-30_microbench": "hardware_profiles/measured/",
    "2026-11-30_barrier_cost": "benchmarks/barrier_cost_h200.json",
}

#: Why a folder is kept although newer code or data replaced it.
NOTES = {
    "2026-11-30_microbench": "superseded: the first H200 microbenchmarks (their own script "
    "and CUDA source, kept as they ran); h200-sxm.yaml's measured values name them, the "
    "calibration suite (gpusim calibrate) measures these quantities now",
    "2026-11-30_validation_sass_mask_split": "superseded: a one-off script and its output "
    "(main-loop SASS with and without the masking path), kept as evidence for the tracer's "
    "masking cost; not run by the product",
    "2026-11-30_validation_dram21": "README.md: the code that ran is the working tree of "
    "788168b; the recorded git_commit (5d8c7eb) is the device copy's stale HEAD",
    "2026-11-30_validation_sm_l2": "README.md: the code that ran is the working tree of "
    "3d10b0f; the recorded git_commit (17b0ad6) is the device copy's stale HEAD",
    "2026-11-30_barrier_cost": "written by benchmarks/barrier_cost.py (now python -m "
    "gpusim.calibrate.barrier_cost) on the H200, 2026-11-30 (commit b4777f3 added it); the "
    "engine's barrier cost comes from it",
    "2026-11-30_calibration": "h200-sxm-calibrated.yaml here is the profile as written on the "
    "device; hardware_profiles/h200-sxm-calibrated.yaml is it regenerated from these results "
    "(only its header and sources differ)",
}

#: A command as a README quotes it: in backticks, or on an indented line.
_COMMAND = re.compile(
    r"`((?:python3? |gpusim |bash |GPUSIM_\w+=\S+ \w+)[^`]*)`|^ {4}((?:python3?|gpusim) .+)$",
    re.MULTILINE,
)


#: The package modules that replaced the scripts a recorded command names.
SCRIPT_MODULES = {
    "scripts/tuning_proof.py": "python -m gpusim.tuning.proof_measure",
    "scripts/cap_proof.py": "python -m gpusim.tuning.caps_measure",
    "scripts/cap_report.py": "python -m gpusim.tuning.caps_report",
    "scripts/proof_repeatability.py": "python -m gpusim.tuning.proof_repeatability",
    "scripts/tuning_ncu.py": "python -m gpusim.validation.proof_ncu",
    "scripts/compare_with_ncu.py": "python -m gpusim.validation.ncu_loop_check",
    "scripts/validate_gpu.py": "python -m gpusim.validation.gpu_sweep",
    "scripts/bench_kernels.py": "python -m gpusim.kernels.paper_bench",
    "scripts/gpu_kernel_check.py": "python -m gpusim.kernels.check_all",
    "scripts/gpu_kernel_check.sh": "python -m gpusim.kernels.device_check",
    "scripts/kernel_tables.py": "python -m gpusim.kernels.bench_tables",
    "scripts/core_model_loops.py": "python -m gpusim.kernels.overlap_loops",
    "benchmarks/barrier_cost.py": "python -m gpusim.calibrate.barrier_cost",
}


def harness_now(command: str | None) -> str | None:
    """The module that replaced the script ``command`` ran, or None if it names none."""
    for script, module in SCRIPT_MODULES.items():
        if command and script in command:
            return module
    return None


def moved_from(name: str) -> str | None:
    """The folder's path before the ``data/`` layout, or None if it was made here."""
    return MOVED_FROM.get(name)


def note_of(name: str) -> str | None:
    """Why a superseded folder is kept, or None."""
    return NOTES.get(name)


def readme_command(folder: Path) -> str | None:
    """The first command the folder's README quotes (whitespace joined), or None."""
    readme = folder / "README.md"
    if not readme.exists():
        return None
    m = _COMMAND.search(readme.read_text())
    if not m:
        return None
    return " ".join((m.group(1) or m.group(2)).split())
