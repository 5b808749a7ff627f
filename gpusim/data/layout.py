"""The repository's folders of recorded measurements and of generated reports.

Measured data (everything that came back from a GPU, or from an offline build the model
reads) lies under ``data/<gpu>/<date>_<what>/`` and is never written by the product; the
reports ``gpusim report`` generates lie under ``reports/``. Paths are of the source tree:
the recorded data is not installed with the package.
"""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = REPO_ROOT / "data"
REPORTS_DIR = REPO_ROOT / "reports"

H200 = DATA_DIR / "h200"
#: The calibration suite's run and its per-benchmark runs.
CALIBRATION = H200 / "2026-11-30_calibration"
#: The SASS loop replays and ptxas facts of the offline sm_90 build the model reads.
KERNELS_BUILD = DATA_DIR / "sm90" / "2026-11-30_kernels_build"
#: A sample of the long-context switch instances' loops and ptxas facts, same build
#: (gpusim/kernels/switch_loops.py).
SWITCH_LOOPS = DATA_DIR / "sm90" / "2026-12-04_switch_loops"
#: The tuning proof's nvcc-built run, its repeat, and the launch-caps run.
TUNING_NVCC = H200 / "2026-11-30_tuning_nvcc"
TUNING_NVCC_REPEAT = H200 / "2026-11-30_tuning_nvcc_repeat"
TUNING_CAPS = H200 / "2026-11-30_tuning_caps"
TUNING_HELDOUT = H200 / "2026-11-30_tuning_heldout"
#: The validation dataset the README's figures judge.
VALIDATION_DRAM21 = H200 / "2026-11-30_validation_dram21"


def calibration_run(what: str) -> Path:
    """The folder of one calibration benchmark's H200 run (``what``: e.g. ``smem_overlap``)."""
    return H200 / f"2026-11-30_calibration_{what}"
#: Issue 18's long-context sweep: its configurations (manifest_configs.json), the model's
#: predictions committed before it ran, and what the H200 measured.
LONG_CONTEXT = H200 / "2026-12-02_long_context"
LONG_CONTEXT_MANIFEST = LONG_CONTEXT / "manifest_configs.json"
