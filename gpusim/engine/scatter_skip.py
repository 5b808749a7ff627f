"""Grids out of lockstep: once the CTA rate is steady, shorten the grid and extrapolate.

Why. With the profile's CTA time scatter (kernel_run.py) the CTAs of a wave finish apart,
and the aggregated path splits the SMs into strata that drift apart (so does a lumped
causal grid: ``LUMP_STRATA``). The whole GPU then never frees at once, so the exact
wave skip of :mod:`gpusim.engine.kernel_run` never fires, and the scatter's draws never
recur, so no two stretches of the run are the same in every bit: every wave of every
candidate in ``tune`` and every run of ``validate`` was simulated. Streaming kernels have
a skip of their own (:mod:`gpusim.engine.stream_skip`); this one is for the rest.

What. The grid is periodic: every ``period`` CTAs (whole batch-heads, whole GQA groups,
two batch-heads where a lumped grid alternates its classes by batch-head parity) are the
same blocks with the same programs. After :data:`WARM_WAVES` waves the engine marks, at
each wave of dispatches, the SimPy time and the counters. Its rate is the CTAs done per
tick, a CTA in flight counted by the share of its life behind it (so waves do not
quantise it), read at marks no later than the start of any live group (so every CTA
before them has finished). Once the two halves of the last ``2 * HALF_WAVES`` waves agree
within :data:`TIME_TOLERANCE` in that rate (and within :data:`SHARE_TOLERANCE` in the
share of SM-to-L2 bytes that reached DRAM: no change of regime), the run is in a
statistical steady state, and the engine takes ``M`` CTAs off the END of the grid,
``M`` a multiple of both the period and the wave (the CTAs in flight and those still to
come keep their batch-heads, so the L2 sees exactly the tiles the continued run would,
and the grid ends at the same point of a wave, so its tail is the same), leaving at
least :data:`TAIL_WAVES` waves beside the CTAs in flight to be simulated. For the ``M``
CTAs left out it adds:

- exact work counters and SM-to-L2 bytes: ``M / period`` times one period's (the class
  plans' totals, as ``KernelRun`` counts them);
- time: ``M`` times the window's ticks per CTA (its mean over ``2 * HALF_WAVES`` waves of
  an equidistributed scatter);
- DRAM bytes, when the kernel ends: those SM-to-L2 bytes times the share that reached
  DRAM from the first mark to the kernel's end (reads and writes apart): the longest
  stretch simulated, as a batch-head's misses come in bursts that a short one would
  catch a part of.

The approximation: the window's rate and the run's DRAM share stand for the CTAs left
out.
Measured against the run without skips (``extrapolate=False``) on a spread of cases:
``benchmarks/bench_scatter_skip.py``, tests/engine/test_scatter_skip.py, docs/limits.md.
"""

from __future__ import annotations

import math
from dataclasses import astuple, fields
from typing import TYPE_CHECKING

from gpusim.engine.counters import Counters

if TYPE_CHECKING:
    from gpusim.engine.cta_group import CtaGroup
    from gpusim.engine.kernel_run import KernelRun

#: Off: every grid out of lockstep runs to its end (the reference the cut is measured
#: against; ``extrapolate=False`` also turns off lumping, so it cannot serve).
ENABLED = True
#: Waves simulated before the watch starts (the first waves start in lockstep and blur).
WARM_WAVES = 6
#: Waves in each half of the watched window.
HALF_WAVES = 4
#: The two halves' CTAs per tick agree within this share.
TIME_TOLERANCE = 0.003
#: The two halves' DRAM shares of SM-to-L2 bytes agree within this share of each other
#: (loose: a batch-head's misses come in bursts; it catches a change of regime).
SHARE_TOLERANCE = 0.05
#: Waves always simulated after the cut besides the CTAs in flight.
TAIL_WAVES = 1
#: Grids of fewer waves are run out: the cut's error is about a tenth of a wave (the
#: tail forms from SMs less far apart than at the grid's true end), too much of a short
#: grid (0.8 % on a 21-wave causal grid, 1 % on a 15-wave one), and it would save little.
MIN_GRID_WAVES = 30
_C = [f.name for f in fields(Counters)]
_GR, _GW, _DR, _DW = (_C.index(n) for n in ("global_read_bytes", "global_write_bytes",
                                             "dram_read_bytes", "dram_write_bytes"))  # fmt: skip


def period_ctas(run: KernelRun) -> int:
    """CTAs of one period of the grid: the same blocks with the same programs again."""
    grid = run.grid
    return grid.blocks_per_bh * run.kv_group * (2 if grid.lump_end and grid.lump_by_bh else 1)


def period_counters(run: KernelRun) -> Counters:
    """The work counters and SM-to-L2 bytes of one period (whole batch-heads) of ``run``,
    each CTA from its own class's plan, as ``KernelRun._count_work`` and the groups' reads
    and writes count them; DRAM bytes left at 0."""
    grid, plans = run.grid, run.plans
    c = Counters()
    bhs = period_ctas(run) // grid.blocks_per_bh
    for b in range(grid.blocks_per_bh):
        p = plans[grid.block_class(b)]
        t = p.totals
        c.ctas += bhs
        c.mma_flops += bhs * t["mma_flops"]
        c.fp32_ops += bhs * t["fp32_ops"]
        c.exp_ops += bhs * t["exp_ops"]
        c.smem_traffic_bytes += bhs * t["smem_bytes"]
        c.smem_fill_bytes += bhs * t["smem_fill_bytes"]
        c.barriers += bhs * t["barriers"]
        c.global_read_bytes += bhs * sum(ch.read_bytes for ch in p.chunks)
        c.global_write_bytes += bhs * sum(ch.write_bytes for ch in p.chunks)
    return c


def _share(a: tuple, b: tuple, dram: int, glob: int) -> float:
    """The share of SM-to-L2 bytes (counter ``glob``) that reached DRAM between two marks."""
    moved = b[glob] - a[glob]
    return (b[dram] - a[dram]) / moved if moved else 0.0


def super_period(run: KernelRun, slots: int) -> int:
    """CTAs after which the grid, the waves and the SM groups' dispatches all line up: the
    least common multiple of the period, the slots and the SM groups' sizes (a dispatch hands
    an SM group as many CTAs as it has SMs, so which batch-heads share a group repeats
    only with it). Taken once, at the first mark: the groups a grid splits into later
    (lumped grids at batch-heads' ends) do not move it."""
    return math.lcm(period_ctas(run), slots, *(g.size for g in run.sm_groups))


def cut_ctas(left: int, slots: int, step: int) -> int:
    """CTAs the cut takes off the end of a grid with ``left`` CTAs still to dispatch: whole
    super-periods of ``step`` CTAs, keeping :data:`TAIL_WAVES` waves of ``slots`` beside the
    CTAs in flight (0: too little grid left to cut)."""
    return max(0, (left - (TAIL_WAVES + 1) * slots) // step * step)


class ScatterSkip:
    """Watches one kernel's dispatches and makes the one cut (see the module)."""

    __slots__ = ("at_cta", "base", "base_groups", "base_tick", "done", "finished", "marks",
                 "next_mark", "run", "slots", "step", "warm_ctas")  # fmt: skip

    def __init__(self, run: KernelRun, warm_share: float = 0.0, min_waves: int = MIN_GRID_WAVES):
        self.run = run
        self.slots = run.ctas_per_sm * run.sim.rates.sm_count
        #: CTAs dispatched before the watch starts: WARM_WAVES waves, or ``warm_share`` of
        #: the grid where that is more (a long grid's slow drift, see KernelRun.start)
        waves = max(WARM_WAVES, math.ceil(warm_share * run.grid.total / max(self.slots, 1)))
        self.warm_ctas = waves * self.slots
        #: (SimPy tick, counters, lumped by batch-head, CTAs dispatched) at each wave
        self.marks: list[tuple[int, tuple, bool]] = []
        #: CTAs dispatched at every dispatch after the warm-up
        self.at_cta: set[int] = set()
        #: (start tick, end tick, CTAs, first CTA, DRAM bytes read, written) of every CTA
        #: group finished while watching
        self.finished: list[tuple[int, int, int]] = []
        #: the first ``base_groups`` of ``finished``, all ended by ``base_tick``: ``base`` CTAs
        self.base, self.base_groups, self.base_tick = 0.0, 0, 0
        self.next_mark = self.warm_ctas
        self.done = self.slots <= 0 or run.grid.total < min_waves * self.slots
        self.step = 0  # the super-period, once the SM groups are made

    def group_done(self, g: CtaGroup) -> None:
        """CTA group ``g`` has just finished."""
        if not self.done:
            now = self.run.sim.env.now
            self.finished.append((g.start_tick, now, g.members, min(g.starts), *g.dram))

    def _progress(self, ticks: tuple[int, ...]) -> list[float]:
        """CTAs done by each of ``ticks`` (each no later than the start of any live group),
        a CTA in flight counted by the share of its life behind it: no wave quantisation."""
        # ``finished`` is in order of end tick. Groups that ended by the earliest tick count
        # whole at every tick: their sum is kept (added in the same order, so the floats are
        # the same) and only the later groups are walked, or a long watch costs the square
        # of its groups (22 s of a 4M-token causal grid's 57).
        first = min(ticks)
        if first < self.base_tick:
            self.base, self.base_groups, self.base_tick = 0.0, 0, 0
        fin = self.finished
        i, base = self.base_groups, self.base
        while i < len(fin) and fin[i][1] <= first:
            base += fin[i][2]
            i += 1
        self.base, self.base_groups, self.base_tick = base, i, first
        out = [base] * len(ticks)
        for s, e, n, *_ in fin[i:]:
            for i, t in enumerate(ticks):
                if t >= e:
                    out[i] += n
                elif t > s:
                    out[i] += n * (t - s) / (e - s)
        return out

    def at_dispatch(self) -> None:
        """Before a dispatch hands out CTAs: mark; at a new wave, cut once steady."""
        run = self.run
        if self.done or run.next_cta < self.warm_ctas:
            return
        if run.waves_skipped:  # the exact skip fired (lockstep after all): nothing to do
            self._stop()
            return
        self.at_cta.add(run.next_cta)
        if run.next_cta < self.next_mark:
            return
        step = self.step = self.step or super_period(run, self.slots)
        skip = cut_ctas(run.end_cta - run.next_cta, self.slots, step)
        if skip <= 0:
            self._stop()  # too little grid left to ever cut (a long causal grid's period)
            return
        self.next_mark = (run.next_cta // self.slots + 1) * self.slots
        now = run.sim.env.now
        self.marks.append((now, astuple(run.counters), run.grid.lump_by_bh, run.next_cta))
        # Marks before the start of the oldest live group: every CTA dispatched before them
        # has finished, so the progress at them, and their CTAs' DRAM bytes, are known.
        live = [g.start_tick for smg in run.sm_groups for g in smg.slots if g is not None]
        settled = min(live, default=now + 1)
        usable = [m for m in self.marks if m[0] < settled]
        if len(usable) < 2 * HALF_WAVES + 1:
            return
        a, m, b = usable[-2 * HALF_WAVES - 1], usable[-HALF_WAVES - 1], usable[-1]
        if not (a[2] == m[2] == b[2]) or not (a[0] < m[0] < b[0]):
            return  # the lumped grid changed how it lumps inside the window
        fa, fm, fb = self._progress((a[0], m[0], b[0]))
        first, second = (fm - fa) / (m[0] - a[0]), (fb - fm) / (b[0] - m[0])
        if abs(second - first) > TIME_TOLERANCE * first:
            return
        for dram, glob in ((_DR, _GR), (_DW, _GW)):
            s1, s2 = _share(a[1], m[1], dram, glob), _share(m[1], b[1], dram, glob)
            if abs(s2 - s1) > SHARE_TOLERANCE * max(s1, s2):
                return
        # DRAM bytes of whole super-periods of CTAs, [n_b - k * step, n_b), all finished:
        # the groups dispatched from one dispatch to another caused them, whatever the time.
        n = b[3]
        back = next((k for k in range(n // step, 0, -1) if n - k * step in self.at_cta), 0)
        if back == 0:
            return
        lo = n - back * step
        got = [f for f in self.finished if lo <= f[3] < n]
        dram = (sum(f[4] for f in got) / back, sum(f[5] for f in got) / back)
        self._cut(skip, (b[0] - a[0]) / (fb - fa), dram)
        self._stop()

    def _stop(self) -> None:
        self.done = True
        self.marks, self.finished, self.at_cta = [], [], set()
        self.base, self.base_groups, self.base_tick = 0.0, 0, 0

    def _cut(self, skip: int, ticks_per_cta: float, dram_per_step: tuple[float, float]) -> None:
        run = self.run
        periods = skip // period_ctas(run)
        per = period_counters(run)
        c = run.counters
        for f in _C:
            setattr(c, f, getattr(c, f) + periods * getattr(per, f))
        steps = skip // self.step
        c.dram_read_bytes += round(steps * dram_per_step[0])
        c.dram_write_bytes += round(steps * dram_per_step[1])
        run.sim.skipped_ticks += round(skip * ticks_per_cta)
        run.end_cta -= skip
        run.waves_skipped += skip // self.slots
