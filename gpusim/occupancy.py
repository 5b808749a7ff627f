"""How many CTAs of a kernel fit on one SM, and which resource stops the next one.

The model is the CUDA occupancy calculator's: shared memory per CTA is rounded up
to the allocation unit and charged the per-CTA system reservation; registers are
allocated per warp in units of ``register_alloc_unit_per_warp``, and the warps the
register file can hold are rounded down to the warp allocation granularity (one
slot per SM sub-partition); warps and CTAs per SM have hard limits. The shared
memory carve-out is the smallest supported step that holds the resident CTAs;
whatever is left of the unified L1/shared array stays L1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gpusim.errors import GpusimError
from gpusim.profiles.schema import HardwareProfile

KIB = 1024

Limit = Literal["smem", "registers", "warps", "blocks", "cap"]


@dataclass(frozen=True)
class Occupancy:
    """Resident CTAs per SM for one kernel configuration, and what limits them.

    ``limits`` holds the CTA count each resource alone would allow; ``bound_by``
    names the smallest. Ties go to the hard limits first (warps, blocks, then shared
    memory, registers): 256 threads of 32 registers are bound by warps, not registers.
    A launch cap (``cap``) binds only when it is below every resource's limit.
    """

    ctas_per_sm: int
    bound_by: Limit
    limits: dict[str, int]
    warps_per_cta: int
    smem_bytes_per_cta: int  # as allocated: rounded up, reservation included
    regs_per_warp: int  # as allocated
    smem_carveout_bytes: int  # the carve-out step the resident CTAs need
    max_warps_per_sm: int

    @property
    def warps_per_sm(self) -> int:
        """Resident warps per SM."""
        return self.ctas_per_sm * self.warps_per_cta

    @property
    def fraction(self) -> float:
        """Resident warps over the SM's maximum (the calculator's "occupancy")."""
        return self.warps_per_sm / self.max_warps_per_sm

    def as_dict(self) -> dict[str, object]:
        """A JSON-ready summary."""
        return {
            "ctas_per_sm": self.ctas_per_sm,
            "bound_by": self.bound_by,
            "limits": dict(self.limits),
            "warps_per_sm": self.warps_per_sm,
            "occupancy": self.fraction,
            "smem_bytes_per_cta_allocated": self.smem_bytes_per_cta,
            "regs_per_warp_allocated": self.regs_per_warp,
            "smem_carveout_bytes": self.smem_carveout_bytes,
        }


def _round_up(n: int, unit: int) -> int:
    return -(-n // unit) * unit


def regs_per_warp(profile: HardwareProfile, regs_per_thread: int) -> int:
    """Registers one warp is allocated (rounded up to the allocation unit)."""
    regs = regs_per_thread * profile.warp_size_threads.value
    return _round_up(regs, profile.register_alloc_unit_per_warp.value)


def allocated_smem_bytes(profile: HardwareProfile, smem_bytes_per_cta: int) -> int:
    """Shared memory one CTA takes from the SM: rounded up, plus the system reservation."""
    unit = profile.smem_alloc_unit_bytes.value
    return _round_up(smem_bytes_per_cta, unit) + profile.smem_reserved_per_block_bytes.value


def check_fits(
    profile: HardwareProfile, smem_bytes_per_cta: int, threads_per_cta: int, regs_per_thread: int
) -> None:
    """Raise :class:`GpusimError` if one CTA cannot run: one line, what it needs and the limit."""
    name = profile.name
    if smem_bytes_per_cta < 0 or threads_per_cta <= 0 or regs_per_thread <= 0:
        raise GpusimError(
            f"a CTA needs threads > 0 and registers > 0 and shared memory >= 0; got "
            f"{threads_per_cta} threads, {regs_per_thread} registers, {smem_bytes_per_cta} bytes"
        )
    limit = profile.smem_per_block_bytes.value
    if smem_bytes_per_cta > limit:
        raise GpusimError(
            f"schedule needs {smem_bytes_per_cta:,} bytes of shared memory per CTA; "
            f"{name} allows {limit:,}"
        )
    if threads_per_cta > profile.max_threads_per_block.value:
        raise GpusimError(
            f"schedule needs {threads_per_cta:,} threads per CTA, more than the "
            f"{profile.max_threads_per_block.value:,} max threads per block of {name}"
        )
    if regs_per_thread > profile.registers_per_thread_max.value:
        raise GpusimError(
            f"schedule needs {regs_per_thread} registers per thread; "
            f"{name} allows {profile.registers_per_thread_max.value}"
        )
    warps = -(-threads_per_cta // profile.warp_size_threads.value)
    per_warp = regs_per_warp(profile, regs_per_thread)
    if warps * per_warp > profile.registers_per_sm.value:
        raise GpusimError(
            f"{warps} warps x {regs_per_thread} registers ({warps * per_warp:,} as allocated) "
            f"exceed the {profile.registers_per_sm.value:,} registers of one {name} SM"
        )


def occupancy(
    profile: HardwareProfile,
    smem_bytes_per_cta: int,
    threads_per_cta: int,
    regs_per_thread: int,
    max_ctas_per_sm: int | None = None,
) -> Occupancy:
    """Resident CTAs per SM and the binding limit; raises like :func:`check_fits` if none fits.

    ``max_ctas_per_sm`` caps the count (a launch that pads its shared memory); the
    carve-out is then the one the capped CTAs need.
    """
    check_fits(profile, smem_bytes_per_cta, threads_per_cta, regs_per_thread)
    if max_ctas_per_sm is not None and max_ctas_per_sm < 1:
        raise GpusimError(f"the CTAs-per-SM cap must be at least 1, got {max_ctas_per_sm}")
    warps = -(-threads_per_cta // profile.warp_size_threads.value)
    smem = allocated_smem_bytes(profile, smem_bytes_per_cta)
    per_warp = regs_per_warp(profile, regs_per_thread)
    gran = profile.warp_alloc_granularity.value
    reg_warps = profile.registers_per_sm.value // per_warp // gran * gran
    limits: dict[str, int] = {  # in tie-break order
        "warps": profile.max_warps_per_sm.value // warps,
        "blocks": profile.max_blocks_per_sm.value,
        "smem": profile.smem_per_sm_bytes.value // smem,
        "registers": reg_warps // warps,
    }
    if max_ctas_per_sm is not None:
        limits["cap"] = max_ctas_per_sm  # last: a resource that allows as many binds first
    bound: Limit = min(limits, key=lambda k: limits[k])  # type: ignore[assignment]
    ctas = limits[bound]
    if ctas < 1:
        # Only the warp-granularity rounding can get here (check_fits passed).
        raise GpusimError(
            f"{warps} warps x {regs_per_thread} registers do not fit one {profile.name} SM once "
            f"warps are allocated in groups of {gran}"
        )
    return Occupancy(
        ctas_per_sm=ctas,
        bound_by=bound,
        limits=limits,
        warps_per_cta=warps,
        smem_bytes_per_cta=smem,
        regs_per_warp=per_warp,
        smem_carveout_bytes=_carveout(profile, ctas * smem),
        max_warps_per_sm=profile.max_warps_per_sm.value,
    )


def _carveout(profile: HardwareProfile, smem_bytes: int) -> int:
    for step in profile.smem_carveout_steps_kib.value:
        if step * KIB >= smem_bytes:
            return step * KIB
    return profile.smem_per_sm_bytes.value
