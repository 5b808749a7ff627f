"""Processor sharing in integer time: shared bandwidth, or a pipe shared by co-resident CTAs.

SimPy's own resources serve first come, first served; a DRAM or L2 port, or a
tensor-core pipe shared by co-resident CTAs, is better described as processor
sharing: every transfer in flight progresses at ``capacity / (number in flight)``.
Each :class:`Lane` is the classic virtual-time algorithm: ``v`` counts the work
served to each unit of weight so far; a transfer of ``size`` submitted when
the counter is ``v0`` finishes when the counter reaches ``v0 + size``, so
finish keys go in a heap and each event costs O(log n). Between events the
counter advances exactly, completion by completion (a transfer that ends
inside a tick stops sharing at that instant), so the fluid schedule is exact;
only the moment its completion is *reported* is rounded up to a whole tick.

A :class:`PSServer` is a few lanes that share one timer (the L2 and DRAM of
the GPU; the four pipes of an SM), and a :class:`Job` may use several lanes at
once (a read that misses moves bytes through both the L2 and DRAM; a step's
compute uses every pipe): it finishes when all its parts have. A part has a
*weight*: weight ``w`` stands for ``w`` identical transfers (the engine lumps
identical CTAs), each of the given size. Parts can be split (some of the
weight moves to a new job with the same finish key), which is how a lumped
group of CTAs becomes two without disturbing anything else.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from heapq import heappop, heappush
from typing import Any

Done = Callable[[], None]


def _simpy_call_in(env: Any, delay: int, fn: Done) -> None:
    """``fn()`` ``delay`` ticks from now on a SimPy environment."""
    env.timeout(delay).callbacks.append(lambda _ev: fn())


# Keys within this relative distance of the counter count as reached (float residue).
_REL_TOL = 1e-12


class Part:
    """One job's transfers in one lane."""

    __slots__ = ("job", "key", "kind", "lane", "live", "weight")

    def __init__(self, job: Job, lane: int, weight: int, key: float, kind: str):
        self.live = True
        self.job = job
        self.lane = lane
        self.weight = weight
        self.key = key
        self.kind = kind  # who owns the weight when a group splits (see activity.py)


class Job:
    """Transfers in one or more lanes that finish together; ``done()`` runs when the last has."""

    __slots__ = ("done", "left", "parts")

    def __init__(self, done: Done):
        self.done = done
        self.left = 0
        self.parts: list[Part] = []


class Lane:
    """Virtual-time state of one shared resource."""

    __slots__ = ("busy", "busy_ticks", "capacity", "heap", "name", "v", "w")

    def __init__(self, name: str, capacity_per_tick: float, record: bool):
        if capacity_per_tick <= 0:
            raise ValueError(f"lane {name}: capacity must be positive, got {capacity_per_tick}")
        self.name = name
        self.capacity = capacity_per_tick
        self.v = 0.0  # work served per unit of weight so far
        self.w = 0  # total weight in flight
        self.heap: list[tuple[float, int, Part]] = []
        self.busy_ticks = 0
        #: busy intervals ``[t0, t1]`` (ticks) when recording for a trace, else None
        self.busy: list[list[int]] | None = [] if record else None

    def ticks_to_next(self) -> float:
        """Ticks until the earliest part finishes if nothing changes (inf when idle)."""
        if not self.heap:
            return math.inf
        return (self.heap[0][0] - self.v) * self.w / self.capacity


class PSServer:
    """Lanes that share one timer; jobs span lanes."""

    __slots__ = ("_call_in", "_done", "_seq", "_target", "_version", "env", "lanes", "name", "t")

    def __init__(
        self,
        env: Any,
        name: str,
        capacities: Sequence[tuple[str, float]],
        record: bool = False,
    ):
        self.env = env
        self.name = name
        self.lanes = [Lane(n, c, record) for n, c in capacities]
        self.t = env.now  # tick at which every lane's ``v`` was last brought up to date
        self._seq = 0
        self._version = 0
        self._target: int | None = None
        self._done: list[Job] = []  # finished since the last report
        # The engine's event loop takes plain callbacks; a SimPy environment (tests) timeouts.
        self._call_in = getattr(env, "call_in", None) or partial(_simpy_call_in, env)

    def lane(self, name: str) -> int:
        """Index of the lane called ``name``."""
        for i, lane in enumerate(self.lanes):
            if lane.name == name:
                return i
        raise KeyError(name)

    # --- time -------------------------------------------------------------------------
    def _advance(self) -> None:
        now = self.env.now
        t = self.t
        dt = now - t
        if dt <= 0:
            return
        for lane in self.lanes:
            w = lane.w
            if w <= 0:
                continue
            lane.busy_ticks += dt
            busy = lane.busy
            if busy is not None:
                if busy and busy[-1][1] == t:
                    busy[-1][1] = now
                else:
                    busy.append([t, now])
            left = float(dt)
            heap = lane.heap
            cap = lane.capacity
            v = lane.v
            while w > 0 and left > 0:
                key = heap[0][0]
                need = (key - v) * w / cap
                if need > left:
                    v += left * cap / w
                    break
                v = max(v, key)
                left -= max(0.0, need)
                lane.v = v
                self._pop_reached(lane)
                w = lane.w
            lane.v = v
        self.t = now

    def _pop_reached(self, lane: Lane) -> None:
        heap = lane.heap
        v = lane.v
        limit = v + _REL_TOL * max(1.0, abs(v))
        while heap and heap[0][0] <= limit:
            part = heappop(heap)[2]
            part.live = False
            lane.w -= part.weight
            job = part.job
            job.left -= 1
            if job.left == 0:
                self._done.append(job)
        if not heap:
            lane.w = 0

    def _reschedule(self) -> None:
        if self._done:
            nxt = 0.0
        else:
            nxt = math.inf
            for lane in self.lanes:
                heap = lane.heap
                if heap:
                    d = (heap[0][0] - lane.v) * lane.w / lane.capacity
                    if d < nxt:
                        nxt = d
        if nxt == math.inf:
            self._target = None
            self._version += 1
            return
        dt = max(0, math.ceil(nxt))
        now = self.env.now
        target = now + dt
        if self._target is not None and now <= self._target <= target:
            return  # the pending timer fires first; it will look again then
        self._target = target
        self._version += 1
        self._call_in(dt, partial(self._fire, self._version))

    def _fire(self, version: int) -> None:
        if version != self._version:
            return  # superseded by an earlier target
        self._target = None
        self._advance()
        for lane in self.lanes:
            if lane.heap:
                self._pop_reached(lane)  # parts due exactly now
        finished, self._done = self._done, []
        for job in finished:
            job.done()
        self._reschedule()

    # --- jobs -------------------------------------------------------------------------
    def _push(self, job: Job, lane_idx: int, weight: int, key: float, kind: str) -> None:
        part = Part(job, lane_idx, weight, key, kind)
        self._seq += 1
        lane = self.lanes[lane_idx]
        heappush(lane.heap, (key, self._seq, part))
        lane.w += weight
        job.parts.append(part)
        job.left += 1

    def submit(self, parts: Sequence[tuple[int, int, float, str]], done: Done) -> Job | None:
        """Start ``(lane, weight, size, kind)`` parts; ``done()`` when all end (None: no work)."""
        self._advance()
        job = Job(done)
        for lane_idx, weight, size, kind in parts:
            if weight > 0 and size > 0:
                self._push(job, lane_idx, weight, self.lanes[lane_idx].v + size, kind)
        if not job.left:
            return None
        self._reschedule()
        return job

    def split(self, job: Job, weight_of: Callable[[Part], int], done: Done) -> Job | None:
        """Move ``weight_of(part)`` of each unfinished part of ``job`` to a new job (same keys)."""
        self._advance()
        new = Job(done)
        for part in list(job.parts):
            w = weight_of(part) if part.live else 0
            if w <= 0:
                continue
            if w >= part.weight:
                raise ValueError(f"{self.name}: cannot split {w} of {part.weight}")
            part.weight -= w
            self.lanes[part.lane].w -= w
            self._push(new, part.lane, w, part.key, part.kind)
        return new if new.left else None

    def remaining(self, job: Job) -> list[tuple[int, float, str]]:
        """``(lane, work left per transfer, kind)`` of each unfinished part of ``job``."""
        self._advance()
        out = []
        for part in job.parts:
            if part.live:
                out.append((part.lane, max(0.0, part.key - self.lanes[part.lane].v), part.kind))
        return out
