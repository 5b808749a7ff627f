"""The default schedule the command line uses: the default rule's, kept to what the tuner accepts.

:func:`gpusim.tuning.rules.default_schedule` judges tiles by the register estimate and
shared memory alone, so for flash2 it can pick a tile the CUDA kernel has no instance for,
or whose compiled instance spills; ``gpusim tune`` rejects those. Here the rule's own
choice is kept when the tuner accepts it; otherwise the first schedule of the tuner's
search space, in the rule's order of preference, that the tuner accepts.
"""

from __future__ import annotations

from gpusim.kernel_catalog.compiled import compiled_footprints
from gpusim.profiles.schema import HardwareProfile
from gpusim.schedule import Schedule
from gpusim.tuning.feasibility import check
from gpusim.tuning.rules import (
    RULE_STAGES,
    RULE_WARPS,
    covering_block,
    default_schedule,
    tile_order,
)
from gpusim.tuning.space import search_space
from gpusim.workload import Workload


def oversize(workload: Workload, s: Schedule) -> float:
    """How many times the rows and columns of ``s``'s tile exceed what the sequences need (1:
    no larger than the rule's covering blocks). A decode step (one query) needs a 16-row
    tile; where no such instance is accepted, a 64-row tile computes 4x the rows it uses and
    a 128-row one 8x, so the least oversized is preferred, not the largest."""
    rows = s.block_m / covering_block(workload.seq_len_q)
    cols = s.block_n / covering_block(workload.seq_len_k)
    return max(rows, 1.0) * max(cols, 1.0)


def _preference(workload: Workload, s: Schedule) -> tuple:
    """The default rule's order: tiles no larger than the sequence needs (else the least
    oversized), the largest ``Br x Bc``, the squarer, the larger Br; then its warps and
    stages first."""
    return (
        oversize(workload, s),
        *tile_order(s.block_m, s.block_n),
        s.warps != RULE_WARPS,
        s.warps,
        s.stages != RULE_STAGES[0],
        s.stages,
    )


def accepted_default_schedule(
    algorithm: str,
    workload: Workload,
    profile: HardwareProfile,
    pinned: dict[str, int] | None = None,
) -> Schedule:
    """The default rule's schedule if ``gpusim tune`` accepts it for ``workload`` on
    ``profile``, else the rule's most preferred schedule that it accepts (the rule's
    choice when it accepts none: ``tune`` then fails with the reason).

    ``pinned`` (tile fields the user gave: ``block_m``, ``block_n``, ``warps``, ``stages``):
    the rule's most preferred accepted schedule with those values, so that the fields left
    out suit the ones given (``--block-m 64`` alone used to get the 128-row tile's 8 warps,
    8 rows a warp, which no mma.sync kernel runs); with none accepted, the rule's choice with
    the pinned values put in (the model's prediction alone, as the output then warns)."""
    base = default_schedule(algorithm, workload, profile.smem_per_block_bytes.value)
    pins = {k: v for k, v in (pinned or {}).items() if v is not None}
    space = search_space(algorithm, workload)
    table = compiled_footprints(profile.compute_capability) if space.instance_keys else {}

    def accepted(s: Schedule) -> bool:
        if s not in space.schedules or s in space.unsupported:
            return False
        compiled = table.get(space.instance_keys.get(s, ""))
        return check(algorithm, workload, s, profile, compiled).fits

    def pinned_ok(s: Schedule) -> bool:
        return all(getattr(s, k) == v for k, v in pins.items())

    if pinned_ok(base) and accepted(base):
        return base
    ranked = sorted(space.schedules, key=lambda s: _preference(workload, s))
    chosen = next((s for s in ranked if pinned_ok(s) and accepted(s)), None)
    return chosen or base.model_copy(update=pins)
