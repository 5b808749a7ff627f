"""What every benchmark needs: CuPy, the device's basic shape, the options, a log."""

from __future__ import annotations

import datetime as dt
import sys
from dataclasses import dataclass, field
from typing import Any

from gpusim.errors import GpusimError


@dataclass
class BenchContext:
    """The GPU at hand and the run's options, handed to each benchmark's ``run``."""

    cp: Any
    gpu_name: str
    sm_count: int
    date: str
    quick: bool = False
    log_lines: list[str] = field(default_factory=list)

    def log(self, message: str) -> None:
        """Progress goes to standard error (standard output is the JSON)."""
        self.log_lines.append(message)
        print(f"[calibrate] {message}", file=sys.stderr, flush=True)

    def source(self, bench: str) -> str:
        """The source string every value measured by ``bench`` carries."""
        return f"measured on {self.gpu_name}, {self.date}, gpusim calibrate {bench}"

    def scale(self, full: int, quick: int) -> int:
        """A size or repeat count: full for a real calibration, small for a smoke test."""
        return quick if self.quick else full


def import_cupy() -> Any:
    """CuPy with at least one visible GPU, or a one-line GpusimError saying what is missing."""
    try:
        import cupy as cp
    except ImportError as exc:
        raise GpusimError(
            "gpusim calibrate needs CuPy and an NVIDIA GPU, and CuPy is not installed "
            "(pip install cupy-cuda12x or cupy-cuda13x); --from RESULTS rebuilds a profile "
            "from recorded results without a GPU"
        ) from exc
    try:
        count = cp.cuda.runtime.getDeviceCount()
    except Exception as exc:
        raise GpusimError(
            f"gpusim calibrate needs an NVIDIA GPU and CUDA found none ({_one_line(exc)}); "
            "--from RESULTS rebuilds a profile from recorded results without a GPU"
        ) from exc
    if count < 1:
        raise GpusimError("gpusim calibrate needs an NVIDIA GPU and CUDA found none")
    return cp


def make_context(cp: Any, quick: bool = False) -> BenchContext:
    """A context for device 0."""
    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"]
    name = name.decode() if isinstance(name, bytes) else str(name)
    sm_count = int(props["multiProcessorCount"])
    today = dt.datetime.now(dt.UTC).date().isoformat()
    return BenchContext(cp=cp, gpu_name=name, sm_count=sm_count, date=today, quick=quick)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__
