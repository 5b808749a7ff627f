"""Which schedules fit a GPU, and for those that do not, why (with the numbers).

A schedule fits when every kernel of the algorithm fits one CTA on an SM:
shared memory within the per-CTA limit (the profile's, or ``--sram-kib``),
registers per thread below the 255 cap (at the cap the estimate means a spill)
and within the SM's register file, threads within the per-block limit, warps
within the per-SM limit, and the algorithm accepts the workload.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpusim.errors import GpusimError
from gpusim.profiles.schema import HardwareProfile
from gpusim.schedule import Schedule
from gpusim.tuning.rules import MAX_REGS_PER_THREAD
from gpusim.workload import Workload

WARP_THREADS = 32


@dataclass(frozen=True)
class Footprint:
    """The largest per-CTA needs over an algorithm's kernels."""

    smem_bytes_per_cta: int
    regs_per_thread: int
    threads_per_cta: int


@dataclass(frozen=True)
class Verdict:
    """A schedule's footprint and, when it does not fit, the first reason why."""

    schedule: Schedule
    footprint: Footprint | None  # None when the algorithm rejects the schedule outright
    reason: str | None  # None: it fits

    @property
    def fits(self) -> bool:
        """Whether the schedule can run."""
        return self.reason is None


def footprint(algorithm: str, workload: Workload, schedule: Schedule) -> Footprint:
    """Shared memory, registers and threads of one CTA, the maximum over the kernels."""
    from algorithms import get_algorithm  # late: algorithms imports gpusim, not the reverse

    chips = [k.on_chip() for k in get_algorithm(algorithm).kernels(workload, schedule)]
    return Footprint(
        max(c.smem_bytes for c in chips),
        max(c.regs_per_thread for c in chips),
        max(c.threads for c in chips),
    )


def regs_per_cta(profile: HardwareProfile, regs_per_thread: int, threads: int) -> int:
    """Registers one CTA takes from the SM's file, rounded to the per-warp allocation unit."""
    unit = profile.register_alloc_unit_per_warp.value
    per_warp = -(-regs_per_thread * WARP_THREADS // unit) * unit
    return per_warp * -(-threads // WARP_THREADS)


def _reason(fp: Footprint, profile: HardwareProfile) -> str | None:
    smem_limit = profile.smem_per_block_bytes.value
    if fp.smem_bytes_per_cta > smem_limit:
        return (
            f"shared memory: needs {fp.smem_bytes_per_cta} B per CTA, "
            f"{smem_limit} B available per CTA"
        )
    cap = min(MAX_REGS_PER_THREAD, profile.registers_per_thread_max.value)
    if fp.regs_per_thread >= cap:
        return (
            f"registers: the estimate reaches the {cap} per-thread cap, "
            f"so the tile would spill to local memory"
        )
    if fp.threads_per_cta > profile.max_threads_per_block.value:
        return (
            f"threads: {fp.threads_per_cta} per CTA, limit "
            f"{profile.max_threads_per_block.value} per block"
        )
    warps = -(-fp.threads_per_cta // WARP_THREADS)
    if warps > profile.max_warps_per_sm.value:
        return f"warps: {warps} per CTA, limit {profile.max_warps_per_sm.value} per SM"
    regs = regs_per_cta(profile, fp.regs_per_thread, fp.threads_per_cta)
    if regs > profile.registers_per_sm.value:
        return (
            f"registers: {fp.regs_per_thread} per thread x {fp.threads_per_cta} threads "
            f"= {regs} (allocated), the SM has {profile.registers_per_sm.value}"
        )
    return None


def check(
    algorithm: str, workload: Workload, schedule: Schedule, profile: HardwareProfile
) -> Verdict:
    """Whether ``schedule`` fits ``profile`` (already carrying any SRAM override), and why not."""
    from algorithms import get_algorithm

    try:
        get_algorithm(algorithm).check(workload, schedule)
        fp = footprint(algorithm, workload, schedule)
    except GpusimError as e:
        return Verdict(schedule, None, str(e))
    return Verdict(schedule, fp, _reason(fp, profile))
