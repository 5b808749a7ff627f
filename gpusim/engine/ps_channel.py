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
the GPU; the four pipes of an SM), and a job (``Job``) may use several lanes at
once (a read that misses moves bytes through both the L2 and DRAM; a step's
compute uses every pipe): it finishes when all its parts have. A part has a
*weight*: weight ``w`` stands for ``w`` identical transfers (the engine lumps
identical CTAs), each of the given size. Parts can be split (some of the
weight moves to a new job with the same finish key), which is how a lumped
group of CTAs becomes two without disturbing anything else.

This is the engine's innermost loop (most events are a timer of a server), so
it is written for speed: parts and jobs are plain lists, a timer's pass over
the lanes advances them, pops what is due and finds the next completion at
once, and timers go straight onto the engine's event loop. Every fast path
does the same float operations in the same order as the plain algorithm, and
schedules its events in the same order, so results do not move by a bit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from heapq import heappop, heappush
from typing import Any

from gpusim.engine.event_loop import NORMAL, EventLoop, cancelled

Done = Callable[[], None]

_INF = math.inf
_ceil = math.ceil


class _SimpyTimers:
    """The event loop's ``call_in``/``cancel`` on a SimPy environment (the tests use one)."""

    __slots__ = ("env",)

    def __init__(self, env: Any):
        self.env = env

    def call_in(self, delay: int, fn: Done) -> list:
        entry = [None, None, None, fn]
        self.env.timeout(delay).callbacks.append(lambda _ev: entry[3]())
        return entry

    @staticmethod
    def cancel(entry: list) -> None:
        entry[3] = cancelled


# Keys within this relative distance of the counter count as reached (float residue).
_REL_TOL = 1e-12


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

    __slots__ = ("busy", "capacity", "heap", "name", "v", "w")

    def __init__(self, name: str, capacity_per_tick: float, record: bool):
        if capacity_per_tick <= 0:
            raise ValueError(f"lane {name}: capacity must be positive, got {capacity_per_tick}")
        self.name = name
        self.capacity = capacity_per_tick
        self.v = 0.0  # work served per unit of weight so far
        self.w = 0  # total weight in flight
        self.heap: list[Part] = []
        #: busy intervals ``[t0, t1]`` (ticks) when recording for a trace, else None
        self.busy: list[list[int]] | None = [] if record else None

    def ticks_to_next(self) -> float:
        """Ticks until the earliest part finishes if nothing changes (inf when idle)."""
        if not self.heap:
            return math.inf
        return (self.heap[0][0] - self.v) * self.w / self.capacity


class PSServer:
    """Lanes that share one timer; jobs span lanes."""

    __slots__ = (
        "_call_in",
        "_clean",
        "_done",
        "_fire_cb",
        "_loop",
        "_record",
        "_seq",
        "_target",
        "_timer",
        "env",
        "lanes",
        "name",
        "t",
    )

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
        self._record = record
        self.t = env.now  # tick at which every lane's ``v`` was last brought up to date
        self._seq = 0
        self._target: int | None = None  # tick of the pending timer
        self._timer: list | None = None  # its event-loop entry (cancelled when superseded)
        self._done: list[Job] = []  # finished since the last report
        # The engine's event loop takes plain callbacks; a SimPy environment (tests) timeouts.
        timers = env if isinstance(env, EventLoop) else _SimpyTimers(env)
        self._call_in = timers.call_in
        self._fire_cb = self._fire
        # The engine's loop gets its timers pushed directly (the hot path; see _set_timer).
        self._loop = env if isinstance(env, EventLoop) else None
        #: nothing has moved since the last ``_reschedule`` (so another would change nothing)
        self._clean = True

    def lane(self, name: str) -> int:
        """Index of the lane called ``name``."""
        for i, lane in enumerate(self.lanes):
            if lane.name == name:
                return i
        raise KeyError(name)

    # --- time -------------------------------------------------------------------------
    # The hot path of the whole engine: ``_advance`` inlines the pops of reached parts,
    # and ``max`` is spelled out, with the same float operations in the same order as
    # the plain version (``v = max(v, key)``, ``left -= max(0.0, need)``), so results do
    # not move by a bit.
    def _advance(self) -> None:
        now = self.env.now
        t = self.t
        dt = now - t
        if dt <= 0:
            return
        self._clean = False
        if self._record:
            self._record_busy(t, now)
        done = self._done
        for lane in self.lanes:
            w = lane.w
            if w <= 0:
                continue
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
                if key > v:
                    v = key
                if need > 0.0:
                    left -= need
                # Pop every part reached (within float residue) at this ``v``.
                limit = v + _REL_TOL * (v if v > 1.0 else 1.0)
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
            lane.v = v
            lane.w = w
        self.t = now

    def _record_busy(self, t: int, now: int) -> None:
        """Trace: lanes with work in flight were busy from ``t`` to ``now``."""
        for lane in self.lanes:
            busy = lane.busy
            if lane.w > 0 and busy is not None:
                if busy and busy[-1][1] == t:
                    busy[-1][1] = now
                else:
                    busy.append([t, now])

    def _pop_reached(self, lane: Lane) -> None:
        heap = lane.heap
        v = lane.v
        limit = v + _REL_TOL * max(1.0, abs(v))
        while heap and heap[0][0] <= limit:
            part = heappop(heap)
            part[LIVE] = False
            lane.w -= part[WEIGHT]
            job = part[JOB]
            job[LEFT] -= 1
            if job[LEFT] == 0:
                self._done.append(job)
        if not heap:
            lane.w = 0

    def _reschedule(self) -> None:
        self._clean = True
        if self._done:
            nxt = 0.0
        else:
            nxt = _INF
            for lane in self.lanes:
                heap = lane.heap
                if heap:
                    d = (heap[0][0] - lane.v) * lane.w / lane.capacity
                    if d < nxt:
                        nxt = d
            if nxt == _INF:
                self._target = None
                if self._timer is not None:
                    self._timer[3] = cancelled
                    self._timer = None
                return
        dt = _ceil(nxt)
        if dt < 0:
            dt = 0
        now = self.env.now
        target = now + dt
        old = self._target
        if old is not None and now <= old <= target:
            return  # the pending timer fires first; it will look again then
        if self._timer is not None:
            self._timer[3] = cancelled
        self._set_timer(dt)

    def _set_timer(self, dt: int) -> None:
        """The one pending timer, ``dt`` ticks from now (the caller has cancelled the old one)."""
        loop = self._loop
        if loop is None:
            self._target = self.env.now + dt
            self._timer = self._call_in(dt, self._fire_cb)
            return
        # ``EventLoop.call_in``, inlined: a channel sets a timer at most events.
        target = self._target = loop.now + dt
        seq = loop._seq = loop._seq + 1
        loop.events += 1
        entry = self._timer = [target, NORMAL, seq, self._fire_cb]
        heappush(loop._heap, entry)

    def _fire(self) -> None:
        # ``_advance``, the pops of parts due now and ``_reschedule`` fused into one pass over
        # the lanes, for the common timer that finishes no job (a part of a job on several
        # lanes ends first). Each lane's next-completion time depends on that lane alone, so
        # it can be taken right after the lane has advanced; anything rarer (a job done, a
        # part due only within float residue) takes the plain path, in the plain order.
        self._target = None
        self._timer = None
        self._clean = False
        now = self.env.now
        t = self.t
        dt = now - t
        fdt = float(dt)
        done = self._done
        nxt = _INF
        residue = False
        if self._record and dt > 0:
            self._record_busy(t, now)
        for lane in self.lanes:
            heap = lane.heap
            if not heap:
                continue  # no weight in flight (every part weighs at least 1)
            v = lane.v
            w = lane.w
            cap = lane.capacity
            key = heap[0][0]
            if dt > 0:
                need = (key - v) * w / cap
                if need > fdt:
                    # The common case: nothing in this lane ends before now.
                    v += fdt * cap / w
                    lane.v = v
                else:
                    left = fdt
                    while True:
                        if key > v:
                            v = key
                        if need > 0.0:
                            left -= need
                        limit = v + _REL_TOL * (v if v > 1.0 else 1.0)
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
                            break
                        if not left > 0:
                            break
                        key = heap[0][0]
                        need = (key - v) * w / cap
                        if need > left:
                            v += left * cap / w
                            break
                    lane.v = v
                    lane.w = w
                    if not heap:
                        continue
                    key = heap[0][0]
            if key <= v + _REL_TOL * (v if v > 1.0 else 1.0):
                residue = True
                continue
            d = (key - v) * w / cap
            if d < nxt:
                nxt = d
        self.t = now
        if residue:
            # Parts due exactly now (within float residue of the counter), lane by lane.
            for lane in self.lanes:
                if lane.heap:
                    self._pop_reached(lane)
        if done:
            self._done = []
            for job in done:
                job[DONE]()
            if not self._clean:
                # (Clean: a submit during the callbacks has rescheduled on this very state.)
                self._reschedule()
            return
        if residue:
            self._reschedule()
            return
        # As ``_reschedule`` with nothing done: no timer is pending (this one just fired).
        self._clean = True
        if nxt == _INF:
            return
        dt = _ceil(nxt)
        if dt < 0:
            dt = 0
        loop = self._loop
        if loop is None:
            self._set_timer(dt)
            return
        # ``_set_timer``, inlined.
        target = self._target = now + dt
        seq = loop._seq = loop._seq + 1
        loop.events += 1
        entry = self._timer = [target, NORMAL, seq, self._fire_cb]
        heappush(loop._heap, entry)

    # --- jobs -------------------------------------------------------------------------
    def _push(self, job: Job, lane_idx: int, weight: int, key: float, kind: str) -> None:
        self._seq += 1
        part = [key, self._seq, job, weight, lane_idx, kind, True]
        lane = self.lanes[lane_idx]
        heappush(lane.heap, part)
        lane.w += weight
        job[PARTS].append(part)
        job[LEFT] += 1

    def submit(self, parts: Sequence[tuple[int, int, float, str]], done: Done) -> Job | None:
        """Start ``(lane, weight, size, kind)`` parts; ``done()`` when all end (None: no work)."""
        if self.env.now != self.t:
            self._advance()
        job = [done, 0, []]
        lanes = self.lanes
        job_parts = job[PARTS]
        seq = self._seq
        for lane_idx, weight, size, kind in parts:
            if weight > 0 and size > 0:
                lane = lanes[lane_idx]
                key = lane.v + size
                seq += 1
                part = [key, seq, job, weight, lane_idx, kind, True]
                heappush(lane.heap, part)
                lane.w += weight
                job_parts.append(part)
        self._seq = seq
        if not job_parts:
            return None
        job[LEFT] = len(job_parts)
        self._reschedule()
        return job

    def submit_kinds(
        self, parts: Sequence[tuple[int, str, float, int]], weights: dict[str, int], done: Done
    ) -> Job | None:
        """:meth:`submit` for ``(lane, kind, size, count)`` parts: the weight is ``count``
        when it is not 0, else ``weights[kind]`` (the caller's hot path builds no list)."""
        if self.env.now != self.t:
            self._advance()
        job = [done, 0, []]
        lanes = self.lanes
        job_parts = job[PARTS]
        seq = self._seq
        for lane_idx, kind, size, count in parts:
            weight = count or weights[kind]
            if weight > 0 and size > 0:
                lane = lanes[lane_idx]
                key = lane.v + size
                seq += 1
                part = [key, seq, job, weight, lane_idx, kind, True]
                heappush(lane.heap, part)
                lane.w += weight
                job_parts.append(part)
        self._seq = seq
        if not job_parts:
            return None
        job[LEFT] = len(job_parts)
        if self._done or self._target is None:
            self._reschedule()
            return job
        # ``_reschedule``, inlined for its common case: a timer is pending and nothing is done.
        self._clean = True
        nxt = _INF
        for lane in lanes:
            heap = lane.heap
            if heap:
                d = (heap[0][0] - lane.v) * lane.w / lane.capacity
                if d < nxt:
                    nxt = d
        dt = _ceil(nxt)
        if dt < 0:
            dt = 0
        now = self.env.now
        old = self._target
        if now <= old <= now + dt:
            return job  # the pending timer fires first; it will look again then
        self._timer[3] = cancelled
        self._set_timer(dt)
        return job

    def split(self, job: Job, weight_of: Callable[[Part], int], done: Done) -> Job | None:
        """Move ``weight_of(part)`` of each unfinished part of ``job`` to a new job (same keys)."""
        self._advance()
        self._clean = False
        new = [done, 0, []]
        for part in list(job[PARTS]):
            w = weight_of(part) if part[LIVE] else 0
            if w <= 0:
                continue
            if w >= part[WEIGHT]:
                raise ValueError(f"{self.name}: cannot split {w} of {part[WEIGHT]}")
            part[WEIGHT] -= w
            self.lanes[part[LANE]].w -= w
            self._push(new, part[LANE], w, part[KEY], part[KIND])
        return new if new[LEFT] else None

    def remaining(self, job: Job) -> list[tuple[int, float, str]]:
        """``(lane, work left per transfer, kind)`` of each unfinished part of ``job``."""
        self._advance()
        out = []
        for part in job[PARTS]:
            if part[LIVE]:
                lane = part[LANE]
                out.append((lane, max(0.0, part[KEY] - self.lanes[lane].v), part[KIND]))
        return out
