"""When the CTAs of a grid start and end, and how far each has got at any instant, when the
CTAs sharing an SM do not share it evenly: the older gets more of it.

kv_walk_mma on the H200 (``data/h200/2026-12-04_calibration_kv_walk*``) shows CTAs that share
an SM's tensor pipes drifting apart generation by generation toward even spacing (two per SM
half a life apart, three a third), geometrically, while CTAs alone on their SMs stay in
lockstep. Giving the co-resident CTAs shares by age rank reproduces that: the oldest CTA on an
SM runs at weight 1, the next at ``priority``, the next at ``priority**2``, ..., the weights
scaled so that the SM's CTAs together progress as fast as with even shares. When the older
CTA ends, the younger becomes the oldest and its replacement the youngest; the offset that
results converges to even spacing at a rate set by ``priority`` (1: even shares, lockstep
kept; :mod:`gpusim.calibrate.sm_mate_drift` fits it).

Dispatch is the hardware's: the first ``sms x per_sm`` CTAs go out round-robin over the SMs,
each later CTA to the slot that frees first. Work is in time units at an even share.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Progress:
    """Each CTA's start and end, and its progress as breakpoints ``(time, work done)``:
    ``times[offsets[i]:offsets[i + 1]]`` against ``done[...]`` for CTA ``i``."""

    start: np.ndarray
    end: np.ndarray
    times: np.ndarray
    done: np.ndarray
    offsets: np.ndarray

    def time_at(self, cta: int, work_done: np.ndarray) -> np.ndarray:
        """When CTA ``cta`` had done ``work_done`` (progress is linear between breakpoints)."""
        lo, hi = self.offsets[cta], self.offsets[cta + 1]
        return np.interp(work_done, self.done[lo:hi], self.times[lo:hi])


def run(works: np.ndarray, sms: int, per_sm: int, priority: float = 1.0) -> Progress:
    """Dispatch CTAs of ``works`` (in launch order) onto ``sms`` SMs of ``per_sm`` slots."""
    if sms < 1 or per_sm < 1:
        raise ValueError("sms and per_sm must be at least 1")
    if not 0.0 < priority <= 1.0:
        raise ValueError(f"priority must be in (0, 1], not {priority}")
    works = np.asarray(works, dtype=float)
    if priority == 1.0:
        return _even(works, sms * per_sm)
    n = works.size
    start, end = np.zeros(n), np.zeros(n)
    bp_t: list[list[float]] = [[] for _ in range(n)]
    bp_w: list[list[float]] = [[] for _ in range(n)]
    w = priority ** np.arange(per_sm)
    rate_of = [()] + [tuple(k * w[:k] / w[:k].sum()) for k in range(1, per_sm + 1)]
    resident: list[list[list]] = [[] for _ in range(sms)]  # [cta, remaining], oldest first
    last = [0.0] * sms
    version = [0] * sms
    heap: list[tuple[float, int, int]] = []
    nxt = 0

    def place(s: int, t: float) -> None:
        nonlocal nxt
        resident[s].append([nxt, works[nxt]])
        start[nxt] = t
        bp_t[nxt].append(t)
        bp_w[nxt].append(0.0)
        nxt += 1

    def schedule(s: int, t: float) -> None:
        rs = resident[s]
        if not rs:
            return
        rates = rate_of[len(rs)]
        dt = min(item[1] / r for item, r in zip(rs, rates, strict=True))
        version[s] += 1
        heapq.heappush(heap, (t + dt, s, version[s]))

    for _ in range(per_sm):
        for s in range(sms):
            if nxt < n:
                place(s, 0.0)
    for s in range(sms):
        schedule(s, 0.0)
    while heap:
        t, s, v = heapq.heappop(heap)
        if v != version[s]:
            continue
        rs = resident[s]
        rates = rate_of[len(rs)]
        elapsed = t - last[s]
        last[s] = t
        keep = []
        for item, r in zip(rs, rates, strict=True):
            cta = item[0]
            item[1] -= elapsed * r
            if item[1] <= 1e-9 * max(1.0, works[cta]):
                end[cta] = t
                bp_t[cta].append(t)
                bp_w[cta].append(works[cta])
            else:
                keep.append(item)
                if priority < 1.0:  # rates change here: a breakpoint
                    bp_t[cta].append(t)
                    bp_w[cta].append(works[cta] - item[1])
        freed = len(rs) - len(keep)
        resident[s] = keep
        for _ in range(freed):
            if nxt < n:
                place(s, t)
        schedule(s, t)
    offsets = np.zeros(n + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(b) for b in bp_t])
    times = np.fromiter((x for b in bp_t for x in b), float, int(offsets[-1]))
    done = np.fromiter((x for b in bp_w for x in b), float, int(offsets[-1]))
    return Progress(start, end, times, done, offsets)


def linear(start: np.ndarray, end: np.ndarray, works: np.ndarray) -> Progress:
    """CTAs that ran from ``start`` to ``end`` (dispatched evenly, or measured), each doing
    its ``works`` at a steady rate in between."""
    n = start.size
    times = np.column_stack([start, end]).ravel()
    done = np.column_stack([np.zeros(n), works]).ravel()
    return Progress(start, end, times, done, np.arange(0, 2 * n + 1, 2, dtype=np.int64))


def _even(works: np.ndarray, slots: int) -> Progress:
    """Even shares: every CTA runs its work from its start at rate 1, in the slot that frees
    first (the same dispatch as :func:`run`'s, without its events)."""
    n = works.size
    start, end = np.empty(n), np.empty(n)
    free = [0.0] * slots
    for i in range(n):
        s = heapq.heappop(free)
        start[i], end[i] = s, s + works[i]
        heapq.heappush(free, end[i])
    return linear(start, end, works)


def generation_spreads(start: np.ndarray, end: np.ndarray, slots: int) -> np.ndarray:
    """How far the CTAs of each generation (``slots`` consecutive CTAs in launch order) start
    apart: the 10th-90th percentile of their starts over the median CTA life (kv_walk's
    measure, :func:`gpusim.calibrate.kv_walk.drift`)."""
    life = float(np.median(end - start))
    g = start.size // slots
    s = start[: g * slots].reshape(g, slots)
    return (np.percentile(s, 90, axis=1) - np.percentile(s, 10, axis=1)) / life


def priority_at(
    points: tuple[tuple[int, float, float], ...], ctas_per_sm: int, step_s: float
) -> tuple[float, bool]:
    """The priority at a CTA's tile step ``step_s`` with ``ctas_per_sm`` (1 alone on an SM)
    from measured ``(CTAs per SM, step s, priority)`` points: linear in log step time between
    the two points around it, the nearest point's outside them; and whether ``step_s`` was
    outside. No point at that many CTAs per SM: ValueError (the drift is unmeasured there)."""
    if ctas_per_sm <= 1:
        return 1.0, False
    pts = sorted((step, q) for c, step, q in points if c == ctas_per_sm)
    if not pts:
        raise ValueError(f"SM-mate drift not measured at {ctas_per_sm} CTAs per SM")
    xs = np.log([x for x, _ in pts])
    ys = np.array([y for _, y in pts])
    x = float(np.log(step_s))
    return float(np.interp(x, xs, ys)), not xs[0] <= x <= xs[-1]
