"""SMs in identical state, simulated once: their pipes and which CTA group holds each slot.

The aggregated path starts a kernel with one SM group of every SM and splits
it only when SMs stop being alike: when one dispatch hands them CTAs of
different classes, or when the grid runs out and some get none (the tail).
The detailed path starts with one SM group per SM and never splits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpusim.engine.ps_channel import PSServer
from gpusim.engine.rates import SCHED_LANE, SM_LANES

if TYPE_CHECKING:
    from gpusim.engine.cta_group import CtaGroup
    from gpusim.engine.kernel_run import KernelRun


class SmGroup:
    """SMs ``sm0 .. sm0+size-1``; ``slots[i]`` is the group on slot ``i`` of each (or None)."""

    __slots__ = ("_cap", "_sched", "computing", "pipes", "size", "slots", "sm0")

    def __init__(self, run: KernelRun, sm0: int, size: int, slots: int):
        env, rates = run.sim.env, run.rates
        self.sm0 = sm0
        self.size = size
        self.slots: list[CtaGroup | None] = [None] * slots
        # Per-SM capacity: every group on the SM group has the same CTAs on each of its SMs.
        lanes = [(p, rates.pipe_per_tick[p]) for p in SM_LANES]
        # Quiet (ps_lane.next_shared_ticks): nothing reads an SM's lanes' idle ticks.
        self.pipes = PSServer(env, f"sm{sm0}", [*lanes, (SCHED_LANE, 1.0)], quiet_lone_parts=True)
        #: CTAs per SM in a compute stage (their groups' layers), and the schedulers' capacity
        #: for each count (Rates.sched_capacity; engine/active_ctas.py)
        self.computing = 0
        self._cap = rates.sched_capacity
        self._sched = len(lanes)

    def compute_started(self, layers: int) -> None:
        """``layers`` CTAs per SM began a compute stage."""
        self.computing += layers
        if self._cap:
            self._set_sched()

    def compute_ended(self, layers: int) -> None:
        """``layers`` CTAs per SM left a compute stage."""
        self.computing -= layers
        if self._cap and self.computing > 0:
            self._set_sched()

    def _set_sched(self) -> None:
        cap = self._cap[min(self.computing, len(self._cap)) - 1]
        if self.pipes.lanes[self._sched].capacity != cap:
            self.pipes.set_capacity(self._sched, cap)

    def split(self, run: KernelRun, offset: int) -> SmGroup:
        """Keep SMs ``[0, offset)`` here; return a new SM group for the rest, CTAs and all."""
        if not 0 < offset < self.size:
            raise ValueError(f"cannot split {self.size} SMs at {offset}")
        old_size = self.size
        new = SmGroup(run, self.sm0 + offset, old_size - offset, len(self.slots))
        self.size = offset
        seen: set[int] = set()
        for g in self.slots:
            if g is None or id(g) in seen:
                continue
            seen.add(id(g))
            other = g.split(offset, old_size, new)
            run.adopt_group(other)
            for layer in other.layers:
                new.slots[layer] = other
        return new
