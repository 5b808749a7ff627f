"""What a workload command warns about besides its result: buffers larger than the GPU's
device memory, a flash2 schedule the CUDA kernel catalogue has no instance for, and the
profile's fields the engine reads but the profile lacks (:mod:`gpusim.profiles.gaps`).

All are facts a prediction still has (the model runs anyway), so they are a line on
standard error and keys in the JSON, not errors.
"""

from __future__ import annotations

from typing import Any

from gpusim.errors import GpusimError
from gpusim.profiles import HardwareProfile
from gpusim.profiles.gaps import borrowed_fields, gaps_line, missing_fields
from gpusim.schedule import Schedule
from gpusim.workload import Workload

#: The algorithm the kernel catalogue (:mod:`gpusim.kernel_catalog.instances`) implements.
CUDA_ALGORITHM = "flash2"


def memory_keys(
    algorithm: str,
    workload: Workload,
    profile: HardwareProfile,
    schedule: Schedule | None = None,
) -> dict[str, Any]:
    """``buffers_bytes`` (Q, K, V, O and, for standard, S and P; a split's partials) against
    the profile's ``dram_bytes``; ``exceeds_device_memory`` when they do not fit."""
    from gpusim.api.device_memory import algorithm_footprint_bytes

    need = algorithm_footprint_bytes(algorithm, workload, schedule)
    have = profile.dram_bytes.value
    return {
        "buffers_bytes": need,
        "device_memory_bytes": have,
        "exceeds_device_memory": need > have,
    }


def cuda_instance_keys(algorithm: str, workload: Workload, schedule: Schedule) -> dict[str, Any]:
    """For flash2: ``cuda_instance`` (the catalogue's key, or None) and, without one,
    ``cuda_instance_missing`` (the catalogue's reason). Empty for other algorithms."""
    if algorithm != CUDA_ALGORITHM:
        return {}
    if workload.backward:
        why = f"no CUDA kernel of the project runs flash2's backward (--pass {workload.pass_})"
        return {"cuda_instance": None, "cuda_instance_missing": why}
    from gpusim.kernel_catalog.instances import instance_for

    try:
        return {"cuda_instance": instance_for(workload, schedule).key}
    except GpusimError as e:
        return {"cuda_instance": None, "cuda_instance_missing": str(e)}


def _kernels(algorithm: str, workload: Workload, schedule: Schedule) -> list | None:
    """The kernels the algorithm launches for this schedule (None: it cannot say)."""
    from algorithms import ALGORITHMS

    try:
        return ALGORITHMS[algorithm].kernels(workload, schedule)
    except (KeyError, GpusimError, ValueError):
        return None


def notes(
    algorithm: str, workload: Workload, schedule: Schedule, profile: HardwareProfile
) -> tuple[dict[str, Any], list[str]]:
    """The JSON keys of both checks and their warning lines (``warnings`` is among the keys)."""
    keys = memory_keys(algorithm, workload, profile, schedule) | cuda_instance_keys(
        algorithm, workload, schedule
    )
    ks = _kernels(algorithm, workload, schedule)
    kernels = None if ks is None else len(ks)
    atomics = None if ks is None else any(k.adds_atomically() for k in ks)
    keys["profile_missing_fields"] = missing_fields(profile, workload.dtype, kernels, atomics)
    keys["profile_borrowed_fields"] = borrowed_fields(profile)
    warnings = []
    gaps = gaps_line(profile, workload.dtype, kernels, atomics)
    if gaps:
        warnings.append(gaps)
    if keys["exceeds_device_memory"]:
        warnings.append(
            f"{algorithm}'s buffers need {keys['buffers_bytes'] / 2**30:.1f} GiB, more "
            f"than {profile.name}'s {keys['device_memory_bytes'] / 2**30:.1f} GiB of device "
            "memory: it could not run as one launch"
        )
    if keys.get("cuda_instance_missing"):
        warnings.append(f"{keys['cuda_instance_missing']}; the prediction is the model's only")
    keys["warnings"] = warnings
    return keys, warnings
