"""One processor-sharing lane in virtual time: the state of one shared resource.

Every transfer in flight on a lane progresses at ``capacity / (weight in
flight)``. The classic virtual-time algorithm: ``v`` counts the work served
to each unit of weight so far; a transfer of ``size`` submitted when the
counter is ``v0`` finishes when the counter reaches ``v0 + size``, so finish
keys go in a heap and each event costs O(log n). Between events the counter
advances exactly, completion by completion (a transfer that ends inside a
tick stops sharing at that instant), so the fluid schedule is exact; only the
moment a completion is *reported* is rounded up to a whole tick (the server's
timer, :mod:`gpusim.engine.ps_channel`).

A capacity change (:meth:`Lane.set_capacity`, after the lane has been brought
up to date) re-times every transfer in flight at once: the keys stay, only
the rate at which ``v`` moves changes.
"""

from __future__ import annotations

import math
from heapq import heappop

#: Keys within this relative distance of the counter count as reached (float residue).
REL_TOL = 1e-12

#: A part is one job's transfers in one lane, kept as the list that is also its entry in
#: the lane's heap, ``[key, seq, job, weight, lane, kind, live]`` (a class instance and a
#: heap tuple per part cost more than the rest of a submit): it sorts by its finish key,
#: then by submission order; ``kind`` says who owns the weight when a group splits
#: (see activity.py).
Part = list
KEY, SEQ, JOB, WEIGHT, LANE, KIND, LIVE = range(7)

#: A job is transfers in one or more lanes that finish together, kept as the list
#: ``[done, left, parts]``: ``done()`` runs when the last of its ``parts`` has (``left``
#: counts those still in flight). A list, as for parts: one is made per transfer.
Job = list
DONE, LEFT, PARTS = range(3)


class Lane:
    """Virtual-time state of one shared resource."""

    __slots__ = ("busy", "capacity", "heap", "idle", "name", "v", "w")

    def __init__(self, name: str, capacity_per_tick: float, record: bool):
        self.name = name
        self.capacity = 0.0
        self.set_capacity(capacity_per_tick)
        self.v = 0.0  # work served per unit of weight so far
        self.w = 0  # total weight in flight
        self.heap: list[Part] = []
        #: ticks with nothing in flight, counted from one event of its server to the next
        #: (a lane that empties between two events counts from the second: at most a tick
        #: late, as the server's timer fires at the first tick after a completion)
        self.idle = 0
        #: busy intervals ``[t0, t1]`` (ticks) when recording for a trace, else None
        self.busy: list[list[int]] | None = [] if record else None

    def set_capacity(self, capacity_per_tick: float) -> None:
        """Serve ``capacity_per_tick`` from now on (the caller has advanced the lane to now)."""
        if not capacity_per_tick > 0 or capacity_per_tick == math.inf:
            raise ValueError(
                f"lane {self.name}: capacity must be positive and finite, got {capacity_per_tick}"
            )
        self.capacity = capacity_per_tick

    def ticks_to_next(self) -> float:
        """Ticks until the earliest part finishes if nothing changes (inf when idle)."""
        if not self.heap:
            return math.inf
        return (self.heap[0][0] - self.v) * self.w / self.capacity

    # ``advance`` and ``pop_reached`` are the plain algorithm; the server's timer (its hot
    # path) inlines the same float operations in the same order, so results agree to the bit.
    def advance(self, dt: float, done: list[Job]) -> None:
        """Serve ``dt`` ticks (``w > 0``); append jobs whose last part ends to ``done``."""
        w = self.w
        left = dt
        heap = self.heap
        cap = self.capacity
        v = self.v
        while w > 0 and left > 0:
            key = heap[0][0]
            need = (key - v) * w / cap
            if need > left:
                v += left * cap / w
                break
            if key > v:
                v = key
            if need > 0.0:
                left -= need
            # Pop every part reached (within float residue) at this ``v``.
            limit = v + REL_TOL * (v if v > 1.0 else 1.0)
            while heap and heap[0][0] <= limit:
                part = heappop(heap)
                part[LIVE] = False
                w -= part[WEIGHT]
                job = part[JOB]
                job[LEFT] -= 1
                if job[LEFT] == 0:
                    done.append(job)
            if not heap:
                w = 0
        self.v = v
        self.w = w

    def pop_reached(self, done: list[Job]) -> None:
        """Retire the parts whose key the counter has reached (within float residue)."""
        heap = self.heap
        v = self.v
        limit = v + REL_TOL * max(1.0, abs(v))
        while heap and heap[0][0] <= limit:
            part = heappop(heap)
            part[LIVE] = False
            self.w -= part[WEIGHT]
            job = part[JOB]
            job[LEFT] -= 1
            if job[LEFT] == 0:
                done.append(job)
        if not heap:
            self.w = 0


def next_ticks(lanes: list[Lane]) -> float:
    """Ticks to the first end of a part in ``lanes`` if nothing changes (inf when idle)."""
    nxt = math.inf
    for lane in lanes:
        heap = lane.heap
        if heap:
            d = (heap[0][0] - lane.v) * lane.w / lane.capacity
            if d < nxt:
                nxt = d
    return nxt


def next_shared_ticks(lanes: list[Lane]) -> float:
    """Ticks to the next completion that changes anything, on a quiet server
    (:class:`~gpusim.engine.ps_channel.PSServer`) with ``lanes``.

    A part that ends alone in its lane while its job has parts in flight elsewhere
    changes nothing: no other transfer shares the lane, so no rate moves, and its job
    is not done. Its end is left to the next timer, whose pass over the lanes retires
    every part it reaches, in order. The timer is set for the first end of a part that
    shares its lane or is its job's last, or for the end of a job whose live parts are
    all alone in their lanes (the latest of them), whichever comes first. (An SM's
    compute step has parts on three to five pipes and most end alone: a third of a
    causal run's events.)
    """
    nxt = math.inf
    lone_job = None
    lone_d = 0.0
    lone_n = 0
    lone: dict[int, list] | None = None
    for lane in lanes:
        heap = lane.heap
        if not heap:
            continue
        part = heap[0]
        d = (part[0] - lane.v) * lane.w / lane.capacity
        job = part[JOB]
        if len(heap) > 1 or job[LEFT] == 1:
            if d < nxt:
                nxt = d
            continue
        if lone_job is None or lone_job is job:
            lone_job = job
            if d > lone_d:
                lone_d = d
            lone_n += 1
            continue
        if lone is None:
            lone = {}
        got = lone.get(id(job))
        if got is None:
            lone[id(job)] = [d, 1, job]
        else:
            if d > got[0]:
                got[0] = d
            got[1] += 1
    if lone_job is not None and lone_n == lone_job[LEFT] and lone_d < nxt:
        nxt = lone_d
    if lone is not None:
        for d, n, job in lone.values():
            if n == job[LEFT] and d < nxt:
                nxt = d
    return nxt
