"""An activity of a CTA group: a sequence of waits and transfers, splittable mid-flight.

A stage is either a wait (``WAIT``, ticks: latency or barrier time) or one job
on a server (``XFER``: the GPU's memory system ``mem`` or the SM group's
``pipes``, with parts ``(lane, weight kind, size, count)``). The weight of a
part depends on its kind: ``members`` (one transfer per CTA of the group: L2
and DRAM traffic), ``layers`` (one per CTA *per SM*: the SM's pipes, which
only the CTAs on that SM share) or ``one`` (``count`` transfers for the whole
group: shared tiles, one per batch-head, that the group fetches from DRAM once).
A wait is a SimPy timeout whose callback starts the next stage; a transfer ends
when its server calls back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from simpy.events import Event

from gpusim.engine.environment import call_later, timer
from gpusim.engine.ps_lane import KIND, Part

if TYPE_CHECKING:
    from gpusim.engine.cta_group import CtaGroup

WAIT = 0
XFER = 1
MEMBERS, LAYERS, ONE = "members", "layers", "one"


class Activity:
    """One activity of a phase; tells its group when its last stage is done."""

    __slots__ = ("computing", "deadline", "finished", "group", "idx", "job", "stages")

    def __init__(self, group: CtaGroup, stages: list):
        self.group = group
        self.stages = stages
        self.idx = -1
        self.job = None
        self.deadline = 0
        self.finished = False
        #: its job in flight is on the SM's pipes (SmGroup.computing counts its layers)
        self.computing = False

    def start(self) -> None:
        """Begin the first stage."""
        self._advance()

    def _advance(self, _event: Event | None = None) -> None:
        # The callback of the activity's waits (a SimPy timeout, hence the event) and of its
        # jobs (``done()``, no argument): either way no job of it is in flight any more.
        self.job = None
        g = self.group
        if self.computing:
            self.computing = False
            g.smg.compute_ended(g.weights[LAYERS])
        stages = self.stages
        while True:
            idx = self.idx = self.idx + 1
            if idx >= len(stages):
                self.finished = True
                # ``CtaGroup.activity_done``, inlined (once per activity: a hot path).
                g.pending -= 1
                if g.pending == 0 and not g._starting:
                    g._next_phase()
                return
            kind, arg = stages[idx]
            if kind == WAIT:
                if arg > 0:
                    env = g.run.sim.env
                    self.deadline = env._now + arg
                    timer(env, arg, self._advance)
                    return
                continue
            server_name, parts = arg
            # Weights as ``CtaGroup.weight`` gives them; only parts of kind ``one`` have a
            # count other than 0, and it is their weight (0: no shared tile to fetch).
            if server_name == "mem":
                self.job = g.run.sim.memory.submit_kinds(parts, g.weights, self._advance)
            else:
                # The SM's work at this CTA group's own pace (KernelRun._work_scale).
                self.job = g.smg.pipes.submit_kinds(parts, g.weights, self._advance, g.work_scale)
                if self.job is not None:
                    self.computing = True
                    g.smg.compute_started(g.weights[LAYERS])
            if self.job is not None:
                return

    def _job_done(self) -> None:
        self._advance()

    def clone_for(self, other: CtaGroup) -> Activity:
        """The same activity for ``other``, a group split off this one's (same progress).

        Parts of kind ``one`` stay with this group (the original keeps the shared
        tile's fetch); ``members`` parts hand part of their weight over;
        ``layers`` parts restart in the new SM group's pipes with the work left.
        """
        env = other.run.sim.env
        later = []
        for k, arg in self.stages[self.idx + 1 :]:
            if k == XFER:
                arg = (arg[0], [p for p in arg[1] if p[1] != ONE])
            later.append((k, arg))
        a = Activity(other, [(WAIT, 0)] * self.idx + [self.stages[self.idx]] + later)
        a.idx = self.idx
        kind, arg = self.stages[self.idx]
        if kind == WAIT:
            a.deadline = self.deadline
            call_later(env, max(0, self.deadline - env.now), a._advance)
            return a
        server_name = arg[0]
        old = self.group.server(server_name)
        if self.job is not None and server_name == "mem":
            moved = other.weight(MEMBERS)

            def weight_of(part: Part) -> int:
                """The new group's share of a part."""
                return moved if part[KIND] == MEMBERS else 0

            a.job = old.split(self.job, weight_of, a._job_done)
        elif self.job is not None:
            left = old.remaining(self.job)
            w = other.weight(LAYERS)
            parts = [(lane, w, size, kind) for lane, size, kind in left]
            a.job = other.server(server_name).submit(parts, a._job_done)
            if a.job is not None:
                a.computing = True
                other.smg.compute_started(w)
        if a.job is None:
            # Nothing of this stage is left for the new group: move on as an event of its
            # own, so that the split in progress finishes first.
            call_later(env, 0, a._advance)
        return a
