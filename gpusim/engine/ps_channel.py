"""Processor sharing in integer time: shared bandwidth, or a pipe shared by co-resident CTAs.

SimPy's own resources serve first come, first served; a DRAM or L2 port, or a
tensor-core pipe shared by co-resident CTAs, is better described as processor
sharing: every transfer in flight progresses at ``capacity / (number in flight)``.
Each lane is the classic virtual-time algorithm (:mod:`gpusim.engine.ps_lane`).

A :class:`PSServer` is a few lanes that share one SimPy timer (the L2 and DRAM
of the GPU; the four pipes of an SM), and a job (``Job``) may use several lanes
at once (a read that misses moves bytes through both the L2 and DRAM; a step's
compute uses every pipe): it finishes when all its parts have. A part has a
*weight*: weight ``w`` stands for ``w`` identical transfers (the engine lumps
identical CTAs), each of the given size. Parts can be split (some of the
weight moves to a new job with the same finish key), which is how a lumped
group of CTAs becomes two without disturbing anything else.

The timer is one ``env.timeout`` at the next completion. SimPy cannot take an
event back, so when a submit moves the next completion earlier the server
simply makes a new timer and forgets the old one: a timer that fires and is no
longer the server's ``_timer`` does nothing (but move ``now``, as any SimPy event).

This is the engine's innermost loop (most events are a timer of a server), so
it is written for speed: parts and jobs are plain lists, a timer's pass over
the lanes advances them, pops what is due and finds the next completion at
once. Every fast path does the same float operations in the same order as the
plain algorithm, and schedules its events in the same order, so results do
not move by a bit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from heapq import heappop, heappush

from simpy.events import Event

from gpusim.engine.environment import Environment, timer
from gpusim.engine.ps_lane import (
    DONE,
    JOB,
    KEY,
    KIND,
    LANE,
    LEFT,
    LIVE,
    PARTS,
    REL_TOL,
    WEIGHT,
    Job,
    Lane,
    Part,
    next_shared_ticks,
    next_ticks,
)

__all__ = ["Job", "Lane", "PSServer", "Part"]

Done = Callable[[], None]

_INF = math.inf
_ceil = math.ceil


class PSServer:
    """Lanes that share one SimPy timer; jobs span lanes."""

    __slots__ = (
        "_clean",
        "_done",
        "_fire_cb",
        "_quiet",
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
        env: Environment,
        name: str,
        capacities: Sequence[tuple[str, float]],
        record: bool = False,
        quiet_lone_parts: bool = False,
    ):
        self.env = env
        self.name = name
        self.lanes = [Lane(n, c, record) for n, c in capacities]
        self._record = record
        self.t = env.now  # tick at which every lane's ``v`` was last brought up to date
        self._seq = 0
        self._target: int | None = None  # tick of the pending timer
        self._timer: Event | None = None  # the pending timer; any other one that fires is stale
        self._done: list[Job] = []  # finished since the last report
        self._fire_cb = self._fire
        #: nothing has moved since the last ``_reschedule`` (so another would change nothing)
        self._clean = True
        #: no timer for a part that ends alone in its lane (``ps_lane.next_shared_ticks``)
        self._quiet = quiet_lone_parts and not record

    def lane(self, name: str) -> int:
        """Index of the lane called ``name``."""
        for i, lane in enumerate(self.lanes):
            if lane.name == name:
                return i
        raise KeyError(name)

    def set_capacity(self, lane_idx: int, capacity_per_tick: float) -> None:
        """Give lane ``lane_idx`` a new capacity from now on; transfers in flight re-time.

        Work served so far is kept (the lanes advance to now at the old capacity first),
        and the timer moves to the new next completion.
        """
        self._advance()
        self._clean = False
        self.lanes[lane_idx].set_capacity(capacity_per_tick)
        self._reschedule()

    # --- time -------------------------------------------------------------------------
    def _advance(self) -> None:
        now = self.env._now
        t = self.t
        dt = now - t
        if dt <= 0:
            return
        self._clean = False
        if self._record:
            self._record_busy(t, now)
        fdt = float(dt)
        done = self._done
        for lane in self.lanes:
            if lane.w > 0:
                lane.advance(fdt, done)
            else:
                lane.idle += dt
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

    def _reschedule(self) -> None:
        self._clean = True
        if self._done:
            nxt = 0.0
        else:
            nxt = (next_shared_ticks if self._quiet else next_ticks)(self.lanes)
            if nxt == _INF:
                self._target = None
                self._timer = None
                return
        dt = _ceil(nxt)
        if dt < 0:
            dt = 0
        now = self.env._now
        old = self._target
        if old is not None and now <= old <= now + dt:
            return  # the pending timer fires first; it will look again then
        self._set_timer(dt)

    def _set_timer(self, dt: int) -> None:
        """The one pending timer, ``dt`` ticks from now (any older one becomes stale)."""
        env = self.env
        self._target = env._now + dt
        self._timer = timer(env, dt, self._fire_cb)

    def _fire(self, event: Event) -> None:
        if event is not self._timer:
            return  # superseded by a later ``_set_timer``, or no longer needed
        # ``_advance``, the pops of parts due now and ``_reschedule`` fused into one pass over
        # the lanes, for the common timer that finishes no job (a part of a job on several
        # lanes ends first). Each lane's next-completion time depends on that lane alone, so
        # it can be taken right after the lane has advanced; anything rarer (a job done, a
        # part due only within float residue) takes the plain path, in the plain order.
        self._target = None
        self._timer = None
        self._clean = False
        now = self.env._now
        t = self.t
        dt = now - t
        fdt = float(dt)
        done = self._done
        nxt = _INF
        residue = False
        quiet = self._quiet  # its next completion is ``next_shared_ticks``'s, after the pass
        if self._record and dt > 0:
            self._record_busy(t, now)
        for lane in self.lanes:
            heap = lane.heap
            if not heap:
                lane.idle += dt
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
                    # ``Lane.advance``, inlined (its first step is the ``need`` above).
                    left = fdt
                    while True:
                        if key > v:
                            v = key
                        if need > 0.0:
                            left -= need
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
            if key <= v + REL_TOL * (v if v > 1.0 else 1.0):
                residue = True
                continue
            if not quiet:
                d = (key - v) * w / cap
                if d < nxt:
                    nxt = d
        self.t = now
        if residue:
            # Parts due exactly now (within float residue of the counter), lane by lane.
            for lane in self.lanes:
                if lane.heap:
                    lane.pop_reached(done)
        if done:
            self._done = []
            for job in done:
                # Its parts point back at it: dropped, job and parts are freed as they go out
                # of use, not left to the cyclic garbage collector (whose passes over every
                # live object were a quarter of a causal run's time).
                job[PARTS] = ()
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
        if quiet:
            nxt = next_shared_ticks(self.lanes)
        if nxt == _INF:
            return
        dt = _ceil(nxt)
        if dt < 0:
            dt = 0
        self._set_timer(dt)

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
        if self.env._now != self.t:
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
        self,
        parts: Sequence[tuple[int, str, float, int]],
        weights: dict[str, int],
        done: Done,
        scale: float = 1.0,
    ) -> Job | None:
        """:meth:`submit` for ``(lane, kind, size, count)`` parts: the weight is ``count``
        when it is not 0, else ``weights[kind]``, and the size is ``size * scale`` (the
        caller's hot path builds no list)."""
        if self.env._now != self.t:
            self._advance()
        job = [done, 0, []]
        lanes = self.lanes
        job_parts = job[PARTS]
        seq = self._seq
        for lane_idx, kind, size, count in parts:
            weight = count or weights[kind]
            if scale != 1.0:
                size = size * scale
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
        if self._quiet:
            nxt = next_shared_ticks(self.lanes)
        else:
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
        now = self.env._now
        old = self._target
        if now <= old <= now + dt:
            return job  # the pending timer fires first; it will look again then
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
