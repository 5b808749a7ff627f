"""A processor-sharing channel in integer time: shared bandwidth (or a shared pipe) for SimPy.

SimPy's own resources serve first come, first served; a DRAM or L2 port, or a
tensor-core pipe shared by co-resident CTAs, is better described as processor
sharing: every transfer in flight progresses at ``capacity / (number in flight)``.
This is the classic virtual-time algorithm: ``v`` counts the work served to each
unit of weight so far; a transfer of ``size`` submitted when the counter is
``v0`` finishes when the counter reaches ``v0 + size``, so finish keys go in a
heap and each event costs O(log n). Only the earliest finish has a timer.

A job has a *weight*: a job of weight ``w`` stands for ``w`` identical transfers
(the engine lumps identical CTAs), each of the given size. Jobs can be split
(part of the weight moves to a new job with the same finish key), which is how
a lumped group of CTAs becomes two without disturbing anything else.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable

import simpy

Done = Callable[[], None]

# Keys within this relative distance of the counter count as reached (float residue).
_REL_TOL = 1e-12


class Job:
    """One transfer (or ``weight`` identical ones) in a channel."""

    __slots__ = ("done", "key", "weight")

    def __init__(self, key: float, weight: int, done: Done):
        self.key = key
        self.weight = weight
        self.done = done


class PSChannel:
    """Capacity shared equally among the unit transfers in flight (weighted by job weight)."""

    __slots__ = (
        "_heap",
        "_seq",
        "_target",
        "_version",
        "busy",
        "busy_ticks",
        "capacity",
        "env",
        "name",
        "t",
        "v",
        "w",
    )

    def __init__(
        self, env: simpy.Environment, capacity_per_tick: float, name: str, record: bool = False
    ):
        if capacity_per_tick <= 0:
            raise ValueError(f"channel {name}: capacity must be positive, got {capacity_per_tick}")
        self.env = env
        self.capacity = capacity_per_tick
        self.name = name
        self.v = 0.0  # work served per unit of weight since the channel was made
        self.t = env.now  # tick at which ``v`` was last brought up to date
        self.w = 0  # total weight in flight
        self._heap: list[tuple[float, int, Job]] = []
        self._seq = 0
        self._version = 0
        self._target: int | None = None
        self.busy_ticks = 0
        #: busy intervals ``[t0, t1]`` (ticks) when recording for a trace, else None
        self.busy: list[list[int]] | None = [] if record else None

    # --- time -------------------------------------------------------------------------
    def _advance(self) -> None:
        now = self.env.now
        dt = now - self.t
        if dt > 0 and self.w > 0:
            self.v += dt * self.capacity / self.w
            self.busy_ticks += dt
            if self.busy is not None:
                if self.busy and self.busy[-1][1] == self.t:
                    self.busy[-1][1] = now
                else:
                    self.busy.append([self.t, now])
        self.t = now

    def _reschedule(self) -> None:
        if not self._heap:
            self._target = None
            self._version += 1
            return
        key = self._heap[0][0]
        dt = max(0, math.ceil((key - self.v) * self.w / self.capacity))
        target = self.env.now + dt
        if target == self._target:
            return
        self._target = target
        self._version += 1
        version = self._version
        timer = self.env.timeout(dt)
        timer.callbacks.append(lambda _ev: self._fire(version))

    def _fire(self, version: int) -> None:
        if version != self._version:
            return  # superseded by a later arrival or departure
        self._target = None
        self._advance()
        limit = self.v + _REL_TOL * max(1.0, abs(self.v))
        finished = []
        heap = self._heap
        while heap and heap[0][0] <= limit:
            job = heapq.heappop(heap)[2]
            self.w -= job.weight
            finished.append(job)
        if not heap:
            self.w = 0
        for job in finished:
            job.done()
        self._reschedule()

    # --- jobs -------------------------------------------------------------------------
    def _push(self, key: float, weight: int, done: Done) -> Job:
        job = Job(key, weight, done)
        self._seq += 1
        heapq.heappush(self._heap, (key, self._seq, job))
        self.w += weight
        return job

    def submit(self, weight: int, size: float, done: Done) -> Job:
        """Start ``weight`` transfers of ``size`` units each; ``done()`` runs when they finish."""
        if weight <= 0 or size <= 0:
            raise ValueError(f"channel {self.name}: weight and size must be positive")
        self._advance()
        job = self._push(self.v + size, weight, done)
        self._reschedule()
        return job

    def split(self, job: Job, weight: int, done: Done) -> Job:
        """Move ``weight`` of ``job``'s transfers to a new job (same progress) calling ``done``."""
        if not 0 < weight < job.weight:
            raise ValueError(f"channel {self.name}: cannot split {weight} of {job.weight}")
        job.weight -= weight
        self.w -= weight
        return self._push(job.key, weight, done)

    def remaining(self, job: Job) -> float:
        """Work left for each of ``job``'s transfers, as of now."""
        self._advance()
        return max(0.0, job.key - self.v)

    def adopt(self, remaining: float, weight: int, done: Done) -> Job:
        """Take over a transfer with ``remaining`` work left (from a channel being cloned)."""
        self._advance()
        job = self._push(self.v + remaining, weight, done)
        self._reschedule()
        return job

    @property
    def in_flight(self) -> int:
        """Unit transfers in flight."""
        return self.w
