"""Launches with fewer CTAs per SM than fit: the shared memory per SM as a budget.

A kernel can keep CTAs off an SM by asking for more dynamic shared memory than
it uses (or a smaller carve-out): the SM then holds ``budget // smem`` of them.
Fewer resident CTAs can be faster (a better last wave, less contention), so the
tuner tries each budget at which some kernel's count changes, and keeps the
faster launch.

Why budgets and not a bare cap: a budget of ``B`` bytes per SM gives every
kernel of an algorithm exactly the CTAs per SM it would have on the same GPU
with ``B`` bytes of shared memory per SM, so the launches of a smaller
``--sram-kib`` are all among these. The engine's prediction depends on the
shared memory only through the CTAs per SM, so the best launch with more SRAM
is never slower than the best with less.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from algorithms.base import OnChip
from gpusim.occupancy import allocated_smem_bytes, occupancy
from gpusim.profiles.schema import HardwareProfile


@dataclass(frozen=True)
class LaunchCap:
    """A shared-memory budget per SM and the CTAs per SM it leaves each kernel."""

    smem_per_sm_bytes: int
    ctas_per_sm: dict[str, int]  # kernel name -> CTAs per SM under the budget


def launch_caps(profile: HardwareProfile, chips: Mapping[str, OnChip]) -> list[LaunchCap]:
    """Every budget below the SM's that changes some kernel's CTAs per SM, smallest first.

    Each kernel keeps at least one CTA per SM (a budget below a kernel's own
    allocation is no launch at all); budgets that give the same counts are one.
    """
    full = {
        k: occupancy(profile, c.smem_bytes, c.threads, c.regs_per_thread).ctas_per_sm
        for k, c in chips.items()
    }
    alloc = {k: allocated_smem_bytes(profile, c.smem_bytes) for k, c in chips.items()}
    floor_bytes = max(alloc.values(), default=0)
    # A kernel's count changes at each multiple of its allocation; at its own full count
    # another kernel may still be below its own.
    budgets = sorted({n * alloc[k] for k in chips for n in range(1, full[k] + 1)})
    out: list[LaunchCap] = []
    seen = {tuple(full.values())}
    for b in budgets:
        if b < floor_bytes:
            continue
        counts = {k: min(full[k], b // alloc[k]) for k in chips}
        key = tuple(counts.values())
        if key in seen:
            continue
        seen.add(key)
        out.append(LaunchCap(b, counts))
    return out
