"""A "what if" profile: the same GPU with fewer SMs (``--sm-count N``).

What a green-context partition of the GPU has, or a smaller part of the same family: the
SMs, each as the profile describes it, are fewer; the memory system (HBM, the L2 and its
bandwidth), the clocks and every per-SM figure stay the profile's. More SMs than the
profile has is refused: the memory system was measured (or specified) for at most that
many, and a part with more SMs is another GPU.
"""

from __future__ import annotations

from gpusim.errors import GpusimError
from gpusim.profiles.schema import HardwareProfile, Sourced


def with_sm_count(profile: HardwareProfile, sm_count: int | None) -> HardwareProfile:
    """``profile`` with ``sm_count`` SMs (itself when None or unchanged); a one-line
    :class:`GpusimError` for a count below 1 or beyond the profile's."""
    if sm_count is None:
        return profile
    full = profile.sm_count.value
    if isinstance(sm_count, bool) or not isinstance(sm_count, int):
        raise GpusimError(f"--sm-count must be a whole number of SMs, not {sm_count!r}")
    if not 1 <= sm_count <= full:
        raise GpusimError(
            f"--sm-count {sm_count} is outside 1..{full} (the SMs {profile.name} has)"
        )
    if sm_count == full:
        return profile
    why = (
        f"--sm-count override: {sm_count} of {profile.name}'s {full} SMs (memory system, "
        "L2 and clocks unchanged)"
    )
    return profile.model_copy(update={"sm_count": Sourced[int](value=sm_count, source=why)})
