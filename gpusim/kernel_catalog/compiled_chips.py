"""Where a simulation's registers per thread come from: ptxas's report for the CUDA kernel
instance that runs the schedule, where the offline build recorded it, else the algorithm's
estimate.

The register estimate of the algorithms is a formula; for flash2's tile instances the build
(``python -m gpusim.kernels.build``) records what ptxas allocated, a fact about the code
that runs (no timing in it). ``gpusim tune`` has used it for its candidates' occupancy; the
same holds for one simulation: the project's d64 128x64 w4 instance compiles to 221
registers, two CTAs per SM, where the estimate's 168 allowed three (long-context held-out set
5 counted the two with Nsight Compute). Variants the build did not record (K/V walked
backward, first-first launch order, GQA) and other kernel classes (wgmma, TMA) keep the
estimate, and the result says which.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from algorithms import get_algorithm
from gpusim.errors import GpusimError
from gpusim.kernel_catalog.compiled import compiled_footprints
from gpusim.kernel_catalog.instances import instance_for
from gpusim.kernel_class import resolve_class
from gpusim.profiles.schema import HardwareProfile
from gpusim.schedule import Schedule
from gpusim.workload import Workload

#: the algorithm the CUDA kernel instances implement
CUDA_ALGORITHM = "flash2"
ESTIMATE = "estimate"
#: where ``simulate --footprints`` takes the registers from (the tuner's names)
FOOTPRINTS = ("compiled", "estimate")


def compiled_on_chip(
    algorithm: str, workload: Workload, schedule: Schedule, profile: HardwareProfile
) -> tuple[dict[str, Any], str]:
    """``({kernel name: on-chip needs with ptxas's registers}, "ptxas (instance)")`` for the
    kernels that are the schedule's recorded instance, or ``({}, "estimate")``."""
    if algorithm != CUDA_ALGORITHM:
        return {}, ESTIMATE
    try:
        # the instances are the project's class only (mma.sync or ffma, cp.async): a wgmma or
        # TMA description is another kernel, whose registers ptxas has not reported here
        if not resolve_class(schedule, workload.dtype).is_project_kernel:
            return {}, ESTIMATE
        key = instance_for(workload, schedule).key
    except GpusimError:
        return {}, ESTIMATE
    comp = compiled_footprints(profile.compute_capability).get(key)
    if comp is None:
        return {}, ESTIMATE
    chips = {
        k.name: replace(k.on_chip(), regs_per_thread=comp.registers)
        for k in get_algorithm(algorithm).kernels(workload, schedule)
        if k.uses_tile_instance()
    }
    return chips, (f"ptxas ({key})" if chips else ESTIMATE)


def simulation_chips(
    algorithm: str,
    workload: Workload,
    schedule: Schedule,
    profile: HardwareProfile,
    footprints: str,
    binary: Any = None,
) -> tuple[dict[str, Any], str]:
    """The on-chip needs one simulation runs with, and where its registers came from: a
    binary's own (``"binary"``, the engine reads them from it), ptxas's for the recorded
    instance (``footprints="compiled"``), or the estimate. An unknown ``footprints`` is a
    GpusimError."""
    if footprints not in FOOTPRINTS:
        raise GpusimError(f"unknown footprints {footprints!r}; use compiled or estimate")
    if binary is not None:
        return {}, "binary"
    if footprints == "compiled":
        return compiled_on_chip(algorithm, workload, schedule, profile)
    return {}, ESTIMATE


def record_registers(result: Any, chips: dict[str, Any], source: str) -> None:
    """Say on ``result`` (a SimResult) where its registers came from, and make its count's
    ``regs_per_thread`` (whole run and per kernel) the ones the engine ran with."""
    result.registers_from = source
    if not chips:
        return
    for k in result.count.get("kernels", []):
        if k.get("name") in chips:
            k["regs_per_thread"] = chips[k["name"]].regs_per_thread
    per_kernel = [k.get("regs_per_thread") for k in result.count.get("kernels", [])]
    if per_kernel and all(isinstance(x, int) for x in per_kernel):
        result.count["regs_per_thread"] = max(per_kernel)
