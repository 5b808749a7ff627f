"""The most waves of CTAs one kernel may simulate: past it, a one-line refusal.

Why. The aggregated path simulates a grid wave by wave until one of its skips takes over
(the exact skip of a grid in lockstep, the stream skip, or the cut of a steady grid out of
lockstep, :mod:`gpusim.engine.scatter_skip`). The cut can only fire once a whole
super-period of the grid (the least common multiple of a batch-head's CTAs, the slots and
the SM groups' sizes) has been simulated, and a batch-head's CTAs grow with the length: a
non-causal flash2 of 100M tokens (B8 H32) would simulate about 390,000 waves, some 40
minutes, before it could cut. Rather than run that long, the engine refuses such a kernel
before its first wave when the cut is the only skip that could shorten it and cannot fire
within the budget, and stops any kernel whose simulated waves pass the budget anyway, each
with the same one-line error (issue 18: workloads past the limits are refused, not run
for hours).

The budget is :data:`MAX_SIMULATED_WAVES` waves of the GPU's CTA slots. About 7 ms of wall
time a wave on the 2-core CI machine for a 132-SM grid of one CTA per SM (B8 H32 non-causal
d128 at 512k tokens: 1,800 waves in 12 s), so a minute or two at the limit (a lumped causal
wave costs more: B1 H32 at 1M tokens simulates 1,986 waves in 15 s).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from gpusim.engine.scatter_skip import TAIL_WAVES
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


def check_before_start(
    run: KernelRun, never_skips: bool, cut_warm_ctas: int | None, cut_step: int | None
) -> None:
    """Refuse ``run`` before its first wave when no skip can shorten it (``never_skips``: a
    tracer, the detailed path) and its grid is past the budget, or when only the cut could
    and the cut needs more: ``cut_warm_ctas`` CTAs of warm-up, then one super-period
    ``cut_step`` of CTAs watched, then a wave of tail (None: another skip may apply, which
    the check while running covers)."""
    n = slots(run)
    waves = math.ceil(run.grid.total / n)
    if waves <= MAX_SIMULATED_WAVES:
        return
    if never_skips:
        why = "under a trace or on the detailed path, where no wave is skipped"
        raise _refusal(run, waves, why)
    if cut_warm_ctas is None or cut_step is None:
        return
    # The cut needs a super-period watched after the warm-up, and one to take off the end
    # with a tail left (scatter_skip.ScatterSkip.at_dispatch); a grid shorter than that is
    # simulated to its end (a long causal grid, whose period is two batch-heads).
    room = run.grid.total - cut_warm_ctas - (TAIL_WAVES + 1) * n
    needed = math.ceil((cut_warm_ctas + cut_step) / n) + 2 if room >= cut_step else waves
    if needed > MAX_SIMULATED_WAVES:
        why = ("before its steady state could be cut short" if room >= cut_step
               else "with a grid too short for the cut of a steady state")  # fmt: skip
        raise _refusal(run, needed, why)


def check_while_running(run: KernelRun, simulated_ctas: int) -> None:
    """Stop ``run`` once it has simulated more than the budget's waves."""
    if simulated_ctas > MAX_SIMULATED_WAVES * slots(run):
        remaining = run.end_cta - run.next_cta
        raise _refusal(run, math.ceil((simulated_ctas + remaining) / slots(run)),
                       "in all")  # fmt: skip
