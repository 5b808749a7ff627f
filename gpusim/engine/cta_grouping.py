"""A step's efficiency by how the SM's resident warps are grouped into CTAs.

The profile's step efficiencies (:func:`gpusim.engine.rates.step_efficiency`) depend on the
warps per scheduler alone: each is the mean of the smem_overlap loops launched as one CTA of
many warps and as several CTAs of four. The same loops at the same warps per scheduler run at
different speeds by their grouping (an H100, ``data/h100/2026-12-06_calibration_step_size``:
one CTA of 8 warps 4-19 % slower than two of 4, one of 16 4-12 % slower than four of 4): the
warps of one CTA meet at its barrier every step, so they take the products and the softmax
together, where warps of different CTAs run one's softmax beside another's products.

Where a profile has ``step_efficiency_by_cta_warps`` (``python -m gpusim.calibrate.step_grouping``,
no attention code) for a kernel's warps per CTA, the step efficiency of ``n`` resident CTAs is
that table's value at ``n``: linear between the measured counts, the nearest one beyond them.
Its reference is the per-scheduler values' (four warps a scheduler: the mean of one 16-warp
CTA and four 4-warp CTAs), so the pipe rates keep their meaning. Other warps per CTA, and
profiles without the table, keep the per-scheduler rule; where a profile has the table but not
the kernel's warps per CTA, the kernel's result says so (``timing_note``).
"""

from __future__ import annotations

from itertools import pairwise

from gpusim.engine.step_efficiency import step_efficiency
from gpusim.profiles.schema import HardwareProfile

FIELD = "step_efficiency_by_cta_warps"


def grouped(profile: HardwareProfile, warps_per_cta: int) -> list[tuple[int, float]] | None:
    """The profile's measured ``[(CTAs per SM, efficiency)]`` for CTAs of ``warps_per_cta``
    warps, or None where it has none."""
    table = getattr(profile, FIELD)
    rows = None if table is None else table.value.get(str(warps_per_cta))
    return sorted(rows) if rows else None


def at_count(rows: list[tuple[int, float]], ctas: float) -> float:
    """``rows`` (rising counts) at ``ctas``: linear between counts, the nearest beyond."""
    if ctas <= rows[0][0]:
        return rows[0][1]
    for (n0, e0), (n1, e1) in pairwise(rows):
        if ctas <= n1:
            return e0 + (e1 - e0) * (ctas - n0) / (n1 - n0)
    return rows[-1][1]


def launch_efficiency(profile: HardwareProfile, ctas: int, warps_per_cta: int) -> float:
    """A step's efficiency with ``ctas`` resident CTAs of ``warps_per_cta`` warps on an SM."""
    rows = grouped(profile, warps_per_cta)
    if rows is None:
        return step_efficiency(profile, ctas * warps_per_cta)
    return at_count(rows, ctas)


def grouping_note(profile: HardwareProfile, kernel: str, warps_per_cta: int) -> str | None:
    """One line where ``profile`` has the table but not ``warps_per_cta`` (None otherwise)."""
    table = getattr(profile, FIELD)
    if table is None or grouped(profile, warps_per_cta) is not None:
        return None
    has = ", ".join(sorted(table.value))
    return (
        f"{kernel}: {profile.name}'s {FIELD} has CTAs of {has} warps, not {warps_per_cta}: "
        "its steps take the per-scheduler step efficiency"
    )
