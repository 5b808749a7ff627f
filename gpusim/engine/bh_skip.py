"""Batch-head extrapolation: skip the steady middle of a kernel whose CTAs all differ (causal).

Why. The wave skip of :mod:`gpusim.engine.kernel_run` needs the whole GPU to free
at once. In a causal grid every Q block has its own number of K/V steps, so
CTAs finish one by one, no wave boundary ever comes, and the aggregated path
runs every CTA on its own (16,384 CTAs and ~500,000 events for B8 H32 N4096).

What. Every batch-head of the grid is the same sequence of blocks, so the
kernel is invariant under renaming batch-head ``j`` to ``j + m``. Once the
dispatcher is past a warm-up, the engine measures how long the last two windows
of :func:`window_bh` batch-heads took to dispatch. When the two agree within
:data:`REL_TOLERANCE`, it jumps ``m`` batch-heads ahead: the CTAs in flight and
the L2's tiles are renamed to ``bh + m`` (the state the renaming symmetry says
the GPU would be in, if its steady state were exactly periodic), ``m`` times
the measured time per batch-head is added to the clock, and the counters are
advanced. The tail (the last :func:`reserve_bh` batch-heads at least) is
simulated as usual.

Exactness. Work counters (CTAs, FLOPs, FP32 and exp ops, shared-memory bytes,
barriers) and SM-to-L2 bytes of the skipped batch-heads are exact: they come
from the plans. The skipped time and DRAM bytes (as a share of the exact L2 bytes)
are extrapolated from the two measured windows: an approximation, within
about 0.3 % of the plain aggregated path on the tuning-proof candidates
measured (``benchmarks/bench_tune.py --proof-deviation`` measures it). Only
the aggregated path without a trace uses it, and only for kernels with many
timing classes (``KernelSpec.extrapolate_bh``).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import TYPE_CHECKING

from gpusim.engine.counters import Counters

if TYPE_CHECKING:
    from gpusim.engine.grid import Grid
    from gpusim.engine.l2_cache import L2Cache
    from gpusim.engine.plan import ClassPlan

#: Two windows whose dispatch times (and DRAM bytes) differ by at most this share agree.
REL_TOLERANCE = 0.003


def window_bh(blocks_per_bh: int, slots: int) -> int:
    """Batch-heads per measured window: enough that a window spans two GPU-fulls of CTAs."""
    return max(1, math.ceil(2 * slots / blocks_per_bh))


def reserve_bh(blocks_per_bh: int, slots: int) -> int:
    """Batch-heads always simulated at the end: two GPU-fulls of CTAs after the jump, so the
    tail (the last CTAs, and SMs that run out of work) forms from a simulated state."""
    return 2 * math.ceil(slots / blocks_per_bh) + 1


def per_bh_counters(grid: Grid, plans: list[ClassPlan]) -> Counters:
    """Exact work and SM-to-L2 bytes of one batch-head's CTAs (DRAM bytes left at 0)."""
    c = Counters()
    for b in range(grid.blocks_per_bh):
        p = plans[grid.block_class(b)]
        t = p.totals
        c.ctas += 1
        c.mma_flops += t["mma_flops"]
        c.fp32_ops += t["fp32_ops"]
        c.exp_ops += t["exp_ops"]
        c.smem_traffic_bytes += t["smem_bytes"]
        c.smem_fill_bytes += t["smem_fill_bytes"]
        c.barriers += t["barriers"]
        c.global_read_bytes += sum(ch.read_bytes for ch in p.chunks)
        c.global_write_bytes += sum(ch.write_bytes for ch in p.chunks)
    return c


def shift_l2(l2: L2Cache, m: int) -> None:
    """Rename every tile of batch-head ``bh`` in the L2 to ``bh + m`` (LRU order kept).

    Tile keys are ``(tensor, bh, ...)`` (:mod:`gpusim.engine.cta_group`); the cache's
    lines are rebuilt in place, so its size and dirty bytes do not change.
    """
    lines = l2._lines  # the cache knows nothing of batch-heads; the renaming is the engine's
    shifted = OrderedDict(((k[0], k[1] + m, *k[2:]), v) for k, v in lines.items())
    lines.clear()
    lines.update(shifted)


class BhMarks:
    """When the dispatcher reached each CTA index, and the DRAM bytes counted by then."""

    __slots__ = ("bpb", "done", "marks", "reserve", "slots", "window")

    def __init__(self, blocks_per_bh: int, slots: int):
        self.bpb = blocks_per_bh
        self.slots = slots
        self.window = window_bh(blocks_per_bh, slots)
        self.reserve = reserve_bh(blocks_per_bh, slots)
        self.marks: dict[int, tuple[int, int, int, int, int]] = {}
        self.done = False

    def jump(self, n: int, total: int, now: int, c: Counters) -> tuple[int, float, float, float]:
        """Record CTA ``n`` dispatched at ``now``; ``(m, ticks per bh, DRAM share of L2 reads,
        of L2 writes)`` to skip ``m`` batch-heads, or ``m = 0`` when the last two windows do
        not agree (or too little is left).
        """
        if self.done:
            return 0, 0.0, 0.0, 0.0
        self.marks[n] = (
            now,
            c.dram_read_bytes,
            c.dram_write_bytes,
            c.global_read_bytes,
            c.global_write_bytes,
        )
        span = self.window * self.bpb
        m = (total - n) // self.bpb - self.reserve
        if m < 1:
            self.done = True  # too close to the end: simulate the rest
            return 0, 0.0, 0.0, 0.0
        if n - 2 * span < self.slots:
            return 0, 0.0, 0.0, 0.0  # still in the first wave's transient
        a = self.marks.get(n - 2 * span)
        b = self.marks.get(n - span)
        if a is None or b is None:
            return 0, 0.0, 0.0, 0.0
        z = self.marks[n]
        for i in range(3):
            d1, d2 = b[i] - a[i], z[i] - b[i]
            if abs(d1 - d2) > REL_TOLERANCE * max(abs(d1), abs(d2)):
                return 0, 0.0, 0.0, 0.0
        self.done = True
        # DRAM bytes as a share of the SM-to-L2 bytes of the same lookups: the share of
        # the windows, applied to the exact L2 bytes of a batch-head (so DRAM never exceeds
        # them, and a kernel whose writes all reach DRAM keeps them exact).
        read_share = (z[1] - a[1]) / (z[3] - a[3]) if z[3] > a[3] else 0.0
        write_share = (z[2] - a[2]) / (z[4] - a[4]) if z[4] > a[4] else 0.0
        return m, (z[0] - a[0]) / (2 * self.window), read_share, write_share
