"""The public Python API: what ``import gpusim`` offers, as functions over the model's types.

``simulate``, ``count``, ``tune``, ``verify`` and ``load_profile`` are in
:mod:`gpusim.api.functions`; :func:`build_inputs` (flat values to validated inputs, the
default schedule filled in) in :mod:`gpusim.api.inputs`, for the CLI, reports and sweeps.
"""

from gpusim.api.functions import count, load_profile, simulate, tune, verify
from gpusim.api.inputs import Inputs, build_inputs, check_schedule_fits, resolve_schedule
from gpusim.api.names import algorithm_named, closest, profile_named

__all__ = [
    "Inputs",
    "algorithm_named",
    "build_inputs",
    "check_schedule_fits",
    "closest",
    "count",
    "load_profile",
    "profile_named",
    "resolve_schedule",
    "simulate",
    "tune",
    "verify",
]
