"""A step's throughput with few resident warps, from the profile's measured efficiencies
(re-exported by :mod:`gpusim.engine.rates`, whose rates they scale)."""

from __future__ import annotations

from gpusim.profiles.schema import HardwareProfile

#: Warps per scheduler from which a step runs at the pipes' full rates (the profile's rates
#: are measured with at least this many).
FULL_RATE_WARPS_PER_SCHEDULER = 4


def step_efficiency(profile: HardwareProfile, warps_per_sm: int) -> float:
    """A step's throughput with ``warps_per_sm`` resident warps, over its full-SM throughput.

    With few warps per scheduler, one warp's latencies (a shared-memory load before the
    product that uses it, the softmax's dependent chain) are not hidden by another's work.
    The profile's measured values at 1 and 2 warps per scheduler
    (data/h200/2026-11-30_calibration_smem_overlap: a load, product and softmax loop),
    linear between them and up to 1 at 4; 1 where the profile has none.
    """
    one, two = (
        profile.step_efficiency_1_warp_per_scheduler,
        profile.step_efficiency_2_warps_per_scheduler,
    )
    if one is None or two is None:
        return 1.0
    w = warps_per_sm / profile.warp_schedulers_per_sm.value
    full = FULL_RATE_WARPS_PER_SCHEDULER
    if w <= 1:
        return one.value
    if w < 2:
        return one.value + (two.value - one.value) * (w - 1)
    if w < full:
        return two.value + (1.0 - two.value) * (w - 2) / (full - 2)
    return 1.0
