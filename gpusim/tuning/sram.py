"""A "what if" profile: the same GPU with a different shared-memory (SRAM) size.

``--sram-kib N`` means: one CTA may use up to ``N`` KiB, and the SM has exactly
enough shared memory for one such CTA plus the driver's per-CTA reservation
(as on the real parts: the H200 has 227 KiB per block and 228 KiB per SM);
a size off the allocation unit is rounded up for the SM. The
occupancy model and the engine see the modified copy, so smaller tiles on a
small SRAM also gain co-resident CTAs, and a larger SRAM admits more.
"""

from __future__ import annotations

import math

from gpusim.errors import GpusimError
from gpusim.occupancy import allocated_smem_bytes
from gpusim.profiles.schema import HardwareProfile, Sourced, SourcedList

KIB = 1024


def with_sram_bytes(profile: HardwareProfile, smem_per_block_bytes: int) -> HardwareProfile:
    """A copy of ``profile`` whose per-CTA shared memory is ``smem_per_block_bytes``."""
    if smem_per_block_bytes <= 0:
        raise GpusimError(f"--sram-kib must be positive, got {smem_per_block_bytes / KIB:g} KiB")
    why = f"--sram-kib override ({smem_per_block_bytes / KIB:g} KiB per CTA)"
    reserved = profile.smem_reserved_per_block_bytes.value
    # One CTA of the full size must fit once rounded to the allocation unit (as occupancy does).
    per_sm = allocated_smem_bytes(profile, smem_per_block_bytes)
    per_sm_kib = -(-per_sm // KIB)
    # Carve-out steps beyond the new SM size do not exist on the imagined part; its full size does.
    steps = sorted(
        {s for s in profile.smem_carveout_steps_kib.value if s < per_sm_kib} | {per_sm_kib}
    )
    return profile.model_copy(
        update={
            "smem_per_block_bytes": Sourced[int](value=smem_per_block_bytes, source=why),
            "smem_per_sm_bytes": Sourced[int](
                value=per_sm, source=f"{why} plus the {reserved} B per-CTA reservation"
            ),
            "smem_carveout_steps_kib": SourcedList(value=steps, source=why),
        }
    )


def sram_kib_to_bytes(sram_kib: float) -> int:
    """``--sram-kib`` (may be fractional) as whole bytes."""
    size_bytes = sram_kib * KIB
    if not 0 < size_bytes < math.inf:  # NaN, inf and 1e308 KiB too: round() cannot take them
        raise GpusimError(f"--sram-kib must be a positive, finite number of KiB, got {sram_kib}")
    return round(size_bytes)
