"""Which schedules fit a GPU, and for those that do not, why (with the numbers).

A schedule fits when the algorithm accepts it and every kernel of the algorithm
can place one CTA on an SM: shared memory within the per-CTA limit (the
profile's, or ``--sram-kib``), registers per thread below the 255 cap (at the
cap the estimate means a spill; with the compiled instance's ptxas report, its
real registers, and any spill rejects it), and the occupancy model's limits (threads per
block, registers per thread and per SM, warps per SM; :mod:`gpusim.occupancy`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gpusim.errors import GpusimError
from gpusim.kernel_catalog.compiled import Compiled
from gpusim.occupancy import occupancy
from gpusim.profiles.schema import HardwareProfile
from gpusim.schedule import Schedule
from gpusim.tuning.rules import MAX_REGS_PER_THREAD
from gpusim.workload import Workload


@dataclass(frozen=True)
class Footprint:
    """The largest per-CTA needs over an algorithm's kernels."""

    smem_bytes_per_cta: int
    regs_per_thread: int
    threads_per_cta: int
    #: the kernel is the tile instance's code: the instance's compiled registers are its own
    tile_instance: bool = False


@dataclass(frozen=True)
class Verdict:
    """A schedule's footprint and, when it does not fit, the first reason why."""

    schedule: Schedule
    footprint: Footprint | None  # None when the algorithm rejects the schedule outright
    reason: str | None  # None: it fits
    ctas_per_sm: int = 0  # resident CTAs per SM of the most constrained kernel, when it fits

    @property
    def fits(self) -> bool:
        """Whether the schedule can run."""
        return self.reason is None


def footprint(algorithm: str, workload: Workload, schedule: Schedule) -> list[Footprint]:
    """Shared memory, registers and threads of one CTA of each kernel, in launch order."""
    from algorithms import get_algorithm  # late: algorithms imports gpusim, not the reverse

    kernels = get_algorithm(algorithm).kernels(workload, schedule)
    return [
        Footprint(c.smem_bytes, c.regs_per_thread, c.threads, k.uses_tile_instance())
        for k, c in ((k, k.on_chip()) for k in kernels)
    ]


def _worst(fps: list[Footprint]) -> Footprint:
    return Footprint(
        max(f.smem_bytes_per_cta for f in fps),
        max(f.regs_per_thread for f in fps),
        max(f.threads_per_cta for f in fps),
    )


def _reason(fp: Footprint, profile: HardwareProfile, compiled: Compiled | None) -> str | None:
    smem_limit = profile.smem_per_block_bytes.value
    if fp.smem_bytes_per_cta > smem_limit:
        return (
            f"shared memory: needs {fp.smem_bytes_per_cta} B per CTA, "
            f"{smem_limit} B available per CTA"
        )
    if compiled is not None:  # the real registers: a spill is a fact, not an estimate
        return compiled.spill_reason() if compiled.spills else None
    cap = min(MAX_REGS_PER_THREAD, profile.registers_per_thread_max.value)
    if fp.regs_per_thread >= cap:
        return (
            f"registers: the estimate reaches the {cap} per-thread cap, "
            f"so the tile would spill to local memory"
        )
    return None


def _check_class(workload: Workload, schedule: Schedule) -> None:
    """The class's own shape rules (wgmma: Br per warpgroup, N of both products)."""
    from gpusim.kernel_class import WGMMA_MAX_N, WGMMA_N_STEP, resolve_class

    cls = resolve_class(schedule, workload.dtype)
    d = workload.head_dim
    if cls.product == "wgmma" and (d % WGMMA_N_STEP or d > WGMMA_MAX_N):
        raise GpusimError(
            f"--mma wgmma: head_dim {d} breaks wgmma's shape rule for P V (N a multiple of "
            f"{WGMMA_N_STEP} up to {WGMMA_MAX_N})"
        )


def check(
    algorithm: str,
    workload: Workload,
    schedule: Schedule,
    profile: HardwareProfile,
    compiled: Compiled | None = None,
) -> Verdict:
    """Whether ``schedule`` fits ``profile`` (already carrying any SRAM override), and why not.

    ``compiled`` (ptxas's report of the kernel instance) replaces the register estimate.
    """
    from algorithms import get_algorithm

    try:
        get_algorithm(algorithm).check(workload, schedule)
        _check_class(workload, schedule)
        fps = footprint(algorithm, workload, schedule)
    except GpusimError as e:
        return Verdict(schedule, None, str(e))
    if compiled is not None:
        fps = [
            replace(f, regs_per_thread=compiled.registers) if f.tile_instance else f for f in fps
        ]
    worst = _worst(fps)
    for fp in fps:
        why = _reason(fp, profile, compiled if fp.tile_instance else None)
        if why is not None:
            return Verdict(schedule, worst, why)
    try:
        ctas = min(
            occupancy(
                profile, f.smem_bytes_per_cta, f.threads_per_cta, f.regs_per_thread
            ).ctas_per_sm
            for f in fps
        )
    except GpusimError as e:
        return Verdict(schedule, worst, f"occupancy: {e}")
    return Verdict(schedule, worst, None, ctas)
