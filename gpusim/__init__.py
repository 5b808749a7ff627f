"""gpusim: a discrete-event GPU simulator and cost model for attention kernels.

The public API (:mod:`gpusim.api`) is imported on first use, so that modules of the package
that only need ``gpusim.__version__`` or a leaf type do not load the engine::

    import gpusim
    w = gpusim.Workload(batch=4, heads=16, seq_len_q=4096, seq_len_k=4096, head_dim=128)
    r = gpusim.simulate("flash2", w, gpusim.Schedule(block_m=128, block_n=64), "h200-sxm")
"""

from __future__ import annotations

import importlib
from typing import Any

from gpusim.version import __version__ as __version__

#: Public name -> the module that defines it.
_EXPORTS = {
    "simulate": "gpusim.api.functions",
    "count": "gpusim.api.functions",
    "tune": "gpusim.api.functions",
    "verify": "gpusim.api.functions",
    "load_profile": "gpusim.api.functions",
    "Workload": "gpusim.workload",
    "Schedule": "gpusim.schedule",
    "HardwareProfile": "gpusim.profiles.schema",
    "GpusimError": "gpusim.errors",
    "SimResult": "gpusim.engine.result",
    "KernelResult": "gpusim.engine.result",
    "Counts": "gpusim.counting",
    "KernelCounts": "gpusim.counting",
    "TuneResult": "gpusim.tuning.tuner",
    "Candidate": "gpusim.tuning.tuner",
    "VerifyResult": "gpusim.numeric_verify",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    """Load a public name's module the first time the name is read."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'gpusim' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
