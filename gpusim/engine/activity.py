"""An activity of a lumped CTA group: a sequence of waits and transfers, splittable mid-flight.

A stage is either a wait (``WAIT``, ticks: latency or barrier time) or a set
of jobs started together (``XFER``: ``(channel, weight kind, size)``). The
weight of a job depends on its kind: ``members`` (one transfer per CTA of the
group: L2 and DRAM traffic), ``layers`` (one job per CTA *per SM*: the SM's
pipes, which only the CTAs on that SM share) or ``one`` (one transfer for the
whole group: a shared tile that only the first CTA to ask fetches from DRAM).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpusim.engine.cta_group import CtaGroup

WAIT = 0
XFER = 1
MEMBERS, LAYERS, ONE = "members", "layers", "one"


class Activity:
    """One activity of a phase; tells its group when its last stage is done."""

    __slots__ = ("deadline", "finished", "group", "idx", "jobs", "pending", "stages")

    def __init__(self, group: CtaGroup, stages: list):
        self.group = group
        self.stages = stages
        self.idx = -1
        self.pending = 0
        self.jobs: list[list] = []  # [channel name, weight kind, channel, job, live]
        self.deadline = 0
        self.finished = False

    def start(self) -> None:
        """Begin the first stage."""
        self._advance()

    def _advance(self) -> None:
        g = self.group
        env = g.run.sim.env
        while True:
            self.idx += 1
            if self.idx >= len(self.stages):
                self.finished = True
                g.activity_done()
                return
            kind, arg = self.stages[self.idx]
            if kind == WAIT:
                if arg > 0:
                    self.deadline = env.now + arg
                    env.timeout(arg).callbacks.append(self._timer)
                    return
                continue
            self.jobs = []
            for name, wkind, size in arg:
                self._submit(name, wkind, g.channel(name), g.weight(wkind), size)
            self.pending = len(self.jobs)
            if self.pending:
                return

    def _submit(self, name, wkind, channel, weight, size) -> None:
        i = len(self.jobs)
        job = channel.submit(weight, size, lambda: self._job_done(i))
        self.jobs.append([name, wkind, channel, job, True])

    def _timer(self, _ev) -> None:
        self._advance()

    def _job_done(self, i: int) -> None:
        self.jobs[i][4] = False
        self.pending -= 1
        if self.pending == 0:
            self._advance()

    def clone_for(self, other: CtaGroup) -> Activity:
        """The same activity for ``other``, a group split off this one's (same progress).

        Transfers of kind ``one`` stay with this group (the original keeps the
        shared tile's fetch); ``members`` jobs hand part of their weight over;
        ``layers`` jobs restart in the new SM group's pipes with the work left.
        """
        env = other.run.sim.env
        later = [
            (k, [e for e in arg if e[1] != ONE] if k == XFER else arg)
            for k, arg in self.stages[self.idx + 1 :]
        ]
        a = Activity(other, [(WAIT, 0)] * self.idx + [self.stages[self.idx]] + later)
        a.idx = self.idx
        kind, _arg = self.stages[self.idx]
        if kind == WAIT:
            a.deadline = self.deadline
            env.timeout(max(0, self.deadline - env.now)).callbacks.append(a._timer)
            return a
        for name, wkind, channel, job, live in self.jobs:
            if not live or wkind == ONE:
                continue
            i = len(a.jobs)
            if wkind == MEMBERS:
                new = channel.split(job, other.weight(MEMBERS), lambda i=i: a._job_done(i))
                a.jobs.append([name, wkind, channel, new, True])
            else:
                target = other.channel(name)
                left = channel.remaining(job)
                new = target.adopt(left, other.weight(LAYERS), lambda i=i: a._job_done(i))
                a.jobs.append([name, wkind, target, new, True])
        a.pending = len(a.jobs)
        if not a.pending:
            # Nothing of this stage is left for the new group: move on at once (as an event,
            # so that the split in progress finishes first).
            env.timeout(0).callbacks.append(a._timer)
        return a
