"""How fast an SM's schedulers serve its CTAs when fewer than all of them are computing.

The step efficiency of a tensor-core kernel (the pipe model's measured
``step_efficiency_*``, or the SM core model's replay of the compiled loop) is taken at
the kernel's occupancy: ``R`` CTAs per SM whose warps hide each other's load, product and
softmax latencies. But an SM's CTAs are not always all computing: a CTA that has just
started waits for its Q block and first tiles, one that ends stores its output, one
waits for a tile the L2 is slow to return, and at the end of the grid an SM runs out of
CTAs. Meanwhile its SM-mates' warps are alone on the schedulers, with fewer warps to hide
their latencies: their steps run at the efficiency of that many resident CTAs, not of
``R``. Both efficiencies are measurements the profile already has (no attention kernel
in them): ``step_efficiency_1/2_warps_per_scheduler`` (the smem_overlap loop at 1 and 2
warps per scheduler), or the core model's cycles per step for ``n`` resident CTAs.

The engine gives the SM's scheduler lane (:data:`gpusim.engine.rates.SCHED_LANE`, which
every serial phase of a step holds for its span) the capacity ``eff(n) / eff(R)`` while
``n`` CTAs per SM are in a compute stage (:class:`gpusim.engine.sm_group.SmGroup`).
"""

from __future__ import annotations

from collections.abc import Callable

from gpusim.mechanism import Mechanism

#: whether the engine follows the computing CTAs: on since held-out set 8
#: (reports/cta_ends_heldout8) judged it; :func:`following` sets it for a block
FOLLOWING = Mechanism(True)


def following(on: bool):
    """The engine with (``on``) or without this mechanism, for the held-out set that judges
    it against the model without it and the tests that recompute both."""
    return FOLLOWING.setting(on)


def capacity_table(efficiency: Callable[[int], float | None], resident: int) -> tuple[float, ...]:
    """``eff(n) / eff(resident)`` for ``n`` = 1 .. ``resident``; empty where one CTA per SM
    is resident (nothing changes) or an efficiency is None (no such count to follow: a
    profile without step efficiencies gives 1 for every count, so its steps never move)."""
    if resident <= 1 or not FOLLOWING.on:
        return ()
    effs = [efficiency(n) for n in range(1, resident + 1)]
    if any(e is None or not e > 0 for e in effs):
        return ()
    full = effs[-1]
    return tuple(e / full for e in effs)
