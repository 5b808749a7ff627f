"""The most waves of CTAs one kernel may simulate: past it, a one-line refusal.

Why. The aggregated path simulates a grid wave by wave until one of its skips takes over
(the exact skip of a grid in lockstep, the stream skip, or the cut of a steady grid out of
lockstep, :mod:`gpusim.engine.scatter_skip`). The cut can only fire once a whole
super-period of the grid (the least common multiple of a batch-head's CTAs, the slots and
the SM groups' sizes) has been simulated, and a batch-head's CTAs grow with the length: a
non-causal flash2 of 100M tokens (B8 H32) would simulate about 390,000 waves, some 40
minutes, before it could cut. Rather than run that long, the engine refuses such a kernel
before its first wave when the cut is the only skip that could shorten it and the waves it
would leave to simulate, cut at its earliest, pass the budget (a causal grid of B8 H32 at
4M tokens: 14,399; it was stopped at the budget after 70 s before), and stops any kernel
whose simulated waves pass the budget anyway, each with the same one-line error (issue 18:
workloads past the limits are refused, not run for hours).

The budget is :data:`MAX_SIMULATED_WAVES` waves of the GPU's CTA slots. About 7 ms of wall
time a wave on the 2-core CI machine for a 132-SM grid of one CTA per SM (B8 H32 non-causal
d128 at 512k tokens: 1,800 waves in 12 s), so a minute or two at the limit (a lumped causal
wave costs more: B1 H32 at 1M tokens simulates 1,986 waves in 15 s).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from gpusim.engine.scatter_skip import ScatterSkip, cut_ctas, super_period
from gpusim.errors import GpusimError

if TYPE_CHECKING:
    from gpusim.engine.kernel_run import KernelRun

#: Waves of CTA slots one kernel may simulate (skipped waves not counted).
MAX_SIMULATED_WAVES = 10_000


def _refusal(run: KernelRun, waves: int, why: str) -> GpusimError:
    return GpusimError(
        f"kernel {run.name} would simulate about {waves:,} waves of CTAs {why}, past the "
        f"limit of {MAX_SIMULATED_WAVES:,}; use fewer tokens or batch x heads, or larger "
        "blocks (--block-m, --block-n)"
    )


def slots(run: KernelRun) -> int:
    """The GPU's CTA slots for ``run``: CTAs per SM times SMs."""
    return max(1, run.ctas_per_sm * run.sim.rates.sm_count)


def check_before_start(run: KernelRun, never_skips: bool, cut: ScatterSkip | None) -> int:
    """Refuse ``run`` before its first wave when its grid is past the budget and no skip can
    shorten it (``never_skips``: a tracer, the detailed path), or only ``cut`` could and the
    CTAs it would leave to simulate, fired at its earliest, still pass the budget (``cut``
    None: another skip may apply, which the check while running covers). Returns the budget
    in CTAs, which :func:`past` checks while it runs."""
    n = slots(run)
    budget = MAX_SIMULATED_WAVES * n
    waves = math.ceil(run.grid.total / n)
    if waves <= MAX_SIMULATED_WAVES:
        return budget
    if never_skips:
        why = "under a trace or on the detailed path, where no wave is skipped"
        raise _refusal(run, waves, why)
    if cut is None:
        return budget
    # The cut needs a super-period watched after the warm-up, and takes whole super-periods
    # off the end with a tail left (scatter_skip.ScatterSkip.at_dispatch). Fired at the
    # earliest mark it can, it leaves the fewest CTAs to simulate: if even those pass the
    # budget, so would the run (a causal grid whose batch-heads span many waves: its rate is
    # never steady within a few waves, and a cut after one super-period still leaves up to
    # another one to run). The SM groups are the first wave's here; the cut takes them at
    # its first mark.
    step = super_period(run, cut.slots)
    skip = cut_ctas(run.grid.total - cut.warm_ctas - step, cut.slots, step)
    simulated = run.grid.total - skip
    if simulated > budget:
        why = ("even with its steady state cut short" if skip
               else "with a grid too short for the cut of a steady state")  # fmt: skip
        raise _refusal(run, math.ceil(simulated / n), why)
    return budget


def past(run: KernelRun, simulated_ctas: int) -> GpusimError:
    """The error that stops ``run`` once it has simulated more than the budget's CTAs."""
    remaining = run.end_cta - run.next_cta
    return _refusal(run, math.ceil((simulated_ctas + remaining) / slots(run)), "in all")
