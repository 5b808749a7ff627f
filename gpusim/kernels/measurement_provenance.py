"""Where a measurement came from: GPU, driver, CUDA, library versions, clocks, date, commit."""

from __future__ import annotations

import datetime as dt
import platform
import subprocess
from typing import Any

from gpusim.source_commit import git_commit

_SMI_FIELDS = (
    "name",
    "driver_version",
    "clocks.sm",
    "clocks.max.sm",
    "clocks.mem",
    "power.draw",
    "temperature.gpu",
    "persistence_mode",
)


def nvidia_smi() -> dict[str, str]:
    """Fields of ``nvidia-smi --query-gpu`` for GPU 0 (empty if the tool is missing)."""
    try:
        line = subprocess.run(
            ["nvidia-smi", f"--query-gpu={','.join(_SMI_FIELDS)}", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        ).stdout.splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return {}
    return dict(zip(_SMI_FIELDS, (v.strip() for v in line.split(",")), strict=False))


def provenance(cp: Any | None = None) -> dict[str, Any]:
    """A dict to store beside every result: machine, software versions, clocks now, date."""
    out: dict[str, Any] = {
        "date_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "host": platform.node(),
        "nvidia_smi": nvidia_smi(),
    }
    if cp is not None:
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        name = props["name"]
        out |= {
            "gpu_name": name.decode() if isinstance(name, bytes) else name,
            "sm_count": props["multiProcessorCount"],
            "l2_bytes": props["l2CacheSize"],
            "cuda_runtime_version": cp.cuda.runtime.runtimeGetVersion(),
            "cuda_driver_version": cp.cuda.runtime.driverGetVersion(),
            "cupy_version": cp.__version__,
        }
    try:
        import torch

        out["torch_version"] = torch.__version__
        out["torch_cuda"] = torch.version.cuda
        out["cudnn_version"] = torch.backends.cudnn.version()
    except ImportError:
        out["torch_version"] = None
    return out
