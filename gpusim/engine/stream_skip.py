"""Streaming kernels out of lockstep: skip the steady middle by the DRAM's work conservation.

Why. With the profile's CTA time scatter (kernel_run.py) identical CTAs drift apart, the
GPU never frees at once, and the wave skip of :mod:`gpusim.engine.kernel_run` never
applies: a kernel of very many short CTAs is simulated wave by wave (standard attention's
row softmax: 524,288 CTAs, 15,900 CTA groups, about a million events). Its state never
repeats either: the scatter's draws are an equidistributed sequence that does not recur,
so no period of waves is ever the same twice and no skip can be exact in every bit.

What. Such a kernel streams: each CTA reads and writes tiles of its own block only (no
tile another CTA reads), and every byte goes to DRAM. After :data:`WARM_WAVES` waves the
engine watches the last :data:`WINDOW_WAVES` waves at each wave boundary; once the DRAM
lane had work in flight all through them (busy without a break) and every byte they read
and wrote went to DRAM (the kernel being one class of CTAs), it jumps ``M`` CTAs ahead,
leaving :data:`TAIL_WAVES` waves and the CTAs in flight to be simulated:

- the skipped CTAs' counters are exact, if their bytes miss as the window's did: ``M``
  times one CTA's work and bytes (the plan's totals; its DRAM bytes are its bytes);
- the skipped time is exact for a DRAM that stays busy: a busy processor-sharing lane
  serves its capacity every tick, so ``M`` CTAs' DRAM work (their bytes read and written,
  each times the kernel's cost of such a byte) takes that work over the lane's capacity,
  whatever the CTAs' order and pace (work conservation);
- the L2's clock of depths (``L2Cache.inserted``) moves on by the bytes the skipped CTAs
  brought in, so tiles from before the jump are as deep as they would be.

The one approximation: the CTAs in flight at the jump stand for those in flight ``M`` CTAs
later (the DRAM work queued at the two moments is taken as equal). The difference is at
most the DRAM work of the CTAs in flight, a fraction of one wave, against the hundreds of
waves skipped. What it changes on the recorded runs: docs/limits.md.
"""

from __future__ import annotations

from collections import deque
from dataclasses import astuple
from typing import TYPE_CHECKING

from gpusim.engine.counters import Counters

if TYPE_CHECKING:
    from gpusim.engine.kernel_run import KernelRun

#: Waves simulated before the watch starts (the first waves start in lockstep and blur).
WARM_WAVES = 4
#: Waves in the watched window: the DRAM never idled in the last this many.
WINDOW_WAVES = 4
#: Waves always simulated after the jump, so the tail forms from a simulated state.
TAIL_WAVES = 2
#: The memory server's DRAM lane (sim.py: lane 0 is SM-to-L2 bandwidth, lane 1 DRAM).
DRAM_LANE = 1


def applies(run: KernelRun) -> bool:
    """Whether ``run`` is a streaming kernel the skip may watch: aggregated, out of lockstep
    (the profile's scatter), one class of CTAs, and no tile read or written by two CTAs."""
    if not run.aggregated or run.rates.cta_scatter <= 0 or len(run.plans) != 1:
        return False
    refs = [r for c in run.plans[0].chunks for r in c.reads + c.writes]
    return not run.grid.mixed and all(r.own_rows for r in refs)


def per_cta_counters(run: KernelRun) -> Counters:
    """One CTA's counters, DRAM bytes equal to its bytes (every byte misses)."""
    plan = run.plans[0]
    t = plan.totals
    read = sum(ch.read_bytes for ch in plan.chunks)
    write = sum(ch.write_bytes for ch in plan.chunks)
    return Counters(
        ctas=1,
        global_read_bytes=read,
        global_write_bytes=write,
        dram_read_bytes=read,
        dram_write_bytes=write,
        mma_flops=t["mma_flops"],
        fp32_ops=t["fp32_ops"],
        exp_ops=t["exp_ops"],
        smem_traffic_bytes=t["smem_bytes"],
        barriers=t["barriers"],
        smem_fill_bytes=t["smem_fill_bytes"],
    )


class StreamSkip:
    """Watches one streaming kernel's dispatches and makes the one jump (see the module)."""

    __slots__ = ("done", "marks", "run", "slots", "waves_seen")

    def __init__(self, run: KernelRun):
        self.run = run
        self.slots = run.ctas_per_sm * run.sim.rates.sm_count
        self.waves_seen = 0
        #: at the last wave boundaries: the DRAM lane's idle ticks, and the bytes read and
        #: written that did not go to DRAM (L2 hits, rewrites of dirty tiles)
        self.marks: deque[tuple[int, int, int]] = deque(maxlen=WINDOW_WAVES + 1)
        self.done = self.slots <= 0

    def at_dispatch(self) -> None:
        """Before a dispatch hands out CTAs: at a wave boundary, jump if the last
        :data:`WINDOW_WAVES` waves kept the DRAM busy and sent it every byte; else watch on."""
        run = self.run
        waves = run.next_cta // self.slots
        if self.done or waves == self.waves_seen:
            return
        self.waves_seen = waves
        if waves < WARM_WAVES:
            return
        c = run.counters
        idle = run.sim.memory.lanes[DRAM_LANE].idle
        kept = (c.global_read_bytes - c.dram_read_bytes, c.global_write_bytes - c.dram_write_bytes)
        self.marks.append((idle, *kept))
        if len(self.marks) <= WINDOW_WAVES or self.marks[-1] != self.marks[0]:
            return  # not watched long enough, or the DRAM idled or a byte hit in the window
        left = run.end_cta - run.next_cta
        skip = (left // self.slots - TAIL_WAVES) * self.slots
        if skip >= self.slots:
            self._jump(skip, run.sim.memory.lanes[DRAM_LANE].capacity)
        self.done = True

    def _jump(self, skip: int, capacity_per_tick: float) -> None:
        run = self.run
        per = per_cta_counters(run)
        c = run.counters
        for f, d in zip(c.__dataclass_fields__, astuple(per), strict=True):
            setattr(c, f, getattr(c, f) + skip * d)
        dram_bytes = skip * (per.dram_read_bytes + per.dram_write_bytes)
        work = skip * (
            per.dram_read_bytes * run.dram_read_cost + per.dram_write_bytes * run.dram_write_cost
        )
        run.sim.skipped_ticks += round(work / capacity_per_tick)
        run.sim.l2.inserted += dram_bytes
        run.next_cta += skip
        run.waves_skipped += skip // self.slots
