"""Where a set of measurements came from: GPU, driver, CUDA, CuPy, clocks, date, commit."""

from __future__ import annotations

import datetime as dt
import platform
import sys
from typing import Any

from gpusim.calibrate.clocks import smi_static
from gpusim.source_commit import git_commit
from gpusim.version import __version__


def collect(cp: Any, gpu_name: str, argv: list[str]) -> dict[str, Any]:
    """Provenance of a calibration run on device 0, read before the benchmarks start."""
    rt = cp.cuda.runtime
    info: dict[str, Any] = {
        "gpu_name": gpu_name,
        "date_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "gpusim_version": __version__,
        "command": " ".join(["gpusim calibrate", *argv]),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cupy_version": cp.__version__,
        "cuda_runtime_version": int(rt.runtimeGetVersion()),
        "cuda_driver_api_version": int(rt.driverGetVersion()),
    }
    try:
        info["nvrtc_version"] = ".".join(str(v) for v in cp.cuda.nvrtc.getVersion())
    except Exception as exc:  # recorded, not fatal: NVRTC still compiles if this query fails
        info["nvrtc_version"] = f"unknown ({type(exc).__name__})"
    try:
        import numpy

        info["numpy_version"] = numpy.__version__
    except ImportError:  # pragma: no cover - CuPy needs NumPy
        pass
    smi = smi_static()
    info["driver_version"] = smi.get("driver_version", "unknown")
    info["nvidia_smi_before"] = smi
    info["argv"] = list(sys.argv)
    return info
